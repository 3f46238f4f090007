#!/usr/bin/env bash
# Usage: ensure-debian-binary.sh <package> <binary> <test that needs it>
# The rolling-restart tests put Debian's HAProxy and nginx in front of two `serve` processes; nothing downloads them through npm.
# This script only checks for (or installs) the binary; it never starts the service (the tests start their own, on loopback ports).
set -euo pipefail
package=$1 binary=$2 needed_by=$3

found() {
  command -v "$binary" >/dev/null 2>&1 || [ -x "/usr/sbin/$binary" ]
}

if found; then
  exit 0
fi

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ensure-$package: no $binary binary; installing Debian's $package package." >&2
  export DEBIAN_FRONTEND=noninteractive
  # The package would start its service (nginx on port 80); the tests start their own. Debian skips starting services while policy-rc.d exits 101.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$package" >/dev/null
  if found; then
    echo "ensure-$package: installed $package." >&2
    exit 0
  fi
  echo "ensure-$package: apt-get finished but $binary is still missing." >&2
  exit 1
fi

cat >&2 <<MSG
ensure-$package: $needed_by needs $package.
Install it as root with:  apt-get update && apt-get install -y --no-install-recommends $package
MSG
exit 1
