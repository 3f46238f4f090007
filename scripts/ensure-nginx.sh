#!/usr/bin/env bash
# Debian's nginx for test/cluster/nginx-restart.test.ts (installed when missing, never started here).
exec bash "$(dirname "$0")/ensure-debian-binary.sh" nginx nginx 'the rolling-restart test (test/cluster/nginx-restart.test.ts)'
