#!/usr/bin/env bash
# The rolling-restart test puts Debian's nginx in front of two `serve` processes; nothing downloads nginx through npm.
# This script only checks for (or installs) the binary; it never starts nginx (the test starts its own, on loopback ports).
set -euo pipefail

find_nginx() {
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]
}

if find_nginx; then
  exit 0
fi

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ensure-nginx: no nginx binary; installing Debian's nginx package." >&2
  export DEBIAN_FRONTEND=noninteractive
  # The package would start its service (nginx on port 80); the tests start their own. Debian skips starting services while policy-rc.d exits 101.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get -o DPkg::Lock::Timeout=300 update -qq
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends nginx >/dev/null
  if find_nginx; then
    echo "ensure-nginx: installed $(/usr/sbin/nginx -v 2>&1 | head -n1)." >&2
    exit 0
  fi
  echo "ensure-nginx: apt-get finished but nginx is still missing." >&2
  exit 1
fi

cat >&2 <<MSG
ensure-nginx: the rolling-restart test (test/cluster/nginx-restart.test.ts) needs nginx.
Install it as root with:  apt-get update && apt-get install -y --no-install-recommends nginx
MSG
exit 1
