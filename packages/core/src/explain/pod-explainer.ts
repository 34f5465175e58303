/**
 * One pod's explanation, step by step: each event of the pod read by the kubelet rule that covers it, with
 * the pod-state model's state at that step (the reducer is the caller's, one per source): the containers for
 * every rule, the whole snapshot only for the decision in words of a step that is kept. The back-off
 * steps are ./backoff-steps.ts', the pod worker's syncs ./sync-steps.ts', config ops ./config-steps.ts';
 * the rest is here: a sync's decision (computePodActions over the state, ./reading.ts), probes, the pod
 * worker, and when the next sync was due; kills are ./pod-rules.ts'. A sync, a window met or a PLEG event
 * past the time a dead container's restart was due, with no restart, is marked where it comes
 * (restart-missing, once per death). Browser-safe: no Node imports.
 */
import type { TraceEvent, TraceOf } from '../events/trace.ts';
import { BackoffSteps, type PodAt } from './backoff-steps.ts';
import { configStep, statusStep } from './config-steps.ts';
import { ImageBackoffs } from './image-backoff.ts';
import type { ExplainParams } from './params.ts';
import { callReading, type PodFlags, podFlags, RULE_KILL_DELETE } from './pod-rules.ts';
import { decide } from './reading.ts';
import { SyncSteps } from './sync-steps.ts';
import { emptyCounts, type NextSync, type PodExplanation, type Reading } from './types.ts';
import { type ClockFormat, sourceWords } from './words.ts';

/** What the caller keeps of the steps: all, only the differing ones, or none (counts only). */
export type KeepSteps = 'all' | 'differs' | 'none';

export class PodExplainer {
  readonly out: PodExplanation;
  private readonly backoffs: BackoffSteps;
  private readonly images: ImageBackoffs;
  private readonly f: PodFlags = podFlags();
  private readonly syncs: SyncSteps;

  constructor(
    uid: string,
    pod: string,
    p: ExplainParams,
    fmt: ClockFormat,
    private readonly keep: KeepSteps,
  ) {
    this.out = { uid, pod, counts: emptyCounts(), steps: [] };
    this.backoffs = new BackoffSteps(p, fmt, () => this.f.added);
    this.images = new ImageBackoffs(p);
    this.syncs = new SyncSteps(p, fmt, this.f);
  }

  /** One event of this pod, after the reducer folded it; `at` reads the pod's state then. */
  add(ev: TraceEvent, at: PodAt): void {
    const r = this.read(ev, at);
    const c = this.out.counts;
    c.steps++;
    if (!r) {
      c.unexplained++;
      if (this.keep === 'all')
        this.out.steps.push({
          seq: ev.seq,
          time: ev.time,
          ...line(ev),
          source: sourceWords(ev),
          verdict: 'unexplained',
          model: [],
        });
      return;
    }
    c.explained++;
    if (r.verdict === 'differs') c.differs++;
    else c.agrees++;
    if (r.window) {
      c.backoffWindows++;
      if (r.verdict === 'agrees') c.backoffWindowsAgreeing++;
    }
    if (!this.kept(r.verdict)) return;
    const { window: _, ...reading } = r;
    this.out.steps.push({ seq: ev.seq, time: ev.time, ...line(ev), source: sourceWords(ev), ...reading });
  }

  private read(ev: TraceEvent, at: PodAt): Reading | undefined {
    switch (ev.type) {
      case 'config.update': {
        const r = configStep(this.f, ev, at, this.kept('agrees'));
        if (this.f.terminating) this.backoffs.forgo();
        return r;
      }
      case 'pleg.event': {
        const now: NextSync = { from: ev.time, to: ev.time, why: 'PLEG relist' };
        // a removal is not worth a sync (isSyncPodWorthy): it wakes nothing
        if (ev.event === 'ContainerRemoved')
          return { verdict: 'agrees', model: ['relist: ContainerRemoved'], rule: 'generic PLEG relist' };
        this.f.woke = true;
        if (ev.event === 'ContainerStarted')
          return this.overdue(ev, { ...this.backoffs.started(ev, at.containers()), nextSync: now }, at);
        if (ev.event === 'ContainerDied') return this.overdue(ev, this.died(ev, at), at);
        return this.overdue(
          ev,
          { verdict: 'agrees', model: [`relist: ${ev.event}`], rule: 'generic PLEG relist', nextSync: now },
          at,
        );
      }
      case 'backoff':
        if (ev.kind === 'image') return this.images.read(ev);
        return this.overdue(ev, this.backoffs.container(ev, at.containers()), at);
      case 'sync.result': {
        // a sync that started a container is a restart in the making (its relist shows it); else, read
        // before the sync moves the window's last sync, it may be the one that should have restarted one
        const starts = ev.actions.some((a) => a.action === 'StartContainer' && !a.error);
        const missing = starts ? undefined : this.missing(ev, at);
        const r = this.sync(ev, at);
        return missing ? { ...r, ...missing, model: [...missing.model, ...r.model] } : r;
      }
      case 'runtime.call':
        return callReading(this.f, ev);
      case 'probe.result':
        this.f.woke = true;
        if ((ev.probe === 'Liveness' || ev.probe === 'Startup') && ev.result === 'Failure')
          this.f.killAsked.set(ev.container || '*', `failed ${ev.probe.toLowerCase()} probe`);
        return {
          verdict: 'agrees',
          model: [
            ev.result === 'Failure' && ev.probe !== 'Readiness'
              ? `${ev.probe} failure: at failureThreshold failures in a row the next sync kills and restarts ${ev.container || 'the container'}`
              : `${ev.probe} ${ev.result}: the prober's result, read by the next sync`,
          ],
          rule: 'prober results manager',
        };
      case 'worker.update':
        this.f.woke = true;
        return { verdict: 'agrees', model: [`UpdatePod ${ev.updateType}`], rule: 'podWorkers.UpdatePod' };
      case 'worker.state':
        if (ev.to !== 'SyncPod') {
          this.f.terminating = true;
          this.backoffs.forgo();
        }
        return { verdict: 'agrees', model: [`the pod worker is ${ev.to}`], rule: 'pod worker states' };
      case 'sync.start':
        return { verdict: 'agrees', model: [`${ev.workType} (${ev.updateType})`], rule: 'podWorkerLoop' };
      case 'status.update':
        return statusStep(ev);
      case 'k8s.event':
        return { verdict: 'agrees', model: [`event ${ev.reason}`], rule: 'event recorder' };
      default:
        return undefined;
    }
  }

  private died(ev: TraceOf<'pleg.event'>, pod: PodAt): Reading {
    const at: NextSync = { from: ev.time, to: ev.time, why: 'PLEG relist' };
    const now = pod.containers();
    if (this.f.terminating || now.deletedAt !== undefined || now.removed)
      return {
        verdict: 'agrees',
        model: ['a container of a terminating pod stopped: nothing restarts it'],
        rule: RULE_KILL_DELETE,
        nextSync: at,
      };
    const d = this.backoffs.died(ev, now, this.f.killPending);
    this.f.killPending = false;
    const r: Reading = { verdict: 'agrees', model: [], rule: 'computePodActions + doBackOff', nextSync: at };
    if (d.restart?.difference) {
      r.verdict = 'differs';
      r.difference = d.restart.difference;
      if (d.restart.rule) r.rule = d.restart.rule;
    }
    if (d.reading.kind === 'backoff') r.backoffMs = d.reading.delayMs;
    // the decision in words only for a step that is kept (it is the costly part)
    const dec = this.kept(r.verdict) ? decide(pod.snapshot(), ev.time) : { reasons: [], assumed: [] };
    r.model = [...(d.restart?.model ?? []), ...dec.reasons.map((x) => `decides: ${x}`), d.words];
    if (dec.assumed.length) r.assumed = dec.assumed;
    return r;
  }

  /** Whether a step of this verdict is kept. */
  private kept(v: Reading['verdict']): boolean {
    return this.keep === 'all' || (this.keep === 'differs' && v === 'differs');
  }

  private sync(ev: TraceOf<'sync.result'>, pod: PodAt): Reading {
    for (const a of ev.actions)
      if (a.error === 'CrashLoopBackOff') this.backoffs.metWindow(a.target, ev.time);
    const r = this.syncs.read(ev);
    if (this.kept(r.verdict)) {
      const dec = ev.plan ? { reasons: ev.plan.reasons, assumed: [] } : decide(pod.snapshot(), ev.time);
      r.model = [...dec.reasons.map((x) => `decides: ${x}`), ...r.model];
      if (dec.assumed.length) r.assumed = dec.assumed;
    }
    return r;
  }

  /**
   * A sync, a back-off met or a PLEG event that restarted none of the pod's dead containers: where a restart
   * the rule wanted is overdue, the step differs (restart-missing) unless it differs already.
   */
  private overdue(ev: TraceEvent, r: Reading, pod: PodAt): Reading {
    if (r.verdict === 'differs' || r.window) return r;
    const m = this.missing(ev, pod);
    return m ? { ...r, ...m, model: [...m.model, ...r.model] } : r;
  }

  /** The restart overdue at this step, if any (see overdue); none once the pod is going away. */
  private missing(ev: TraceEvent, pod: PodAt): Reading | undefined {
    const now = pod.containers();
    if (this.f.terminating || now.deletedAt !== undefined || now.removed) {
      this.backoffs.forgo();
      return undefined;
    }
    return this.backoffs.missing(ev.time, sourceWords(ev));
  }
}

function line(ev: TraceEvent): { line?: number } {
  return ev.origin ? { line: ev.origin.line } : {};
}
