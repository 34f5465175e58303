/**
 * Response checks the kubelet's CRI client applies before trusting an answer (k8s.io/cri-client
 * utils.go and remote_*.go). Each returns the kubelet's error text, or undefined when the answer is sound;
 * remote-runtime.ts turns the text into a CriError with code UNKNOWN, as the kubelet's plain Go errors
 * read as "code = Unknown" wherever they are logged.
 */

import { goQuote as quote } from '../util/go-quote.ts';
import type {
  ContainerMetadata,
  ContainerStatus,
  Image,
  PodSandboxMetadata,
  PodSandboxStatus,
  StatusResponse,
  VersionResponse,
} from './types.ts';

/** The API version the kubelet announces in VersionRequest. */
export const KUBE_RUNTIME_API_VERSION = '0.1.0';

export function verifyVersion(v: VersionResponse): string | undefined {
  if (!v.version || !v.runtime_name || !v.runtime_api_version || !v.runtime_version) {
    return `not all fields are set in VersionResponse (${JSON.stringify(v)})`;
  }
  return undefined;
}

export function verifyStatus(s: StatusResponse): string | undefined {
  if (!s.status || s.status.conditions.length < 2)
    return 'RuntimeReady or NetworkReady condition are not set';
  return undefined;
}

export function verifySandboxStatus(status: PodSandboxStatus): string | undefined {
  if (!status.id) return 'status.Id is not set';
  const m = status.metadata;
  if (!m) return 'status.Metadata is not set';
  if (!m.name || !m.namespace || !m.uid) {
    return `metadata.Name, metadata.Namespace or metadata.Uid is not in metadata ${quote(sandboxMetadataString(m))}`;
  }
  if (isZero(status.created_at)) return 'status.CreatedAt is not set';
  return undefined;
}

export function verifyContainerStatus(status: ContainerStatus): string | undefined {
  if (!status.id) return 'status.Id is not set';
  if (!status.metadata) return 'status.Metadata is not set';
  if (!status.metadata.name) return 'metadata.Name is not set';
  if (isZero(status.created_at)) return 'status.CreatedAt is not set';
  if (!status.image) return 'status.Image is not set';
  if (!status.image_ref) return 'status.ImageRef is not set';
  return undefined;
}

export function verifyImage(requested: string, image: Image): string | undefined {
  if (!image.id || isZero(image.size)) return `Id or size of image ${quote(requested)} is not set`;
  return undefined;
}

/** Go's String() of the generated metadata types, as the kubelet prints them in these messages. */
export function sandboxMetadataString(m: PodSandboxMetadata | null | undefined): string {
  if (!m) return 'nil';
  return `&PodSandboxMetadata{Name:${m.name},Uid:${m.uid},Namespace:${m.namespace},Attempt:${m.attempt},}`;
}

export function containerMetadataString(m: ContainerMetadata | null | undefined): string {
  if (!m) return 'nil';
  return `&ContainerMetadata{Name:${m.name},Attempt:${m.attempt},}`;
}

/** Go's %q for the plain strings we print. */

function isZero(n: string | number | null | undefined): boolean {
  return n === undefined || n === null || n === '' || n === '0' || n === 0;
}
