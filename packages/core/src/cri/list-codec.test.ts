import { describe, expect, it } from 'vitest';
import { decodeListItemwise, encodeListItemwise } from './list-codec.ts';
import { loadCriServices } from './proto.ts';
import type { Container, PodSandbox } from './types.ts';

const { runtime } = loadCriServices();
const containersDef = runtime.ListContainers as NonNullable<typeof runtime.ListContainers>;
const sandboxesDef = runtime.ListPodSandbox as NonNullable<typeof runtime.ListPodSandbox>;
const encode = (v: unknown) => containersDef.responseSerialize(v) as Buffer;
const decode = (b: Buffer) => containersDef.responseDeserialize(b) as { containers: Container[] };

function container(id: string, state: Container['state'] = 'CONTAINER_RUNNING'): Container {
  return {
    id,
    pod_sandbox_id: `sb-${id}`,
    metadata: { name: `c-${id}`, attempt: 1 },
    image: {
      image: 'docker.io/library/busybox:latest',
      annotations: {},
      user_specified_image: '',
      runtime_handler: '',
    },
    image_ref: 'sha256:bb',
    state,
    created_at: '1700000000123456789', // beyond 2^53: must stay a decimal string
    labels: { 'io.kubernetes.pod.uid': `uid-${id}`, 'io.kubernetes.container.name': `c-${id}` },
    annotations: { 'io.kubernetes.container.hash': 'abc123', 'io.kubernetes.container.restartCount': '0' },
    image_id: '',
  };
}

describe('decodeListItemwise', () => {
  it('decodes exactly what proto-loader decodes, for empty and full answers', () => {
    const dec = decodeListItemwise(decode, 'containers');
    for (const list of [[], [container('a')], [container('a'), container('b', 'CONTAINER_EXITED')]]) {
      const buf = encode({ containers: list });
      expect(dec(buf)).toEqual(decode(buf));
    }
  });

  it('hands out the same frozen item for unchanged bytes and a new one for a changed item', () => {
    const dec = decodeListItemwise(decode, 'containers') as (b: Buffer) => { containers: Container[] };
    const first = dec(encode({ containers: [container('a'), container('b')] })).containers;
    const second = dec(
      encode({ containers: [container('a'), container('b', 'CONTAINER_EXITED'), container('c')] }),
    ).containers;
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1]?.state).toBe('CONTAINER_EXITED');
    expect(second[2]?.id).toBe('c');
    expect(Object.isFrozen(second[0])).toBe(true);
    expect(Object.isFrozen(second[0]?.labels)).toBe(true);
    expect(() => {
      (second[0] as { state: string }).state = 'CONTAINER_EXITED';
    }).toThrow(TypeError);
  });

  it('answers a byte-identical answer with the same items in a new array', () => {
    const dec = decodeListItemwise(decode, 'containers') as (b: Buffer) => { containers: Container[] };
    const all = encode({ containers: [container('a'), container('b', 'CONTAINER_EXITED')] });
    const running = encode({ containers: [container('a')] });
    const first = dec(all).containers;
    dec(running);
    const again = dec(Buffer.from(all)).containers;
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(again[1]).toBe(first[1]);
    again.pop(); // the caller's array is its own
    expect(dec(Buffer.from(all)).containers).toHaveLength(2);
  });

  it('falls back to the plain decoder on bytes that are not one repeated field 1', () => {
    const dec = decodeListItemwise(decode, 'containers');
    const buf = encode({ containers: [container('a')] });
    expect(() => dec(buf.subarray(0, buf.length - 3))).toThrow(); // truncated: proto-loader's own error
    expect(dec(Buffer.from([0x10, 0x01]))).toEqual(decode(Buffer.from([0x10, 0x01]))); // unknown varint field 2
  });
});

describe('encodeListItemwise', () => {
  it('produces bytes that decode to the same answer as the plain encoder', () => {
    const enc = encodeListItemwise(encode, 'containers');
    const list = [container('a'), container('b', 'CONTAINER_CREATED')];
    expect(decode(enc({ containers: list }))).toEqual(decode(encode({ containers: list })));
    expect(decode(enc({ containers: [] }))).toEqual({ containers: [] });
    const sbEnc = encodeListItemwise(sandboxesDef.responseSerialize as (v: unknown) => Buffer, 'items');
    const sb = {
      id: 's1',
      metadata: { name: 'p', uid: 'u', namespace: 'default', attempt: 0 },
      state: 'SANDBOX_READY',
      created_at: '1700000000123456789',
      labels: { a: 'b' },
      annotations: {},
      runtime_handler: '',
    } as PodSandbox;
    expect(sandboxesDef.responseDeserialize(sbEnc({ items: [sb] }))).toEqual({ items: [sb] });
  });

  it('reuses the encoding of a frozen answer, and re-encodes items that are not frozen', () => {
    const enc = encodeListItemwise(encode, 'containers');
    const frozen = Object.freeze([Object.freeze(container('a'))]);
    expect(enc({ containers: frozen })).toBe(enc({ containers: frozen }));
    const open = container('b');
    const before = enc({ containers: [open] });
    open.state = 'CONTAINER_EXITED';
    expect(decode(enc({ containers: [open] })).containers[0]?.state).toBe('CONTAINER_EXITED');
    expect(decode(before).containers[0]?.state).toBe('CONTAINER_RUNNING');
  });
});
