#!/bin/sh
# Commit-order replay of real contended traffic: go-tpc's TPC-C (1 warehouse, 4 terminals by
# default) captured for TIME (through the slow log table by default), then replayed on the same data four
# ways: (a) timing none, (b) timing none + order: commit, (c) speed 2 + order: commit,
# (d) timing original + order: commit. Before each replay the database is restored from a dump
# taken before the capture, so each starts from the capture's start state (a replay refuses a
# target whose tables differ from it). Prints per replay: statements replayed, errors unlike the
# capture (and their share), end state, the order waits, and the replay's wall time against the
# captured span (first statement's start to last statement's end, from the .qcap).
# go-tpc is built from the Go module proxy into the work directory, never added to go.mod.
# MariaDB's performance_schema gives no SQL_TEXT for statements executed over the binary protocol,
# which is all of go-tpc's but START TRANSACTION, COMMIT and ROLLBACK: METHOD=slow_log by default.
# Options (environment): THREADS=4 TIME=10s WAREHOUSES=1 GOTPC_VERSION=latest METHOD=slow_log KEEP= (keep work dir)
# REUSE=DIR replays the capture (tpcc.qcap, start.sql) of an earlier run's kept work directory instead of
# capturing anew: the same traffic replayed by two builds. ONLY="a b" runs only those replays.
set -eu
cd "$(dirname "$0")/.."
THREADS=${THREADS:-4}
TIME=${TIME:-10s}
WAREHOUSES=${WAREHOUSES:-1}
GOTPC_VERSION=${GOTPC_VERSION:-latest}
METHOD=${METHOD:-slow_log}

work=$(mktemp -d "${TMPDIR:-/tmp}/replayorder.XXXXXX")
chmod 711 "$work" # run as root, the sandbox's server is an unprivileged user that must pass through
name="replayorder$$"
up=
cleanup() {
  if [ -n "$up" ]; then
    "$work/quadrant" sandbox down "$name" >/dev/null || true
  fi
  if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "work directory kept: $work"; fi
}
trap cleanup EXIT INT TERM

echo "uptime: $(uptime)"
echo "$(nproc) CPU(s)"
go build -o "$work/quadrant" ./cmd/quadrant
if ! GOBIN="$work" GOFLAGS=-mod=mod go install "github.com/pingcap/go-tpc/cmd/go-tpc@$GOTPC_VERSION"; then
  echo "go-tpc could not be built (no network to the Go module proxy?): no trial"
  exit 1
fi

"$work/quadrant" sandbox up --detach --name "$name" --dir "$work/sb" --print-env \
  --config performance_schema=ON --config performance_schema_events_statements_history_long_size=100000 \
  --config innodb_lock_wait_timeout=20 --config innodb_buffer_pool_size=512M \
  --config innodb_flush_log_at_trx_commit=2 >"$work/sandbox.out" || { echo "sandbox did not start"; exit 1; }
up=yes
. "$work/sandbox.out"
port=$QUADRANT_SANDBOX_PORT
pw=$QUADRANT_SANDBOX_PASSWORD
export MYSQL_PWD="$pw"
my() { mariadb -h 127.0.0.1 -P "$port" -u root "$@"; }
# The host's CPU time, busy and all, from /proc/stat; busy A B is the share of it busy between
# two readings: a capture or a replay near 100% had no CPU to go faster with.
cpustat() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat; }
busy() { echo "$1 $2" | awk '{d = $4 - $2; printf "%.0f%%", (d > 0 ? 100 * ($3 - $1) / d : 0)}'; }
echo "sandbox on 127.0.0.1:$port; $WAREHOUSES warehouse(s), $THREADS threads, $TIME captured"

if [ -n "${REUSE:-}" ]; then
  cp "$REUSE/tpcc.qcap" "$REUSE/start.sql" "$work/"
  echo "== reusing the capture of $REUSE"
else
  echo "== prepare (go-tpc, database tpcc)"
  "$work/go-tpc" tpcc -H 127.0.0.1 -P "$port" -U root -p "$pw" -D tpcc --warehouses "$WAREHOUSES" -T "$WAREHOUSES" \
    prepare --no-check >"$work/prep.log" 2>&1 || { tail -20 "$work/prep.log"; exit 1; }
  # The copy for replay: a dump of the data the capture starts from.
  mariadb-dump -h 127.0.0.1 -P "$port" -u root --single-transaction --databases tpcc >"$work/start.sql"
  echo "dump of the start: $(du -h "$work/start.sql" | cut -f1)"

  echo "== capture"
  cap_s=$(echo "$TIME" | sed 's/s$//')
  "$work/quadrant" capture --method "$METHOD" --schema tpcc --duration "$((cap_s + 5))s" \
    --target "db=root:\${{ env.QUADRANT_SANDBOX_PASSWORD }}@tcp(127.0.0.1:$port)/" \
    --out "$work/tpcc.qcap" >"$work/capture.out" 2>"$work/capture.log" &
  cappid=$!
  # go-tpc starts once the start state is checksummed, so the checksums are of still data.
  i=0
  until grep -q "start state" "$work/capture.log"; do
    i=$((i + 1)); [ "$i" -lt 600 ] || { cat "$work/capture.log"; exit 1; }
    sleep 0.1
  done
  c0=$(cpustat)
  "$work/go-tpc" tpcc -H 127.0.0.1 -P "$port" -U root -p "$pw" -D tpcc --warehouses "$WAREHOUSES" -T "$THREADS" \
    run --time "$TIME" >"$work/run.log" 2>&1 || { tail -20 "$work/run.log"; exit 1; }
  grep -E "tpmC|Summary" "$work/run.log" | tail -3 || true
  echo "host CPU busy during the capture: $(busy "$c0" "$(cpustat)") of $(nproc) CPU(s)"
  wait "$cappid" || { cat "$work/capture.log"; exit 1; }
  cat "$work/capture.log" "$work/capture.out"
fi
span=$(python3 - "$work/tpcc.qcap" <<'PY'
import json, sys
lo = hi = None
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    s, e = r.get("clock_start_ps"), r.get("clock_end_ps")
    if s is None or e is None:
        continue
    lo = s if lo is None else min(lo, s)
    hi = e if hi is None else max(hi, e)
print("%.3f" % ((hi - lo) / 1e12) if lo is not None else "?")
PY
)
echo "captured span: ${span} s"

replay() { # label, the replay's options
  label=$1
  opts=$2
  my -e "DROP DATABASE IF EXISTS tpcc"
  my <"$work/start.sql"
  cat >"$work/$label.yaml" <<YAML
version: 1
name: replay-$label
targets:
  db: {dsn: "root:$pw@tcp(127.0.0.1:$port)/"}
iteration:
  workload:
    replay: {file: "$work/tpcc.qcap", $opts}
report: {formats: [csv], dir: "$work/results-$label"}
YAML
  t0=$(date +%s.%N)
  c0=$(cpustat)
  "$work/quadrant" run "$work/$label.yaml" >"$work/$label.log" 2>&1 || { echo "($label: quadrant run failed)"; tail -20 "$work/$label.log"; }
  hostbusy=$(busy "$c0" "$(cpustat)")
  t1=$(date +%s.%N)
  csv=$(find "$work/results-$label" -name replay.csv | head -1)
  python3 - "$label" "$opts" "$csv" "$span" "$t0" "$t1" "$work/$label.log" "$hostbusy" <<'PY'
import csv, sys
label, opts, path, span, t0, t1, log, hostbusy = sys.argv[1:]
wall = float(t1) - float(t0)
try:
    row = next(csv.DictReader(open(path)))
except Exception as e:
    print("%s (%s): no replay.csv (%s)" % (label, opts, e)); sys.exit(0)
# The replay's own time: summary.csv's duration_s (the measured part, without the checksums).
secs = float(next(csv.DictReader(open(path.replace("replay.csv", "summary.csv"))))["duration_s"])
n, u = int(row["statements_captured"]), int(row["errors_unlike_capture"])
print("%s (%s): %s of %d statements, errors %s (captured %s), unlike the capture %d (%.3f%%), end state %s %s,"
      " order waits %s (%s ms), timeouts %s, lag p99 %s ms; replay %.2f s (quadrant run %.1f s wall, host CPU busy %s), captured span %s s: %.2fx" % (
      label, opts, row["statements_replayed"], n, row["errors"], row["errors_captured"], u, 100.0 * u / max(n, 1),
      row["end_state"], row["end_state_differs"], row["order_waits"], row["order_wait_ms"], row["order_timeouts"],
      row["lag_p99_ms"], secs, wall, hostbusy, span, secs / float(span) if span != "?" else 0))
PY
}
echo "== replays (each after restoring the start)"
want() { [ -z "${ONLY:-}" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac; }
! want a || replay a "timing: none"
! want b || replay b "timing: none, order: commit"
! want c || replay c "timing: original, speed: 2, order: commit"
! want d || replay d "timing: original, order: commit"
echo "uptime: $(uptime)"
