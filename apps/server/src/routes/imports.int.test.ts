/**
 * The imports routes on a real server (buildApp on a fresh data dir, real HTTP over a loopback socket): a
 * real kubelet log posted, listed, paged like the live trace, one of its lines read back, kept across a
 * restart of the server, deleted; a gzip-compressed log; and the refusals (over 64 MiB, a wrong media type, ids that are not ids, a
 * full or read-only disk).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../app.ts';
import { MAX_IMPORT_BYTES } from '../imports/store.ts';

const SAMPLE = join(
  import.meta.dirname,
  '../../../../packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
);
/** The sample three times over. */
const LOG = Buffer.concat([readFileSync(SAMPLE), readFileSync(SAMPLE), readFileSync(SAMPLE)]);
/** The sample 18 times over: more events than one step of the store's index (1024). */
const MANY = Buffer.concat(Array.from({ length: 18 }, () => readFileSync(SAMPLE)));

let dataDir: string;
let built: BuiltApp;
let base: string;

async function start(): Promise<void> {
  built = await buildApp({ dataDir, examples: false, warn: () => {} });
  base = await built.app.listen({ port: 0, host: '127.0.0.1' });
}

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'syncscope-imports-'));
  await start();
});

afterEach(async () => {
  await built.close();
  await rm(dataDir, { recursive: true, force: true });
});

const post = (body: BodyInit, type = 'text/plain', name = 'node-a.log') =>
  fetch(`${base}/api/v1/imports?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
  });

interface Page {
  items: { seq: number; origin?: { line: number } }[];
  next: number;
  oldest: number;
  newest: number;
}

/** Sends `total` bytes of log lines in 1 MiB chunks (no Content-Length) and resolves with the status. */
function postChunked(total: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/v1/imports`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    const line = Buffer.from('I0820 20:41:02.641606    3312 kubelet.go:1906] "SyncLoop (housekeeping)"\n');
    const chunk = Buffer.concat(Array.from({ length: Math.ceil((1 << 20) / line.length) }, () => line));
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    req.on('close', () => {});
    pump();
  });
}

describe('imports', () => {
  // a restart of the whole server (a new node process), a parse thread started twice: seconds on a loaded machine
  it('keeps a posted log: listed, paged like the trace, its lines readable, kept across a restart, deleted', async () => {
    const res = await post(new Blob([MANY]));
    expect(res.status).toBe(201);
    const created = (await res.json()) as {
      id: string;
      name: string;
      summary: { events: number; nodes: string[]; size: number };
    };
    expect(created.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(created.name).toBe('node-a.log');
    expect(created.summary.size).toBe(MANY.length);
    expect(created.summary.nodes.length).toBeGreaterThan(0);
    const total = created.summary.events;
    expect(total).toBeGreaterThan(1_500);

    const list = (await (await fetch(`${base}/api/v1/imports`)).json()) as { items: { id: string }[] };
    expect(list.items.map((m) => m.id)).toEqual([created.id]);

    // pages of 1000 from 0 cover every seq once, in order, crossing the index's 1024-event steps
    const seqs: number[] = [];
    let since = 0;
    for (;;) {
      const page = (await (
        await fetch(`${base}/api/v1/imports/${created.id}/trace?since=${since}&limit=1000`)
      ).json()) as Page;
      expect(page.oldest).toBe(1);
      expect(page.newest).toBe(total);
      seqs.push(...page.items.map((e) => e.seq));
      if (page.items.length < 1000) {
        expect(page.next).toBe(total);
        break;
      }
      expect(page.next).toBe(page.items[page.items.length - 1]?.seq);
      since = page.next;
    }
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));

    // an event's origin line is the log's line, read back from the server
    const page = (await (
      await fetch(`${base}/api/v1/imports/${created.id}/trace?since=1499&limit=1`)
    ).json()) as Page;
    const ev = page.items[0];
    expect(ev?.seq).toBe(1500);
    const lineNo = ev?.origin?.line ?? 0;
    const lineRes = await fetch(`${base}/api/v1/imports/${created.id}/log?line=${lineNo}`);
    expect(lineRes.status).toBe(200);
    expect(await lineRes.text()).toBe(MANY.toString('utf8').split('\n')[lineNo - 1]);

    await built.close();
    await start();
    const again = (await (await fetch(`${base}/api/v1/imports/${created.id}`)).json()) as { events: number };
    expect(again.events).toBe(total);
    const del = await fetch(`${base}/api/v1/imports/${created.id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(((await del.json()) as { status: string }).status).toBe('Success');
    expect((await fetch(`${base}/api/v1/imports/${created.id}/trace`)).status).toBe(404);
    expect(((await (await fetch(`${base}/api/v1/imports`)).json()) as { items: unknown[] }).items).toEqual(
      [],
    );
  }, 30_000);

  it('reads two rotated files posted one after the other out of order in time order', async () => {
    // the sample's two slices (a 19-minute pause between them) as a rotated kubelet.log.1 and the kubelet.log
    // after it, posted newer first (`cat kubelet.log kubelet.log.1`)
    const lines = readFileSync(SAMPLE, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const cut = lines.findIndex((l) => l.startsWith('May 12 05:19:09'));
    const rotated = `${lines.slice(0, cut).join('\n')}\n`;
    const current = `${lines.slice(cut).join('\n')}\n`;
    const all = async (body: string) => {
      const res = await post(new Blob([body]));
      expect(res.status).toBe(201);
      const { id, summary } = (await res.json()) as { id: string; summary: { summary: { blocks?: number } } };
      const page = (await (await fetch(`${base}/api/v1/imports/${id}/trace?limit=100000`)).json()) as {
        items: { seq: number; type: string; time: number; origin?: { line: number } }[];
      };
      return { blocks: summary.summary.blocks, items: page.items, id };
    };
    const pasted = await all(current + rotated);
    const written = await all(rotated + current);
    expect(pasted.blocks).toBe(2);
    expect(written.blocks).toBeUndefined();
    const times = pasted.items.map((e) => e.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(pasted.items.map((e) => e.seq)).toEqual(pasted.items.map((_, i) => i + 1));
    expect(pasted.items.map((e) => [e.type, e.time])).toEqual(written.items.map((e) => [e.type, e.time]));
    // each event still points at its line of the log as posted
    const died = pasted.items.find((e) => e.type === 'pleg.event');
    const line = await fetch(`${base}/api/v1/imports/${pasted.id}/log?line=${died?.origin?.line}`);
    expect(await line.text()).toBe((current + rotated).split('\n')[(died?.origin?.line ?? 0) - 1]);
  });

  it('refuses a log over 64 MiB with a 413 Status and keeps nothing', async () => {
    expect(await postChunked(MAX_IMPORT_BYTES + 1024)).toBe(413);
    const big = await post(new Blob([new Uint8Array(MAX_IMPORT_BYTES + 1)]));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ kind: 'Status', code: 413, reason: 'RequestEntityTooLarge' });
    expect(await readdir(join(dataDir, 'imports'))).toEqual([]);
  }, 60_000);

  /**
   * A log posted in another form (gzip, UTF-16) is kept as the same log: its size (log.txt keeps the UTF-8 text),
   * what the importer read (against the plain log, posted too), its line 2.
   */
  async function keptAsTheSameLog(body: Buffer, name: string): Promise<void> {
    const res = await post(new Blob([new Uint8Array(body)]), 'text/plain', name);
    expect(res.status).toBe(201);
    type Meta = { id: string; summary: { size: number; summary: Record<string, unknown> } };
    const { id, summary } = (await res.json()) as Meta;
    const plain = (await (await post(new Blob([LOG]))).json()) as Meta;
    expect(summary.size).toBe(LOG.length);
    expect(summary.summary).toEqual(plain.summary.summary);
    const line = await (await fetch(`${base}/api/v1/imports/${id}/log?line=2`)).text();
    expect(line).toBe(LOG.toString('utf8').split('\n')[1]);
  }

  it('takes a gzip-compressed log as the same log; refuses a damaged one and one that inflates past 64 MiB', async () => {
    await keptAsTheSameLog(gzipSync(LOG), 'node-a.log.1.gz');

    const bad = await post(new Blob([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4])]));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(
      /^the body starts as gzip but cannot be inflated: \S/,
    );
    // 65 MiB of log lines in about 200 KB
    const line1 = Buffer.from('I0820 20:41:02.641606    3312 kubelet.go:1906] "SyncLoop (housekeeping)"\n');
    const bomb = gzipSync(Buffer.concat(Array(Math.ceil((65 << 20) / line1.length)).fill(line1)), {
      level: 9,
    });
    expect(bomb.length).toBeLessThan(1 << 20);
    const big = await post(new Blob([bomb]));
    expect(big.status).toBe(413);
    expect((await readdir(join(dataDir, 'imports'))).length).toBe(2);
  }, 60_000);

  it('takes UTF-16 text with a byte-order mark (as Windows PowerShell saves it) as the same log, kept as UTF-8', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(LOG.toString('utf8'), 'utf16le')]);
    await keptAsTheSameLog(le, 'node-a.log');
  });

  it('answers ids that are not ids, unknown ids and bad input with a Status', async () => {
    for (const id of ['nope', '..%2F..%2Fstore', 'A'.repeat(23), 'AAAAAAAAAAAAAAAAAAAAAA']) {
      for (const path of ['', '/trace', '/log?line=1']) {
        const res = await fetch(`${base}/api/v1/imports/${id}${path}`);
        expect(res.status, `${id}${path}`).toBe(404);
        expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
      }
      expect((await fetch(`${base}/api/v1/imports/${id}`, { method: 'DELETE' })).status).toBe(404);
    }
    expect((await post('x', 'application/json')).status).toBe(415);
    const none = await post('just some text\nof another program\n');
    expect(none.status).toBe(400);
    expect(((await none.json()) as { message: string }).message).toBe('no kubelet lines in 2 lines');
    const id = ((await (await post(new Blob([LOG]))).json()) as { id: string }).id;
    expect((await fetch(`${base}/api/v1/imports/${id}/trace?since=-1`)).status).toBe(400);
    expect((await fetch(`${base}/api/v1/imports/${id}/log?line=99999999`)).status).toBe(400);
    expect((await fetch(`${base}/api/v1/imports/${id}`, { method: 'PUT' })).status).toBe(405);
  });
});

describe('imports on a disk that refuses', () => {
  // a small tmpfs over the imports directory, filled or made read-only (mounting needs root; CI runs as root)
  it.skipIf(process.getuid?.() !== 0)(
    'answers 507 on a full disk and 503 on a read-only one, naming the cause, keeps nothing, then takes the log once the disk has room',
    async () => {
      const dir = join(dataDir, 'imports');
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir]);
      try {
        const { bavail, bsize } = await statfs(dir);
        const filler = join(dir, 'filler');
        await writeFile(filler, Buffer.alloc(bavail * bsize - 256 * 1024));
        const full = await post(new Blob([LOG]));
        expect(full.status).toBe(507);
        const fullStatus = (await full.json()) as { reason: string; message: string };
        expect(fullStatus.reason).toBe('InsufficientStorage');
        expect(fullStatus.message).toMatch(
          /^imports: cannot write \S+\/\.tmp-[A-Za-z0-9_-]{22}\/(log\.txt|trace\.ndjson): no space left on device$/,
        );
        expect(await readdir(dir)).toEqual(['filler']);

        execFileSync('mount', ['-o', 'remount,ro', dir]);
        const ro = await post(new Blob([LOG]));
        expect(ro.status).toBe(503);
        expect(await ro.json()).toMatchObject({
          reason: 'ServiceUnavailable',
          message: expect.stringMatching(/^imports: cannot write .*: read-only file system$/),
        });

        execFileSync('mount', ['-o', 'remount,rw', dir]);
        await rm(filler);
        const ok = await post(new Blob([LOG]));
        expect(ok.status).toBe(201);
        const { id } = (await ok.json()) as { id: string };
        expect(await readdir(dir)).toEqual([id]);
        expect((await fetch(`${base}/api/v1/imports/${id}/trace?limit=1`)).status).toBe(200);
        expect(
          ((await (await fetch(`${base}/api/v1/imports`)).json()) as { items: unknown[] }).items,
        ).toHaveLength(1);
      } finally {
        execFileSync('umount', [dir]);
      }
    },
    30_000,
  );
});

describe('imports with a token', () => {
  it('need the token to read or post a log', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'syncscope-imports-token-'));
    const withToken = await buildApp({
      dataDir: dir,
      examples: false,
      warn: () => {},
      token: 'a-long-enough-token-1234',
    });
    try {
      const url = await withToken.app.listen({ port: 0, host: '127.0.0.1' });
      expect((await fetch(`${url}/api/v1/imports`)).status).toBe(401);
      expect((await fetch(`${url}/api/v1/imports/AAAAAAAAAAAAAAAAAAAAAA/trace`)).status).toBe(401);
      const posted = await fetch(`${url}/api/v1/imports`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: LOG,
      });
      expect(posted.status).toBe(401);
      const auth = { authorization: 'Bearer a-long-enough-token-1234' };
      expect((await fetch(`${url}/api/v1/imports`, { headers: auth })).status).toBe(200);
    } finally {
      await withToken.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
