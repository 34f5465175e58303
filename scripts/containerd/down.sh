#!/usr/bin/env bash
# Stops the private containerd of up.sh and leaves nothing behind: pods (via CRI, by the caller, or forced
# here), shims, the kcni0 bridge, the CNI-HOSTPORT iptables chains, ip_forward as it was, and DIR itself.
set -uo pipefail
D=${1:-/tmp/syncscope-containerd}
sock="$D/containerd.sock"
if [ -S "$sock" ]; then
  # Tasks first (sandbox and app containers), then containerd itself.
  for t in $(ctr -a "$sock" -n k8s.io tasks ls -q 2>/dev/null); do ctr -a "$sock" -n k8s.io tasks kill -s SIGKILL "$t" >/dev/null 2>&1; done
fi
if [ -f "$D/containerd.pid" ]; then
  pid=$(cat "$D/containerd.pid")
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
fi
# Shims started for this containerd carry its socket path on their command line.
pkill -9 -f "containerd-shim-runc-v2 .*-address $sock" 2>/dev/null
# Network namespaces of pods live under the state dir; unmount them so the dir can go.
if [ -d "$D/state" ]; then
  grep " $D/" /proc/mounts | awk '{print $2}' | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
fi
ip link del kcni0 2>/dev/null
for chain in CNI-HOSTPORT-DNAT CNI-HOSTPORT-MASQ CNI-HOSTPORT-SETMARK; do
  iptables -t nat -F "$chain" 2>/dev/null
done
iptables -t nat -D PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT 2>/dev/null
iptables -t nat -D OUTPUT -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT 2>/dev/null
iptables -t nat -D POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" -j CNI-HOSTPORT-MASQ 2>/dev/null
for chain in CNI-HOSTPORT-DNAT CNI-HOSTPORT-MASQ CNI-HOSTPORT-SETMARK; do
  iptables -t nat -X "$chain" 2>/dev/null
done
if [ -f "$D/ip_forward.orig" ]; then cat "$D/ip_forward.orig" > /proc/sys/net/ipv4/ip_forward; fi
rm -rf /var/lib/cni/results/syncscope-* 2>/dev/null
# cgroups left by runc (cgroupfs driver, parent k8s.io) for containers of this containerd
for cg in /sys/fs/cgroup/*/k8s.io/*; do [ -d "$cg" ] && rmdir "$cg" 2>/dev/null; done
rm -rf "$D"
exit 0
