/**
 * An Event the recorder could not write, read from the line that prints it whole (client-go tools/record,
 * event.go). Two printings:
 *   Go's %#v of the *v1.Event, in the printf lines (to v1.28): `&v1.Event{…, ObjectMeta:v1.ObjectMeta{Name:"a.17f…",
 *     …}, InvolvedObject:v1.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"a", UID:"uid", …, FieldPath:"…"},
 *     Reason:"BackOff", Message:"<Go-quoted>", Source:v1.EventSource{…}, …, Count:1, Type:"Warning", …}`
 *   the Event's String(), in the structured lines' `event=` value: `&Event{ObjectMeta:{a.17f…  ns …},
 *     InvolvedObject:ObjectReference{Kind:Pod,Namespace:ns,Name:a,UID:uid,…,FieldPath:…,},Reason:BackOff,
 *     Message:<as is>,Source:EventSource{…},…,Count:1,Type:Warning,…}`
 * Each field is looked for once, after the one before it, so a line costs its length: a pattern that could go back
 * over a long line of such text did not end.
 */
import { readQuoted } from '../kv.ts';

export interface PrintedEvent {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  fieldPath: string;
  reason: string;
  message: string;
  type: string;
  /** the Event's Count, 1 when the line has none */
  count: number;
  /** the Event object's own name (`pod.17f…`), '' when the line has none: a retried write prints it again */
  id: string;
}

const GO_REF =
  /InvolvedObject:\w+\.ObjectReference\{Kind:"(\w*)", Namespace:"([^"]*)", Name:"([^"]*)", UID:"([^"]*)"[^}]*?(?:FieldPath:"([^"]*)")?\}, Reason:"(\w*)", Message:"/y;
const GO_ID = /ObjectMeta:\w+\.ObjectMeta\{Name:"([^"]*)"/;
const STRING_REF = /InvolvedObject:ObjectReference\{Kind:(\w*),Namespace:([^,]*),Name:([^,]*),UID:([^,]*),/y;
const STRING_ID = /ObjectMeta:\{(\S*)/;
const COUNT = /^\d+/;
const WORD = /^\w+/;

/** the number after `label` at or after `from` (the first such label), else 1 */
function countAfter(text: string, label: string, from: number): number {
  const at = text.indexOf(label, from);
  const n = at < 0 ? null : COUNT.exec(text.slice(at + label.length, at + label.length + 12));
  return n ? Number(n[0]) : 1;
}

/** `ref` (a sticky pattern) read where `marker` first is: its match and that place, else undefined */
function refAt(text: string, marker: string, ref: RegExp): { r: RegExpExecArray; at: number } | undefined {
  const at = text.indexOf(marker);
  if (at < 0) return undefined;
  ref.lastIndex = at;
  const r = ref.exec(text);
  return r ? { r, at } : undefined;
}

/** The %#v printing, found in a printf line's text. */
export function fromGoSyntax(text: string): PrintedEvent | undefined {
  const found = refAt(text, 'InvolvedObject:', GO_REF);
  if (!found) return undefined;
  const { r, at } = found;
  const message = readQuoted(text, GO_REF.lastIndex - 1);
  const typeAt = text.indexOf(', Type:"', message.end);
  const typeEnd = typeAt < 0 ? -1 : text.indexOf('"', typeAt + 8);
  if (typeEnd < 0) return undefined;
  return {
    kind: r[1] as string,
    namespace: r[2] as string,
    name: r[3] as string,
    uid: r[4] as string,
    fieldPath: r[5] ?? '',
    reason: r[6] as string,
    message: message.value,
    type: text.slice(typeAt + 8, typeEnd),
    count: countAfter(text, ', Count:', message.end),
    id: GO_ID.exec(text.slice(0, at))?.[1] ?? '',
  };
}

/** The String() printing: a structured line's `event=` value. */
export function fromString(v: string): PrintedEvent | undefined {
  const found = refAt(v, 'InvolvedObject:ObjectReference{', STRING_REF);
  if (!found) return undefined;
  const { r, at } = found;
  const fieldAt = v.indexOf('FieldPath:', STRING_REF.lastIndex);
  const reasonAt = fieldAt < 0 ? -1 : v.indexOf(',},Reason:', fieldAt);
  const messageAt = reasonAt < 0 ? -1 : v.indexOf(',Message:', reasonAt + 10);
  const sourceAt = messageAt < 0 ? -1 : v.indexOf(',Source:EventSource', messageAt + 9);
  if (sourceAt < 0) return undefined;
  const reason = v.slice(reasonAt + 10, messageAt);
  const typeAt = v.indexOf(',Type:', sourceAt);
  const type = typeAt < 0 ? null : WORD.exec(v.slice(typeAt + 6, typeAt + 40));
  if (reason.includes(',') || !type || v.charCodeAt(typeAt + 6 + type[0].length) !== 44) return undefined;
  return {
    kind: r[1] as string,
    namespace: r[2] as string,
    name: r[3] as string,
    uid: r[4] as string,
    fieldPath: v.slice(fieldAt + 10, reasonAt),
    reason,
    message: v.slice(messageAt + 9, sourceAt),
    type: type[0],
    count: countAfter(v, ',Count:', sourceAt),
    id: STRING_ID.exec(v.slice(0, at))?.[1] ?? '',
  };
}
