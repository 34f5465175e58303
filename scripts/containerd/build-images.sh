#!/usr/bin/env bash
# Builds two OCI image archives from Debian's busybox-static, for a containerd with no registry access:
#   busybox.tar  docker.io/library/busybox:latest   Cmd ["sh"]
#   pause.tar    registry.k8s.io/pause:3.10          Cmd ["/bin/sleep","infinity"] (containerd SIGKILLs the
#                                                    sandbox task on StopPodSandbox, so sleep is enough)
# Usage: build-images.sh OUT_DIR
set -euo pipefail
out=${1:?usage: build-images.sh OUT_DIR}
bb=${BUSYBOX:-/bin/busybox}
[ -x "$bb" ] || { echo "build-images: $bb not found (apt-get install busybox-static)" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One root filesystem layer: busybox, an applet symlink for each applet, passwd/group, /tmp 1777.
root="$work/rootfs"
mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/var/www"
chmod 1777 "$root/tmp"
cp "$bb" "$root/bin/busybox"
for applet in $("$bb" --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$root/bin/$applet"
done
mkdir -p "$root/usr/bin" "$root/sbin" "$root/usr/sbin"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
echo '<html><body>ok</body></html>' > "$root/var/www/index.html"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00Z' -C "$root" -cf "$work/layer.tar" .
layer_digest=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
layer_size=$(stat -c %s "$work/layer.tar")

make_image() { # name ref cmd-json
  local name=$1 ref=$2 cmd=$3 dir="$work/$1"
  mkdir -p "$dir/blobs/sha256"
  cp "$work/layer.tar" "$dir/blobs/sha256/$layer_digest"
  cat > "$work/$name.config.json" <<CFG
{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":$cmd,"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:$layer_digest"]},"history":[{"created_by":"syncscope build-images.sh"}]}
CFG
  local cfg_digest cfg_size
  cfg_digest=$(sha256sum "$work/$name.config.json" | cut -d' ' -f1)
  cfg_size=$(stat -c %s "$work/$name.config.json")
  cp "$work/$name.config.json" "$dir/blobs/sha256/$cfg_digest"
  cat > "$work/$name.manifest.json" <<MAN
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$cfg_digest","size":$cfg_size},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:$layer_digest","size":$layer_size}]}
MAN
  local man_digest man_size
  man_digest=$(sha256sum "$work/$name.manifest.json" | cut -d' ' -f1)
  man_size=$(stat -c %s "$work/$name.manifest.json")
  cp "$work/$name.manifest.json" "$dir/blobs/sha256/$man_digest"
  echo '{"imageLayoutVersion":"1.0.0"}' > "$dir/oci-layout"
  cat > "$dir/index.json" <<IDX
{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:$man_digest","size":$man_size,"annotations":{"io.containerd.image.name":"$ref","org.opencontainers.image.ref.name":"${ref##*:}"}}]}
IDX
  tar -C "$dir" -cf "$out/$name.tar" .
}
make_image busybox docker.io/library/busybox:latest '["sh"]'
make_image pause registry.k8s.io/pause:3.10 '["/bin/sleep","infinity"]'
echo "$out/busybox.tar $out/pause.tar"
