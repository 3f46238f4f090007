#!/usr/bin/env bash
# The browser tests drive Debian's Chromium; nothing downloads a browser through npm or playwright.
set -euo pipefail

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ensure-chromium: $CHROMIUM is missing; installing Debian's chromium package." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
  if [ -x "$CHROMIUM" ]; then
    echo "ensure-chromium: installed $("$CHROMIUM" --version 2>/dev/null || echo chromium)." >&2
    exit 0
  fi
  echo "ensure-chromium: apt-get finished but $CHROMIUM is still missing." >&2
  exit 1
fi

cat >&2 <<MSG
ensure-chromium: the browser tests (test/pages) need Chromium at $CHROMIUM.
Install it as root with:  apt-get update && apt-get install -y --no-install-recommends chromium
or point CHROMIUM_PATH at an existing Chromium binary.
MSG
exit 1
