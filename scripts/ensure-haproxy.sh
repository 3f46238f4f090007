#!/usr/bin/env bash
# The rolling-restart test puts Debian's HAProxy in front of two `serve` processes; nothing downloads HAProxy through npm.
# This script only checks for (or installs) the binary; it never starts HAProxy (the test starts its own, on loopback ports).
set -euo pipefail

find_haproxy() {
  command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]
}

if find_haproxy; then
  exit 0
fi

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ensure-haproxy: no haproxy binary; installing Debian's haproxy package." >&2
  export DEBIAN_FRONTEND=noninteractive
  # The package would start its service with Debian's config; the tests start their own. Debian skips starting services while policy-rc.d exits 101.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends haproxy >/dev/null
  if find_haproxy; then
    echo "ensure-haproxy: installed $(/usr/sbin/haproxy -v | head -n1)." >&2
    exit 0
  fi
  echo "ensure-haproxy: apt-get finished but haproxy is still missing." >&2
  exit 1
fi

cat >&2 <<MSG
ensure-haproxy: the rolling-restart test (test/cluster/haproxy-restart.test.ts) needs HAProxy.
Install it as root with:  apt-get update && apt-get install -y --no-install-recommends haproxy
MSG
exit 1
