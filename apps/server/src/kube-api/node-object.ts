/**
 * The v1 Node this server's kubelet reports for itself, built as the kubelet's node status setters do
 * (pkg/kubelet/nodestatus/setters.go, kubelet_node_status.go):
 *   - conditions: MemoryPressure, DiskPressure, PIDPressure (always the "has sufficient"/"no pressure"
 *     answers: there is no eviction manager here) and Ready: True "KubeletReady" / "kubelet is posting
 *     ready status", or False "KubeletNotReady" with the runtime errors in the kubelet's words ("container
 *     runtime is down", "PLEG is not healthy: pleg was last seen active …"), one error as itself, several
 *     as "[a, b]" (utilerrors.NewAggregate). lastTransitionTime moves only when the status changes.
 *   - capacity: cpu and memory of this machine, pods = maxPods; allocatable: memory less the kubelet's
 *     default hard eviction threshold (memory.available<100Mi), the rest as capacity.
 *   - addresses: the first non-loopback IPv4 of the machine as InternalIP (else 127.0.0.1), the node name as
 *     Hostname.
 *   - nodeInfo: kernel, OS image (/etc/os-release), machine and boot IDs, `<runtime name>://<version>`
 *     from CRI Version, the kubelet version the engine models.
 *
 * NodeObject.get() is called from request handlers: synchronous, reads only what the engine already holds
 * and what was read from the machine at construction.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { arch, cpus, networkInterfaces, release, totalmem } from 'node:os';
import { rfc3339 } from '@syncscope/core/api';
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';

/** The kubelet release the engine is modelled on (docs/components.md). */
export const KUBELET_VERSION = 'v1.32.10';

/** The kubelet's default hard eviction threshold for memory.available, subtracted from allocatable. */
const EVICTION_HARD_MEMORY_KI = 100 * 1024;

interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface Node {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: {
    name: string;
    uid: string;
    resourceVersion?: string;
    creationTimestamp: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  spec: { unschedulable?: boolean };
  status: {
    capacity: Record<string, string>;
    allocatable: Record<string, string>;
    conditions: NodeCondition[];
    addresses: { type: string; address: string }[];
    daemonEndpoints: { kubeletEndpoint: { Port: number } };
    nodeInfo: {
      machineID: string;
      systemUUID: string;
      bootID: string;
      kernelVersion: string;
      osImage: string;
      containerRuntimeVersion: string;
      kubeletVersion: string;
      kubeProxyVersion: string;
      operatingSystem: string;
      architecture: string;
    };
  };
}

/** utilerrors.NewAggregate(errs).Error(): one error as itself, several (deduplicated) in brackets. */
function aggregateMessage(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

function readTrimmed(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function osImage(): string {
  const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readTrimmed('/etc/os-release'));
  return m?.[1] ?? 'Linux';
}

/** The Node's InternalIP: the machine's first non-loopback IPv4, else 127.0.0.1. */
export function internalIP(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** GOARCH names, which node labels and nodeInfo use. */
const GOARCH: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: '386',
  s390x: 's390x',
  ppc64: 'ppc64le',
};

interface Machine {
  cpu: string;
  memoryKi: number;
  ip: string;
  kernel: string;
  osImage: string;
  machineID: string;
  bootID: string;
  arch: string;
}

function readMachine(): Machine {
  return {
    cpu: String(cpus().length || 1),
    memoryKi: Math.floor(totalmem() / 1024),
    ip: internalIP(),
    kernel: release(),
    osImage: osImage(),
    machineID: readTrimmed('/etc/machine-id'),
    bootID: readTrimmed('/proc/sys/kernel/random/boot_id'),
    arch: GOARCH[arch()] ?? arch(),
  };
}

export class NodeObject {
  private readonly transitions = new Map<string, { status: string; at: string }>();
  private readonly machine: Machine;

  /** `createdAt`: when this server started (ms); the Node's creationTimestamp. */
  constructor(
    private readonly createdAt: number,
    machine?: Machine,
  ) {
    this.machine = machine ?? readMachine();
  }

  /** The Node as the kubelet would post it now, from the engine's node info at `now`. */
  get(info: NodeInfo, now: number, resourceVersion: string): Node {
    const name = info.nodeName;
    const m = this.machine;
    const errors = info.runtime.errors;
    const heartbeat = rfc3339(now);
    const condition = (type: string, ok: boolean, reason: string, message: string): NodeCondition => {
      const status = type === 'Ready' ? (ok ? 'True' : 'False') : ok ? 'False' : 'True';
      const prev = this.transitions.get(type);
      const at = prev && prev.status === status ? prev.at : heartbeat;
      this.transitions.set(type, { status, at });
      return { type, status, lastHeartbeatTime: heartbeat, lastTransitionTime: at, reason, message };
    };
    const pods = String(info.configuration.maxPods);
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        uid: uidFor(name, m.machineID),
        resourceVersion,
        creationTimestamp: rfc3339(this.createdAt),
        labels: {
          'beta.kubernetes.io/arch': m.arch,
          'beta.kubernetes.io/os': 'linux',
          'kubernetes.io/arch': m.arch,
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
        },
        annotations: {
          ...(info.runtime.endpoint
            ? { 'kubeadm.alpha.kubernetes.io/cri-socket': info.runtime.endpoint }
            : {}),
          'node.alpha.kubernetes.io/ttl': '0',
        },
      },
      spec: {},
      status: {
        capacity: { cpu: m.cpu, memory: `${m.memoryKi}Ki`, pods },
        allocatable: {
          cpu: m.cpu,
          memory: `${Math.max(0, m.memoryKi - EVICTION_HARD_MEMORY_KI)}Ki`,
          pods,
        },
        conditions: [
          condition(
            'MemoryPressure',
            true,
            'KubeletHasSufficientMemory',
            'kubelet has sufficient memory available',
          ),
          condition('DiskPressure', true, 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
          condition('PIDPressure', true, 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
          errors.length === 0
            ? condition('Ready', true, 'KubeletReady', 'kubelet is posting ready status')
            : condition('Ready', false, 'KubeletNotReady', aggregateMessage(errors)),
        ],
        addresses: [
          { type: 'InternalIP', address: m.ip },
          { type: 'Hostname', address: name },
        ],
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          machineID: m.machineID,
          systemUUID: m.machineID,
          bootID: m.bootID,
          kernelVersion: m.kernel,
          osImage: m.osImage,
          containerRuntimeVersion: info.runtime.name ? `${info.runtime.name}://${info.runtime.version}` : '',
          kubeletVersion: KUBELET_VERSION,
          kubeProxyVersion: '',
          operatingSystem: 'linux',
          architecture: m.arch,
        },
      },
    };
  }
}

/** A stable uid for the node: the same name on the same machine keeps it across restarts. */
function uidFor(name: string, machineID: string): string {
  const h = createHash('sha256').update(`node\u0000${name}\u0000${machineID}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
