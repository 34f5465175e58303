/**
 * Turns one kubelet log entry into events: the message families, tried in order, each a module of its own
 * under recognisers/. Structured messages are split into key/value pairs only when a family claims the
 * message, so the many lines no family reads cost one quoted-string read. Called by KubeletLogParser.
 */
import { jsonText, parseStructured, readQuoted, type Structured } from './kv.ts';
import { events } from './recognisers/events.ts';
import { images } from './recognisers/images.ts';
import { kills } from './recognisers/kills.ts';
import { pleg } from './recognisers/pleg.ts';
import { probes } from './recognisers/probes.ts';
import { status } from './recognisers/status.ts';
import { syncErrors } from './recognisers/sync-errors.ts';
import { syncLoop } from './recognisers/syncloop.ts';
import { workers } from './recognisers/workers.ts';
import type { Ctx, Msg } from './state.ts';

const FAMILIES = [syncLoop, pleg, syncErrors, events, probes, kills, images, workers, status];

/** Structured messages some family reads (the rest are not split into values). */
const CLAIMED = new Set([
  'GenericPLEG',
  'Generic (PLEG): container finished',
  'Error syncing pod, skipping',
  'Failed killing the pod',
  'Back-off restarting failed container',
  'Event occurred',
  'Server rejected event (will not retry!)',
  'Unable to write event (may retry after sleeping)',
  'Unable to write event (retry limit exceeded!)',
  'Unable to write event (broadcaster is shut down)',
  'Unable to construct event (will not retry!)',
  'Probe failed',
  'Probe succeeded',
  'Probe succeeded with a warning',
  'Probe errored',
  'Probe unknown without error',
  'Unsupported probe result',
  'Killing container with a grace period',
  'Killing container with a grace period override',
  'Killing unwanted pod',
  'Stopping PodSandbox for pod, because all other containers are dead',
  'No sandbox for pod can be found. Need to start a new one',
  'No ready sandbox for pod can be found. Need to start a new one',
  'Cleaned up orphaned pod volumes dir',
  'Orphaned pod found, removing',
  'PullImage from image service failed',
  'Failed to pull image',
  'Back-off pulling image',
  'Pod is being synced for the first time',
  'Notifying pod of pending update',
  'Processing pod event',
  'Processing pod event done',
  'Pod is finished processing, no further updates',
  'Pod worker has stopped',
  'SyncPod enter',
  'SyncPod exit',
  'SyncTerminatingPod enter',
  'SyncTerminatingPod exit',
  'SyncTerminatedPod enter',
  'SyncTerminatedPod exit',
  // v1.22-v1.26, when these functions were unexported
  'syncPod enter',
  'syncPod exit',
  'syncTerminatingPod enter',
  'syncTerminatingPod exit',
  'syncTerminatedPod enter',
  'syncTerminatedPod exit',
  'Pod worker has observed request to terminate',
  'Pod indicated lifecycle completed naturally and should now terminate',
  'Pod terminated all containers successfully',
  'SyncTerminatingRuntimePod enter',
  'SyncTerminatingRuntimePod exit',
  'Sandbox for pod has changed. Need to start a new one',
  'Sandbox for pod has no IP address. Need to start a new one',
  'Pod is orphaned and must be torn down',
  'Pod is marked for graceful deletion, begin teardown',
  'Pod is being evicted by the kubelet, begin teardown',
  'Pod is being removed by the kubelet, begin teardown',
  'Pod is in a terminal phase (success/failed), begin teardown',
  'Pod has been deleted and must be killed',
  'Clean up containers for orphaned pod we had not seen before',
  'Clean up orphaned pod containers',
  'Pod never started and the worker can now stop',
  'Pod cannot start ever',
  'Handling termination and deletion of the pod to pod workers',
  'Pod is restartable after termination due to UID reuse',
  'Pod will be restarted because it is in the desired set and not known to the pod workers (likely due to UID reuse)',
  'Pod has been terminated but another pod with the same UID was created, remove history to allow restart',
  'Pod is orphaned and still running, began terminating',
  'Pod is orphaned and has not been started',
  'Pod is orphaned and still terminating, notified the pod worker',
  'Pod terminated all orphaned containers successfully and worker can now stop',
  'Multiple sandboxes are ready for Pod. Need to reconcile them',
  'Pod is complete and the worker can now stop',
  'Pod has been terminated and is no longer known to the kubelet, remove all history',
  'Status for pod updated successfully',
  'Got phase for pod',
]);

const CLAIMED_LENGTHS = new Set([...CLAIMED].map((m) => m.length));

/** How the glog-style messages the families read begin (one test instead of asking every family). */
const GLOG_CLAIMED =
  /^(?:SyncLoop|[Ss]kipping pod|GenericPLEG|Error syncing|Failed killing the pod "|Event\(|(?:Liveness|Readiness|Startup) probe|Killing|No (?:ready )?sandbox|Sandbox for pod "|Multiple sandboxes are ready for Pod "|More than 1 sandboxes for pod "|Need to restart pod infra container for "|Stopping PodSandbox for "|Orphaned pod|PullImage|Pull image "|[Bb]ack-off \S+ restarting failed container=|Status for pod|Server rejected event '|Unable to write event)/;

function claimed(msg: string): boolean {
  return CLAIMED.has(msg) || msg.startsWith('SyncLoop') || msg.startsWith('Skipping pod synchronization');
}

/**
 * The structured form of a text message (undefined for a glog-style message), or null when no family reads the
 * message: then it is not split into values at all.
 */
export function structuredOf(text: string): Structured | null | undefined {
  if (text.charCodeAt(0) !== 34) return GLOG_CLAIMED.test(text) ? undefined : null;
  const close = text.indexOf('"', 1);
  // a message that never ends (a cut line) is none a family reads
  if (close < 0) return null;
  // a backslash matters only before the closing quote: the rest of the line is not searched for one
  let esc = close > 1 ? text.lastIndexOf('\\', close - 1) : -1;
  if (esc > 0) esc = text.indexOf('\\', 1);
  else esc = -1;
  let msg: string;
  if (close > 0 && (esc < 0 || esc > close)) {
    // most messages are no family's: told by their length and first words, without cutting them out
    if (
      !CLAIMED_LENGTHS.has(close - 1) &&
      !text.startsWith('SyncLoop', 1) &&
      !text.startsWith('Skipping pod synchronization', 1)
    )
      return null;
    msg = text.slice(1, close);
  } else if (esc > 0 && !mayBeClaimed(text.slice(1, esc))) return null;
  else msg = readQuoted(text, 0).value;
  return claimed(msg) ? (parseStructured(text) ?? null) : null;
}

/** every beginning of a claimed message: a message with an escape in it is read only when its text before
 * the escape is one of them (or starts a prefix family claims whole) */
const CLAIMED_STARTS = new Set<string>();
for (const m of [...CLAIMED, 'SyncLoop', 'Skipping pod synchronization'])
  for (let i = 0; i <= m.length; i++) CLAIMED_STARTS.add(m.slice(0, i));

function mayBeClaimed(head: string): boolean {
  return (
    CLAIMED_STARTS.has(head) || head.startsWith('SyncLoop') || head.startsWith('Skipping pod synchronization')
  );
}

/** Flattens a klog JSON record's values to the strings the text form would show. */
export function structuredOfJson(obj: Record<string, unknown>): Structured | null {
  const msg = String(obj.msg);
  const kv: Record<string, string> = {};
  if (!claimed(msg)) return null;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'ts' || k === 'msg' || k === 'caller' || k === 'v') continue;
    if (typeof v === 'string') kv[k] = v;
    else if (typeof v === 'object' && v !== null && 'name' in v && !Array.isArray(v)) {
      const o = v as { name?: unknown; namespace?: unknown };
      kv[k] = o.namespace ? `${String(o.namespace)}/${String(o.name)}` : String(o.name);
    } else kv[k] = jsonText(v);
  }
  return { msg, kv };
}

/**
 * true when some family understood the entry (it may still have emitted nothing, e.g. an empty ADD). Callers
 * ask only for entries structuredOf did not rule out.
 */
export function recognise(m: Msg, ctx: Ctx): boolean {
  for (const f of FAMILIES) if (f(m, ctx)) return true;
  return false;
}
