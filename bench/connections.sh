#!/bin/sh
# 1024 and 4096 connections (max_connections raised in the sandbox), oltp_point_select,
# a closed loop and an open loop (-conn-rate, default 2000 events/s) of 30 s each.
# Prints client RSS per connection, connection setup time (median, p99), tps,
# client CPU per event and, for the open loop, whether the rate was held.
set -eu
cd "$(dirname "$0")/.."
go build -o "${TMPDIR:-/tmp}/quadrant-loadbench" ./bench/loadbench
exec "${TMPDIR:-/tmp}/quadrant-loadbench" -mode conns -conns 1024,4096 -time 30s "$@"
