/**
 * The Host check: which names this server answers to, so that a web page whose DNS name is rebound to this
 * machine's address cannot read from it (the browser would send that page's name as Host).
 *
 * Allowed, whatever the port: loopback names (localhost, *.localhost, 127.x.y.z, [::1]); the address the
 * server listens on; names given with --allowed-host; and, when it listens on every interface (0.0.0.0 or
 * ::), each address of this machine's interfaces (read when a request needs it, so an address that comes
 * up later is allowed too). Called by access.ts for every request, before routing decides anything.
 */
import { networkInterfaces } from 'node:os';

export interface HostPolicy {
  /** The listen address (--host). */
  bind?: string;
  /** Further names this server answers to (--allowed-host, ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
}

const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** The name part of a Host header or an address, lower case, IPv6 in brackets, no port. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  if (h.split(':').length > 2) return `[${h}]`; // a bare IPv6 address (a listen address, never a Host)
  return h.split(':')[0] ?? '';
}

/** True for a Host header naming this machine's loopback: localhost, 127.x.y.z or [::1], any port. */
function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = hostName(host);
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

/** A listen address (`127.0.0.1`, `::1`, `localhost`) on the loopback interface: --host needs no token then. */
export function isLoopbackAddress(addr: string): boolean {
  return isLoopbackHost(addr.includes(':') && !addr.startsWith('[') ? `[${addr}]` : addr);
}

function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) out.add(hostName(a.family === 'IPv6' ? `[${a.address}]` : a.address));
  }
  return out;
}

export function hostAllowed(host: string, policy: HostPolicy): boolean {
  if (isLoopbackHost(host)) return true;
  const name = hostName(host);
  if (name === '') return false;
  if (policy.allowedHosts?.some((h) => hostName(h) === name)) return true;
  const bind = policy.bind === undefined ? undefined : policy.bind.trim();
  if (bind === undefined) return false;
  if (WILDCARD_BINDS.has(bind)) return interfaceAddresses().has(name);
  return hostName(bind.includes(':') && !bind.startsWith('[') ? `[${bind}]` : bind) === name;
}
