// The context SimRuntime's call parts share (SimCallContext), and the ID and list-key helpers they use.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock/clock.ts';
import type { ProcessDeps } from './container-process.ts';
import type { ImageCatalogue } from './images.ts';
import type { ListAnswers } from './list-views.ts';
import type { SimNetwork } from './network.ts';
import type { SimLifecycle } from './sim-lifecycle.ts';
import type { SimStore } from './sim-store.ts';

/**
 * What the parts that answer SimRuntime's CRI calls share: the runtime's clock, records, lifecycle,
 * network, images and list answers, and its per-call gate and save barrier. SimRuntime builds one and
 * hands it to each part; the parts own no state of their own.
 */
export interface SimCallContext {
  readonly clock: Clock;
  readonly store: SimStore;
  readonly life: SimLifecycle;
  readonly net: SimNetwork;
  readonly images: ImageCatalogue;
  readonly deps: ProcessDeps;
  readonly lists: ListAnswers;
  /** Every CRI method starts here: injected faults, then the configured latency. */
  call(method: string): Promise<void>;
  /** Resolves once the node's records as of now are on disk (at once without a state file). */
  saved(): Promise<void>;
}

export function keyed(kind: string, key: string | undefined): string | undefined {
  return key === undefined ? undefined : `${kind} ${key}`;
}

export function newId(): string {
  return randomBytes(32).toString('hex');
}
