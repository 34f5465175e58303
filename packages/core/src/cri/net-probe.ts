/**
 * What a node answers to the kubelet's network probes (pkg/probe/http, pkg/probe/tcp): the contract between
 * the prober (kubelet/prober) and whatever carries its GET or its dial to the pod. It sits beside the CRI
 * because a node provides both: the host's own sockets for a real containerd node (kubelet/prober/net-prober.ts
 * `nodeNetProber`), the simulated node's answer from the container's program without any socket
 * (sim/sim-net-prober.ts), served over the same link as its CRI.
 *
 * Errors are answers, not exceptions: a refused or timed-out connection is a probe failure in the kubelet, and
 * its text is what the Unhealthy event shows, so an implementation returns `{ error }` worded as Go's net
 * package words it. Neither method may reject; both must settle within timeoutMs (plus a little).
 */

export type HttpProbeAnswer = { status: number; body: string } | { error: string };
export type TcpProbeAnswer = { ok: true } | { error: string };

export interface NetProber {
  /**
   * GET url with the kubelet's headers (User-Agent kube-probe/1.32, Accept: *\/*). Redirects to the same
   * host are followed; any other redirect is returned as is (the prober makes it a warning). `error` is the
   * transport error without Go's `Get "<url>": ` prefix, which the prober adds.
   */
  http(url: string, timeoutMs: number): Promise<HttpProbeAnswer>;
  /** Opens (and at once closes) a TCP connection. `error` is the full dial error. */
  tcp(host: string, port: number, timeoutMs: number): Promise<TcpProbeAnswer>;
}
