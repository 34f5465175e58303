import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/v1.ts';
import { OWNERSHIP_LABEL } from '../configuration.ts';
import { fnv32a, hashContainer, hashContainerHex } from './hash.ts';
import {
  getContainerInfoFromAnnotations,
  getContainerInfoFromLabels,
  getPodSandboxInfoFromLabels,
  newContainerAnnotations,
  newContainerLabels,
  newPodLabels,
} from './labels.ts';

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: 'u-1',
    labels: { app: 'web' },
    deletionGracePeriodSeconds: 5,
  },
  spec: {
    terminationGracePeriodSeconds: 45,
    containers: [
      {
        name: 'app',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, name: 'http' }],
        lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 1'] } } },
      },
    ],
  },
};
const app = pod.spec.containers[0]!;

describe('hashContainer', () => {
  it('matches the kubelet v1.31+ golden value', () => {
    expect(hashContainer({ name: 'test_container', image: 'foo/image:v1' })).toBe(0x8e45cbd0);
    expect(hashContainerHex({ name: 'test_container', image: 'foo/image:v1' })).toBe('8e45cbd0');
  });

  it('changes with the image or name only', () => {
    const base = hashContainerHex(app);
    expect(hashContainerHex({ ...app, command: ['other'] } as typeof app)).toBe(base);
    expect(hashContainerHex({ ...app, image: 'nginx:1.28' })).not.toBe(base);
    expect(hashContainerHex({ ...app, name: 'app2' })).not.toBe(base);
  });

  it('fnv32a of the empty input is the offset basis', () => {
    expect(fnv32a(new Uint8Array())).toBe(0x811c9dc5);
    expect(fnv32a(new TextEncoder().encode('a'))).toBe(0xe40c292c);
  });
});

describe('labels', () => {
  it('sandbox labels: pod labels + identity + ownership', () => {
    expect(newPodLabels(pod)).toEqual({
      app: 'web',
      'io.kubernetes.pod.name': 'web',
      'io.kubernetes.pod.namespace': 'shop',
      'io.kubernetes.pod.uid': 'u-1',
      [OWNERSHIP_LABEL]: 'true',
    });
    expect(getPodSandboxInfoFromLabels(newPodLabels(pod))).toEqual({
      labels: { app: 'web' },
      podName: 'web',
      podNamespace: 'shop',
      podUID: 'u-1',
    });
  });

  it('container labels are exactly the four identity labels plus ownership', () => {
    const l = newContainerLabels(app, pod);
    expect(Object.keys(l).sort()).toEqual(
      [
        'io.kubernetes.container.name',
        'io.kubernetes.pod.name',
        'io.kubernetes.pod.namespace',
        'io.kubernetes.pod.uid',
        OWNERSHIP_LABEL,
      ].sort(),
    );
    expect(getContainerInfoFromLabels(l)).toEqual({
      containerName: 'app',
      podName: 'web',
      podNamespace: 'shop',
      podUID: 'u-1',
    });
  });

  it('container annotations round-trip', () => {
    const a = newContainerAnnotations(app, pod, 3);
    expect(a).toMatchObject({
      'io.kubernetes.container.hash': hashContainerHex(app),
      'io.kubernetes.container.restartCount': '3',
      'io.kubernetes.container.terminationMessagePath': '/dev/termination-log',
      'io.kubernetes.container.terminationMessagePolicy': 'File',
      'io.kubernetes.pod.terminationGracePeriod': '45',
      'io.kubernetes.pod.deletionGracePeriod': '5',
      'io.kubernetes.container.ports': '[{"name":"http","containerPort":80,"protocol":"TCP"}]',
      'io.kubernetes.container.preStopHandler': '{"exec":{"command":["sh","-c","sleep 1"]}}',
    });
    expect(getContainerInfoFromAnnotations(a)).toEqual({
      hash: hashContainerHex(app),
      restartCount: 3,
      podDeletionGracePeriod: 5,
      podTerminationGracePeriod: 45,
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      preStopHandler: { exec: { command: ['sh', '-c', 'sleep 1'] } },
      containerPorts: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
    });
  });

  it('missing annotations read as zero', () => {
    expect(getContainerInfoFromAnnotations({})).toEqual({
      hash: '',
      restartCount: 0,
      terminationMessagePath: '',
      terminationMessagePolicy: '',
    });
  });
});
