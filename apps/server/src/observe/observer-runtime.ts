/**
 * Observe mode's runtime side. Its PLEGs (observerPlegs): the generic PLEG (1 s relist; the evented one's
 * relist periods when it is on) over a read-only runtime manager, whose lists are handed to the observer as
 * they are made, and the evented PLEG with its fallback when configured, as in managed mode; syncPod and
 * killPod are refused, observe mode changes nothing. And what the node view says of the observed runtime and
 * the PLEG (observedNodeInfo). What an Observer is built from (ObserverDeps).
 */
import {
  type Clock,
  type CriRuntime,
  type KubeGenericRuntimeManager,
  type KubeletConfiguration,
  type NodeInfo,
  newPLEGs,
  type PLEGs,
  type PodCache,
  type RuntimePod,
  type TraceRecorder,
  type VersionResponse,
} from '@syncscope/core';

export const OBSERVE_REFUSAL = 'observe mode: this server does not change the node';

export interface ObserverDeps {
  /** A read-only client (readOnlyCri): the observer never calls anything else. */
  cri: CriRuntime;
  clock: Clock;
  trace: TraceRecorder;
  config: KubeletConfiguration;
  endpoint: string;
}

export function observerPlegs(
  rt: KubeGenericRuntimeManager,
  cache: PodCache,
  deps: { clock: Clock; trace: TraceRecorder; config: KubeletConfiguration },
  listed: (pods: RuntimePod[], at: number) => void,
): PLEGs {
  const { clock, trace, config } = deps;
  // the PLEG's lists, kept: they say which pods carry the ownership label
  const listing = {
    getPods: async (all: boolean) => {
      const at = clock.now();
      const pods = await rt.getPods(all);
      listed(pods, at);
      return pods;
    },
    getPodStatus: rt.getPodStatus.bind(rt),
    syncPod: () => Promise.reject(new Error(OBSERVE_REFUSAL)),
    killPod: () => Promise.reject(new Error(OBSERVE_REFUSAL)),
  };
  const evented = config.eventedPleg
    ? { streamEvents: rt.streamEvents.bind(rt), generatePodStatus: rt.generatePodStatus.bind(rt) }
    : undefined;
  return newPLEGs(listing, evented, cache, { clock, trace }, config);
}

/** The node view's answer in observe mode: the observed runtime's version and readiness, the PLEG's health. */
export function observedNodeInfo(
  deps: { config: KubeletConfiguration; endpoint: string; clock: Clock },
  plegs: PLEGs,
  v: VersionResponse | undefined,
  runtimeError: string,
): NodeInfo {
  const [healthy, plegErr] = plegs.pleg.healthy();
  const errors = runtimeError ? [runtimeError] : [];
  return {
    nodeName: deps.config.nodeName,
    runtime: {
      name: v?.runtime_name ?? '',
      version: v?.runtime_version ?? '',
      apiVersion: v?.runtime_api_version ?? '',
      endpoint: deps.endpoint,
      ready: errors.length === 0 && v !== undefined,
      errors,
    },
    simulated: false,
    observing: deps.endpoint,
    pleg: {
      mode: plegs.eventedPleg?.mode ?? 'generic',
      healthy,
      lastRelist: plegs.pleg.lastRelistTime || null,
      message: plegErr ?? '',
    },
    sync: { lastIteration: null },
    configuration: deps.config,
    clock: { now: deps.clock.now(), speed: 1 },
  };
}
