/**
 * The reflector against a scripted API server over real HTTP: list, then watch from the List's
 * resourceVersion; a BOOKMARK moves it on; an ERROR 410 makes it list again; a lost connection makes it wait
 * (on the injected clock, 800 ms then doubling) and watch again from where it was; a server that answers a
 * watch with a List is listed again every pollMs. Only GET is ever sent.
 */
import { FakeClock } from '@syncscope/core/clock';
import { afterEach, expect, it } from 'vitest';
import { until } from '../../../../test/support/until.ts';
import { KubeClient } from './kube-client.ts';
import { cut, json, scripted, stream } from './kube-testing.ts';
import { Reflector, type WatchEventType } from './reflector.ts';

interface Obj {
  metadata: { name: string; uid: string; resourceVersion: string };
}
const obj = (name: string, rv: string): Obj => ({
  metadata: { name, uid: `uid-${name}`, resourceVersion: rv },
});

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

function start(url: string, clock: FakeClock, pollMs?: number) {
  const got: string[] = [];
  const warnings: string[] = [];
  let warned: (() => void) | undefined;
  const r = new Reflector<Obj>({
    client: new KubeClient({ server: new URL(url), authorization: () => 'Bearer t' }),
    path: '/api/v1/pods',
    fieldSelector: 'spec.nodeName=n1',
    clock,
    ...(pollMs !== undefined ? { pollMs } : {}),
    sink: {
      replace: (items) => got.push(`replace ${items.map((i) => i.metadata.name).join(',')}`),
      event: (type: WatchEventType, o) => got.push(`${type} ${o.metadata.name}`),
    },
    warn: (m) => {
      warnings.push(m);
      warned?.();
    },
  });
  r.start();
  return {
    r,
    got,
    warnings,
    warning: () => new Promise<void>((res) => (warned = res)),
  };
}

it('lists, watches from the version, lists again on 410 and waits before a re-watch after a lost connection', async () => {
  const clock = new FakeClock();
  const s = await scripted([
    json({ kind: 'PodList', metadata: { resourceVersion: '10' }, items: [obj('a', '9')] }),
    stream([
      { type: 'ADDED', object: obj('b', '11') },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } },
      { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } },
    ]),
    json({ kind: 'PodList', metadata: { resourceVersion: '20' }, items: [obj('b', '11')] }),
    cut,
    cut,
    stream([{ type: 'DELETED', object: obj('b', '21') }]),
  ]);
  const f = start(s.url, clock);
  stop = async () => {
    await f.r.stop();
    s.close();
  };
  const list1 = await s.next();
  expect(list1.searchParams.get('fieldSelector')).toBe('spec.nodeName=n1');
  expect(list1.searchParams.get('limit')).toBe('500');
  const watch1 = await s.next();
  expect(Object.fromEntries(watch1.searchParams)).toMatchObject({
    watch: 'true',
    resourceVersion: '10',
    allowWatchBookmarks: 'true',
    fieldSelector: 'spec.nodeName=n1',
  });
  const list2 = await s.next();
  expect(list2.searchParams.has('watch')).toBe(false);
  // lost: a wait of 800 ms on the clock, then the watch again from the re-list's version
  const lost = f.warning();
  expect((await s.next()).searchParams.get('resourceVersion')).toBe('20');
  await lost;
  await until('the wait on the clock', () => clock.nextTimerAt() !== undefined);
  expect(clock.nextTimerAt()).toBe(clock.now() + 800);
  const lostAgain = f.warning();
  await clock.step(800);
  expect((await s.next()).searchParams.get('resourceVersion')).toBe('20');
  await lostAgain;
  await until('the wait on the clock', () => clock.nextTimerAt() !== undefined);
  expect(clock.nextTimerAt()).toBe(clock.now() + 1_600);
  await clock.step(1_600);
  expect((await s.next()).searchParams.get('resourceVersion')).toBe('20');
  await until('the DELETED event', () => f.got.length === 4);
  await f.r.stop();
  expect(f.got).toEqual(['replace a', 'ADDED b', 'replace b', 'DELETED b']);
  expect(f.r.resourceVersion).toBe('21');
  expect(s.requests.every((r) => r.method === 'GET')).toBe(true);
  expect(f.warnings.length).toBe(2);
});

it('a bookmark moves the version a new watch starts from', async () => {
  const clock = new FakeClock();
  const s = await scripted([
    json({ kind: 'PodList', metadata: { resourceVersion: '3' }, items: [] }),
    stream([{ type: 'BOOKMARK', object: { metadata: { resourceVersion: '42' } } }], true),
    stream([]),
  ]);
  const f = start(s.url, clock);
  stop = async () => {
    await f.r.stop();
    s.close();
  };
  await s.next();
  await s.next();
  expect((await s.next()).searchParams.get('resourceVersion')).toBe('42');
  expect(f.got).toEqual(['replace ']);
});

it('lists again every pollMs a resource the server answers a watch for with a List', async () => {
  const clock = new FakeClock();
  const list = (names: string[]) =>
    json({ kind: 'EventList', metadata: { resourceVersion: '1' }, items: names.map((n) => obj(n, '1')) });
  const s = await scripted([list(['e1']), list(['e1']), list(['e1', 'e2'])]);
  const f = start(s.url, clock, 5_000);
  stop = async () => {
    await f.r.stop();
    s.close();
  };
  await s.next();
  expect((await s.next()).searchParams.get('watch')).toBe('true');
  await until('the wait on the clock', () => clock.nextTimerAt() !== undefined);
  expect(clock.nextTimerAt()).toBe(clock.now() + 5_000);
  await clock.step(5_000);
  await s.next();
  await until('the third list', () => f.got.length === 3);
  expect(f.got).toEqual(['replace e1', 'replace e1', 'replace e1,e2']);
  expect(f.warnings).toEqual([]);
});
