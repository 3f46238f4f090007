#!/usr/bin/env bash
# Debian's HAProxy for test/cluster/haproxy-restart.test.ts (installed when missing, never started here).
exec bash "$(dirname "$0")/ensure-debian-binary.sh" haproxy haproxy 'the rolling-restart test (test/cluster/haproxy-restart.test.ts)'
