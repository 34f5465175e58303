/**
 * The event printer of `kubectl get events` (pkg/printers/internalversion, printEvent): LAST SEEN TYPE
 * REASON OBJECT MESSAGE, and with -o wide SUBOBJECT SOURCE FIRST SEEN COUNT NAME. An event seen more than
 * once reads "40s (x3 over 2m)".
 */
import type { Event } from '@syncscope/core/api';
import { translateTimestampSince } from '@syncscope/core/kubectl';
import { column, type Printer } from './table.ts';

/** "component, host" as formatEventSource writes it. */
function eventSource(ev: Event): string {
  const { component, host } = ev.source ?? { component: '' };
  return host ? `${component}, ${host}` : component;
}

export const eventPrinter: Printer<Event> = {
  columns: [
    column('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'Type of this event (Normal, Warning), new types could be added in the future.'),
    column(
      'Reason',
      'This should be a short, machine understandable string that gives the reason for this event being generated.',
    ),
    column('Object', 'The object that this event is about.'),
    column('Subobject', 'The subobject (a container of a pod, its fieldPath) this event is about.', 1),
    column('Source', 'The component reporting this event.', 1),
    column('Message', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'The time at which the event was first recorded.', 1),
    column('Count', 'The number of times this event has occurred.', 1),
    column('Name', 'Name must be unique within a namespace.', 1, 'name'),
  ],
  row(ev, now) {
    const first = translateTimestampSince(ev.firstTimestamp, now);
    let last = ev.lastTimestamp ? translateTimestampSince(ev.lastTimestamp, now) : first;
    if (ev.count > 1) last = `${last} (x${ev.count} over ${first})`;
    const obj = ev.involvedObject;
    const target = obj.name ? `${obj.kind.toLowerCase()}/${obj.name}` : obj.kind.toLowerCase();
    return {
      cells: [
        last,
        ev.type,
        ev.reason,
        target,
        obj.fieldPath ?? '',
        eventSource(ev),
        ev.message.trim(),
        first,
        ev.count,
        ev.metadata.name,
      ],
    };
  },
};
