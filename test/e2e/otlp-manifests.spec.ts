/**
 * deploy/ against the Kubernetes API's own schema: every object of every manifest is validated with
 * kubernetes-models (the published OpenAPI definitions), and the DaemonSet is checked for what the deployment
 * promises: observe mode on every node, host paths read-only, the token from a Secret, limits, scrape
 * annotations and the OTLP endpoint. The collector config must route OTLP in to an OTLP exporter out.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../support/server-process.ts';

const DEPLOY = join(ROOT, 'deploy');
const MODELS = { DaemonSet, Deployment, Namespace, Service } as const;

async function objects(file: string): Promise<Record<string, unknown>[]> {
  const docs = parseAllDocuments(await readFile(join(DEPLOY, file), 'utf8'));
  return docs.map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJSON() as Record<string, unknown>;
  });
}

describe('deploy/ manifests', () => {
  for (const file of ['namespace.yaml', 'syncscope-daemonset.yaml', 'otel-collector.yaml']) {
    it(`${file} validates against the Kubernetes OpenAPI schema`, async () => {
      const objs = await objects(file);
      expect(objs.length).toBeGreaterThan(0);
      for (const o of objs) {
        const Model = MODELS[o.kind as keyof typeof MODELS];
        expect(Model, `no model for kind ${String(o.kind)}`).toBeDefined();
        expect(() => new Model(o as never).validate()).not.toThrow();
      }
    });
  }

  it('a manifest the schema refuses is caught (the check can fail)', async () => {
    const [ds] = await objects('syncscope-daemonset.yaml');
    const bad = structuredClone(ds) as { spec: { template: { spec: { containers: { ports: unknown }[] } } } };
    (bad.spec.template.spec.containers[0] as { ports: unknown }).ports = [{ containerPort: 'http' }];
    expect(() => new DaemonSet(bad as never).validate()).toThrow();
  });

  it('runs observe mode on every node with read-only host paths, a Secret token and limits', async () => {
    const [raw] = await objects('syncscope-daemonset.yaml');
    const ds = new DaemonSet(raw as never);
    const pod = ds.spec?.template.spec;
    const c = pod?.containers[0];
    expect(c?.args).toEqual(expect.arrayContaining(['--observe', '--runtime-endpoint', '--kubelet-journal']));
    expect(pod?.tolerations).toContainEqual({ operator: 'Exists' });
    const hostVolumes = new Set((pod?.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name));
    expect(hostVolumes).toEqual(
      new Set(['containerd-sock', 'pod-logs', 'journal', 'run-journal', 'machine-id']),
    );
    for (const m of c?.volumeMounts ?? []) if (hostVolumes.has(m.name)) expect(m.readOnly, m.name).toBe(true);
    const env = new Map((c?.env ?? []).map((e) => [e.name, e]));
    expect(env.get('SYNCSCOPE_TOKEN')?.valueFrom?.secretKeyRef?.name).toBe('syncscope-token');
    expect(env.get('OTEL_EXPORTER_OTLP_ENDPOINT')?.value).toMatch(
      /^http:\/\/otel-collector\.syncscope\.svc:4318$/,
    );
    expect(env.get('OTEL_RESOURCE_ATTRIBUTES')?.value).toContain('k8s.node.name=$(NODE_NAME)');
    expect(c?.resources?.requests).toBeDefined();
    expect(c?.resources?.limits).toBeDefined();
    expect(ds.spec?.template.metadata?.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/path': '/metrics',
    });
  });

  it('the collector config routes OTLP in to an OTLP exporter', async () => {
    const [cfg] = (await objects('otel-collector-config.yaml')) as {
      receivers: Record<string, { protocols: Record<string, { endpoint: string }> }>;
      exporters: Record<string, { endpoint: string }>;
      service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
    }[];
    expect(cfg?.receivers.otlp?.protocols.http?.endpoint).toBe('0.0.0.0:4318');
    const traces = cfg?.service.pipelines.traces;
    expect(traces?.receivers).toEqual(['otlp']);
    for (const name of traces?.exporters ?? []) {
      expect(name.split('/')[0]).toBe('otlp');
      expect(cfg?.exporters[name]?.endpoint).toMatch(/:4317$/);
    }
  });
});
