#!/usr/bin/env bash
# Starts a private containerd under DIR (default /tmp/syncscope-containerd), as ../../README.md "Real node"
# describes: its own socket, state and root, a CNI bridge (kcni0, 10.88.77.0/24), and the busybox and pause
# images built from Debian's busybox-static. Needs root and: containerd runc busybox-static
# containernetworking-plugins iptables. Prints the CRI endpoint on success. Undo with down.sh DIR.
set -euo pipefail
D=${1:-/tmp/syncscope-containerd}
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "up.sh: containerd needs root" >&2; exit 1; }
for bin in containerd runc ctr; do command -v $bin >/dev/null || { echo "up.sh: $bin missing (apt-get install containerd runc)" >&2; exit 1; }; done
[ -x /usr/lib/cni/bridge ] || { echo "up.sh: /usr/lib/cni/bridge missing (apt-get install containernetworking-plugins)" >&2; exit 1; }
mkdir -p "$D"/{root,state,opt,cni/net.d,cni/ipam}
if [ -S "$D/containerd.sock" ] && [ -f "$D/containerd.pid" ] && kill -0 "$(cat "$D/containerd.pid")" 2>/dev/null; then
  echo "unix://$D/containerd.sock"; exit 0
fi
# Remember ip_forward so down.sh can put it back (the bridge plugin sets it because isGateway).
[ -f "$D/ip_forward.orig" ] || cat /proc/sys/net/ipv4/ip_forward > "$D/ip_forward.orig"

# Nine settings changed from `containerd config default`: our own root, state, socket, plugin dir and CNI paths,
# the pause image we build, OOM score adjustment as root-in-VM needs, network namespaces under our state dir.
containerd config default | sed \
  -e "s|^root = .*|root = \"$D/root\"|" \
  -e "s|^state = .*|state = \"$D/state\"|" \
  -e "/^\[grpc\]/,/^\[/ s|^  address = .*|  address = \"$D/containerd.sock\"|" \
  -e "s|restrict_oom_score_adj = false|restrict_oom_score_adj = true|" \
  -e "s|sandbox_image = .*|sandbox_image = \"registry.k8s.io/pause:3.10\"|" \
  -e "s|bin_dir = \"/opt/cni/bin\"|bin_dir = \"/usr/lib/cni\"|" \
  -e "s|conf_dir = \"/etc/cni/net.d\"|conf_dir = \"$D/cni/net.d\"|" \
  -e "s|netns_mounts_under_state_dir = false|netns_mounts_under_state_dir = true|" \
  -e "/internal.v1.opt/,/path/ s|path = \"/opt/containerd\"|path = \"$D/opt\"|" \
  > "$D/config.toml"

# Written in place, never mv'd: containerd 1.6's conf syncer ignores CREATE events.
cat > "$D/cni/net.d/10-syncscope.conflist" <<CONF
{
  "cniVersion": "1.0.0",
  "name": "syncscope",
  "plugins": [
    { "type": "bridge", "bridge": "kcni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$D/cni/ipam",
                "ranges": [[{"subnet": "10.88.77.0/24"}]], "routes": [{"dst": "0.0.0.0/0"}] } },
    { "type": "portmap", "capabilities": {"portMappings": true} }
  ]
}
CONF

setsid containerd --config "$D/config.toml" >>"$D/containerd.log" 2>&1 < /dev/null &
echo $! > "$D/containerd.pid"
for _ in $(seq 1 100); do
  ctr -a "$D/containerd.sock" version >/dev/null 2>&1 && break
  sleep 0.1
done
ctr -a "$D/containerd.sock" version >/dev/null 2>&1 || { echo "up.sh: containerd did not answer; see $D/containerd.log" >&2; exit 1; }

if [ ! -f "$D/images/busybox.tar" ]; then "$here/build-images.sh" "$D/images" >/dev/null; fi
ctr -a "$D/containerd.sock" -n k8s.io images import "$D/images/pause.tar" >/dev/null
ctr -a "$D/containerd.sock" -n k8s.io images import "$D/images/busybox.tar" >/dev/null
echo "unix://$D/containerd.sock"
