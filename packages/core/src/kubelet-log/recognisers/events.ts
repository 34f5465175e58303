/**
 * The event recorder's log of the Events the kubelet records (client-go tools/record, event.go):
 *   Event(v1.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"a", UID:"uid", …, FieldPath:"spec.containers{app}"}):
 *     type: 'Normal' reason: 'Pulling' Pulling image "x"                         (glog; `api.ObjectReference`
 *                                                                                before v1.5)
 *   "Event occurred" object="ns/a" fieldPath="spec.containers{app}" kind="Pod" apiVersion="v1" type="Normal"
 *     reason="Pulling" message="Pulling image \"x\""                               (structured)
 *   "Server rejected event (will not retry!)" event="&Event{…InvolvedObject:ObjectReference{Kind:Pod,…},
 *     Reason:…,Message:…,Source:…,Type:Warning,…}"                                (the Event itself, printed)
 *   Server rejected event '&v1.Event{…InvolvedObject:v1.ObjectReference{Kind:"Pod", …}, Reason:"…", …}': '…'
 *     (will not retry!)                                                         (glog, and "Unable to write event")
 * Only events about pods become k8s.event; events about the node are left to log.raw.
 */
import { readQuoted } from '../kv.ts';
import { fromRef } from '../pods.ts';
import type { Ctx, Msg } from '../state.ts';

const OLD =
  /^Event\((?:v1|api)\.ObjectReference\{Kind:"(\w*)", Namespace:"([^"]*)", Name:"([^"]*)", UID:"([^"]*)"[^}]*?(?:FieldPath:"([^"]*)")?\}\): type: '(\w+)' reason: '(\w+)' ?([\s\S]*)$/;
const STRUCT_EVENT =
  /InvolvedObject:ObjectReference\{Kind:(\w*),Namespace:([^,]*),Name:([^,]*),UID:([^,]*),[\s\S]*?FieldPath:([\s\S]*?),\},Reason:([^,]*),Message:([\s\S]*?),Source:EventSource[\s\S]*?,Type:(\w+),/;

/**
 * An Event the API server did not take, printed whole with %#v by the recorder's printf lines (before the
 * structured form): `Server rejected event '&v1.Event{…}': 'err' (will not retry!)`, `Unable to write event:
 * '&v1.Event{…}': 'err'(may retry after sleeping)`, `Unable to write event '&v1.Event{…}' (retry limit exceeded!)`.
 * At -v=2 these are the only lines of such an Event.
 */
const GO_EVENT =
  /^(?:Server rejected event|Unable to write event)[\s\S]*?InvolvedObject:\w+\.ObjectReference\{Kind:"(\w*)", Namespace:"([^"]*)", Name:"([^"]*)", UID:"([^"]*)"[^}]*?(?:FieldPath:"([^"]*)")?\}, Reason:"(\w*)", Message:("(?:[^"\\]|\\.)*")[\s\S]*?, Type:"(\w*)"/;

function goEvent(text: string, ctx: Ctx): boolean {
  const r = GO_EVENT.exec(text);
  if (r?.[1] !== 'Pod') return false;
  const message = readQuoted(r[7] as string, 0).value;
  emit(ctx, r[8] as string, r[6] as string, message, `${r[2]}/${r[3]}`, r[4] || undefined, r[5] || undefined);
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
): void {
  const eventType = type === 'Warning' ? 'Warning' : 'Normal';
  const d = { type: 'k8s.event' as const, eventType, reason, message, count: 1, pod, podUID } as const;
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
    if (s.msg.startsWith('Server rejected event') || s.msg.startsWith('Unable to write event')) {
      const r = STRUCT_EVENT.exec(s.kv.event ?? '');
      if (r?.[1] !== 'Pod') return false;
      emit(
        ctx,
        r[8] as string,
        r[6] as string,
        r[7] as string,
        `${r[2]}/${r[3]}`,
        r[4] || undefined,
        r[5] || undefined,
      );
      return true;
    }
    return false;
  }
  if (!m.text.startsWith('Event(')) return goEvent(m.text, ctx);
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
