// Original file: packages/core/src/cri/runtime-v1.proto

export const ContainerEventType = {
  CONTAINER_CREATED_EVENT: 'CONTAINER_CREATED_EVENT',
  CONTAINER_STARTED_EVENT: 'CONTAINER_STARTED_EVENT',
  CONTAINER_STOPPED_EVENT: 'CONTAINER_STOPPED_EVENT',
  CONTAINER_DELETED_EVENT: 'CONTAINER_DELETED_EVENT',
} as const;

export type ContainerEventType =
  | 'CONTAINER_CREATED_EVENT'
  | 0
  | 'CONTAINER_STARTED_EVENT'
  | 1
  | 'CONTAINER_STOPPED_EVENT'
  | 2
  | 'CONTAINER_DELETED_EVENT'
  | 3

export type ContainerEventType__Output = typeof ContainerEventType[keyof typeof ContainerEventType]
