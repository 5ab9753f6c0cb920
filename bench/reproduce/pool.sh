#!/usr/bin/env bash
# The reproduction verdict on a real effect of the environment (pool.yaml): the published run on
# an 8M buffer pool, a rerun as published (expect reproduced), a rerun on a server with a 1G
# buffer pool (expect not reproduced, naming the buffer pool first), and a rerun of 2 repeats
# as published (expect reproduced or inconclusive). Prints each rerun's verdict lines and the
# host's load. Usage: bench/reproduce/pool.sh [QUADRANT]  (default: go build ./cmd/quadrant)
set -euo pipefail
cd "$(dirname "$0")/../.."
q=${1:-}
if [[ -z $q ]]; then
  q=$(mktemp -d)/quadrant
  go build -o "$q" ./cmd/quadrant
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
load() { echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"; }
verdicts() { grep -E '^(  (reproduced|NOT REPRODUCED|INCONCLUSIVE) |reproduction:|candidate causes|  [a-z ]+: target)' || true; }

load
"$q" run bench/reproduce/pool.yaml --out "$work/published" >"$work/published.log" 2>&1
published=$(dirname "$(find "$work/published" -name run.json | head -1)")
echo "published: $published"; grep -E '^Effect|^  span' "$work/published.log" || true

echo "== rerun as published (a sandbox with 8M)"; load
"$q" rerun "$published" --out "$work/same" 2>&1 | verdicts

echo "== rerun on a server with a 1G buffer pool"; load
eval "$("$q" sandbox up --detach --print-env --name bigpool --config innodb_buffer_pool_size=1G)"
trap '"$q" sandbox down bigpool >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$q" rerun "$published" --target "db=$QUADRANT_SANDBOX_DSN" --out "$work/big" 2>&1 | verdicts

echo "== a rerun of 2 repeats as published"; load
sed 's/^repeat: 3/repeat: 2/' bench/reproduce/pool.yaml >"$work/two.yaml"
"$q" run "$work/two.yaml" --out "$work/two" >/dev/null 2>&1
"$q" compare "$published" "$(dirname "$(find "$work/two" -name run.json | head -1)")" 2>&1 | verdicts
load
