#!/bin/sh
# Replay of a generated file of 50k single-row INSERTs: `mariadb < file` vs quadrant replay
# on the same sandbox, alternating, medians of 3. A ratio quadrant/mariadb <= 1 keeps up.
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/workloadbench -mode replay -pairs 3 -rows 50000 "$@"
