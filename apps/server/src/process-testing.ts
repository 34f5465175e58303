/**
 * Test support for the tests that run a command of ours in a child process (import-log, the data dir opener,
 * export-otlp in test/e2e): what it printed and how it ended.
 */
import type { ChildProcess } from 'node:child_process';

export interface ProcessOutput {
  code: number | null;
  out: string;
  err: string;
}

/**
 * All the child's stdout and stderr (spawned with both piped) and its exit code, once it has ended and closed
 * them; rejects if it could not be spawned.
 */
export function outputOf(child: ChildProcess): Promise<ProcessOutput> {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}
