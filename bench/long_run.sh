#!/bin/sh
# A long run does not grow (issue 10): runs a plan of -duration (default 10m) at a 1 s report interval on a
# throwaway MariaDB sandbox, watching ~200 status variables at 1 s, and prints quadrant's resident memory
# (VmRSS of /proc/PID/status) at the start of the workload, every tenth of it, and at its end; then the peak
# while the run's own reports were built, and `quadrant report` of the folder (wall time and peak RSS).
#
# Usage: bench/long_run.sh [-duration 10m] [-threads 2] [-keep]   (-duration 1m for a quick check)
set -eu
cd "$(dirname "$0")/.."
duration=10m threads=2 keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    -duration) duration=$2; shift 2 ;;
    -threads) threads=$2; shift 2 ;;
    -keep) keep=1; shift ;;
    *) echo "usage: bench/long_run.sh [-duration 10m] [-threads 2] [-keep]" >&2; exit 2 ;;
  esac
done
dir=$(mktemp -d /tmp/long_run.XXXXXX)
pid=
cleanup() {
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  if [ "$keep" = 1 ]; then echo "kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT INT TERM
go build -o "$dir/quadrant" ./cmd/quadrant

# 199 of MariaDB 10.11's ~560 status variables: every InnoDB and handler counter and the usual gauges.
cat >"$dir/plan.yaml" <<PLAN
version: 1
name: long-run
targets:
  primary:
    sandbox: {config: {innodb_buffer_pool_size: 128M}}
setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {tables: 1, table_size: 10000}}
iteration:
  workload:
    builtin: oltp_read_only
    options: {tables: 1, table_size: 10000}
    threads: $threads
    duration: $duration
    report_interval: 1s
watch:
  interval: 1s
  status: ["Innodb_*", "Handler_*", "Threads_*", "Bytes_*", "Select_*", "Sort_*", "Created_*", "Table_*", "Open*",
    "Key_*", "Qcache_*", "Binlog_*"]
report:
  formats: [csv, html, json]
PLAN

rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$1/status" 2>/dev/null || echo 0; }
"$dir/quadrant" run "$dir/plan.yaml" --out "$dir/out" >"$dir/run.log" 2>&1 &
pid=$!
echo "quadrant run (pid $pid): $duration of oltp_read_only at $threads threads, status sampled every 1 s"
echo "load before: $(uptime)"

# The workload has started when the time series has its first row.
while kill -0 "$pid" 2>/dev/null; do
  ts=$(ls "$dir"/out/long-run/*/timeseries/primary.csv 2>/dev/null | head -1 || true)
  [ -n "$ts" ] && [ "$(wc -l <"$ts")" -ge 2 ] && break
  sleep 0.2
done
secs=$(echo "$duration" | awk '/h$/ { print $0 * 3600; next } /m$/ { print $0 * 60; next } { print $0 + 0 }')
start=$(date +%s)
echo "columns watched: $(head -1 "$ts" | tr ',' '\n' | grep -c '^status\.')"
printf "%8s %8s %10s\n" "elapsed" "rows" "VmRSS MB"
next=0 step=$((secs / 10)) peak_after=0 last="0 0 0"
[ "$step" -gt 0 ] || step=1
while kill -0 "$pid" 2>/dev/null; do
  now=$(($(date +%s) - start))
  r=$(rss "$pid")
  rows=$(($(wc -l <"$ts") - 1))
  if [ "$now" -le "$secs" ] && [ "$r" -gt 0 ]; then
    last="$now $rows $r" # the workload's last sample is its end
  fi
  if [ "$now" -ge "$next" ] && [ "$now" -le "$secs" ]; then
    printf "%7ds %8d %10d\n" "$now" "$rows" "$r"
    printed=$now
    next=$((next + step))
  elif [ "$now" -gt "$secs" ] && [ "$r" -gt "$peak_after" ]; then
    peak_after=$r # the workload is over: teardown and the run's own report
  fi
  sleep 1
done
set -- $last
[ "${printed:-}" = "$1" ] || printf "%7ds %8d %10d   (end)\n" "$1" "$2" "$3"
wait "$pid" || echo "quadrant run exited with $? (see below)"
pid=
if [ "$peak_after" -gt 0 ]; then
  echo "peak VmRSS after the workload (teardown, reports): $peak_after MB"
else
  echo "peak VmRSS after the workload: not sampled (quadrant finished its teardown and reports within the 1 s poll)"
fi
folder=$(dirname "$(dirname "$ts")")
echo "rows: $(($(wc -l <"$ts") - 1)), folder $(du -sh "$folder" | cut -f1), report.html $(du -h "$folder/report.html" 2>/dev/null | cut -f1)"
/usr/bin/time -f "quadrant report: %e s wall, %M KB peak RSS" "$dir/quadrant" report "$folder" >/dev/null
echo "load after:  $(uptime)"
tail -3 "$dir/run.log"
