/**
 * Which trace events become span events (span-model.ts puts them on a pod's innermost open span), and their
 * names and attributes: PLEG events, back-off windows, probe results, Kubernetes Events, config ops, worker
 * updates and status changes (the phase only). Pure; attribute names follow the semantic conventions where
 * they have one (k8s.container.name, container.exit_code, container.image.name).
 */
import type { TraceEvent } from '@syncscope/core/trace';
import type { Attrs, SpanEventRecord } from './span-record.ts';

/** The span event for a pod-scoped event that is not a span of its own, or undefined (not exported). */
export function spanEventOf(ev: TraceEvent): SpanEventRecord | undefined {
  const at = (name: string, attributes: Attrs): SpanEventRecord => ({ name, timeMs: ev.time, attributes });
  switch (ev.type) {
    case 'pleg.event': {
      const a: Attrs = { 'pleg.event': ev.event, 'container.id': ev.containerID };
      if (ev.containerName !== undefined) a['k8s.container.name'] = ev.containerName;
      if (ev.exitCode !== undefined) a['container.exit_code'] = ev.exitCode;
      return at(`PLEG ${ev.event}`, a);
    }
    case 'backoff': {
      const a: Attrs = {
        'backoff.kind': ev.kind,
        'k8s.container.name': ev.container,
        'backoff.delay_s': ev.delayS,
        'backoff.until': new Date(ev.until).toISOString(),
      };
      if (ev.image !== undefined) a['container.image.name'] = ev.image;
      if (ev.exitCode !== undefined) a['container.exit_code'] = ev.exitCode;
      if (ev.restartCount !== undefined) a['k8s.container.restart_count'] = ev.restartCount;
      if (ev.inferred) a['backoff.inferred'] = true;
      if (ev.confirmed) a['backoff.confirmed'] = true;
      return at('BackOff', a);
    }
    case 'probe.result': {
      const a: Attrs = {
        'k8s.container.name': ev.container,
        'probe.type': ev.probe,
        'probe.result': ev.result,
      };
      if (ev.output !== undefined) a['probe.output'] = ev.output;
      return at(`${ev.probe} probe ${ev.result}`, a);
    }
    case 'k8s.event': {
      const a: Attrs = {
        'k8s.event.type': ev.eventType,
        'k8s.event.reason': ev.reason,
        'k8s.event.message': ev.message,
        'k8s.event.count': ev.count,
      };
      if (ev.fieldPath !== undefined) a['k8s.event.field_path'] = ev.fieldPath;
      return at(`Event ${ev.reason}`, a);
    }
    case 'config.update':
      return at(`SyncLoop ${ev.op}`, { 'config.op': ev.op, 'config.source': ev.source });
    case 'worker.update': {
      const a: Attrs = { 'k8s.pod.sync.update_type': ev.updateType, 'worker.coalesced': ev.coalesced };
      if (ev.dropped !== undefined) a['worker.dropped'] = ev.dropped;
      if (ev.gracePeriodS !== undefined) a['worker.grace_period_s'] = ev.gracePeriodS;
      return at('UpdatePod', a);
    }
    case 'status.update':
      return at('status', { 'k8s.pod.phase': ev.status.phase ?? '' });
    default:
      return undefined;
  }
}
