/**
 * A private containerd for tests, benchmarks and `pnpm start --private-containerd`: scripts/containerd/up.sh starts it
 * under its own directory (own socket, state, CNI bridge, images built from busybox-static), down.sh removes
 * every trace of it. Root only.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const scripts = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'scripts', 'containerd');

export interface PrivateContainerd {
  dir: string;
  endpoint: string;
  stop(): Promise<void>;
}

export async function startPrivateContainerd(dir: string): Promise<PrivateContainerd> {
  const { stdout } = await run('bash', [join(scripts, 'up.sh'), dir], { timeout: 120_000 });
  const endpoint = stdout.trim().split('\n').pop() ?? '';
  if (!endpoint.startsWith('unix://')) throw new Error(`up.sh printed no endpoint: ${stdout}`);
  return {
    dir,
    endpoint,
    stop: async () => {
      await run('bash', [join(scripts, 'down.sh'), dir], { timeout: 120_000 });
    },
  };
}

/** Stops containerd (SIGTERM) but keeps its state, so a later restart finds the running pods (outage tests). */
export async function pauseContainerd(dir: string): Promise<void> {
  await run('bash', [
    '-c',
    `kill $(cat ${dir}/containerd.pid); for i in $(seq 1 50); do kill -0 $(cat ${dir}/containerd.pid) 2>/dev/null || exit 0; sleep 0.1; done`,
  ]);
}

export async function resumeContainerd(dir: string): Promise<void> {
  await run('bash', [join(scripts, 'up.sh'), dir], { timeout: 120_000 });
}

export function canRunContainerd(): boolean {
  return process.getuid?.() === 0;
}
