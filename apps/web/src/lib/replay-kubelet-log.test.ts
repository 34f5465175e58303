/**
 * A kubelet log imported by the core importer (the same code `pnpm import-log` runs) opens in the replay:
 * its NDJSON passes the file check with the importer's fields (node, origin, inferred, log.raw) and the pods
 * come back from it. Importing the importer here also typechecks it with the web's settings (no Node types).
 */
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import { describe, expect, it } from 'vitest';
import { parseTraceNdjson } from './ndjson.ts';
import { buildReplay } from './replay.ts';

const UID = '0f0f0f0f-1111-2222-3333-444444444444';
const line = (t: string, file: string, msg: string) =>
  `Jun 01 10:00:${t} n1 kubelet[77]: I0601 10:00:${t}.000000      77 ${file}] ${msg}`;
const LOG = [
  line('01', 'kubelet.go:2421', '"SyncLoop ADD" source="api" pods=["shop/web-0"]'),
  line('02', 'volume_manager.go:1', '"Waiting for volumes to attach and mount for pod" pod="shop/web-0"'),
  line(
    '02',
    'kubelet.go:2453',
    `"SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID}","Type":"ContainerStarted","Data":"sandbox1"}`,
  ),
  line(
    '03',
    'generic.go:334',
    `"Generic (PLEG): container finished" podID="${UID}" containerID="c1" exitCode=1`,
  ),
  line(
    '03',
    'kubelet.go:2453',
    `"SyncLoop (PLEG): event for pod" pod="shop/web-0" event={"ID":"${UID}","Type":"ContainerDied","Data":"c1"}`,
  ),
  line(
    '04',
    'status_manager.go:1',
    `"Status for pod updated successfully" pod="shop/web-0" statusVersion=2 status={"phase":"Running"}`,
  ),
].join('\n');

describe('an imported kubelet log in the replay', () => {
  it('passes the NDJSON check and rebuilds its pod', () => {
    const { events } = importKubeletLog(LOG, { year: 2024 });
    expect(events.some((e) => e.type === 'log.raw')).toBe(true);
    expect(events.some((e) => e.inferred)).toBe(true);
    const parsed = parseTraceNdjson(events.map((e) => JSON.stringify(e)).join('\n'));
    expect(parsed.errors).toEqual([]);
    expect(parsed.events).toHaveLength(events.length);
    expect(parsed.events.every((e) => e.node === 'n1' && (e.origin?.line ?? 0) > 0)).toBe(true);
    const store = buildReplay(parsed.events, 'kubelet.ndjson');
    expect(
      store.pods.items.map((p) => [`${p.metadata.namespace}/${p.metadata.name}`, p.metadata.uid]),
    ).toEqual([['shop/web-0', UID]]);
  });

  it('refuses an event whose importer fields have the wrong type', () => {
    const bad = JSON.stringify({ type: 'log.raw', text: 'x', seq: 1, time: 1, origin: { line: 'one' } });
    expect(parseTraceNdjson(bad).errors[0]?.message).toBe('origin must be {line: number}');
  });
});
