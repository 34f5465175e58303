/**
 * A fake Engine for the server's unit tests: keeps pods in a map, records what it was asked, and marks a
 * deleted pod with deletionTimestamp as the Kubelet does (it stays listed until `finishTermination`).
 * Also the pods the route tests and benches serve, and their container log files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AdmittedPod, admittedPod } from '@syncscope/core';
import { type Container, type Event, type Pod, rfc3339 } from '@syncscope/core/api';
import type { PassiveClock } from '@syncscope/core/clock';
import { defaultKubeletConfiguration, type NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { Engine } from './engine.ts';

export class FakeEngine implements Engine {
  readonly pods = new Map<string, AdmittedPod>();
  readonly deletes: { uid: string; gracePeriodSeconds: number | undefined }[] = [];
  events: Event[] = [];

  constructor(private readonly clock: PassiveClock) {}

  addPod(input: Pod): void {
    const pod = admittedPod(input);
    this.pods.set(pod.metadata.uid, { ...pod, status: { phase: 'Pending' } });
  }

  updatePod(input: Pod): void {
    const pod = admittedPod(input);
    const old = this.pods.get(pod.metadata.uid);
    this.pods.set(pod.metadata.uid, { ...pod, status: old?.status ?? { phase: 'Pending' } });
  }

  deletePod(uid: string, gracePeriodSeconds?: number): void {
    this.deletes.push({ uid, gracePeriodSeconds });
    const pod = this.pods.get(uid);
    if (!pod) return;
    const grace = gracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    pod.metadata = {
      ...pod.metadata,
      deletionTimestamp: rfc3339(this.clock.now() + grace * 1000),
      deletionGracePeriodSeconds: grace,
    };
  }

  finishTermination(uid: string): void {
    this.pods.delete(uid);
  }

  getPods(): AdmittedPod[] {
    return [...this.pods.values()];
  }

  getPod(namespace: string, name: string): AdmittedPod | undefined {
    return this.getPods().find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
  }

  getPodByUID(uid: string): AdmittedPod | undefined {
    return this.pods.get(uid);
  }

  getEvents(): Event[] {
    return this.events;
  }

  nodeInfo(): NodeInfo {
    return {
      nodeName: 'fake',
      runtime: { name: 'fake', version: '0', apiVersion: 'v1', endpoint: 'fake://', ready: true, errors: [] },
      simulated: true,
      pleg: { mode: 'generic', healthy: true, lastRelist: null, message: '' },
      sync: { lastIteration: null },
      configuration: defaultKubeletConfiguration,
      clock: { now: this.clock.now(), speed: 1 },
    };
  }
}

/** Pod default/`name`, with one container `app` (busybox) unless `containers` says otherwise. */
export function testPod(
  name: string,
  uid: string,
  containers: Container[] = [{ name: 'app', image: 'busybox' }],
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid },
    spec: { containers },
  };
}

/** Adds `pod` to the engine with every container running since `startedAt`, as a started pod reports. */
export function addRunningPod(engine: FakeEngine, pod: Pod, startedAt: string): void {
  const admitted = admittedPod(pod);
  engine.addPod(admitted);
  (engine.getPodByUID(admitted.metadata.uid) as Pod).status = {
    phase: 'Running',
    containerStatuses: admitted.spec.containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready: true,
      restartCount: 0,
      state: { running: { startedAt } },
      lastState: {},
    })),
  };
}

/**
 * Writes container `app`'s first log file (`0.log`, CRI format) of pod default/`name` under `podLogsDirectory`,
 * where the kubelet keeps it (`<namespace>_<name>_<uid>/<container>/`); returns its path.
 */
export function writeContainerLog(podLogsDirectory: string, name: string, uid: string, text = ''): string {
  const dir = join(podLogsDirectory, `default_${name}_${uid}`, 'app');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '0.log');
  writeFileSync(file, text);
  return file;
}
