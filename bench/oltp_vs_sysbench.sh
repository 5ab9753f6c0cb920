#!/bin/sh
# quadrant's builtin OLTP vs the sysbench binary on one sandbox (1 table x 100k rows,
# 8 threads, 10 s runs), five scripts, alternating quadrant/sysbench pairs (ABBA: even pairs
# run sysbench first, so what one run leaves the next weighs on both).
# Prints every run, the medians, then the table of ratios (tps and client CPU per
# transaction, each process's own rusage); the last line is the worst ratio.
# Extra flags go to the Go program, e.g. -pairs 5 -time 20s -scripts oltp_read_write -cpuprofile q.prof
set -eu
cd "$(dirname "$0")/.."
go build -o "${TMPDIR:-/tmp}/quadrant-loadbench" ./bench/loadbench
exec "${TMPDIR:-/tmp}/quadrant-loadbench" -mode table -pairs 3 -time 10s -threads 8 -tables 1 -table-size 100000 "$@"
