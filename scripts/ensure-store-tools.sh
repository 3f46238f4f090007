#!/usr/bin/env bash
# strace counts the file store's fsyncs per SANDBOX_FSYNC policy (test/durability/fsync.test.ts); jq reads every file of the store (test/support/json-lines.ts).
set -euo pipefail
bash "$(dirname "$0")/ensure-debian-binary.sh" strace strace 'the fsync policy test (test/durability/fsync.test.ts)'
bash "$(dirname "$0")/ensure-debian-binary.sh" jq jq 'the JSON-lines checks of the store files (test/support/json-lines.ts)'
