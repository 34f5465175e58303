// Original file: packages/core/src/cri/runtime-v1.proto


export interface ImageSpec {
  'image'?: (string);
  'annotations'?: ({[key: string]: string});
  'user_specified_image'?: (string);
  'runtime_handler'?: (string);
}

export interface ImageSpec__Output {
  'image': (string);
  'annotations': ({[key: string]: string});
  'user_specified_image': (string);
  'runtime_handler': (string);
}
