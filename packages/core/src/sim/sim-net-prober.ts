/**
 * Probes over the simulated pod network. A simulated pod IP exists only inside the simulator, so the engine's
 * HTTP and TCP probes (prober/net-prober.ts) are answered by it when the server runs the simulated node in
 * process: a listener the container's program opened (`httpd -f -p 8080`, `nc -l -p 9000`, nginx on :80)
 * answers, anything else is "connection refused", as a real kernel would say it.
 */
import type { HttpProbeAnswer, NetProber, TcpProbeAnswer } from '../cri/net-probe.ts';
import type { SimNetwork } from './network.ts';

export class SimNetProber implements NetProber {
  constructor(private readonly net: SimNetwork) {}

  async http(url: string, _timeoutMs: number): Promise<HttpProbeAnswer> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return { error: `parse "${url}": invalid URL` };
    }
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    try {
      const r = await this.net.httpGet(u.hostname, port, `${u.pathname}${u.search}`);
      return { status: r.status, body: r.body };
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  }

  async tcp(host: string, port: number, _timeoutMs: number): Promise<TcpProbeAnswer> {
    try {
      await this.net.connect(host, port);
      return { ok: true };
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  }
}
