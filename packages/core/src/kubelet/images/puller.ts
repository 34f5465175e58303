/**
 * Image pullers (images/puller.go): the serial puller queues pulls and runs one at a time (the kubelet's
 * default, serializeImagePulls=true); the parallel one runs them as they come. Each pull reports the image
 * ref, its size (ImageStatus after the pull, best effort) and the time the pull itself took.
 */
import type { Clock } from '../../clock/clock.ts';
import type { ImageService, ImageSpec, PodSandboxConfig } from '../../cri/types.ts';
import type { CallContext, TracedCall } from '../kuberuntime/instrumented-services.ts';

export interface PullResult {
  imageRef: string;
  imageSize: number;
  err?: unknown;
  pullDurationMs: number;
}

export class ImagePuller {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cri: ImageService,
    private readonly clock: Pick<Clock, 'now'>,
    private readonly call: TracedCall,
    private readonly serialize: boolean,
  ) {}

  pullImage(
    spec: ImageSpec,
    sandboxConfig: PodSandboxConfig | undefined,
    ctx: CallContext,
  ): Promise<PullResult> {
    if (!this.serialize) return this.doPull(spec, sandboxConfig, ctx);
    const run = this.queue.then(() => this.doPull(spec, sandboxConfig, ctx));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async doPull(
    spec: ImageSpec,
    sandboxConfig: PodSandboxConfig | undefined,
    ctx: CallContext,
  ): Promise<PullResult> {
    const start = this.clock.now();
    try {
      const { image_ref } = await this.call('PullImage', ctx, () => this.cri.pullImage(spec, sandboxConfig));
      let imageSize = 0;
      if (image_ref) {
        try {
          const st = await this.call('ImageStatus', ctx, () => this.cri.imageStatus(spec));
          imageSize = Number(st.image?.size ?? 0);
        } catch {
          // size is best effort
        }
      }
      return { imageRef: image_ref, imageSize, pullDurationMs: this.clock.now() - start };
    } catch (err) {
      return { imageRef: '', imageSize: 0, err, pullDurationMs: this.clock.now() - start };
    }
  }
}
