#!/bin/sh
# Open loop on oltp_point_select asking for 10k, 50k and 100k events/s (16 threads,
# 10 s each). Prints the achieved rate, the scheduling lag (actual minus intended
# start, p50/p99), latency from the intended start and service time from the
# actual start, the largest backlog, and client CPU per event.
set -eu
cd "$(dirname "$0")/.."
go build -o "${TMPDIR:-/tmp}/quadrant-loadbench" ./bench/loadbench
exec "${TMPDIR:-/tmp}/quadrant-loadbench" -mode rate -rates 10000,50000,100000 -threads 16 -time 10s "$@"
