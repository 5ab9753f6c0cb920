#!/usr/bin/env bash
# Regenerates docs/report.png, the screenshot at the top of the README: a real run of the
# flush-method example made small (one table of 10000 rows, 5 s per iteration, threads 1, 4 and
# 16, two repeats, digests and waits watched) on a throwaway sandbox, its report.html rendered
# by headless Chromium with the flags the HTML tests use. About 3 minutes.
#
# Usage: scripts/readme-screenshot.sh [OUT.png]   (default docs/report.png)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/report.png}
chromium=$(command -v chromium || command -v chromium-browser || true)
[[ -n "$chromium" ]] || { echo "readme-screenshot: chromium is needed (apt-get install chromium)" >&2; exit 2; }
go build -o bin/quadrant ./cmd/quadrant
tmp=$(mktemp -d /tmp/readme-screenshot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # as root, the sandbox's server runs as mysql
cat >"$tmp/plan.yaml" <<'PLAN'
version: 1
name: flush-method
extends: builtin:flush-method
description: innodb_flush_method O_DIRECT vs O_DSYNC vs fsync as threads grow, sysbench OLTP read/write on a sandbox (small, for the README)
vars:
  tables: 1
  table_size: 10000
  duration: 5s
  warmup: 1s
  threads: [1, 4, 16]
repeat: 2
watch:
  digests: {top: 5}
  waits: {top: 5}
PLAN
set +e
bin/quadrant run "$tmp/plan.yaml" --out "$tmp/results" | tee "$tmp/run.out"
code=${PIPESTATUS[0]}
set -e
report=$(sed -n 's/^report: //p' "$tmp/run.out" | tail -n 1)
[[ -n "$report" ]] || { echo "readme-screenshot: the run wrote no report (exit $code)" >&2; exit 1; }
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$tmp/chromium" --virtual-time-budget=5000 \
  --hide-scrollbars --window-size=1200,1700 --screenshot="$out" "file://$(realpath "$report")" 2>/dev/null
echo "screenshot: $out (of $report, run exit $code)"
