#!/usr/bin/env bash
# The PostgreSQL store tests start a throw-away cluster from Debian's server binaries; nothing downloads PostgreSQL through npm.
# This script only checks for (or installs) the binaries; it never starts a server.
set -euo pipefail

find_postgres() {
  if [ -n "${PG_BIN:-}" ]; then
    [ -x "$PG_BIN/postgres" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ]
    return
  fi
  local bin
  for bin in /usr/lib/postgresql/*/bin/postgres; do
    [ -x "$bin" ] && return 0
  done
  return 1
}

if find_postgres; then
  exit 0
fi

if [ -n "${PG_BIN:-}" ]; then
  echo "ensure-postgres: PG_BIN=$PG_BIN has no postgres, initdb and pg_ctl executables." >&2
  exit 1
fi

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  echo "ensure-postgres: no /usr/lib/postgresql/*/bin/postgres; installing Debian's postgresql package." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  if find_postgres; then
    echo "ensure-postgres: installed $(ls -d /usr/lib/postgresql/*/bin/postgres | sort -V | tail -n1)." >&2
    exit 0
  fi
  echo "ensure-postgres: apt-get finished but /usr/lib/postgresql/*/bin/postgres is still missing." >&2
  exit 1
fi

cat >&2 <<MSG
ensure-postgres: the PostgreSQL store tests need the PostgreSQL server binaries (postgres, initdb, pg_ctl).
Install them as root with:  apt-get update && apt-get install -y --no-install-recommends postgresql
or point PG_BIN at a directory holding them (e.g. PG_BIN=/usr/lib/postgresql/15/bin).
MSG
exit 1
