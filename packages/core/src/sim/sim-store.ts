import type { Clock } from '../clock/clock.ts';
import {
  type ContainerEventResponse,
  type ContainerEventStream,
  type ContainerEventType,
  type ContainerFilter,
  CriError,
  GrpcCode,
  type PodSandboxFilter,
} from '../cri/types.ts';
import type { FaultHooks } from './faults.ts';
import type { ImageCatalogue } from './images.ts';
import { normalizeImageRef } from './images.ts';
import type { SimNetwork } from './network.ts';
import type { ListenerKind } from './process.ts';
import { type ContainerRecord, containerState, type SandboxRecord } from './sim-state.ts';

interface Subscriber {
  onEvent: (ev: ContainerEventResponse) => void;
  onEnd: (err?: Error) => void;
}

/**
 * The simulated node's state and everything about it that is not a CRI call: the container event
 * fan-out, the fault hooks, and the probe-side view of the pod network (isListening, httpGet, tcpConnect).
 * SimRuntime extends it with the CRI methods and supplies the exit primitives (kill, finish, stopSandbox).
 */
export abstract class SimStore {
  protected readonly sandboxes = new Map<string, SandboxRecord>();
  protected readonly containers = new Map<string, ContainerRecord>();
  /** Reserved names → owning id, as containerd's name index. */
  protected readonly sandboxNames = new Map<string, string>();
  protected readonly containerNames = new Map<string, string>();
  protected networkReady = true;
  private readonly subscribers = new Set<Subscriber>();
  /** Indexes over the maps above (insertion order kept), so per-pod lookups do not scan the node. */
  private readonly containersBySandbox = new Map<string, Set<ContainerRecord>>();
  private readonly containersByPod = new Map<string, Set<ContainerRecord>>();
  private readonly sandboxesByPod = new Map<string, Set<SandboxRecord>>();

  abstract readonly images: ImageCatalogue;
  abstract readonly net: SimNetwork;

  constructor(readonly clock: Clock) {}

  protected abstract finish(c: ContainerRecord, code: number): void;
  protected abstract kill(c: ContainerRecord): void;
  protected abstract stopSandbox(sb: SandboxRecord): void;
  protected abstract emit(type: ContainerEventType, c: ContainerRecord): void;

  protected containersOf(sandboxId: string): ContainerRecord[] {
    return [...(this.containersBySandbox.get(sandboxId) ?? [])];
  }

  // --- records and their indexes -----------------------------------------------------------------------

  protected addSandbox(sb: SandboxRecord): void {
    this.sandboxes.set(sb.id, sb);
    this.sandboxNames.set(sb.name, sb.id);
    addTo(this.sandboxesByPod, podUIDOf(sb.config.labels), sb);
  }

  protected dropSandbox(sb: SandboxRecord): void {
    this.sandboxes.delete(sb.id);
    this.sandboxNames.delete(sb.name);
    removeFrom(this.sandboxesByPod, podUIDOf(sb.config.labels), sb);
  }

  protected addContainer(c: ContainerRecord): void {
    this.containers.set(c.id, c);
    this.containerNames.set(c.name, c.id);
    addTo(this.containersBySandbox, c.sandboxId, c);
    addTo(this.containersByPod, podUIDOf(c.config.labels), c);
  }

  protected dropContainer(c: ContainerRecord): void {
    this.containers.delete(c.id);
    this.containerNames.delete(c.name);
    removeFrom(this.containersBySandbox, c.sandboxId, c);
    removeFrom(this.containersByPod, podUIDOf(c.config.labels), c);
  }

  /** The sandboxes a filter can match (in creation order), narrowed by id or pod-UID label when given. */
  protected sandboxCandidates(filter: PodSandboxFilter | undefined): Iterable<SandboxRecord> {
    if (filter?.id) {
      const sb = this.sandboxes.get(filter.id);
      return sb ? [sb] : [];
    }
    const uid = filter?.label_selector?.[POD_UID_LABEL];
    if (uid !== undefined) return this.sandboxesByPod.get(uid) ?? [];
    return this.sandboxes.values();
  }

  /** The containers a filter can match (in creation order), narrowed by id, sandbox or pod-UID label. */
  protected containerCandidates(filter: ContainerFilter | undefined): Iterable<ContainerRecord> {
    if (filter?.id) {
      const c = this.containers.get(filter.id);
      return c ? [c] : [];
    }
    if (filter?.pod_sandbox_id) return this.containersBySandbox.get(filter.pod_sandbox_id) ?? [];
    const uid = filter?.label_selector?.[POD_UID_LABEL];
    if (uid !== undefined) return this.containersByPod.get(uid) ?? [];
    return this.containers.values();
  }

  // --- event stream ------------------------------------------------------------------------------------

  protected subscribe(onEvent: Subscriber['onEvent'], onEnd: Subscriber['onEnd']): ContainerEventStream {
    const sub: Subscriber = { onEvent, onEnd };
    this.subscribers.add(sub);
    return {
      cancel: () => {
        if (this.subscribers.delete(sub)) sub.onEnd();
      },
    };
  }

  protected publish(ev: ContainerEventResponse): void {
    for (const s of [...this.subscribers]) s.onEvent(ev);
  }

  /** Ends every open stream with an error (the runtime went away). */
  protected breakStreams(err: Error): void {
    const subs = [...this.subscribers];
    this.subscribers.clear();
    for (const s of subs) s.onEnd(err);
  }

  // --- probe-side view ---------------------------------------------------------------------------------

  /** Whether a process of this container has `port` bound. */
  isListening(containerId: string, port: number): boolean {
    return this.net.listenersOf(containerId).some((l) => l.port === port);
  }

  listeningPorts(containerId: string): { port: number; kind: ListenerKind }[] {
    return this.net.listenersOf(containerId);
  }

  /** HTTP GET from the node to `host:port` (a pod IP, or the node IP for host-network pods) → status code. */
  async httpGet(host: string, port: number, path = '/'): Promise<number> {
    return (await this.net.httpGet(host, port, path)).status;
  }

  /** TCP connect from the node; rejects with "connect: connection refused" when nothing listens. */
  tcpConnect(host: string, port: number): Promise<void> {
    return this.net.connect(host, port);
  }

  /** Resolves when the container has exited (at once if it has); rejects for an unknown id. */
  whenExited(containerId: string): Promise<void> {
    const c = this.containers.get(containerId);
    return c ? c.exited : Promise.reject(new Error(`no container ${containerId}`));
  }

  /** The pod IP of a sandbox ('' for host network or stopped), for probes. */
  podIP(sandboxId: string): string {
    return this.sandboxes.get(sandboxId)?.ip ?? '';
  }

  // --- faults ------------------------------------------------------------------------------------------

  protected faultHooks(): FaultHooks {
    const container = (id: string) => {
      const c = this.containers.get(id);
      if (!c) throw new Error(`no container ${id}`);
      return c;
    };
    return {
      exitContainer: (id, code) => {
        const c = container(id);
        if (containerState(c) !== 'CONTAINER_RUNNING' && containerState(c) !== 'CONTAINER_UNKNOWN') {
          throw new Error(`container ${short(id)} is not running`);
        }
        this.finish(c, code);
        return `container ${c.config.metadata.name} (${short(id)}) exited with code ${code}`;
      },
      unknownContainer: (id) => {
        const c = container(id);
        if (containerState(c) !== 'CONTAINER_RUNNING')
          throw new Error(`container ${short(id)} is not running`);
        c.unknown = true;
        return `container ${c.config.metadata.name} (${short(id)}) is now in CONTAINER_UNKNOWN state`;
      },
      killSandbox: (id) => {
        const sb = this.sandboxes.get(id);
        if (!sb) throw new Error(`no sandbox ${id}`);
        for (const c of this.containersOf(id)) this.kill(c);
        sb.notReady = true;
        return `sandbox of ${sb.config.metadata.namespace}/${sb.config.metadata.name} (${short(id)}) died; its containers were killed`;
      },
      removeImage: (name, fromRegistry) => {
        const p = normalizeImageRef(name);
        if (!p.ok) throw new Error(p.error);
        this.images.removeLocal(p.ref);
        if (fromRegistry) this.images.setUnavailable(p.ref, true);
        return fromRegistry
          ? `image ${p.ref} removed from the node and the registry`
          : `image ${p.ref} removed from the node`;
      },
      restoreImage: (name) => {
        const p = normalizeImageRef(name);
        if (!p.ok) throw new Error(p.error);
        this.images.setUnavailable(p.ref, false);
        return `image ${p.ref} can be pulled again`;
      },
      slowPull: (name, ms) => {
        const p = normalizeImageRef(name);
        if (!p.ok || !this.images.setPullDelay(p.ref, ms))
          throw new Error(`no image ${name} in the catalogue`);
        return `pulling ${p.ref} takes ${ms} ms`;
      },
      setNetworkReady: (ready) => {
        this.networkReady = ready;
        return ready
          ? 'network plugin ready'
          : 'network plugin not initialized: new pod-network sandboxes fail';
      },
      outageStarted: () =>
        this.breakStreams(new CriError('GetContainerEvents', GrpcCode.UNAVAILABLE, 'Connection dropped')),
    };
  }
}

/** The kubelet's pod-UID label (labels.ts KubernetesPodUIDLabel), the selector of every per-pod list. */
const POD_UID_LABEL = 'io.kubernetes.pod.uid';

function podUIDOf(labels: Record<string, string> | undefined): string {
  return labels?.[POD_UID_LABEL] ?? '';
}

function addTo<T>(index: Map<string, Set<T>>, key: string, value: T): void {
  const set = index.get(key);
  if (set) set.add(value);
  else index.set(key, new Set([value]));
}

function removeFrom<T>(index: Map<string, Set<T>>, key: string, value: T): void {
  const set = index.get(key);
  if (set?.delete(value) && set.size === 0) index.delete(key);
}

function short(id: string): string {
  return id.slice(0, 13);
}
