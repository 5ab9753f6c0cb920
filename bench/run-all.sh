#!/bin/sh
# Every benchmark, one after the other (they need a quiet machine: run nothing else).
# Each prints its runs, medians and a ratio; see bench/README.md for what each measures.
set -eu
cd "$(dirname "$0")"
for b in workload_vs_sysbench.sh oltp_vs_sysbench.sh connections.sh open_loop_rate.sh tpcc_vs_gotpc.sh replay_vs_client.sh sandbox_start.sh watch_overhead.sh report_scale.sh long_run.sh; do
  echo "== $b"
  ./"$b"
  echo
done
