/**
 * The back-off ladder's constants and its rule in words, for every back-off inspector (a live node's, a
 * replay's, an observed node's): one text, whatever the source.
 *
 * A container's back-off (kuberuntime's doBackOff over flowcontrol.Backoff, keyed by pod and container): the
 * first window after a death is the initial delay, each later one doubles it up to the maximum. The entry is
 * forgotten once the container's exit comes more than containerBackOffResetMs after the kubelet last let it
 * start (v1.32's HasExpiredFunc: 600 s; up to v1.31 the default of twice the maximum, also 600 s): the kubelet
 * starts it again at once and the next window is the initial delay. An image pull's entry (the image
 * manager's flowcontrol.Backoff) expires at twice its maximum without a failure.
 *
 * Browser-safe: no Node imports.
 */
import { defaultKubeletConfiguration, type KubeletConfiguration } from '../kubelet/configuration.ts';
import { formatGoDuration } from '../kubelet/util/flowcontrol/go-duration.ts';

/** The back-off settings of a node's configuration (milliseconds). */
export type BackoffConfig = Pick<
  KubeletConfiguration,
  | 'containerBackOffPeriodMs'
  | 'maxContainerBackOffMs'
  | 'containerBackOffResetMs'
  | 'imageBackOffPeriodMs'
  | 'maxImageBackOffMs'
>;

/** One kind's ladder in seconds: the first delay, the cap, and how long until the entry starts over. */
export interface BackoffConstants {
  initialS: number;
  maxS: number;
  resetS: number;
}

/** The constants of one kind under `cfg` (kubelet v1.32's defaults when the node's are not known). */
export function backoffConstants(
  kind: 'container' | 'image',
  cfg: BackoffConfig = defaultKubeletConfiguration,
): BackoffConstants {
  return kind === 'image'
    ? {
        initialS: cfg.imageBackOffPeriodMs / 1000,
        maxS: cfg.maxImageBackOffMs / 1000,
        resetS: (2 * cfg.maxImageBackOffMs) / 1000,
      }
    : {
        initialS: cfg.containerBackOffPeriodMs / 1000,
        maxS: cfg.maxContainerBackOffMs / 1000,
        resetS: cfg.containerBackOffResetMs / 1000,
      };
}

const go = (seconds: number) => formatGoDuration(seconds * 1000);

/** "10 minutes", "1 minute", else the Go duration ("90s", "1m30s"). */
function spanWords(seconds: number): string {
  if (seconds < 60 || seconds % 60 !== 0) return go(seconds);
  const m = seconds / 60;
  return `${m} minute${m === 1 ? '' : 's'}`;
}

/** The ladder and its reset rule in words, for one kind under the given constants. */
export function backoffRuleWords(kind: 'container' | 'image', c: BackoffConstants): string {
  return kind === 'image'
    ? `Each failed pull doubles the delay from ${go(c.initialS)} up to ${go(c.maxS)}; a successful pull clears it, and the entry expires after ${go(c.resetS)} without failures.`
    : `Each crash doubles the delay from ${go(c.initialS)} up to ${go(c.maxS)}. The delay resets to ${go(c.initialS)} after the container runs ${spanWords(c.resetS)} without failing.`;
}
