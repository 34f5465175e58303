import type { HttpResult, ListenerKind } from './process.ts';

/** The network namespace of host-network pods (and of the node itself). */
export const HOST_NETNS = 'host';

interface Listener {
  kind: ListenerKind;
  containerId: string;
}

/**
 * The simulated node's networking: pod IPs from the pod CIDR (host-local style, handed out round-robin so
 * a freed address is not reused at once), and which ports are bound in which network namespace. A network
 * namespace is a sandbox id, or HOST_NETNS for host-network pods.
 *
 * Callers: SimRuntime (IPs on RunPodSandbox/StopPodSandbox, listeners when programs bind and containers
 * die) and probers/tests through SimRuntime.httpGet / tcpConnect. Everything here is synchronous apart
 * from the request helpers, which settle at once.
 */
export class SimNetwork {
  private readonly base: number;
  private readonly size: number;
  private next = 2;
  private readonly used = new Set<number>();
  private readonly ipToNetns = new Map<string, string>();
  private readonly listeners = new Map<string, Map<number, Listener>>();

  constructor(
    podCidr = '10.88.0.0/16',
    readonly nodeIP = '192.0.2.2',
  ) {
    const [addr = '', bits = '16'] = podCidr.split('/');
    const octets = addr.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !(o >= 0 && o <= 255)))
      throw new Error(`bad pod CIDR ${podCidr}`);
    const mask = Number(bits);
    this.size = 2 ** (32 - mask);
    this.base =
      (octets.reduce((a, o) => a * 256 + o, 0) >>> 0) -
      ((octets.reduce((a, o) => a * 256 + o, 0) >>> 0) % this.size);
  }

  /** Allocates the next free pod IP for a sandbox; throws when the range is exhausted. */
  allocate(netns: string): string {
    for (let tries = 0; tries < this.size; tries++) {
      const off = this.next;
      this.next = this.next + 1 >= this.size - 1 ? 2 : this.next + 1;
      if (this.used.has(off)) continue;
      this.used.add(off);
      const n = this.base + off;
      const ip = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
      this.ipToNetns.set(ip, netns);
      return ip;
    }
    throw new Error('no IP addresses available in range set');
  }

  /** Takes a given pod IP for a sandbox again (a node started on its saved state); false if taken or out of range. */
  reserve(ip: string, netns: string): boolean {
    const off =
      ip
        .split('.')
        .map(Number)
        .reduce((a, o) => a * 256 + o, 0) - this.base;
    if (!(off >= 2 && off < this.size - 1) || this.used.has(off)) return false;
    this.used.add(off);
    this.ipToNetns.set(ip, netns);
    return true;
  }

  release(ip: string): void {
    if (!ip || !this.ipToNetns.delete(ip)) return;
    const n = ip
      .split('.')
      .map(Number)
      .reduce((a, o) => a * 256 + o, 0);
    this.used.delete(n - this.base);
  }

  /** Binds a port; returns a release function, or null when the port is already bound in that namespace. */
  listen(netns: string, port: number, kind: ListenerKind, containerId: string): (() => void) | null {
    let ports = this.listeners.get(netns);
    if (!ports) {
      ports = new Map();
      this.listeners.set(netns, ports);
    }
    if (ports.has(port)) return null;
    const l: Listener = { kind, containerId };
    ports.set(port, l);
    return () => {
      if (ports.get(port) === l) ports.delete(port);
    };
  }

  /** Drops every port a container bound (its processes are gone). */
  releaseContainer(containerId: string): void {
    for (const ports of this.listeners.values())
      for (const [port, l] of ports) if (l.containerId === containerId) ports.delete(port);
  }

  listenersOf(containerId: string): { port: number; kind: ListenerKind }[] {
    const out: { port: number; kind: ListenerKind }[] = [];
    for (const ports of this.listeners.values())
      for (const [port, l] of ports) if (l.containerId === containerId) out.push({ port, kind: l.kind });
    return out.sort((a, b) => a.port - b.port);
  }

  /** The namespace a destination address reaches; loopback means the caller's own namespace. */
  netnsOf(host: string, from: string = HOST_NETNS): string | undefined {
    if (host === '127.0.0.1' || host === 'localhost' || host === '::1') return from;
    if (host === this.nodeIP) return HOST_NETNS;
    return this.ipToNetns.get(host);
  }

  private listenerAt(host: string, port: number, from?: string): Listener | undefined {
    const ns = this.netnsOf(host, from);
    return ns === undefined ? undefined : this.listeners.get(ns)?.get(port);
  }

  async connect(host: string, port: number, from?: string): Promise<void> {
    if (!this.listenerAt(host, port, from)) throw refused(host, port);
  }

  /** HTTP GET: 200 from any HTTP server (busybox httpd, nginx) on any path; a bare TCP listener is an EOF. */
  async httpGet(host: string, port: number, path: string, from?: string): Promise<HttpResult> {
    const l = this.listenerAt(host, port, from);
    if (!l) throw refused(host, port);
    if (l.kind !== 'http') throw new Error(`Get "http://${host}:${port}${path}": EOF`);
    return { status: 200, body: `<html><body><h1>It works!</h1></body></html>\n` };
  }
}

function refused(host: string, port: number): Error {
  return new Error(`dial tcp ${host}:${port}: connect: connection refused`);
}
