/**
 * The kubelet's settings the explanation reads, and where each came from: the kubelet's defaults (v1.32),
 * the server's own --config, or the log itself (its version line and its `FLAG: --feature-gates` line).
 *
 *   crash-loop back-off   initial 10 s doubling to 300 s (kubelet.go containerBackOffPeriod,
 *                         MaxContainerBackOff), reset when the death comes more than 600 s after the
 *                         entry's last update (v1.32 sets it explicitly; ≤ v1.31 used flowcontrol's 2 × max)
 *   v1.33+                gate ReduceDefaultCrashLoopBackOffDecay: initial 1 s, max 60 s
 *   ≤ v1.34               a failed sync requeues the worker after backOffPeriod 10 s jittered ×[1, 1.5)
 *   v1.35+                a CrashLoopBackOff requeues the worker when the back-off ends
 * Browser-safe: no Node imports.
 */

export interface ExplainParams {
  /** the first window of the crash-loop ladder */
  initialBackOffMs: number;
  /** where the ladder stops doubling */
  maxBackOffMs: number;
  /** a death more than this after the entry's last update starts the ladder over */
  resetMs: number;
  /** the image pull ladder (images/image_manager.go) */
  imageInitialBackOffMs: number;
  imageMaxBackOffMs: number;
  /** the pod worker's requeue after a failed sync, and its jitter factor */
  backOffPeriodMs: number;
  jitterFactor: number;
  /** the resync of a healthy pod (syncFrequency), jittered like the requeue */
  resyncMs: number;
  /** the generic PLEG's relist period: a runtime change is seen at most this late */
  relistMs: number;
  /** the sync loop's ticker, which hands due workers their requeued work */
  syncTickerMs: number;
  /**
   * What a start may take between the sync that decides it and the runtime running it (image present,
   * CreateContainer, StartContainer): a log at -v ≤ 2 shows no CRI durations, so this is assumed.
   */
  startAllowanceMs: number;
  /** v1.35+: the worker requeues a back-off at its end instead of after backOffPeriod */
  requeueAtBackOffEnd: boolean;
  /** "v1.31" when the log names the version */
  version?: string;
  /** each setting that is not the default: where it came from, in words */
  origins: Partial<Record<keyof Omit<ExplainParams, 'origins' | 'version'>, string>>;
}

/** The kubelet's (v1.32) defaults. */
export function defaultExplainParams(): ExplainParams {
  return {
    initialBackOffMs: 10_000,
    maxBackOffMs: 300_000,
    resetMs: 600_000,
    imageInitialBackOffMs: 10_000,
    imageMaxBackOffMs: 300_000,
    backOffPeriodMs: 10_000,
    jitterFactor: 0.5,
    resyncMs: 60_000,
    relistMs: 1_000,
    syncTickerMs: 1_000,
    startAllowanceMs: 5_000,
    requeueAtBackOffEnd: false,
    origins: {},
  };
}

/** The subset of a KubeletConfiguration (../kubelet/configuration.ts) the explanation reads. */
export interface ConfigSettings {
  containerBackOffPeriodMs: number;
  maxContainerBackOffMs: number;
  containerBackOffResetMs: number;
  imageBackOffPeriodMs: number;
  maxImageBackOffMs: number;
  backOffPeriodMs: number;
  syncFrequencyMs: number;
  genericPlegRelistPeriodMs: number;
  syncTickerMs: number;
}

/** The parameters a server's --config gives (settings equal to the kubelet's defaults are not marked). */
export function paramsFromConfig(c: ConfigSettings, base = defaultExplainParams()): ExplainParams {
  const p: ExplainParams = { ...base, origins: { ...base.origins } };
  const set = (k: keyof ExplainParams['origins'], v: number, flag: string) => {
    if (p[k] === v) return;
    (p as unknown as Record<string, number>)[k] = v;
    p.origins[k] = `the server's --config (${flag})`;
  };
  set('initialBackOffMs', c.containerBackOffPeriodMs, 'containerBackOffPeriod');
  set('maxBackOffMs', c.maxContainerBackOffMs, 'maxContainerBackOff');
  set('resetMs', c.containerBackOffResetMs, 'containerBackOffReset');
  set('imageInitialBackOffMs', c.imageBackOffPeriodMs, 'imageBackOffPeriod');
  set('imageMaxBackOffMs', c.maxImageBackOffMs, 'maxImageBackOff');
  set('backOffPeriodMs', c.backOffPeriodMs, 'backOffPeriod');
  set('resyncMs', c.syncFrequencyMs, 'syncFrequency');
  set('relistMs', c.genericPlegRelistPeriodMs, 'genericPlegRelistPeriod');
  set('syncTickerMs', c.syncTickerMs, 'syncTicker');
  // newCrashLoopBackOff: a max below the initial delay is the initial delay too
  if (p.maxBackOffMs < p.initialBackOffMs) set('initialBackOffMs', p.maxBackOffMs, 'maxContainerBackOff');
  return p;
}

/** What a log says about its kubelet: the version and the feature gates it was started with. */
export interface LogSettings {
  version?: { major: number; minor: number; text: string };
  gates: Map<string, boolean>;
}

const VERSION_LINES = [
  /Kubelet version"?\s+kubeletVersion="?v(\d+)\.(\d+)[^"\s]*/,
  /^"?Version: v(\d+)\.(\d+)\S*/,
  /kubeletVersion="v(\d+)\.(\d+)[^"]*"/,
];
const GATES_FLAG = /FLAG: --feature-gates="([^"]*)"/;

/**
 * Reads one kubelet line's text into `into` (the version line, the feature-gates flag line); true when the
 * line was one of them (the parameters are then worked out again).
 */
export function readLogSetting(text: string, into: LogSettings): boolean {
  let read = false;
  if (!into.version && text.includes('ersion')) {
    for (const re of VERSION_LINES) {
      const m = re.exec(text);
      if (m) {
        const text0 = m[0].match(/v\d+\.\d+[^"\s]*/)?.[0] ?? `v${m[1]}.${m[2]}`;
        into.version = { major: Number(m[1]), minor: Number(m[2]), text: text0 };
        read = true;
        break;
      }
    }
  }
  if (!text.includes('FLAG: --feature-gates')) return read;
  const m = GATES_FLAG.exec(text);
  for (const kv of (m?.[1] ?? '').split(',')) {
    const [k, v] = kv.split('=');
    if (k && v) into.gates.set(k.trim(), v.trim() === 'true');
  }
  return true;
}

/** The parameters once the log's own settings are applied over `base` (the defaults or the --config). */
export function paramsFromLog(s: LogSettings, base = defaultExplainParams()): ExplainParams {
  const p: ExplainParams = { ...base, origins: { ...base.origins } };
  const v = s.version;
  if (!v) return p;
  p.version = v.text;
  const at = (minor: number) => v.major > 1 || (v.major === 1 && v.minor >= minor);
  if (!at(32) && !p.origins.resetMs) {
    p.resetMs = 2 * p.maxBackOffMs;
    p.origins.resetMs = `kubelet ${v.text} (≤ v1.31: flowcontrol's expiry, 2 × max back-off)`;
  }
  if (at(33) && s.gates.get('ReduceDefaultCrashLoopBackOffDecay') === true) {
    p.initialBackOffMs = 1_000;
    p.maxBackOffMs = 60_000;
    const why = `kubelet ${v.text} with feature gate ReduceDefaultCrashLoopBackOffDecay`;
    p.origins.initialBackOffMs = why;
    p.origins.maxBackOffMs = why;
  }
  if (at(35)) {
    p.requeueAtBackOffEnd = true;
    p.origins.requeueAtBackOffEnd = `kubelet ${v.text} (v1.35+ requeues a back-off at its end)`;
  }
  return p;
}
