/**
 * A CRI client that can only look: observe mode hands this to everything that talks to the runtime, so no
 * code path of ours can create, start, stop or remove anything on a node whose kubelet owns it.
 *
 * The allowed calls are named by their proto RPC names. Every method of the wrapped client is checked when it
 * is looked up: a method whose RPC is not allowed throws ReadOnlyCriError at the call, synchronously, before
 * any request is built, so nothing leaves the process. A method of the client that is not an RPC (close) is
 * passed through. The wrapper counts the calls it let through and the ones it refused, per RPC.
 */
import type { CriRuntime } from './types.ts';

/** The RPCs (RuntimeService and ImageService) that only read. */
export const READ_ONLY_CRI_RPCS: ReadonlySet<string> = new Set([
  'Version',
  'Status',
  'ListPodSandbox',
  'PodSandboxStatus',
  'ListContainers',
  'ContainerStatus',
  'ListImages',
  'ImageStatus',
  'ImageFsInfo',
  'ContainerStats',
  'ListContainerStats',
  'PodSandboxStats',
  'ListPodSandboxStats',
  'GetContainerEvents',
]);

/** Client methods that are not RPCs and touch nothing on the runtime. */
const LOCAL_METHODS: ReadonlySet<string> = new Set(['close']);

export class ReadOnlyCriError extends Error {
  constructor(readonly rpc: string) {
    super(`observe mode: ${rpc} would change the node; this server does not change the node`);
    this.name = 'ReadOnlyCriError';
  }
}

/** The RPC name of a client method: `listPodSandbox` → `ListPodSandbox`. */
export function rpcName(method: string): string {
  return method.charAt(0).toUpperCase() + method.slice(1);
}

export interface ReadOnlyCri<T extends object = CriRuntime> {
  cri: T;
  /** RPCs let through, by name. */
  readonly calls: Map<string, number>;
  /** RPCs refused, by name (each threw before anything was sent). */
  readonly refused: Map<string, number>;
}

/** Wraps `inner` so that only READ_ONLY_CRI_RPCS reach it. */
export function readOnlyCri<T extends object>(inner: T): ReadOnlyCri<T> {
  const calls = new Map<string, number>();
  const refused = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const cri = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      if (LOCAL_METHODS.has(prop)) return value.bind(target);
      const rpc = rpcName(prop);
      if (!READ_ONLY_CRI_RPCS.has(rpc)) {
        return () => {
          bump(refused, rpc);
          throw new ReadOnlyCriError(rpc);
        };
      }
      return (...args: unknown[]) => {
        bump(calls, rpc);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
    set() {
      return false;
    },
  });
  return { cri, calls, refused };
}
