#!/bin/sh
# A/B: quadrant's builtin oltp_read_write vs the sysbench binary on one sandbox,
# same server and data (prepared by quadrant), alternating runs.
# Prints each run, medians of tps and the ratio quadrant/sysbench (goal >= 0.85).
# Extra flags go to the Go program, e.g. -pairs 5 -time 20s -threads 8 -script oltp_point_select -status
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/workloadbench -mode oltp -pairs 3 -time 10s -threads 4 "$@"
