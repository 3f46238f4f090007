#!/usr/bin/env bash
# Debian's podman (with runc) and debootstrap for test/container/image.test.ts, which builds and runs the image.
# Installed when missing and run as root with apt; elsewhere the test says in one line that it is skipped.
set -uo pipefail
here="$(dirname "$0")"
for pair in podman:podman runc:runc debootstrap:debootstrap; do
  bash "$here/ensure-debian-binary.sh" "${pair%%:*}" "${pair##*:}" 'the container image test (test/container/image.test.ts)' || exit 0
done
