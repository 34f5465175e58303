// SimRuntime's image CRI calls over its image catalogue, as a part over its shared call context.
import {
  GrpcCode,
  type Image,
  type ImageFilter,
  type ImageSpec,
  type ImageStatusResponse,
  type PullImageResponse,
} from '../cri/types.ts';
import { normalizeImageRef, pullFailureText } from './images.ts';
import type { SimCallContext } from './sim-call-context.ts';

/**
 * The simulated node's image CRI calls (ImageStatus, PullImage, ListImages, RemoveImage) over its image
 * catalogue: a pull takes the image's pull delay on the clock, and an image not in the registry fails as
 * containerd's pull does. A part SimRuntime owns, over its shared call context.
 */
export class SimImageCalls {
  constructor(private readonly sim: SimCallContext) {}

  // --- images ------------------------------------------------------------------------------------------

  async imageStatus(image: ImageSpec): Promise<ImageStatusResponse> {
    await this.sim.call('ImageStatus');
    const d = this.sim.images.local(image);
    return { image: d ? this.sim.images.toCri(d) : null, info: {} };
  }

  async pullImage(image: ImageSpec): Promise<PullImageResponse> {
    await this.sim.call('PullImage');
    const p = normalizeImageRef(image.image);
    if (!p.ok) throw this.sim.life.err('PullImage', GrpcCode.UNKNOWN, p.error);
    const def = this.sim.images.inRegistry(p.ref);
    if (!def)
      throw this.sim.life.err('PullImage', GrpcCode.UNKNOWN, pullFailureText(p.ref, p.host, p.path, p.tag));
    if (def.pullDelayMs > 0) await this.sim.clock.sleep(def.pullDelayMs);
    this.sim.images.markPresent(def.ref);
    return { image_ref: def.id };
  }

  async listImages(filter?: ImageFilter): Promise<Image[]> {
    await this.sim.call('ListImages');
    const only = filter?.image?.image ? this.sim.images.local(filter.image) : undefined;
    if (filter?.image?.image && !only) return [];
    return (only ? [only] : this.sim.images.listLocal()).map((d) => this.sim.images.toCri(d));
  }

  async removeImage(image: ImageSpec): Promise<void> {
    await this.sim.call('RemoveImage');
    this.sim.images.removeLocal(image);
  }
}
