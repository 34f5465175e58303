/**
 * The kubelet's image manager (pkg/kubelet/images/image_manager.go): EnsureImageExists applies the pull
 * policy, keeps the per-(pod, image) pull backoff and emits the Pulling/Pulled/Failed/BackOff events with
 * the kubelet's wording (v1.32).
 *
 * IfNotPresent/Never are decided with ImageStatus; PullImage is only called when a pull is due (containerd
 * fails a PullImage offline even for a present image). Pulls go through the puller: one at a time when
 * serializeImagePulls is set (the default), else in parallel.
 *
 * Called from startContainer inside a pod worker; may wait for other pods' pulls when serialized.
 */
import type { Container, Pod } from '../../api/v1.ts';
import type { Clock } from '../../clock/clock.ts';
import { imageSpec } from '../../cri/messages.ts';
import type { ImageService, PodSandboxConfig } from '../../cri/types.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { KubeletConfiguration } from '../configuration.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import { Reasons } from '../events/event-recorder.ts';
import { type CallContext, grpcErrorString, type TracedCall } from '../kuberuntime/instrumented-services.ts';
import { Backoff } from '../util/flowcontrol/backoff.ts';
import { formatGoDuration } from '../util/flowcontrol/go-duration.ts';
import { applyDefaultImageTag } from './image-ref.ts';
import { ImagePuller } from './puller.ts';

/** Error tokens of EnsureImageExists (images/types.go, cri-api errors). */
const ErrImagePullBackOff = 'ImagePullBackOff';
const ErrImageInspect = 'ImageInspectError';
const ErrImagePull = 'ErrImagePull';
const ErrImageNeverPull = 'ErrImageNeverPull';
const ErrInvalidImageName = 'InvalidImageName';
const ErrRegistryUnavailable = 'RegistryUnavailable';
const ErrSignatureValidationFailed = 'SignatureValidationFailed';

export interface EnsureImageResult {
  /** image ID to create the container from ('' on error) */
  imageRef: string;
  /** waiting message on error */
  message: string;
  /** error token, undefined on success */
  error?: string;
}

export interface ImageManagerDeps {
  cri: ImageService;
  clock: Clock;
  trace: TraceRecorder;
  recorder: EventRecorder;
  config: KubeletConfiguration;
  call: TracedCall;
}

export class ImageManager {
  readonly backOff: Backoff;
  private readonly prevPullErrMsg = new Map<string, string>();
  private readonly puller: ImagePuller;

  constructor(private readonly deps: ImageManagerDeps) {
    this.backOff = new Backoff(deps.clock, deps.config.imageBackOffPeriodMs, deps.config.maxImageBackOffMs);
    this.puller = new ImagePuller(deps.cri, deps.clock, deps.call, deps.config.serializeImagePulls);
  }

  async ensureImageExists(
    pod: Pod,
    container: Container,
    fieldPath: string | undefined,
    sandboxConfig: PodSandboxConfig | undefined,
  ): Promise<EnsureImageResult> {
    const { recorder, clock } = this.deps;
    const imgRef = container.image;
    const event = (type: 'Normal' | 'Warning', reason: string, message: string) =>
      recorder.event(pod, type, reason, message, fieldPath);
    const ctx: CallContext = {
      podUID: pod.metadata.uid ?? '',
      pod: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`,
      container: container.name,
    };

    const tagged = applyDefaultImageTag(imgRef);
    if ('error' in tagged) {
      const msg = `Failed to apply default image tag "${imgRef}": ${tagged.error}`;
      event('Warning', Reasons.FailedToInspectImage, msg);
      return { imageRef: '', message: msg, error: ErrInvalidImageName };
    }
    const spec = imageSpec({ image: tagged.image, user_specified_image: imgRef });

    let present = '';
    try {
      const resp = await this.deps.call('ImageStatus', ctx, () => this.deps.cri.imageStatus(spec));
      present = resp.image?.id ?? '';
    } catch (err) {
      const msg = `Failed to inspect image "${imgRef}": ${grpcErrorString(err)}`;
      event('Warning', Reasons.FailedToInspectImage, msg);
      return { imageRef: '', message: msg, error: ErrImageInspect };
    }

    const policy = container.imagePullPolicy ?? defaultPullPolicy(imgRef);
    if (!shouldPullImage(policy, present !== '')) {
      if (present) {
        event('Normal', Reasons.PulledImage, `Container image "${imgRef}" already present on machine`);
        return { imageRef: present, message: '' };
      }
      const msg = `Container image "${imgRef}" is not present with pull policy of Never`;
      event('Warning', Reasons.ErrImageNeverPullPolicy, msg);
      return { imageRef: '', message: msg, error: ErrImageNeverPull };
    }

    const backOffKey = `${pod.metadata.uid ?? ''}_${imgRef}`;
    if (this.backOff.isInBackOffSinceUpdate(backOffKey, clock.now())) {
      let msg = `Back-off pulling image "${imgRef}"`;
      event('Normal', Reasons.BackOffPullImage, msg);
      const prev = this.prevPullErrMsg.get(backOffKey);
      if (prev !== undefined) msg = `${msg}: ${prev}`;
      return { imageRef: '', message: msg, error: ErrImagePullBackOff };
    }
    this.prevPullErrMsg.delete(backOffKey);

    event('Normal', Reasons.PullingImage, `Pulling image "${imgRef}"`);
    const start = clock.now();
    const result = await this.puller.pullImage(spec, sandboxConfig, ctx);
    if (result.err !== undefined) {
      const errText = grpcErrorString(result.err);
      event('Warning', Reasons.FailedToPullImage, `Failed to pull image "${imgRef}": ${errText}`);
      this.backOff.next(backOffKey, clock.now());
      const { message, error } = evalCRIPullErr(imgRef, errText);
      this.prevPullErrMsg.set(backOffKey, `${error}: ${message}`);
      const delay = this.backOff.get(backOffKey);
      this.deps.trace.record({
        type: 'backoff',
        kind: 'image',
        podUID: ctx.podUID ?? '',
        pod: ctx.pod ?? '',
        container: container.name,
        key: backOffKey,
        delayS: delay / 1000,
        until: clock.now() + delay,
        image: imgRef,
      });
      return { imageRef: '', message, error };
    }
    const total = clock.now() - start;
    event(
      'Normal',
      Reasons.PulledImage,
      `Successfully pulled image "${imgRef}" in ${formatGoDuration(Math.floor(result.pullDurationMs))} ` +
        `(${formatGoDuration(Math.floor(total))} including waiting). Image size: ${result.imageSize} bytes.`,
    );
    this.backOff.gc();
    return { imageRef: result.imageRef, message: '' };
  }
}

/** API default: Always for :latest or untagged, else IfNotPresent. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const lastPart = image.split('/').pop() ?? image;
  if (image.includes('@')) return 'IfNotPresent';
  const tag = lastPart.includes(':') ? lastPart.split(':').pop() : undefined;
  return tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function shouldPullImage(policy: string, present: boolean): boolean {
  if (policy === 'Never') return false;
  if (policy === 'Always') return true;
  return !present;
}

/** evalCRIPullErr: special CRI tokens at the start of the error text, else ErrImagePull with the raw text. */
export function evalCRIPullErr(imgRef: string, errText: string): { message: string; error: string } {
  for (const [token, what] of [
    [ErrRegistryUnavailable, 'the registry is unavailable'],
    [ErrSignatureValidationFailed, 'the signature validation failed'],
  ] as const) {
    if (errText.startsWith(token)) {
      return {
        message: `image pull failed for ${imgRef} because ${what}${errText.slice(token.length)}`,
        error: token,
      };
    }
  }
  return { message: errText, error: ErrImagePull };
}
