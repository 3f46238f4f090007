#!/usr/bin/env bash
# Usage: node-base.sh <node version> <npm version> <image>
# A local stand-in for the official node:<major>-bookworm-slim image, where no image registry is reachable:
# Debian bookworm (debootstrap --variant=minbase, plus libatomic1 that node needs, as the official image adds), the node binary of the npm package node-linux-<arch> of
# that version in /usr/local/bin, npm from the npm package in /usr/local/lib/node_modules, and the user
# `node` (uid 1000), as the official image lays them out. The Debian root is cached, so it is made once.
# Needs root, podman (CONTAINERS_CONF and the runtime as the caller sets them), debootstrap, npm and tar.
set -euo pipefail
version=$1 npm_version=$2 image=$3
cache="${XDG_CACHE_HOME:-$HOME/.cache}/payreq-sandbox/container"
rootfs="$cache/debian-bookworm-minbase-libatomic1.tar"

if podman image exists "$image"; then exit 0; fi
mkdir -p "$cache"
work=$(mktemp -d "$cache/.work-XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ ! -s "$rootfs" ]; then
  echo "node-base: making a Debian bookworm root with debootstrap (once; cached in $rootfs)" >&2
  debootstrap --variant=minbase --include=libatomic1 bookworm "$work/debian" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # Package lists and downloaded .debs are not part of a slim image.
  rm -rf "$work/debian/var/cache/apt/archives/"*.deb "$work/debian/var/lib/apt/lists/"*
  tar -C "$work/debian" -cf "$work/rootfs.tar" .
  mv "$work/rootfs.tar" "$rootfs"
  rm -rf "$work/debian"
fi

mkdir "$work/root"
tar -C "$work/root" -xf "$rootfs"
case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
(cd "$work" && npm pack --silent "node-linux-$arch@$version" "npm@$npm_version" >/dev/null)
tar -xzf "$work/node-linux-$arch-$version.tgz" -C "$work" package/bin/node
install -m 0755 "$work/package/bin/node" "$work/root/usr/local/bin/node"
mkdir -p "$work/root/usr/local/lib/node_modules/npm"
tar -xzf "$work/npm-$npm_version.tgz" -C "$work/root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
chroot "$work/root" groupadd --gid 1000 node
chroot "$work/root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

tar -C "$work/root" -c . | podman import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$version" \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "node-base: made $image (Node $version, npm $npm_version)" >&2
