/**
 * What the pieces of the runtime manager share (the Go methods all hang off kubeGenericRuntimeManager;
 * we split them over files and pass this instead).
 */
import type { Pod } from '../../api/v1.ts';
import type { Clock } from '../../clock/clock.ts';
import type { CriRuntime } from '../../cri/types.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { KubeletConfiguration } from '../configuration.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import type { ImageManager } from '../images/image-manager.ts';
import type { Backoff } from '../util/flowcontrol/backoff.ts';
import type { CallContext, TracedCall } from './instrumented-services.ts';

/** Optional file-system access for pod logs (restart count after the runtime lost its containers). */
export interface LogDirReader {
  /** file names in dir; rejects when it does not exist */
  readDir(dir: string): Promise<string[]>;
}

export interface RuntimeContext {
  cri: CriRuntime;
  clock: Clock;
  trace: TraceRecorder;
  recorder: EventRecorder;
  config: KubeletConfiguration;
  call: TracedCall;
  imageManager: ImageManager;
  /** container restart backoff (CrashLoopBackOff) */
  backOff: Backoff;
  logs?: LogDirReader;
  podRef(pod: Pod): CallContext;
}
