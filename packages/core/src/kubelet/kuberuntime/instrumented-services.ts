/**
 * One helper that runs a CRI call and records it as a `runtime.call` trace event (kuberuntime's
 * instrumented_services.go records metrics the same way): method as named in the proto, the pod and
 * container it was for, duration on the engine clock, and on failure the gRPC code and the runtime's text.
 * The result or error passes through unchanged.
 */
import type { Clock } from '../../clock/clock.ts';
import { CriError } from '../../cri/types.ts';
import type { TraceRecorder } from '../../events/recorder.ts';

export interface CallContext {
  podUID?: string;
  /** namespace/name */
  pod?: string;
  container?: string;
  attempt?: number;
  /** StopContainer: the grace period sent, and whether the caller overrode the pod's own */
  gracePeriodS?: number;
  override?: boolean;
}

export type TracedCall = <T>(method: string, ctx: CallContext, fn: () => Promise<T>) => Promise<T>;

export function tracedCall(clock: Pick<Clock, 'now'>, trace: TraceRecorder): TracedCall {
  return async (method, ctx, fn) => {
    const start = clock.now();
    const record = (err?: unknown) =>
      trace.record({
        type: 'runtime.call',
        method,
        ...ctx,
        durationMs: clock.now() - start,
        ...(err === undefined
          ? {}
          : err instanceof CriError
            ? { code: err.code, error: err.details }
            : { error: err instanceof Error ? err.message : String(err) }),
      });
    try {
      const out = await fn();
      record();
      return out;
    } catch (err) {
      record(err);
      throw err;
    }
  };
}

/** What the kubelet shows of a failed CRI call: grpc status.Message() — the runtime's own text. */
export function grpcMessage(err: unknown): string {
  if (err instanceof CriError) return err.details;
  return err instanceof Error ? err.message : String(err);
}

/** err.Error() of a gRPC error as Go prints it: `rpc error: code = X desc = ...`. */
export function grpcErrorString(err: unknown): string {
  if (err instanceof CriError) return err.message.replace(/^\w+ failed: /, '');
  return err instanceof Error ? err.message : String(err);
}
