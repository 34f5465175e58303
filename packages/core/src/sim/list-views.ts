/**
 * The simulated node's List* answers without rebuilding them: every record keeps one frozen CRI view
 * per CRI state it has been in (the rest of a view never changes after creation), and a node-wide list
 * that came out the same as last time is answered with the very same frozen array. Over gRPC, the
 * server's item-wise encoder (cri/list-codec.ts) then encodes an unchanged item, or a whole unchanged
 * answer, only once — a relist of 10 000 idle containers costs little more than the copy of its bytes.
 *
 * Callers (SimRuntime) must pass records whose CRI-visible fields other than the state are immutable
 * (id, config, image, createdAt): true of SandboxRecord and ContainerRecord.
 */

import { deepFreeze } from '../cri/list-codec.ts';
import type {
  Container,
  ContainerFilter,
  ContainerState,
  PodSandbox,
  PodSandboxFilter,
  PodSandboxState,
} from '../cri/types.ts';
import {
  type ContainerRecord,
  containerState,
  type SandboxRecord,
  sandboxState,
  toContainer,
  toPodSandbox,
} from './sim-state.ts';

const sandboxViews = new WeakMap<SandboxRecord, { state: PodSandboxState; view: PodSandbox }>();
const containerViews = new WeakMap<ContainerRecord, { state: ContainerState; view: Container }>();

/** toPodSandbox, frozen, built once per state of the sandbox. */
export function podSandboxView(s: SandboxRecord): PodSandbox {
  const state = sandboxState(s);
  const hit = sandboxViews.get(s);
  if (hit?.state === state) return hit.view;
  const view = deepFreeze(toPodSandbox(s));
  sandboxViews.set(s, { state, view });
  return view;
}

/** toContainer, frozen, built once per state of the container. */
export function containerView(c: ContainerRecord): Container {
  const state = containerState(c);
  const hit = containerViews.get(c);
  if (hit?.state === state) return hit.view;
  const view = deepFreeze(toContainer(c));
  containerViews.set(c, { state, view });
  return view;
}

/**
 * The cache key of a node-wide list (no filter, or a state filter only); undefined for per-pod or
 * per-id lists, which are small and not worth keeping.
 */
export function listKey(filter: PodSandboxFilter | ContainerFilter | undefined): string | undefined {
  if (!filter) return '';
  if (filter.id || filter.label_selector || ('pod_sandbox_id' in filter && filter.pod_sandbox_id))
    return undefined;
  return filter.state?.state ?? '';
}

/** The last answer of each node-wide list, handed out again while it has not changed. */
export class ListAnswers {
  private readonly last = new Map<string, readonly object[]>();

  /** `list` itself (frozen when keyed), or the identical earlier answer under `key`. */
  answer<T extends object>(key: string | undefined, list: T[]): T[] {
    if (key === undefined) return list;
    const prev = this.last.get(key) as T[] | undefined;
    if (prev && prev.length === list.length && prev.every((x, i) => x === list[i])) return prev;
    this.last.set(key, Object.freeze(list));
    return list;
  }
}
