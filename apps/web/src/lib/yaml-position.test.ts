import { describe, expect, it } from 'vitest';
import { fieldPath, fieldProblem, yamlProblems } from './yaml-position.ts';

const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: busybox
    imagePullPolicy: Sometimes
`;

describe('positions in a manifest', () => {
  it('gives the line and column of a YAML syntax error', () => {
    const bad = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n spec: [\n';
    const [p] = yamlProblems(bad);
    expect(p).toMatchObject({ line: 5, col: 1 });
    expect(yamlProblems(manifest)).toEqual([]);
  });

  it('finds the key a field path of a 400 Status names', () => {
    expect(fieldPath('spec.containers[0].ports[0].containerPort')).toEqual([
      'spec',
      'containers',
      0,
      'ports',
      0,
      'containerPort',
    ]);
    expect(fieldProblem(manifest, 'spec.containers[0].imagePullPolicy', 'Unsupported value')).toMatchObject({
      line: 9,
      col: 5,
      message: 'spec.containers[0].imagePullPolicy: Unsupported value',
    });
  });

  it('points a missing field at the deepest part that exists', () => {
    const noImage = manifest.replace('    image: busybox\n', '');
    expect(fieldProblem(noImage, 'spec.containers[0].image', 'Required value')).toMatchObject({
      line: 7,
      col: 5,
    });
  });
});
