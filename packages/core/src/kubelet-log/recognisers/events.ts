/**
 * The event recorder's log of the Events the kubelet records (client-go tools/record, event.go):
 *   Event(v1.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"a", UID:"uid", …, FieldPath:"spec.containers{app}"}):
 *     type: 'Normal' reason: 'Pulling' Pulling image "x"                         (glog; `api.ObjectReference`
 *                                                                                to v1.5)
 *   "Event occurred" object="ns/a" fieldPath="spec.containers{app}" kind="Pod" apiVersion="v1" type="Normal"
 *     reason="Pulling" message="Pulling image \"x\""                               (structured)
 * and of the Events it could not write (at -v=2 their only lines), each printing the Event (printed-event.ts):
 *   Server rejected event '&v1.Event{…}': '…' (will not retry!)    Unable to write event: '&v1.Event{…}': '…'(may
 *   retry after sleeping)    Unable to write event '&v1.Event{…}' (retry limit exceeded!)      (printf, to v1.28)
 *   "Server rejected event (will not retry!)" event="&Event{…}"    "Unable to write event (may retry after
 *   sleeping)" (also "… (retry limit exceeded!)", "… (broadcaster is shut down)", "Unable to construct event …")
 * A write is tried up to 12 times, each failure printing the Event again: one k8s.event per Event and Count.
 * Only events about pods become k8s.event; events about the node are left to log.raw.
 */
import { fromRef } from '../pods.ts';
import type { Ctx, Msg } from '../state.ts';
import { fromGoSyntax, fromString, type PrintedEvent } from './printed-event.ts';

const OLD =
  /^Event\((?:v1|api)\.ObjectReference\{Kind:"(\w*)", Namespace:"([^"]*)", Name:"([^"]*)", UID:"([^"]*)"[^}]*?(?:FieldPath:"([^"]*)")?\}\): type: '(\w+)' reason: '(\w+)' ?([\s\S]*)$/;
/**
 * How long after a failed write of an Event another line of the same Event and Count is a retry of it: the
 * recorder tries 12 times, 10 s apart (client-go's maxTriesPerEvent, defaultSleepDuration), about two minutes.
 */
const RETRIES_MS = 5 * 60_000;

/** an Event read from a line that printed it whole: a k8s.event, unless it retries one already read */
function printed(ctx: Ctx, ev: PrintedEvent | undefined): boolean {
  if (ev?.kind !== 'Pod') return false;
  const seen = ctx.node.printedEvents;
  if (ev.id !== '') {
    const key = `${ev.id}/${ev.count}`;
    const at = seen.get(key);
    if (at !== undefined && ctx.time >= at && ctx.time - at < RETRIES_MS) return true;
    if (seen.size > 10_000) seen.clear();
    seen.set(key, ctx.time);
  }
  const pod = `${ev.namespace}/${ev.name}`;
  emit(ctx, ev.type, ev.reason, ev.message, pod, ev.uid || undefined, ev.fieldPath || undefined, ev.count);
  return true;
}

function emit(
  ctx: Ctx,
  type: string,
  reason: string,
  message: string,
  pod: string | undefined,
  podUID: string | undefined,
  fieldPath: string | undefined,
  count = 1,
): void {
  const eventType = type === 'Warning' ? 'Warning' : 'Normal';
  const d = { type: 'k8s.event' as const, eventType, reason, message, count, pod, podUID } as const;
  ctx.emit(fieldPath ? { ...d, fieldPath } : d);
}

export function events(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    if (s.msg === 'Event occurred') {
      if (s.kv.kind !== 'Pod') return false;
      const pod = fromRef(s.kv.object);
      if (!pod) return false;
      emit(
        ctx,
        s.kv.type ?? '',
        s.kv.reason ?? '',
        s.kv.message ?? '',
        pod,
        undefined,
        s.kv.fieldPath || undefined,
      );
      return true;
    }
    if (
      s.msg.startsWith('Server rejected event') ||
      s.msg.startsWith('Unable to write event') ||
      s.msg.startsWith('Unable to construct event')
    )
      return printed(ctx, fromString(s.kv.event ?? ''));
    return false;
  }
  if (!m.text.startsWith('Event(')) {
    const t = m.text;
    return (
      (t.startsWith('Server rejected event') || t.startsWith('Unable to write event')) &&
      printed(ctx, fromGoSyntax(t))
    );
  }
  const r = OLD.exec(m.text);
  if (r?.[1] !== 'Pod') return false;
  emit(
    ctx,
    r[6] as string,
    r[7] as string,
    (r[8] as string).trim(),
    `${r[2]}/${r[3]}`,
    r[4] || undefined,
    r[5] || undefined,
  );
  return true;
}
