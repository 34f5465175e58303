// Original file: packages/core/src/cri/runtime-v1.proto

import type { ImageFilter as _runtime_v1_ImageFilter, ImageFilter__Output as _runtime_v1_ImageFilter__Output } from '../../runtime/v1/ImageFilter';

export interface ListImagesRequest {
  'filter'?: (_runtime_v1_ImageFilter | null);
}

export interface ListImagesRequest__Output {
  'filter': (_runtime_v1_ImageFilter__Output | null);
}
