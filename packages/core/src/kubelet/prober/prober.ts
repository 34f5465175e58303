/**
 * prober (pkg/kubelet/prober/prober.go): runs one probe of one container and reports the result.
 *
 * Called by a probe worker (worker.ts) once per period, never concurrently for the same worker. A call takes
 * up to maxProbeRetries × timeoutSeconds (an exec waits on the CRI's ExecSync; HTTP/TCP on the NetProber).
 *
 *   probe()                 the result the worker counts towards its thresholds, or an error the worker
 *                           throws away; records the Unhealthy / ProbeWarning event and a `probe.result` trace
 *   runProbeWithRetries()   runs the handler up to 3 times, again only while it *errors* (a plain failure is
 *                           an answer and is not retried)
 *   runProbe()              one exec / HTTP GET / TCP attempt, as pkg/probe/{exec,http,tcp} classify it
 *
 * How answers map (kubelet v1.32):
 *   exec: exit 0 → success; exit ≠ 0 → failure, output = stdout+stderr; ExecSync DEADLINE_EXCEEDED →
 *         failure `command "<cmd>" timed out`; any other CRI error → error (retried)
 *   http: 200–299 → success; 300–399 not followed → warning (success + ProbeWarning); ≥ 400 → failure
 *         `HTTP probe failed with statuscode: <n>`; transport error → failure `Get "<url>": <err>`
 *   tcp:  connected → success; dial error → failure with the dial error
 *   a port that cannot be resolved, or no handler → error
 */
import type { Container, Pod, PodStatus, Probe } from '../../api/v1.ts';
import { CriError, type CriRuntime, codeName, GrpcCode } from '../../cri/types.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { ProbeResult, ProbeType } from '../../events/trace.ts';
import { type EventRecorder, Reasons } from '../events/event-recorder.ts';
import { containerFieldPath, formatPod } from '../kuberuntime/util.ts';
import { joinHostPort, type NetProber } from './net-prober.ts';
import { containerIDKey } from './results-manager.ts';

/** Attempts per probe run while the handler errors (prober.go maxProbeRetries). */
const MAX_PROBE_RETRIES = 3;

/** Bytes of exec output the kubelet keeps (pkg/probe/exec maxReadLength = 10 KiB). */
const MAX_EXEC_OUTPUT_LENGTH = 10 * 1024;

/** pkg/probe.Result: what a handler answered, before it is folded into Success/Failure. */
type HandlerResult = 'success' | 'warning' | 'failure' | 'unknown';

export interface HandlerOutcome {
  result: HandlerResult;
  output: string;
  error?: string;
}

/** What the worker gets back: a result to count, or an error (result thrown away). */
export type ProbeOutcome = { result: ProbeResult; error?: undefined } | { result: 'Failure'; error: string };

export interface ProberDeps {
  cri: Pick<CriRuntime, 'execSync'>;
  netProber: NetProber;
  recorder: EventRecorder;
  trace: TraceRecorder;
}

function probeSpecOf(container: Container, probeType: ProbeType): Probe | undefined {
  switch (probeType) {
    case 'Liveness':
      return container.livenessProbe;
    case 'Readiness':
      return container.readinessProbe;
    case 'Startup':
      return container.startupProbe;
  }
}

/** probe.ResolveContainerPort: a number, a named container port, or a number written as a string. */
export function resolveContainerPort(port: number | string, container: Container): number {
  let n: number;
  if (typeof port === 'number') n = port;
  else {
    const named = container.ports?.find((p) => p.name === port);
    if (named) n = named.containerPort;
    else if (/^[+-]?\d+$/.test(port)) n = Number.parseInt(port, 10);
    else throw new Error(`strconv.Atoi: parsing ${JSON.stringify(port)}: invalid syntax`);
  }
  if (n > 0 && n < 65536) return n;
  throw new Error(`invalid port number: ${n}`);
}

/** kubecontainer.ExpandContainerCommandOnlyStatic: $(VAR) from the container's literal env; $$ escapes. */
export function expandCommand(command: string[], container: Container): string[] {
  const env = new Map(
    (container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value]),
  );
  return command.map((arg) =>
    arg.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) =>
      name === undefined ? '$' : (env.get(name) ?? m),
    ),
  );
}

/** An error's text as the kubelet prints a gRPC status error. */
function errorText(err: unknown): string {
  if (err instanceof CriError) return `rpc error: code = ${codeName(err.code)} desc = ${err.details}`;
  return err instanceof Error ? err.message : String(err);
}

function decode(b: Buffer | Uint8Array | undefined): string {
  return b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8') : '';
}

export class Prober {
  constructor(private readonly deps: ProberDeps) {}

  async probe(
    probeType: ProbeType,
    pod: Pod,
    status: PodStatus,
    container: Container,
    containerID: string,
  ): Promise<ProbeOutcome> {
    const spec = probeSpecOf(container, probeType);
    if (!spec) return { result: 'Success' };

    const { result, output, error } = await this.runProbeWithRetries(
      spec,
      pod,
      status,
      container,
      containerID,
    );
    if (error !== undefined) {
      this.event(
        pod,
        container,
        Reasons.ContainerUnhealthy,
        `${probeType} probe errored and resulted in ${result} state: ${error}`,
      );
      this.traceResult(probeType, pod, container, 'Unknown', error);
      return { result: 'Failure', error };
    }
    switch (result) {
      case 'success':
        this.traceResult(probeType, pod, container, 'Success', output);
        return { result: 'Success' };
      case 'warning':
        this.event(pod, container, Reasons.ContainerProbeWarning, `${probeType} probe warning: ${output}`);
        this.traceResult(probeType, pod, container, 'Success', output);
        return { result: 'Success' };
      case 'failure':
        this.event(pod, container, Reasons.ContainerUnhealthy, `${probeType} probe failed: ${output}`);
        this.traceResult(probeType, pod, container, 'Failure', output);
        return { result: 'Failure' };
      case 'unknown':
        this.traceResult(probeType, pod, container, 'Failure', output);
        return { result: 'Failure' };
    }
  }

  async runProbeWithRetries(
    spec: Probe,
    pod: Pod,
    status: PodStatus,
    container: Container,
    containerID: string,
  ): Promise<HandlerOutcome> {
    let last: HandlerOutcome = { result: 'unknown', output: '' };
    for (let i = 0; i < MAX_PROBE_RETRIES; i++) {
      last = await this.runProbe(spec, pod, status, container, containerID);
      if (last.error === undefined) return last;
    }
    return last;
  }

  async runProbe(
    spec: Probe,
    pod: Pod,
    status: PodStatus,
    container: Container,
    containerID: string,
  ): Promise<HandlerOutcome> {
    const timeoutSeconds = spec.timeoutSeconds ?? 1;
    if (spec.exec) {
      return this.execProbe(expandCommand(spec.exec.command ?? [], container), containerID, timeoutSeconds);
    }
    if (spec.httpGet) {
      let url: string;
      try {
        const g = spec.httpGet;
        const scheme = (g.scheme ?? 'HTTP').toLowerCase();
        const port = resolveContainerPort(g.port, container);
        const path = g.path ?? '';
        url = `${scheme}://${joinHostPort(g.host || status.podIP || '', port)}${path && !path.startsWith('/') ? '/' : ''}${path}`;
      } catch (e) {
        return { result: 'unknown', output: '', error: errorText(e) };
      }
      return this.httpProbe(url, timeoutSeconds);
    }
    if (spec.tcpSocket) {
      let port: number;
      try {
        port = resolveContainerPort(spec.tcpSocket.port, container);
      } catch (e) {
        return { result: 'unknown', output: '', error: errorText(e) };
      }
      const host = spec.tcpSocket.host || status.podIP || '';
      const a = await this.deps.netProber.tcp(host, port, timeoutSeconds * 1000);
      return 'ok' in a ? { result: 'success', output: '' } : { result: 'failure', output: a.error };
    }
    return {
      result: 'unknown',
      output: '',
      error: `missing probe handler for ${formatPod(pod)}:${container.name}`,
    };
  }

  private async execProbe(
    cmd: string[],
    containerID: string,
    timeoutSeconds: number,
  ): Promise<HandlerOutcome> {
    try {
      const r = await this.deps.cri.execSync(containerIDKey(containerID), cmd, timeoutSeconds);
      const output = (decode(r.stdout) + decode(r.stderr)).slice(0, MAX_EXEC_OUTPUT_LENGTH);
      return { result: r.exit_code === 0 ? 'success' : 'failure', output };
    } catch (e) {
      // remote_runtime.go turns DEADLINE_EXCEEDED into a TimeoutError; with ExecProbeTimeout (GA) the exec
      // prober reports it as a failure whose output is the error text.
      if (e instanceof CriError && e.code === GrpcCode.DEADLINE_EXCEEDED) {
        return { result: 'failure', output: `command ${JSON.stringify(cmd.join(' '))} timed out` };
      }
      return { result: 'unknown', output: '', error: errorText(e) };
    }
  }

  private async httpProbe(url: string, timeoutSeconds: number): Promise<HandlerOutcome> {
    let a: Awaited<ReturnType<NetProber['http']>>;
    try {
      a = await this.deps.netProber.http(url, timeoutSeconds * 1000);
    } catch (e) {
      a = { error: errorText(e) };
    }
    if ('error' in a) return { result: 'failure', output: `Get ${JSON.stringify(url)}: ${a.error}` };
    if (a.status >= 200 && a.status < 400) {
      if (a.status >= 300)
        return { result: 'warning', output: `Probe terminated redirects, Response body: ${a.body}` };
      return { result: 'success', output: a.body };
    }
    return { result: 'failure', output: `HTTP probe failed with statuscode: ${a.status}` };
  }

  private event(pod: Pod, container: Container, reason: string, message: string): void {
    this.deps.recorder.event(pod, 'Warning', reason, message, containerFieldPath(pod, container.name));
  }

  private traceResult(
    probe: ProbeType,
    pod: Pod,
    container: Container,
    result: ProbeResult,
    output: string,
  ): void {
    this.deps.trace.record({
      type: 'probe.result',
      podUID: pod.metadata.uid ?? '',
      pod: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`,
      container: container.name,
      probe,
      result,
      ...(output ? { output: output.slice(0, 1024) } : {}),
    });
  }
}
