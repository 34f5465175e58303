/**
 * Image pulls outside the event recorder (the recorder's Pulling/Pulled/Failed/BackOff are k8s.event, and
 * ErrImagePull/ImagePullBackOff sync results are in sync-errors.ts):
 *   PullImage "img" from image service failed: rpc error: code = NotFound desc = …     (remote_image.go, glog)
 *   "PullImage from image service failed" err="rpc error: code = … desc = …" image="img" (structured)
 *   Pull image "img" failed: rpc error: …      "Failed to pull image" err=… image=…  (kuberuntime_image.go)
 *   "Back-off pulling image" image=… pod=… podUID=…
 * One failure is written twice (the CRI client's line, then kuberuntime's): it is one failed PullImage call.
 */
import { fromRef } from '../pods.ts';
import type { Ctx, Msg } from '../state.ts';

const OLD = /^PullImage "([^"]*)" from image service failed: ([\s\S]*)$/;
/** kuberuntime_image.go's report of the same failure (glog) */
const OLD_PULL = /^Pull image "([^"]*)" failed: ([\s\S]*)$/;
/** a failed pull is written by the CRI client and again by kuberuntime, in the same millisecond or so */
const SAME_FAILURE_MS = 1000;
const CODES: Record<string, number> = {
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
};

/** The gRPC status code in an "rpc error: code = NotFound desc = …" text. */
function grpcCode(err: string): number | undefined {
  const m = /code = (\w+)/.exec(err);
  return m ? CODES[m[1] as string] : undefined;
}

function pullFailed(ctx: Ctx, err: string, image: string, pod?: string, podUID?: string): void {
  const seen = ctx.node.pullFailedAt;
  const last = seen.get(image);
  seen.set(image, ctx.time);
  if (seen.size > 10_000) seen.clear();
  // the second report of one failure (remote_image.go's, then kuberuntime_image.go's): one PullImage call
  if (last !== undefined && ctx.time >= last && ctx.time - last < SAME_FAILURE_MS) return;
  const code = grpcCode(err);
  ctx.emit({
    type: 'runtime.call',
    method: 'PullImage',
    durationMs: 0,
    error: image ? `${image}: ${err}` : err,
    ...(code !== undefined ? { code } : {}),
    pod,
    podUID,
  });
}

export function images(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    const kv = s.kv;
    if (s.msg === 'PullImage from image service failed' || s.msg === 'Failed to pull image') {
      pullFailed(ctx, kv.err ?? '', kv.image ?? '', fromRef(kv.pod), kv.podUID);
      return true;
    }
    if (s.msg === 'Back-off pulling image') {
      const pod = fromRef(kv.pod);
      ctx.node.backoff(
        ctx,
        { pod, podUID: kv.podUID },
        'image',
        kv.containerName ?? kv.image ?? '',
        undefined,
        kv.image,
      );
      return true;
    }
    return false;
  }
  const r = OLD.exec(m.text) ?? OLD_PULL.exec(m.text);
  if (!r) return false;
  pullFailed(ctx, r[2] as string, r[1] as string);
  return true;
}
