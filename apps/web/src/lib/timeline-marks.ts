/**
 * The marks of a pod's timeline that one event each draws, a list per row: worker updates (and the config
 * op before them), SyncPod runs, PLEG events, back-off windows, probe results and Events. Fed the pod's
 * events in seq order.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { statedDurationMs } from './provenance.ts';
import type {
  BackoffWindow,
  EventMark,
  PlegMark,
  ProbeMark,
  SyncMark,
  UpdateMark,
} from './timeline-model.ts';

export class TimelineMarks {
  readonly updates: UpdateMark[] = [];
  readonly syncs: SyncMark[] = [];
  readonly pleg: PlegMark[] = [];
  readonly backoffs: BackoffWindow[] = [];
  readonly probes: ProbeMark[] = [];
  readonly events: EventMark[] = [];
  // one back-off window per entry and exit: every sync inside the window records it again
  private readonly windows = new Map<string, BackoffWindow>();

  /** Adds the mark `ev` draws, if it draws one. */
  add(ev: TraceEvent): void {
    switch (ev.type) {
      case 'config.update':
        this.updates.push({
          seq: ev.seq,
          time: ev.time,
          kind: 'config',
          label: `config ${ev.op} (${ev.source})`,
        });
        break;
      case 'worker.update':
        this.updates.push({
          seq: ev.seq,
          time: ev.time,
          kind: 'update',
          label: `worker update ${ev.updateType}${ev.coalesced ? ' (coalesced)' : ''}${ev.dropped ? `, dropped: ${ev.dropped}` : ''}`,
        });
        break;
      case 'pleg.event':
        this.pleg.push({
          seq: ev.seq,
          time: ev.time,
          event: ev.event,
          containerID: ev.containerID,
          containerName: ev.containerName ?? null,
          ...(ev.inferred ? { inferred: true as const } : {}),
        });
        break;
      case 'sync.result':
        this.syncs.push({
          seq: ev.seq,
          start: ev.time - ev.durationMs,
          end: ev.time,
          workType: ev.workType,
          actions: ev.actions,
          error: ev.error ?? null,
          failed: Boolean(ev.error) || ev.actions.some((a) => a.error),
          durationStated: statedDurationMs(ev) !== null,
        });
        break;
      case 'backoff': {
        const id = `${ev.kind}/${ev.key}@${ev.until - ev.delayS * 1000}`;
        if (this.windows.has(id)) break;
        const w: BackoffWindow = {
          seq: ev.seq,
          kind: ev.kind,
          container: ev.container,
          delayS: ev.delayS,
          start: ev.time,
          end: ev.until,
        };
        this.windows.set(id, w);
        this.backoffs.push(w);
        break;
      }
      case 'probe.result':
        this.probes.push({
          seq: ev.seq,
          time: ev.time,
          container: ev.container,
          probe: ev.probe,
          result: ev.result,
          output: ev.output ?? null,
        });
        break;
      case 'k8s.event':
        this.events.push({
          seq: ev.seq,
          time: ev.time,
          eventType: ev.eventType,
          reason: ev.reason,
          message: ev.message,
        });
        break;
      default:
        break;
    }
  }
}
