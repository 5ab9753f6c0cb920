#!/bin/sh
# Median time from sandbox.Start to ready (template datadir already initialised), single server and
# primary + 1 semi-sync replica. Usage: bench/sandbox_start.sh [-n 5]
set -e
cd "$(dirname "$0")/.."
go run ./bench/sandbox_start "$@"
go run ./bench/sandbox_start -replicas 1 -semisync "$@"
