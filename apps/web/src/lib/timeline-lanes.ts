/**
 * The container lanes of a pod's timeline: one lane per container instance, pieced together from three
 * sources, since no single event tells the whole story:
 *   runtime.call CreateContainer / StartContainer   when the kubelet created and started it (by name)
 *   pleg.event ContainerStarted / ContainerDied      when the runtime saw it run and exit (by container ID)
 *   status.update                                    its ID, exit code and reason as the status reports them
 * An instance is matched by container ID where one is known, else it is the newest instance of that
 * container name that still lacks the fact being added.
 */
import { type ContainerStatus, parseRFC3339 } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import type { ContainerLane, LaneSegment } from './timeline-model.ts';

/** "containerd://abc" and "abc" name the same container. */
function bareContainerID(id: string | undefined | null): string | null {
  if (!id) return null;
  const i = id.indexOf('://');
  return i >= 0 ? id.slice(i + 3) : id;
}

type Instance = Omit<ContainerLane, 'segments' | 'key'>;

/** The container instances seen so far, oldest first; fed the pod's events in seq order (apply). */
export class InstanceTable {
  private readonly list: Instance[] = [];

  private byID(id: string | null): Instance | undefined {
    return id ? this.list.find((c) => c.containerID === id) : undefined;
  }

  /** The newest instance of `name` for which `lacks` holds. */
  private newest(name: string | null | undefined, lacks: (c: Instance) => boolean): Instance | undefined {
    if (!name) return undefined;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const c = this.list[i] as Instance;
      if (c.name === name) return lacks(c) ? c : undefined;
    }
    return undefined;
  }

  private add(name: string, fields: Partial<Instance>): Instance {
    const c: Instance = {
      name,
      init: false,
      attempt: null,
      containerID: null,
      createdAt: null,
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      reason: null,
      error: null,
      ...fields,
    };
    this.list.push(c);
    return c;
  }

  /** Finds (or creates) the instance a container ID belongs to, binding the ID to an unbound instance. */
  private forID(
    id: string,
    name: string | null | undefined,
    time: number,
    ran = false,
  ): Instance | undefined {
    const known = this.byID(id);
    if (known) return known;
    const unbound = this.newest(
      name,
      (c) => c.containerID === null && c.finishedAt === null && (!ran || c.startedAt !== null),
    );
    if (unbound) {
      unbound.containerID = id;
      return unbound;
    }
    return name ? this.add(name, { containerID: id, startedAt: time }) : undefined;
  }

  /** Adds what `ev` tells of the pod's containers (a runtime call, a PLEG event, a status); others pass. */
  apply(ev: TraceEvent): void {
    if (ev.type === 'runtime.call') this.applyRuntimeCall(ev);
    else if (ev.type === 'pleg.event') this.applyPleg(ev);
    else if (ev.type === 'status.update') {
      for (const cs of ev.status.initContainerStatuses ?? []) this.applyStatus(cs, true, ev.time);
      for (const cs of ev.status.containerStatuses ?? []) this.applyStatus(cs, false, ev.time);
    }
  }

  private applyRuntimeCall(ev: Extract<TraceEvent, { type: 'runtime.call' }>): void {
    const failed = Boolean(ev.error) || (ev.code !== undefined && ev.code !== 0);
    if (ev.method === 'CreateContainer' && ev.container) {
      this.add(ev.container, {
        attempt: ev.attempt ?? null,
        createdAt: ev.time,
        ...(failed ? { error: ev.error ?? `code ${ev.code}`, finishedAt: ev.time } : {}),
      });
    } else if (ev.method === 'StartContainer' && ev.container) {
      const c =
        this.byID(bareContainerID(ev.container)) ?? this.newest(ev.container, (x) => x.startedAt === null);
      if (!c) return;
      if (failed) {
        c.error = ev.error ?? `code ${ev.code}`;
        c.finishedAt ??= ev.time;
      } else {
        c.startedAt ??= ev.time;
      }
    }
  }

  private applyPleg(ev: Extract<TraceEvent, { type: 'pleg.event' }>): void {
    const id = bareContainerID(ev.containerID);
    if (!id) return;
    if (ev.event === 'ContainerStarted') {
      const c = this.forID(id, ev.containerName, ev.time);
      if (c) c.startedAt ??= ev.time;
    } else if (ev.event === 'ContainerDied') {
      const c = this.forID(id, ev.containerName, ev.time);
      if (c) {
        c.finishedAt ??= ev.time;
        if (ev.exitCode !== undefined) c.exitCode ??= ev.exitCode;
      }
    }
  }

  private applyStatus(cs: ContainerStatus, init: boolean, time: number): void {
    for (const c of this.list) if (c.name === cs.name) c.init = init;
    const facts = [cs.lastState?.terminated, cs.state?.terminated];
    for (const t of facts) {
      const id = bareContainerID(t?.containerID ?? (t === cs.state?.terminated ? cs.containerID : undefined));
      if (!t || !id) continue;
      // Only an instance that was started can be the one that terminated.
      const c = this.forID(id, cs.name, parseRFC3339(t.startedAt) ?? time, true);
      if (!c) continue;
      c.exitCode = t.exitCode;
      c.reason = t.reason ?? null;
      c.finishedAt ??= parseRFC3339(t.finishedAt) ?? time;
      c.init = init;
    }
    const id = bareContainerID(cs.containerID);
    if (cs.state?.running && id) {
      const c = this.forID(id, cs.name, parseRFC3339(cs.state.running.startedAt) ?? time);
      if (c) {
        c.startedAt ??= parseRFC3339(cs.state.running.startedAt) ?? time;
        c.init = init;
      }
    }
  }

  /**
   * One lane per instance, by when it first shows (created, else started, else finished); a lane's
   * segments run to `end` while nothing has ended them, and its exit to the next instance of its name.
   */
  lanes(end: number): ContainerLane[] {
    const firstTime = (c: Instance) => c.createdAt ?? c.startedAt ?? c.finishedAt ?? end;
    const ordered = [...this.list].sort((a, b) => firstTime(a) - firstTime(b));
    return ordered.map((c, i): ContainerLane => {
      const next = ordered.slice(i + 1).find((n) => n.name === c.name);
      return { ...c, key: `${c.name}#${i}`, segments: segmentsOf(c, next, end) };
    });
  }
}

function segmentsOf(c: Instance, next: Instance | undefined, end: number): LaneSegment[] {
  const out: LaneSegment[] = [];
  const runEnd = c.finishedAt ?? end;
  const running = c.finishedAt === null;
  if (c.createdAt !== null) {
    const open = c.startedAt === null && running;
    out.push({ kind: 'created', start: c.createdAt, end: c.startedAt ?? runEnd, ...(open ? { open } : {}) });
  }
  if (c.startedAt !== null)
    out.push({ kind: 'running', start: c.startedAt, end: runEnd, ...(running ? { open: true } : {}) });
  if (c.finishedAt !== null) {
    const nextStart = next ? (next.createdAt ?? next.startedAt ?? null) : null;
    const open = nextStart === null;
    out.push({
      kind: 'exited',
      start: c.finishedAt,
      end: Math.max(c.finishedAt, nextStart ?? end),
      ...(open ? { open } : {}),
    });
  }
  return out;
}
