/**
 * The floor: a bare CRI script doing what the engine must do to start a pod (RunPodSandbox → CreateContainer →
 * StartContainer) with the same configs in spirit (labels, log paths, namespace options), and nothing else —
 * no status reads, no image checks, no bookkeeping. Also the teardown every run ends with.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerConfig, PodSandboxConfig, RemoteRuntime } from '@syncscope/core/cri';
import {
  containerConfig as emptyContainerConfig,
  imageSpec,
  linuxContainerSecurityContext,
  namespaceOption,
} from '@syncscope/core/cri';
import { plainSandboxConfig } from '@syncscope/core/testing/foreign-sandbox';

function sandboxConfig(name: string, uid: string, hostNetwork: boolean, logRoot: string): PodSandboxConfig {
  const logDirectory = join(logRoot, `default_${name}_${uid}`);
  mkdirSync(logDirectory, { recursive: true });
  return plainSandboxConfig({ name, uid, namespace: 'default', hostNetwork, logDirectory });
}

function containerConfig(name: string, script: string): ContainerConfig {
  return emptyContainerConfig({
    metadata: { name, attempt: 0 },
    image: imageSpec({ image: 'docker.io/library/busybox:latest' }),
    command: ['sh', '-c', script],
    labels: { 'io.kubernetes.container.name': name },
    log_path: `${name}/0.log`,
    linux: {
      resources: null,
      security_context: linuxContainerSecurityContext({
        namespace_options: namespaceOption({ network: 'POD', pid: 'CONTAINER', ipc: 'POD' }),
      }),
    },
  });
}

/** Runs `n` jobs on `concurrency` async workers; resolves with each job's wall time in ms. */
async function pool(n: number, concurrency: number, job: (i: number) => Promise<void>): Promise<number[]> {
  const times: number[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const t0 = performance.now();
      await job(i);
      times[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return times;
}

export interface RawRun {
  wallMs: number;
  perPodMs: number[];
}

/** Starts `n` one-container pods with bare CRI calls at `concurrency`. */
export async function rawBringUp(
  cri: RemoteRuntime,
  opts: {
    n: number;
    concurrency: number;
    hostNetwork: boolean;
    logRoot: string;
    prefix: string;
    containers?: number;
  },
): Promise<RawRun> {
  const t0 = performance.now();
  const perPodMs = await pool(opts.n, opts.concurrency, async (i) => {
    const name = `${opts.prefix}-${i}`;
    const sb = sandboxConfig(name, `${opts.prefix}-uid-${i}`, opts.hostNetwork, opts.logRoot);
    const id = await cri.runPodSandbox(sb);
    for (let c = 0; c < (opts.containers ?? 1); c++) {
      const cid = await cri.createContainer(id, containerConfig(`c${c}`, 'sleep 3600'), sb);
      await cri.startContainer(cid);
    }
  });
  return { wallMs: performance.now() - t0, perPodMs };
}

/** Stops and removes every sandbox the runtime holds (their containers go with them). */
export async function removeAllSandboxes(cri: RemoteRuntime, concurrency = 4): Promise<number> {
  const sandboxes = await cri.listPodSandbox();
  await pool(sandboxes.length, concurrency, async (i) => {
    const id = (sandboxes[i] as { id: string }).id;
    await cri.stopPodSandbox(id).catch(() => undefined);
    await cri.removePodSandbox(id).catch(() => undefined);
  });
  return sandboxes.length;
}
