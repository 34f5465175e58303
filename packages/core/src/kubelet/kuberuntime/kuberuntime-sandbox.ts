/**
 * Pod sandbox config and creation (kuberuntime_sandbox.go). The sandbox carries the pod's labels and
 * annotations plus ours, the hostname (never for hostNetwork pods: runc refuses it without a UTS
 * namespace), the pod log directory, every container port as a port mapping, the pod cgroup parent and the
 * namespace options (network NODE for hostNetwork).
 */
import type { Pod } from '../../api/v1.ts';
import { linuxSandboxSecurityContext, namespaceOption } from '../../cri/messages.ts';
import type { PodSandboxConfig, PodSandboxStatus, PortMapping } from '../../cri/types.ts';
import { newPodAnnotations, newPodLabels, podNamespace } from './labels.ts';
import { parseQuantity } from './quantity.ts';
import type { RuntimeContext } from './runtime-context.ts';
import { formatPod } from './util.ts';

/**
 * BuildPodLogsDirectory: `<podLogsDirectory>/<ns>_<name>_<uid>`. Nothing is shortened: a long pod name
 * gives a directory name longer than a file system allows (see checkPodLogsDirectoryName).
 */
export function buildPodLogsDirectory(root: string, pod: Pod): string {
  return `${root.replace(/\/+$/, '')}/${podNamespace(pod)}_${pod.metadata.name}_${pod.metadata.uid ?? ''}`;
}

/** NAME_MAX: the longest name of one directory entry, in bytes, on Linux file systems (ext4, xfs, tmpfs). */
const NAME_MAX = 255;

/**
 * The part of the kubelet's MkdirAll(LogDirectory) that fails for a valid pod: a pod name of up to 253
 * characters with its namespace and UID makes a name past NAME_MAX, so mkdir fails with ENAMETOOLONG and Go
 * reports `mkdir <dir>: file name too long`. The kubelet then never calls RunPodSandbox, records
 * FailedCreatePodSandBox and tries again at the next sync; the pod stays Pending (ContainerCreating) until
 * it is deleted (kubernetes/kubernetes#91410, #104288). The engine checks the name only and leaves making
 * the directory to the side that writes the logs (the simulated node makes it with a container's log file).
 */
function checkPodLogsDirectoryName(dir: string): Error | undefined {
  const name = dir.slice(dir.lastIndexOf('/') + 1);
  if (new TextEncoder().encode(name).length <= NAME_MAX) return undefined;
  return new Error(`mkdir ${dir}: file name too long`);
}

/** GeneratePodHostNameAndDomain: spec.hostname, else the pod name cut to 63 characters. */
function podHostname(pod: Pod): string {
  if (pod.spec.hostname) return pod.spec.hostname;
  return pod.metadata.name.slice(0, 63).replace(/[-.]+$/, '');
}

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** GetPodQOS, for cpu and memory. */
export function getPodQOS(pod: Pod): QOSClass {
  const all = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  let any = false;
  let guaranteed = true;
  for (const c of all) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    for (const r of ['cpu', 'memory']) {
      const l = lim[r];
      const q = req[r] ?? l;
      if (q !== undefined && parseQuantity(q) !== 0) any = true;
      if (l === undefined || q === undefined || parseQuantity(l) !== parseQuantity(q)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The pod cgroup as the cgroupfs driver names it (containerd's default, SystemdCgroup=false). */
function podCgroupParent(pod: Pod): string {
  const uid = pod.metadata.uid ?? '';
  switch (getPodQOS(pod)) {
    case 'Guaranteed':
      return `/kubepods/pod${uid}`;
    case 'Burstable':
      return `/kubepods/burstable/pod${uid}`;
    default:
      return `/kubepods/besteffort/pod${uid}`;
  }
}

/** kubecontainer.MakePortMappings over every container, duplicates (by name) dropped. */
function makePortMappings(pod: Pod): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of pod.spec.containers) {
    const names = new Set<string>();
    for (const p of c.ports ?? []) {
      const protocol = p.protocol ?? 'TCP';
      const name = p.name || `any-${protocol}-${p.hostIP ?? ''}:${p.containerPort}:${p.hostPort ?? 0}`;
      if (names.has(name)) continue;
      names.add(name);
      out.push({
        protocol,
        container_port: p.containerPort,
        host_port: p.hostPort ?? 0,
        host_ip: p.hostIP ?? '',
      });
    }
  }
  return out;
}

export function generatePodSandboxConfig(ctx: RuntimeContext, pod: Pod, attempt: number): PodSandboxConfig {
  const hostNetwork = pod.spec.hostNetwork === true;
  return {
    metadata: { name: pod.metadata.name, namespace: podNamespace(pod), uid: pod.metadata.uid ?? '', attempt },
    hostname: hostNetwork ? '' : podHostname(pod),
    log_directory: buildPodLogsDirectory(ctx.config.podLogsDirectory, pod),
    dns_config: null,
    port_mappings: makePortMappings(pod),
    labels: newPodLabels(pod, ctx.config.ownershipLabel),
    annotations: newPodAnnotations(pod),
    linux: {
      cgroup_parent: podCgroupParent(pod),
      sysctls: {},
      security_context: linuxSandboxSecurityContext({
        namespace_options: namespaceOption({
          network: hostNetwork ? 'NODE' : 'POD',
          pid: 'CONTAINER',
          ipc: 'POD',
        }),
      }),
    },
  };
}

/** createPodSandbox: RunPodSandbox with the generated config; the message is the kubelet's. */
export async function createPodSandbox(
  ctx: RuntimeContext,
  pod: Pod,
  attempt: number,
): Promise<{ id: string } | { message: string; err: unknown }> {
  const config = generatePodSandboxConfig(ctx, pod, attempt);
  const dirErr = checkPodLogsDirectoryName(config.log_directory);
  if (dirErr) {
    return {
      message: `Failed to create log directory for pod "${formatPod(pod)}": ${dirErr.message}`,
      err: dirErr,
    };
  }
  try {
    const id = await ctx.call('RunPodSandbox', { ...ctx.podRef(pod), attempt }, () =>
      ctx.cri.runPodSandbox(config),
    );
    return { id };
  } catch (err) {
    return { message: `Failed to create sandbox for pod "${formatPod(pod)}": ${errText(err)}`, err };
  }
}

/** determinePodSandboxIPs: primary then additional IPs. */
export function determinePodSandboxIPs(status: PodSandboxStatus | null): string[] {
  const net = status?.network;
  if (!net) return [];
  return [net.ip, ...net.additional_ips.map((a) => a.ip)].filter((ip) => ip !== '');
}

export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
