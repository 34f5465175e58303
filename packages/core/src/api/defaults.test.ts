import { describe, expect, it } from 'vitest';
import { defaultImagePullPolicy, setPodDefaults } from './defaults.ts';
import type { Pod } from './v1.ts';

describe('defaultImagePullPolicy', () => {
  it.each([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['localhost:5000/busybox', 'Always'],
    ['localhost:5000/busybox:1', 'IfNotPresent'],
    ['busybox@sha256:abc', 'IfNotPresent'],
  ])('%s → %s', (image, want) => expect(defaultImagePullPolicy(image)).toBe(want));
});

describe('setPodDefaults', () => {
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      initContainers: [{ name: 'init', image: 'busybox:1.36' }],
      containers: [
        {
          name: 'app',
          image: 'busybox',
          ports: [{ containerPort: 80 }],
          readinessProbe: { httpGet: { port: 80 }, periodSeconds: 5 },
        },
      ],
    },
  };

  it('fills what the API server fills and leaves the input alone', () => {
    const before = JSON.stringify(pod);
    const d = setPodDefaults(pod);
    expect(JSON.stringify(pod)).toBe(before);
    expect(d.spec).toMatchObject({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
    });
    expect(d.spec.initContainers?.[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePolicy: 'File',
    });
    const app = d.spec.containers[0];
    expect(app).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log' });
    expect(app?.ports?.[0]?.protocol).toBe('TCP');
    expect(app?.readinessProbe).toEqual({
      httpGet: { path: '/', scheme: 'HTTP', port: 80 },
      periodSeconds: 5,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });

  it('keeps values that were given', () => {
    const d = setPodDefaults({
      ...pod,
      spec: { ...pod.spec, restartPolicy: 'Never', terminationGracePeriodSeconds: 0 },
    });
    expect(d.spec.restartPolicy).toBe('Never');
    expect(d.spec.terminationGracePeriodSeconds).toBe(0);
  });
});
