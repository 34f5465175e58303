/**
 * The access flags as `syncscope` is started: the real main.ts in its own process (tsx), on the simulated
 * node. A short token is refused before anything starts; --allowed-host adds a name to the Host check that a
 * token does not switch off; a runtime outage answers GET /api/v1/runtime/pods with 503, logged without a
 * stack.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const MAIN = join(ROOT, 'apps', 'server', 'src', 'main.ts');
const TOKEN = 'start-access-token-abcdef';

let children: ChildProcess[] = [];
let dirs: string[] = [];

afterEach(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await gone;
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  children = [];
  dirs = [];
});

interface Started {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

function start(args: string[], env: Record<string, string>): Started {
  const dataDir = mkdtempSync(join(tmpdir(), 'start-access-'));
  dirs.push(dataDir);
  const child = spawn(TSX, [MAIN, '--port', '0', '--data-dir', dataDir, '--no-examples', ...args], {
    env: { ...process.env, SYNCSCOPE_TOKEN: '', HOST: '', ALLOWED_HOSTS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout?.on('data', (d) => stdout.push(String(d)));
  child.stderr?.on('data', (d) => stderr.push(String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, stdout, stderr, exited };
}

/** Resolves with the base URL from the "Syncscope listening on" line (waits on stdout, not on time). */
function listening(s: Started): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    const check = () => {
      const m = /Syncscope listening on (http:\/\/\S+)/.exec(s.stdout.join(''));
      if (m?.[1]) {
        s.child.stdout?.off('data', check);
        resolveUrl(m[1]);
      }
    };
    s.child.stdout?.on('data', check);
    void s.exited.then((code) => reject(new Error(`exited ${code}: ${s.stderr.join('')}`)));
    check();
  });
}

function get(
  base: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolveRes, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolveRes({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('syncscope start', () => {
  it('refuses a token shorter than 16 characters with exit 2 and says why', async () => {
    const s = start([], { SYNCSCOPE_TOKEN: 'x' });
    expect(await s.exited).toBe(2);
    expect(s.stderr.join('')).toMatch(/SYNCSCOPE_TOKEN is 1 characters long; it must have at least 16/);
    expect(s.stdout.join('')).not.toContain('listening');
  }, 60_000);

  it('keeps the Host check with a token, allows --allowed-host names, and answers an outage with 503', async () => {
    const s = start(
      ['--host', '127.0.0.1', '--allowed-host', 'node1.example', '--allowed-host', 'node2.example'],
      {
        SYNCSCOPE_TOKEN: TOKEN,
        LOG_LEVEL: 'info',
      },
    );
    const base = await listening(s);
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await get(base, '/api/v1/pods', { host: 'node1.example:8080' })).status).toBe(401);
    expect((await get(base, '/api/v1/pods', { host: 'node2.example', ...auth })).status).toBe(200);
    expect((await get(base, '/healthz', { host: 'node1.example' })).status).toBe(200);
    const foreign = await get(base, '/api/v1/pods', { host: 'evil.example', ...auth });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden' });

    const outage = await get(
      base,
      '/api/v1/sim/faults',
      { ...auth, 'content-type': 'application/json' },
      'POST',
      JSON.stringify({ kind: 'outage', seconds: 60 }),
    );
    expect(outage.status).toBe(200);
    const pods = await get(base, '/api/v1/runtime/pods', auth);
    expect(pods.status).toBe(503);
    expect(JSON.parse(pods.body)).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
    const log = s.stdout.join('');
    expect(log).not.toContain('"level":50');
    expect(log).not.toContain('"stack"');
  }, 60_000);
});
