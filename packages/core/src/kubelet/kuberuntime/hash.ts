/**
 * Container hash, as kubecontainer.HashContainer in kubelet v1.31+ computes it and stores it in the
 * `io.kubernetes.container.hash` annotation (lowercase hex, no padding). It covers only name and image, so
 * only those edits restart a running container, and a new image gets a fresh CrashLoopBackOff key.
 *
 * The bytes hashed are not the JSON itself: the kubelet marshals {"image","name"} (Go sorts map keys) and
 * feeds the byte slice to hashutil.DeepHashObject, which prints it with go-spew as `([]uint8)[123 34 ...]`
 * — the decimal byte values in brackets. FNV-32a over that text gives the value. Checked against upstream's
 * golden value: {name: test_container, image: foo/image:v1} → 8e45cbd0.
 */
import type { Container } from '../../api/v1.ts';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1a, 32 bit. */
export function fnv32a(bytes: Uint8Array): number {
  let h = FNV32_OFFSET;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h >>> 0;
}

/** JSON as Go's encoding/json writes strings: <, >, & and U+2028/2029 escaped. */
function goJSONString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const encoder = new TextEncoder();

export function hashContainer(container: Pick<Container, 'name' | 'image'>): number {
  const json = `{"image":${goJSONString(container.image ?? '')},"name":${goJSONString(container.name)}}`;
  const spew = `([]uint8)[${Array.from(encoder.encode(json)).join(' ')}]`;
  return fnv32a(encoder.encode(spew));
}

/** The annotation form: strconv.FormatUint(hash, 16). */
export function hashContainerHex(container: Pick<Container, 'name' | 'image'>): string {
  return hashContainer(container).toString(16);
}
