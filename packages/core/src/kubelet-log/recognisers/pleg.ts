/**
 * pleg/generic.go: the relist's own lines.
 *   GenericPLEG: <podUID>/<containerID>: running -> exited            (glog, -v=4)
 *   "GenericPLEG" podUID=… containerID=… oldState=… newState=…          (structured, -v=4)
 *   "Generic (PLEG): container finished" podID=… containerID=… exitCode=1   (structured, -v=2)
 * A state change maps to events as generic.go's generateEvents does; the same event reported again by the loop
 * ("SyncLoop (PLEG)") is merged by NodeState.pleg.
 */
import type { PlegEventType } from '../../events/trace.ts';
import type { Ctx, Msg } from '../state.ts';

const OLD = /^GenericPLEG: ([^/\s]+)\/([^:\s]+): (\S+) -> (\S+)/;

function transition(ctx: Ctx, uid: string, cid: string, from: string, to: string): void {
  const events: PlegEventType[] = [];
  if (to === 'running') events.push('ContainerStarted');
  else if (to === 'exited') events.push('ContainerDied');
  else if (to === 'unknown') events.push('ContainerChanged');
  else if (to === 'non-existent') {
    if (from === 'exited') events.push('ContainerRemoved');
    else events.push('ContainerDied', 'ContainerRemoved');
  }
  for (const e of events) ctx.node.pleg(ctx, uid, cid, e);
}

export function pleg(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    if (s.msg === 'GenericPLEG') {
      const { podUID, containerID, oldState, newState } = s.kv;
      if (!podUID || !containerID || !newState) return false;
      transition(ctx, podUID, containerID, oldState ?? '', newState);
      return true;
    }
    if (s.msg === 'Generic (PLEG): container finished') {
      const uid = s.kv.podID ?? s.kv.podUID;
      const cid = s.kv.containerID;
      if (!uid || !cid) return false;
      const code = Number(s.kv.exitCode);
      ctx.node.pleg(ctx, uid, cid, 'ContainerDied', Number.isInteger(code) ? code : undefined);
      return true;
    }
    return s.msg.startsWith('GenericPLEG: Relisting') || s.msg === 'GenericPLEG: Relisting';
  }
  if (!m.text.startsWith('GenericPLEG')) return false;
  const r = OLD.exec(m.text);
  if (!r) return m.text.startsWith('GenericPLEG: Relisting');
  transition(ctx, r[1] as string, r[2] as string, r[3] as string, r[4] as string);
  return true;
}
