/**
 * What the import benchmarks (P14, P15) share: a kubelet log of a given size (the sample logs repeated and
 * re-stamped, kubelet-log-gen.ts, cut to the byte) in a temp dir, the HTTP app (createHttpApp: the real
 * routes, the imports store under that dir) over an engine stand-in in this process, and the upload of the
 * log to POST /api/v1/imports.
 */
import { execFile } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { createHttpApp } from '@syncscope/server/http';
import { FakeEngine } from '@syncscope/server/testing';
import { writeBigLog } from './kubelet-log-gen.ts';

/** The server's upload limit for an import (apps/server/src/imports/store.ts MAX_IMPORT_BYTES). */
const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

export interface ImportBench {
  /** The app's address, listening on 127.0.0.1. */
  base: string;
  /** The kubelet log to upload. */
  logPath: string;
  /** Its size: the upload limit, 2 MiB at smoke size. */
  bytes: number;
  /** Closes the app and removes the temp dir. */
  close(): Promise<void>;
}

/** Writes the log and starts the app; the caller closes it (in a finally). */
export async function startImportBench(prefix: string, smoke: boolean): Promise<ImportBench> {
  const bytes = smoke ? 2 * 1024 * 1024 : MAX_IMPORT_BYTES;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const logPath = join(dir, 'kubelet.log');
  await writeBigLog(logPath, bytes);
  truncateSync(logPath, bytes);
  const clock = new RealClock();
  const app = await createHttpApp({
    engine: new FakeEngine(clock),
    trace: new TraceRecorder(clock),
    clock,
    importsDir: join(dir, 'imports'),
  });
  const close = async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    return { base, logPath, bytes, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** POSTs the file as an import named `name`; resolves with the status and the answer's text. */
export function uploadImport(
  base: string,
  path: string,
  name: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/v1/imports?name=${name}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'content-length': statSync(path).size },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

// the upload of uploadImport as a program of its own: argv base, path, name; prints {status, text} as JSON
const UPLOADER = `
const { request } = require('node:http');
const { createReadStream, statSync } = require('node:fs');
const [base, path, name] = process.argv.slice(1);
const req = request(base + '/api/v1/imports?name=' + name, {
  method: 'POST',
  headers: { 'content-type': 'text/plain', 'content-length': statSync(path).size },
});
req.on('response', (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (d) => { text += d; });
  res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, text })));
});
req.on('error', (e) => { console.error(e.message); process.exit(1); });
createReadStream(path).pipe(req);
`;

/**
 * uploadImport from another process, as a real client is: the server's process then holds only what the
 * server does with the upload (its socket reads), not the client's file reads and socket writes.
 */
export function uploadImportFromChild(
  base: string,
  path: string,
  name: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', UPLOADER, base, path, name],
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`the upload failed: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout) as { status: number; text: string });
      },
    );
  });
}
