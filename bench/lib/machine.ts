/** The machine a run happened on, recorded with every results.json (figures only compare within one run). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

export interface Machine {
  nproc: number;
  cpuModel: string;
  ramMB: number;
  node: string;
  containerd: string;
  kernel: string;
  loadavg: number[];
}

function tryRun(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function machine(): Machine {
  let cpuModel = cpus()[0]?.model ?? '';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1]) cpuModel = m[1].trim();
  } catch {
    // not Linux: os.cpus() is good enough
  }
  const ctd = tryRun('containerd', ['--version']).split(/\s+/);
  return {
    nproc: Number(tryRun('nproc', [])) || cpus().length,
    cpuModel,
    ramMB: Math.round(totalmem() / 2 ** 20),
    node: process.version,
    containerd: ctd[2] ?? 'not installed',
    kernel: tryRun('uname', ['-r']),
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export function describeMachine(m: Machine): string {
  return `${m.nproc} × ${m.cpuModel}, ${Math.round(m.ramMB / 1024)} GB RAM, Linux ${m.kernel}, Node ${m.node}, containerd ${m.containerd}, load ${m.loadavg.join(' ')}`;
}
