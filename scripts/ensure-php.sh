#!/usr/bin/env bash
# The examples tests (test/examples) run the Python and PHP examples; Debian's python3 and php-cli, nothing from pip or composer.
# This script only checks for (or installs) the interpreters.
set -euo pipefail

missing=()
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v php >/dev/null 2>&1 || missing+=(php-cli)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ensure-php: ${missing[*]} missing; installing Debian's package(s)." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if command -v python3 >/dev/null 2>&1 && command -v php >/dev/null 2>&1; then
    echo "ensure-php: installed $(php -r 'echo "PHP ", PHP_VERSION;') and $(python3 --version)." >&2
    exit 0
  fi
  echo "ensure-php: apt-get finished but python3 or php is still missing." >&2
  exit 1
fi

cat >&2 <<MSG
ensure-php: the examples tests (test/examples) need python3 and php on the PATH (missing: ${missing[*]}).
Install them as root with:  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}
MSG
exit 1
