/**
 * P15 explain cost: what GET /api/v1/imports/{id}/explain (the model beside the log, one explainer per
 * kubelet, only the differing steps kept) adds to an import. The HTTP app (createHttpApp: the real routes,
 * the imports store under a temp dir) over an engine stand-in, in this process; a kubelet log at the upload
 * limit (the sample logs repeated and re-stamped, bench/lib/kubelet-log-gen.ts) is POSTed to
 * /api/v1/imports (upload, parse, fsync to its 201: the import's time), then explained twice, keeping the
 * differing steps and counts only (each a cache miss: the steps kept are part of the answer's key).
 * Target: the explanation takes ≤ 0.5× the import's time. Smoke: a 2 MB log.
 */
import type { BenchOptions } from './lib/bench.ts';
import { startImportBench, uploadImport } from './lib/import-bench.ts';
import { type Row, row } from './lib/table.ts';

interface Explained {
  counts: { steps: number; differs: number };
  nodes: unknown[];
}

/** The process's CPU time (every thread's, ms) since `from`. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1000;
}

/** GET the explanation; its time and CPU time (ms) and answer. */
async function explain(
  base: string,
  id: string,
  steps: string,
): Promise<{ ms: number; cpu: number; x: Explained }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/imports/${id}/explain?steps=${steps}`);
  const text = await res.text();
  const ms = performance.now() - t0;
  const cpu = cpuMs(c0);
  if (res.status !== 200) throw new Error(`explain answered ${res.status}: ${text.slice(0, 300)}`);
  return { ms, cpu, x: JSON.parse(text) as Explained };
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const { base, logPath, bytes, close } = await startImportBench('bench-p15-', o.smoke);
  try {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await uploadImport(base, logPath, 'p15.log');
    const importMs = performance.now() - t0;
    // the parse thread is this process's: its CPU time is counted here too
    const importCpu = cpuMs(c0);
    if (res.status !== 201) throw new Error(`the import answered ${res.status}: ${res.text.slice(0, 300)}`);
    const { id, summary } = JSON.parse(res.text) as { id: string; summary: { events: number } };
    const differs = await explain(base, id, 'differs');
    const none = await explain(base, id, 'none');
    const size = `${Math.round(bytes / (1024 * 1024))} MiB`;
    o.log(
      `import of ${size}: ${Math.round(importMs)} ms (CPU ${Math.round(importCpu)} ms), ${summary.events} events; ` +
        `explain ${Math.round(differs.ms)} ms (CPU ${Math.round(differs.cpu)} ms) keeping the differing steps, ` +
        `${Math.round(none.ms)} ms (CPU ${Math.round(none.cpu)} ms) counts only; ${differs.x.nodes.length} nodes, ` +
        `${differs.x.counts.steps} steps, ${differs.x.counts.differs} differ`,
    );
    return [
      row({
        bench: 'P15',
        metric: `GET /api/v1/imports/{id}/explain (differing steps kept) of a ${size} kubelet log, vs its import (POST to its 201)`,
        value: differs.ms,
        floor: importMs,
        unit: 'ms',
        target: { op: '<=', bound: 0.5, on: 'ratio' },
        note: `${summary.events} events, ${differs.x.counts.steps} pod steps; counts only ${Math.round(none.ms)} ms`,
      }),
      row({
        bench: 'P15',
        metric: `the same explanation's CPU time vs the import's (its parse thread included; for scale on a shared machine, no target)`,
        value: differs.cpu,
        floor: importCpu,
        unit: 'ms',
      }),
    ];
  } finally {
    await close();
  }
}
