import { readFileSync, renameSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ImageDef } from './images.ts';
import {
  type ContainerRecord,
  type CreatedContainerConfig,
  newContainerRecord,
  type SandboxRecord,
} from './sim-state.ts';
import type { SimStore } from './sim-store.ts';

/**
 * The simulated node's records on disk, so a node process that dies (kill -9, a crash) and is started again
 * on the same directory finds its sandboxes and containers as it left them: what containerd does after a
 * restart, since its shims (and the containers under them) outlive it. A container that was running runs
 * on under the same ID and start time (its program starts over, as the process kept running in the model);
 * an exited one keeps its exit code, reason and finish time; the kubelet's relist sees nothing new.
 *
 * One JSON file, replaced whole: written to a temp file, fsynced, renamed over the old one and the
 * directory fsynced, so a crash leaves the old state or the new one. Writes run one at a time off the
 * event loop (the thread pool) and coalesce: a change while one is under way is in the next. The CRI calls
 * that change the node wait for theirs (saved()), as containerd answers only once its store has the change;
 * exits of programs are written soon after. A node stopped cleanly (its containers ended) removes the file.
 */

/** A container record as JSON holds it: its maps as entry lists, no process or exit promise. */
export type SavedContainer = Omit<ContainerRecord, 'env' | 'vfs' | 'proc' | 'exited' | 'markExited'> & {
  env: [string, string][];
  vfs: [string, string][];
};

export interface SimState {
  version: 1;
  sandboxes: SandboxRecord[];
  containers: SavedContainer[];
  /** References of the images on the node. */
  images: string[];
  networkReady: boolean;
}

/** The node's records as they are now, in creation order. */
export function snapshotOf(store: SimStore, images: ImageDef[]): SimState {
  return {
    version: 1,
    sandboxes: [...store.sandboxes.values()].map((s) => ({ ...s })),
    containers: [...store.containers.values()].map(savedContainer),
    images: images.map((d) => d.ref),
    networkReady: store.networkReady,
  };
}

function savedContainer(c: ContainerRecord): SavedContainer {
  return {
    id: c.id,
    sandboxId: c.sandboxId,
    config: c.config,
    image: c.image,
    name: c.name,
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    exitCode: c.exitCode,
    reason: c.reason,
    message: c.message,
    oomKilled: c.oomKilled,
    unknown: c.unknown,
    logPath: c.logPath,
    env: [...c.env],
    vfs: [...c.vfs],
  };
}

/** A saved container as a record again: not running yet (SimRuntime relaunches a running one). */
export function adoptedContainer(saved: SavedContainer, sb: SandboxRecord): ContainerRecord {
  const c = newContainerRecord(saved.id, saved.name, sb, saved.config, saved.image, saved.createdAt);
  c.startedAt = saved.startedAt;
  c.finishedAt = saved.finishedAt;
  c.exitCode = saved.exitCode;
  c.reason = saved.reason;
  c.message = saved.message;
  c.oomKilled = saved.oomKilled;
  c.unknown = saved.unknown;
  c.logPath = saved.logPath;
  c.env = new Map(saved.env);
  c.vfs = new Map(saved.vfs);
  return c;
}

/**
 * Reads the state a node left at `path`: undefined when there is none. A file that cannot be read as one
 * is reported (warn) and set aside as `<path>.damaged`, and the node starts empty, as after a reboot.
 */
export function readSimState(path: string, warn: (msg: string) => void): SimState | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    warn(`simulated node: cannot read ${path} (${(e as Error).message}); starting empty`);
    return undefined;
  }
  try {
    const state = JSON.parse(text) as SimState;
    if (state?.version !== 1 || !Array.isArray(state.sandboxes) || !Array.isArray(state.containers))
      throw new Error('not a simulated node state');
    return state;
  } catch (e) {
    warn(`simulated node: ${path} is damaged (${(e as Error).message}); set aside, starting empty`);
    try {
      renameSync(path, `${path}.damaged`);
    } catch {
      // left in place: the next write replaces it
    }
    return undefined;
  }
}

/** Writes the node's state to one file, coalescing changes (see the file comment). */
export class SimStateFile {
  private version = 0;
  private written = 0;
  private running: Promise<void> | undefined;
  private closed = false;
  private warned = false;

  constructor(
    readonly path: string,
    private readonly snapshot: () => SimState,
    private readonly warn: (msg: string) => void,
  ) {}

  /** Something changed: the state is written soon. */
  changed(): void {
    if (this.closed) return;
    this.version++;
    this.running ??= this.writeLoop();
  }

  /** Resolves once the state as of now is on disk (or its write failed: reported once, never thrown). */
  async saved(): Promise<void> {
    this.changed();
    const want = this.version;
    while (this.written < want && this.running) await this.running;
  }

  /** Another node took the directory over: no more writes, the file left to it. */
  abandon(): void {
    this.closed = true;
  }

  /** The node stopped cleanly, its containers ended: no more writes, and the file is removed. */
  async remove(): Promise<void> {
    this.closed = true;
    while (this.running) await this.running;
    rmSync(this.path, { force: true });
  }

  private async writeLoop(): Promise<void> {
    try {
      while (this.written < this.version && !this.closed) {
        const v = this.version;
        try {
          await writeDurable(this.path, JSON.stringify(this.snapshot()));
          this.warned = false;
        } catch (e) {
          if (!this.warned)
            this.warn(`simulated node: cannot save its state to ${this.path}: ${(e as Error).message}`);
          this.warned = true;
        }
        this.written = v;
      }
    } finally {
      this.running = undefined;
    }
  }
}

async function writeDurable(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
