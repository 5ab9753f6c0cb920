#!/bin/sh
# Throughput cost of issue 13's evidence: performance_schema ON with digest and wait snapshots, and host,
# server-process and client sampling at 1 s, on a point-select load, in rotating windows against a sandbox
# without them. Usage: bench/evidence_overhead.sh [-rounds 15] [-window 2s] [-threads 4]
set -e
cd "$(dirname "$0")/.."
go run ./bench/evidence_overhead "$@"
