/**
 * One pod's containers, folded event by event: each container the kubelet would list in the pod's status is
 * a Slot, and each run of it an Instance (one container ID). The engine names every instance in its PLEG
 * events; a real kubelet's log gives only IDs there, so a log's instance gets its name later or never:
 *
 *   ContainerStarted id=A           → slot {A} (unnamed), running
 *   ContainerDied    id=A exit=1    → A terminated; A waits in `deaths` for the start that restarts it
 *   backoff container=app           → the slot of the latest death is `app` (RULES.backoffName)
 *   ContainerStarted id=B           → B pairs with A's death: same slot, restart 1 (RULES.restartPair)
 *
 * Deaths while the pod is terminating restart nothing and are not queued. All steps are O(1) but a merge of two
 * slots (a log naming a container late), which moves two pointers.
 */
import type { ContainerStatus } from '../api/v1.ts';
import type { Source } from './types.ts';

/** What an observer's status worked out rather than read, for one container (the status.update's `derived`). */
export interface StatusDerived {
  state?: { basis: 'inferred' | 'unknown'; why: string };
  ready?: { basis: 'inferred' | 'unknown'; why: string };
}

export interface Instance {
  id: string;
  slot: Slot;
  started?: { time: number; from: Source; inferred: boolean };
  died?: { time: number; exitCode?: number; from: Source };
}

export interface Slot {
  key: string;
  name?: { value: string; from: Source; stated: boolean };
  /** the newest instance and the one before it (the kubelet's status shows two) */
  cur?: Instance;
  prev?: Instance;
  starts: number;
  /** some start was paired with a death by RULES.restartPair (not by a name) */
  paired: boolean;
  /** instances the trace gave without a name were put under this name (RULES.backoffName) */
  linked: boolean;
  /** the reason cache: a failed StartContainer's error (cleared by a start) */
  reason?: { reason: string; message?: string; from: Source; rule: string };
  readiness?: { ready: boolean; from: Source };
  /** the newest stated status of this container, and the starts seen since it */
  stated?: { cs: ContainerStatus; from: Source; init: boolean; derived?: StatusDerived };
  startsSinceStated: number;
  /** seq of the newest event that changed the state (a stated status newer than it wins) */
  changed: number;
}

/** A runtime container ID without its `runtime://` scheme, as PLEG events carry it. */
function bareID(id: string): string {
  const i = id.indexOf('://');
  return i >= 0 ? id.slice(i + 3) : id;
}

export class PodContainers {
  readonly slots = new Map<string, Slot>();
  private readonly byName = new Map<string, Slot>();
  private readonly byID = new Map<string, Instance>();
  /** deaths no start has restarted yet, oldest first (a head index keeps shift O(1)) */
  private deaths: Instance[] = [];
  private head = 0;
  private lastDeath: Instance | undefined;
  /** a kill of one named container, whose death is the next one (undefined: none, or more than one pending) */
  private killing: { name: string; from: Source } | undefined;
  private kills = 0;
  terminating = false;

  private newSlot(key: string): Slot {
    const s: Slot = { key, starts: 0, paired: false, linked: false, startsSinceStated: 0, changed: -1 };
    this.slots.set(key, s);
    return s;
  }

  /** The slot of a named container, made when first named. */
  named(name: string, from: Source, stated: boolean): Slot {
    let s = this.byName.get(name);
    if (!s) {
      s = this.newSlot(name);
      s.name = { value: name, from, stated };
      this.byName.set(name, s);
    }
    return s;
  }

  /** The oldest unrestarted death (of `name` when given), taken off the queue. */
  private takeDeath(name?: string): Instance | undefined {
    for (let i = this.head; i < this.deaths.length; i++) {
      const d = this.deaths[i] as Instance;
      if (name !== undefined && d.slot.name && d.slot.name.value !== name) continue;
      if (i === this.head) this.head++;
      else this.deaths.splice(i, 1);
      if (this.head > 64 && this.head * 2 > this.deaths.length) {
        this.deaths = this.deaths.slice(this.head);
        this.head = 0;
      }
      return d;
    }
    return undefined;
  }

  /** A start; `mayRestart` false: it restarts no death (RULES.firstRelist). */
  started(
    id: string,
    time: number,
    from: Source,
    inferred: boolean,
    name?: string,
    mayRestart = true,
  ): Instance {
    const known = this.byID.get(id);
    if (known?.died && known.started) this.revive(known);
    if (known?.started) return known;
    let slot: Slot;
    const restarted = mayRestart ? this.takeDeath(name) : undefined;
    if (name !== undefined) {
      slot = this.named(name, from, true);
      if (restarted && restarted.slot !== slot && !restarted.slot.name) this.merge(restarted.slot, slot);
    } else if (restarted) {
      slot = restarted.slot;
      slot.paired = true;
    } else slot = this.newSlot(id);
    const inst: Instance = known ?? { id, slot };
    inst.slot = slot;
    inst.started = { time, from, inferred };
    this.byID.set(id, inst);
    if (slot.cur !== inst) {
      slot.prev = slot.cur;
      slot.cur = inst;
    }
    slot.starts++;
    // the engine's status can show an instance running before the relist sees it start: no news then
    const statedID = slot.stated?.cs.containerID;
    const stale = statedID === undefined || bareID(statedID) !== bareID(id);
    if (stale) slot.startsSinceStated++;
    slot.reason = undefined; // a start is a successful StartContainer: the reason cache is cleared
    this.kills = 0; // a kill not followed by a death (the container had exited) names nothing
    this.killing = undefined;
    if (stale) slot.changed = from.seq;
    return inst;
  }

  /**
   * The same ID seen running after its death (dockershim's sandbox on Windows goes exited → running): the
   * runtime never restarts a container under its ID, so it had not died; its death restarts nothing.
   */
  private revive(inst: Instance): void {
    inst.died = undefined;
    const i = this.deaths.indexOf(inst, this.head);
    if (i >= 0) {
      if (i === this.head) this.head++;
      else this.deaths.splice(i, 1);
    }
    if (this.lastDeath === inst) this.lastDeath = undefined;
  }

  died(id: string, time: number, from: Source, exitCode?: number, name?: string): void {
    let inst = this.byID.get(id);
    if (!inst) inst = this.started(id, time, from, true, name);
    if (inst.died) {
      if (exitCode !== undefined) inst.died.exitCode ??= exitCode;
      return;
    }
    inst.died = exitCode === undefined ? { time, from } : { time, exitCode, from };
    if (this.kills > 0) this.kills--;
    if (this.killing && this.kills === 0) {
      // the death a kill of a named container led to is that container's (RULES.killName)
      if (!inst.slot.name) this.merge(inst.slot, this.named(this.killing.name, this.killing.from, false));
      this.killing = undefined;
    }
    inst.slot.changed = from.seq;
    this.lastDeath = inst;
    if (!this.terminating) this.deaths.push(inst);
  }

  /** Some container (or sandbox) the trace showed starting has not died since. */
  anyRunning(): boolean {
    for (const slot of this.slots.values()) if (slot.cur?.started && !slot.cur.died) return true;
    return false;
  }

  /** A StopContainer of `name`: the next death is its own, when no other kill is pending. */
  killed(name: string, from: Source): void {
    this.kills++;
    this.killing = this.kills === 1 ? { name, from } : undefined;
  }

  /** A back-off window for `name`: the death that starts it is that container's. */
  backoff(name: string, from: Source): Slot {
    const slot = this.named(name, from, false);
    const d = this.lastDeath;
    if (d && d.slot !== slot && !d.slot.name) this.merge(d.slot, slot);
    return slot;
  }

  /** A stated container status (the engine's status.update): its slot, linked to its instance by ID. */
  stated(cs: ContainerStatus, init: boolean, from: Source, derived?: StatusDerived): void {
    const slot = this.named(cs.name, from, true);
    if (!slot.name?.stated) slot.name = { value: cs.name, from, stated: true };
    const inst = cs.containerID ? this.byID.get(bareID(cs.containerID)) : undefined;
    if (inst && inst.slot !== slot && !inst.slot.name) this.merge(inst.slot, slot);
    slot.stated = { cs, from, init, ...(derived ? { derived } : {}) };
    slot.startsSinceStated = 0;
  }

  /** Moves an unnamed slot's instances under a named one (the log named the container late). */
  private merge(from: Slot, into: Slot): void {
    const runs = [into.prev, into.cur, from.prev, from.cur].filter((i): i is Instance => i !== undefined);
    runs.sort((a, b) => (a.started?.time ?? 0) - (b.started?.time ?? 0));
    for (const inst of runs) inst.slot = into;
    into.cur = runs[runs.length - 1];
    into.prev = runs[runs.length - 2];
    into.starts += from.starts;
    into.startsSinceStated += from.startsSinceStated;
    into.paired ||= from.paired;
    into.linked = true;
    into.reason ??= from.reason;
    into.changed = Math.max(into.changed, from.changed);
    this.slots.delete(from.key);
  }
}
