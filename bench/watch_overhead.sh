#!/bin/sh
# Throughput cost of watching every status variable at 1 s: A/B pairs of a point-select load with and without
# a status sampler on a throwaway sandbox. Usage: bench/watch_overhead.sh [-pairs 5] [-time 10s] [-threads 4]
set -e
cd "$(dirname "$0")/.."
go run ./bench/watch_overhead "$@"
