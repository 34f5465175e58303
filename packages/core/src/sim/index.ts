export {
  type ActiveFault,
  CRI_METHODS,
  criMethodName,
  type FaultHooks,
  Faults,
  type LastingFault,
} from './faults.ts';
export {
  BUSYBOX_APPLETS,
  DEFAULT_PULL_DELAY_MS,
  defaultImages,
  digestOf,
  ImageCatalogue,
  type ImageDef,
  normalizeImageRef,
  pullFailureText,
} from './images.ts';
export { BUSY_LOOP_TICK_MS, Shell } from './interpreter.ts';
export { CriLogWriter, formatNs } from './log-writer.ts';
export { HOST_NETNS, SimNetwork } from './network.ts';
export type { ContainerHost, HttpResult, ListenerKind, Proc, Program, Stdio } from './process.ts';
export { defaultPrograms, OOM_KILL_AFTER_MS } from './programs.ts';
export { parseScript, ShellSyntaxError } from './shell-parse.ts';
export { SimNetProber } from './sim-net-prober.ts';
export { type SimNode, type SimNodeOptions, startSimNode } from './sim-node.ts';
export { CONTAINERD_LATENCY_MS, SimRuntime, type SimRuntimeOptions } from './sim-runtime.ts';
