import { defaultKubeletConfiguration, type KubeletConfiguration } from './configuration.ts';
import { Recorder } from './events/recorder.ts';
import { type KubeletDeps, KubeletLoop } from './kubelet-loop.ts';
import { KubeGenericRuntimeManager } from './kuberuntime/kuberuntime-manager.ts';

export type { KubeletDeps, KubeletParts, KubeletRuntime } from './kubelet-loop.ts';

/**
 * Kubelet: the facade the server builds (NewMainKubelet): the event recorder and the runtime manager on the
 * CRI, then the engine of kubelet-loop.ts. Same API as KubeletLoop; see there for the loop's contract.
 */
export class Kubelet extends KubeletLoop {
  constructor(deps: KubeletDeps) {
    const config: KubeletConfiguration = { ...defaultKubeletConfiguration, ...deps.config };
    const recorder = new Recorder(deps.clock, deps.trace, config.nodeName);
    const runtime = new KubeGenericRuntimeManager({
      cri: deps.cri,
      clock: deps.clock,
      trace: deps.trace,
      recorder,
      config,
    });
    super(deps, { runtime, recorder });
  }
}
