import { createHash } from 'node:crypto';
import type { Image, ImageSpec } from '../cri/types.ts';

/**
 * The simulated node's images: a catalogue that plays the registry (what can be pulled, how long a pull
 * takes) and the node's local image store (what CreateContainer can use). Both are keyed by the fully
 * normalised reference, `docker.io/library/busybox:latest`, as containerd keys them.
 *
 * Callers: SimRuntime (ImageService calls, CreateContainer's image resolution) and Faults (an image goes
 * missing, a pull becomes slow). Nothing here blocks; pull delays are applied by the caller on its clock.
 */
export interface ImageDef {
  /** Normalised reference, e.g. `docker.io/library/busybox:latest`. */
  ref: string;
  /** Config digest, `sha256:<64 hex>`: the image id and the image_ref containers report. */
  id: string;
  size: number;
  /** Entrypoint and Cmd from the image config (Docker semantics: command overrides entrypoint, args override cmd). */
  entrypoint: string[];
  cmd: string[];
  env: string[];
  /** Executable paths inside the image; a program is chosen by the basename (busybox applets are symlinks). */
  files: string[];
  /** Virtual ms a pull takes. */
  pullDelayMs: number;
}

export const DEFAULT_PULL_DELAY_MS = 300;

/** The busybox applets the interpreter implements (or that exist and do nothing useful here). */
export const BUSYBOX_APPLETS = [
  'sh',
  'ash',
  'sleep',
  'echo',
  'true',
  'false',
  'tail',
  'cat',
  'tar',
  'httpd',
  'nc',
  'wget',
  'env',
  'hostname',
  'touch',
  'rm',
  'test',
  '[',
  'ls',
  'date',
  'printf',
  'kill',
  'pwd',
  'mkdir',
  'id',
  'whoami',
] as const;

function digestOf(seed: string): string {
  return `sha256:${createHash('sha256').update(seed).digest('hex')}`;
}

const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function defaultImages(): ImageDef[] {
  return [
    {
      ref: 'docker.io/library/busybox:latest',
      id: digestOf('syncscope-sim busybox:latest'),
      size: 2_155_000,
      entrypoint: [],
      cmd: ['sh'],
      env: [PATH_ENV],
      files: BUSYBOX_APPLETS.map((a) => `/bin/${a}`),
      pullDelayMs: DEFAULT_PULL_DELAY_MS,
    },
    {
      ref: 'docker.io/library/nginx:latest',
      id: digestOf('syncscope-sim nginx:latest'),
      size: 72_700_000,
      entrypoint: ['/docker-entrypoint.sh'],
      cmd: ['nginx', '-g', 'daemon off;'],
      env: [PATH_ENV, 'NGINX_VERSION=1.27.3'],
      files: [
        '/docker-entrypoint.sh',
        '/usr/sbin/nginx',
        '/bin/sh',
        '/bin/sleep',
        '/bin/echo',
        '/bin/cat',
        '/bin/tar',
        '/bin/true',
        '/bin/false',
        '/usr/bin/env',
      ],
      pullDelayMs: DEFAULT_PULL_DELAY_MS,
    },
    {
      ref: 'registry.k8s.io/pause:3.10',
      id: digestOf('syncscope-sim pause:3.10'),
      size: 320_000,
      entrypoint: ['/pause'],
      cmd: [],
      env: [PATH_ENV],
      files: ['/pause'],
      pullDelayMs: DEFAULT_PULL_DELAY_MS,
    },
  ];
}

/** Result of parsing a reference the way containerd's docker reference parser does. */
export type ParsedRef =
  | { ok: true; ref: string; host: string; path: string; tag: string }
  | { ok: false; error: string };

/**
 * `busybox` → `docker.io/library/busybox:latest`, `foo/bar:1` → `docker.io/foo/bar:1`, `quay.io/x/y` →
 * `quay.io/x/y:latest`. A digest reference keeps its digest in place of the tag.
 */
export function normalizeImageRef(raw: string): ParsedRef {
  const name = raw.trim();
  if (!/^[a-z0-9][a-z0-9._\-/:@]*$/.test(name)) {
    const why = /[A-Z]/.test(name) ? 'repository name must be lowercase' : 'invalid reference format';
    return {
      ok: false,
      error: `failed to parse image reference "${raw}": invalid reference format${why === 'invalid reference format' ? '' : `: ${why}`}`,
    };
  }
  let rest = name;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  const slash = rest.indexOf('/');
  let host = 'docker.io';
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  if (slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    host = first;
    rest = rest.slice(slash + 1);
  }
  let tag = 'latest';
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  if (host === 'docker.io' && !rest.includes('/')) rest = `library/${rest}`;
  if (!rest || !tag)
    return { ok: false, error: `failed to parse image reference "${raw}": invalid reference format` };
  const ref = digest ? `${host}/${rest}@${digest}` : `${host}/${rest}:${tag}`;
  return { ok: true, ref, host, path: rest, tag: digest || tag };
}

/**
 * Registry (catalogue) plus the node's store. `present` holds refs pulled or preloaded; `unavailable`
 * holds refs a fault made disappear from the registry too.
 */
export class ImageCatalogue {
  private readonly registry = new Map<string, ImageDef>();
  private readonly present = new Set<string>();
  private readonly unavailable = new Set<string>();

  /** `preload` true puts every catalogue image on the node at once (as after a previous pull). */
  constructor(defs: ImageDef[] = defaultImages(), opts: { preload?: boolean } = {}) {
    for (const d of defs) this.add(d, opts.preload ?? true);
  }

  add(def: ImageDef, present = false): void {
    this.registry.set(def.ref, { ...def });
    if (present) this.present.add(def.ref);
  }

  /** The registry's definition for a normalised ref, unless a fault removed it. */
  inRegistry(ref: string): ImageDef | undefined {
    return this.unavailable.has(ref) ? undefined : this.registry.get(ref);
  }

  /** The local image a spec names (reference or image id), or undefined. */
  local(spec: ImageSpec | string): ImageDef | undefined {
    const s = typeof spec === 'string' ? spec : spec.image;
    if (s.startsWith('sha256:')) {
      for (const ref of this.present) {
        const d = this.registry.get(ref);
        if (d && d.id === s) return d;
      }
      return undefined;
    }
    const p = normalizeImageRef(s);
    if (!p.ok || !this.present.has(p.ref)) return undefined;
    return this.registry.get(p.ref);
  }

  markPresent(ref: string): void {
    this.present.add(ref);
  }

  /** Removes the image from the node (by ref or id). Returns whether it was there. */
  removeLocal(spec: ImageSpec | string): boolean {
    const d = this.local(spec);
    if (!d) return false;
    this.present.delete(d.ref);
    return true;
  }

  setUnavailable(ref: string, gone: boolean): void {
    if (gone) this.unavailable.add(ref);
    else this.unavailable.delete(ref);
  }

  setPullDelay(ref: string, ms: number): boolean {
    const d = this.registry.get(ref);
    if (!d) return false;
    d.pullDelayMs = ms;
    return true;
  }

  listLocal(): ImageDef[] {
    return [...this.present].flatMap((r) => this.registry.get(r) ?? []);
  }

  /** The CRI view of an image: as containerd shows an image without a registry digest. */
  toCri(d: ImageDef): Image {
    return {
      id: d.id,
      repo_tags: [d.ref],
      repo_digests: [],
      size: String(d.size),
      uid: null,
      username: '',
      spec: { image: d.id, annotations: {}, user_specified_image: '', runtime_handler: '' },
      pinned: false,
    };
  }
}

/** What containerd says when the registry cannot be reached (the reference machine has no network). */
export function pullFailureText(ref: string, host: string, path: string, tag: string): string {
  const registry = host === 'docker.io' ? 'registry-1.docker.io' : host;
  const url = `https://${registry}/v2/${path}/manifests/${tag}`;
  const dial = host.startsWith('localhost')
    ? `dial tcp 127.0.0.1:${host.split(':')[1] ?? '443'}: connect: connection refused`
    : `dial tcp: lookup ${registry.split(':')[0]} on 10.255.255.53:53: no such host`;
  return `failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": failed to do request: Head "${url}": ${dial}`;
}
