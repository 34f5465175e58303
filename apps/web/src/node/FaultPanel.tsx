/**
 * The simulated node's fault buttons (shown only when GET /api/v1/sim says the runtime is ours): faults on
 * one pod (a container exits with a code or goes unknown, the sandbox dies), faults on the node (runtime
 * outage, the next N calls of a method fail, an image goes missing or pulls slowly, latency, clear), and
 * the clock speed. Each applied fault becomes a `sim.fault` event, drawn as a marker on the loop strip and
 * the pod timelines. Above the buttons, the faults in effect (ActiveFaults.tsx; GET /api/v1/sim/faults,
 * polled each second and after every change), each with its own clear, and "clear all". Test ids:
 * `fault-active`, `fault-active-item`, `fault-clear-one`, `fault-clear-all`.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import {
  type ActiveFault,
  clearFaults,
  type FaultRequest,
  getActiveFaults,
  getSim,
  postFault,
  putSpeed,
} from '../api/node-actions.ts';
import { queryKeys, useNodeRows, usePods } from '../api/queries.ts';
import { usePageSettled } from '../hooks/use-page-settled.ts';
import { ActiveFaults } from './ActiveFaults.tsx';
import './faults.css';

const SPEEDS = [1, 5, 10, 30] as const;

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child passed in
    <label className="field">
      <span className="k">{label}</span>
      {children}
    </label>
  );
}

export function FaultPanel() {
  const queryClient = useQueryClient();
  // asked once the page's first screen is in (the panel shows only on a simulated node)
  const settled = usePageSettled();
  const sim = useQuery({ queryKey: ['sim'], queryFn: getSim, staleTime: 30_000, enabled: settled });
  // the pods to pick from are the table's rows; their containers come with the pods list, fetched only
  // once the user turns to the panel (the node page's first requests stay the rows)
  const rows = useNodeRows();
  const [touched, setTouched] = useState(false);
  const pods = usePods(undefined, touched);
  const [podKey, setPodKey] = useState('');
  const [container, setContainer] = useState('');
  const [exitCode, setExitCode] = useState(1);
  const [outage, setOutage] = useState(5);
  const [method, setMethod] = useState('StartContainer');
  const [count, setCount] = useState(3);
  const [image, setImage] = useState('busybox');
  const [pullSeconds, setPullSeconds] = useState(10);
  const [latency, setLatency] = useState(200);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const active = useQuery({
    queryKey: ['sim', 'faults'],
    queryFn: getActiveFaults,
    enabled: sim.data?.simulated === true,
    refetchInterval: 1_000,
  });

  if (!sim.data?.simulated) return null;

  const podKeys = (rows.data?.list ?? []).map((r) => `${r.namespace}/${r.name}`).sort();
  const selectedKey = podKeys.includes(podKey) ? podKey : podKeys[0];
  const selected = pods.data?.items.find(
    (p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}` === selectedKey,
  );
  const containers = selected
    ? [...(selected.spec.initContainers ?? []), ...selected.spec.containers].map((c) => c.name)
    : [];
  const containerName = containers.includes(container) ? container : (containers[0] ?? '');
  const slash = selectedKey?.indexOf('/') ?? -1;
  const target =
    selectedKey && slash > 0
      ? { namespace: selectedKey.slice(0, slash), pod: selectedKey.slice(slash + 1) }
      : undefined;

  const fire = async (fault: FaultRequest) => {
    setResult(null);
    try {
      const r = await postFault(fault);
      setResult({ ok: true, text: `${fault.kind}: ${r.detail}` });
    } catch (e) {
      setResult({ ok: false, text: `${fault.kind}: ${(e as Error).message}` });
    }
    void queryClient.invalidateQueries({ queryKey: ['sim', 'faults'] });
  };

  const clear = async (one?: ActiveFault) => {
    setResult(null);
    try {
      const r = await clearFaults(one);
      setResult({ ok: true, text: r.detail });
    } catch (e) {
      setResult({ ok: false, text: `clear: ${(e as Error).message}` });
    }
    void queryClient.invalidateQueries({ queryKey: ['sim', 'faults'] });
  };

  const setSpeed = async (speed: number) => {
    try {
      await putSpeed(speed);
      setResult({ ok: true, text: `the node runs at ${speed}×` });
    } catch (e) {
      setResult({ ok: false, text: `speed: ${(e as Error).message}` });
    }
    void queryClient.invalidateQueries({ queryKey: ['sim'] });
    void queryClient.invalidateQueries({ queryKey: queryKeys.node });
  };

  const btn = (kind: FaultRequest['kind'], text: string, make: () => FaultRequest | undefined) => (
    <button
      type="button"
      data-testid={`fault-${kind}`}
      disabled={make() === undefined}
      onClick={() => {
        const f = make();
        if (f) void fire(f);
      }}
    >
      {text}
    </button>
  );
  const num = (v: number, set: (n: number) => void, testid: string, min = 0) => (
    <input
      type="number"
      min={min}
      value={v}
      onChange={(e) => set(Number(e.target.value))}
      data-testid={testid}
      className="num"
    />
  );

  return (
    <section
      className="panel faults"
      data-testid="fault-panel"
      onFocusCapture={() => setTouched(true)}
      onPointerDownCapture={() => setTouched(true)}
    >
      <h2>Faults — simulated node</h2>
      <ActiveFaults items={active.data?.items} onClear={(f) => void clear(f)} />
      <div className="fault-group">
        <Field label="pod">
          <select
            value={target ? `${target.namespace}/${target.pod}` : ''}
            onChange={(e) => {
              setTouched(true);
              setPodKey(e.target.value);
            }}
            data-testid="fault-pod"
          >
            {podKeys.map((key) => (
              <option key={key} value={key}>
                {key}
              </option>
            ))}
          </select>
        </Field>
        <Field label="container">
          <select
            value={containerName}
            onChange={(e) => setContainer(e.target.value)}
            data-testid="fault-container"
          >
            {containers.length === 0 && <option value="">{pods.isFetching ? 'loading…' : '—'}</option>}
            {containers.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <Field label="exit code">{num(exitCode, setExitCode, 'fault-exit-code')}</Field>
        {btn('containerExit', `container exits ${exitCode}`, () =>
          target && containerName
            ? { kind: 'containerExit', ...target, container: containerName, exitCode }
            : undefined,
        )}
        {btn('containerUnknown', 'container goes unknown', () =>
          target && containerName
            ? { kind: 'containerUnknown', ...target, container: containerName }
            : undefined,
        )}
        {btn('sandboxDie', 'sandbox dies', () => (target ? { kind: 'sandboxDie', ...target } : undefined))}
      </div>
      <div className="fault-group">
        <Field label="outage (s)">{num(outage, setOutage, 'fault-outage-seconds', 1)}</Field>
        {btn('outage', 'runtime outage', () => ({ kind: 'outage', seconds: outage }))}
        <Field label="method">
          <input value={method} onChange={(e) => setMethod(e.target.value)} data-testid="fault-method" />
        </Field>
        <Field label="next N calls">{num(count, setCount, 'fault-count', 1)}</Field>
        {btn('failNext', 'fail', () => (method ? { kind: 'failNext', method, count } : undefined))}
      </div>
      <div className="fault-group">
        <Field label="image">
          <input value={image} onChange={(e) => setImage(e.target.value)} data-testid="fault-image" />
        </Field>
        {btn('imageMissing', 'image goes missing', () =>
          image ? { kind: 'imageMissing', image } : undefined,
        )}
        {btn('imageRestore', 'image back', () => (image ? { kind: 'imageRestore', image } : undefined))}
        <Field label="pull (s)">{num(pullSeconds, setPullSeconds, 'fault-pull-seconds')}</Field>
        {btn('slowPull', 'pulls slowly', () =>
          image ? { kind: 'slowPull', image, seconds: pullSeconds } : undefined,
        )}
      </div>
      <div className="fault-group">
        <Field label="latency (ms)">{num(latency, setLatency, 'fault-latency-ms')}</Field>
        {btn('latency', 'add latency', () => ({ kind: 'latency', ms: latency }))}
        <Field label="speed">
          <select
            value={String(sim.data.speed)}
            onChange={(e) => void setSpeed(Number(e.target.value))}
            data-testid="speed"
          >
            {[...new Set([...SPEEDS, sim.data.speed])]
              .sort((a, b) => a - b)
              .map((s) => (
                <option key={s} value={s}>
                  {s}×
                </option>
              ))}
          </select>
        </Field>
      </div>
      {result && (
        <p className={result.ok ? 'ok' : 'bad'} data-testid="fault-result">
          {result.text}
        </p>
      )}
    </section>
  );
}
