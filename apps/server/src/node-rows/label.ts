/**
 * A pod's newest event in a few words, for its row ("PLEG ContainerDied app", "back-off 40s app",
 * "SyncPod failed: StartContainer app"). Short on purpose: the pod's page has the event in full.
 */
import type { TraceEvent } from '@syncscope/core/trace';

const MAX_LABEL = 80;

function words(ev: TraceEvent): string {
  switch (ev.type) {
    case 'config.update':
      return `config ${ev.op}`;
    case 'worker.update':
      return `worker update ${ev.updateType}`;
    case 'worker.state':
      return `worker ${ev.to}`;
    case 'sync.start':
      return `${ev.workType} starts`;
    case 'sync.result': {
      const failed = ev.actions.find((a) => a.error);
      if (failed) return `${ev.workType} failed: ${failed.action} ${failed.target} (${failed.error})`;
      return ev.error ? `${ev.workType} failed` : `${ev.workType} done`;
    }
    case 'runtime.call':
      return `CRI ${ev.method}${ev.container ? ` ${ev.container}` : ''}${ev.error ? ' failed' : ''}`;
    case 'pleg.event':
      return `PLEG ${ev.event}${ev.containerName ? ` ${ev.containerName}` : ''}`;
    case 'status.update':
      return `status ${ev.status.phase ?? ''}`.trimEnd();
    case 'backoff':
      return `${ev.kind === 'image' ? 'image pull ' : ''}back-off ${ev.delayS}s ${ev.container}`;
    case 'probe.result':
      return `${ev.probe} probe ${ev.result}`;
    case 'k8s.event':
      return `${ev.reason}`;
    default:
      return ev.type;
  }
}

export function eventLabel(ev: TraceEvent): string {
  const w = words(ev);
  return w.length > MAX_LABEL ? `${w.slice(0, MAX_LABEL - 1)}…` : w;
}
