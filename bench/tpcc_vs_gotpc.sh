#!/bin/sh
# A/B: quadrant's builtin tpcc vs go-tpc's tpcc on one sandbox: same server, same number of
# warehouses (each client loads its own database), same threads and length, alternating runs.
# Prints every run and the medians of tpmC and of client CPU (user+sys) per NewOrder, and the
# ratios quadrant/go-tpc (goals: tpmC >= 1.0, CPU per NewOrder <= 0.6).
# go-tpc is built from the Go module proxy into a temporary GOBIN, never added to go.mod.
# Options (environment): WAREHOUSES=2 THREADS=4 TIME=30s PAIRS=3 GOTPC_VERSION=latest
set -eu
cd "$(dirname "$0")/.."
WAREHOUSES=${WAREHOUSES:-2}
THREADS=${THREADS:-4}
TIME=${TIME:-30s}
PAIRS=${PAIRS:-3}
GOTPC_VERSION=${GOTPC_VERSION:-latest}

work=$(mktemp -d "${TMPDIR:-/tmp}/tpccbench.XXXXXX")
chmod 711 "$work" # run as root, the sandbox's server is an unprivileged user that must pass through
sandbox_pid=
cleanup() {
  if [ -n "$sandbox_pid" ]; then
    kill "$sandbox_pid" 2>/dev/null || true
    wait "$sandbox_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPU(s)"
go build -o "$work/quadrant" ./cmd/quadrant
GOBIN="$work" GOFLAGS=-mod=mod go install "github.com/pingcap/go-tpc/cmd/go-tpc@$GOTPC_VERSION"

name="tpccbench$$"
"$work/quadrant" sandbox up --name "$name" --dir "$work/sb" --print-env \
  --config innodb_buffer_pool_size=1G --config innodb_flush_log_at_trx_commit=2 \
  --config max_connections=1000 >"$work/sandbox.out" 2>"$work/sandbox.err" &
sandbox_pid=$!
i=0
while ! grep -q '^export QUADRANT_SANDBOX_PASSWORD=' "$work/sandbox.out"; do
  i=$((i + 1))
  if [ $i -gt 300 ] || ! kill -0 "$sandbox_pid" 2>/dev/null; then
    echo "sandbox did not start:"; cat "$work/sandbox.err"; exit 1
  fi
  sleep 1
done
# The sandbox's random password and port, from its export lines.
. "$work/sandbox.out"
port=$QUADRANT_SANDBOX_PORT
pw=$QUADRANT_SANDBOX_PASSWORD
echo "sandbox on 127.0.0.1:$port; $WAREHOUSES warehouses, $THREADS threads, $TIME per run, $PAIRS pairs"

cat >"$work/run.yaml" <<EOF
version: 1
name: tpccbench
targets:
  db: {dsn: "root:$pw@tcp(127.0.0.1:$port)/"}
iteration:
  workload: {builtin: tpcc, options: {warehouses: $WAREHOUSES}, threads: $THREADS, duration: $TIME}
report: {formats: [csv], dir: "$work/results"}
EOF
cat >"$work/prepare.yaml" <<EOF
version: 1
name: tpccprep
targets:
  db: {dsn: "root:$pw@tcp(127.0.0.1:$port)/"}
setup:
  - workload: {builtin: tpcc, action: prepare, threads: $WAREHOUSES, options: {warehouses: $WAREHOUSES}}
iteration:
  workload: {builtin: tpcc, options: {warehouses: $WAREHOUSES}, threads: 1, duration: 1s}
report: {formats: [csv], dir: "$work/results-prep"}
EOF

echo "== prepare (quadrant, database tpcc)"
/usr/bin/time -f "%e s wall" "$work/quadrant" run "$work/prepare.yaml" >"$work/qprep.log" 2>&1 || { cat "$work/qprep.log"; exit 1; }
tail -1 "$work/qprep.log"
echo "== prepare (go-tpc, database gotpc)"
/usr/bin/time -f "%e s wall" "$work/go-tpc" tpcc -H 127.0.0.1 -P "$port" -U root -p "$pw" -D gotpc --warehouses "$WAREHOUSES" -T "$WAREHOUSES" prepare --no-check >"$work/gprep.log" 2>&1 || { tail -20 "$work/gprep.log"; exit 1; }
tail -1 "$work/gprep.log"

# cpu: user+sys seconds of the command, from GNU time's last line.
cpu_of() { tail -1 "$1" | awk '{print $1 + $2}'; }

: >"$work/q.txt"
: >"$work/g.txt"
p=1
while [ $p -le "$PAIRS" ]; do
  rm -rf "$work/results"
  /usr/bin/time -f "%U %S" "$work/quadrant" run "$work/run.yaml" >"$work/qrun.log" 2>"$work/qtime.log" || { cat "$work/qrun.log" "$work/qtime.log"; exit 1; }
  sum=$(find "$work/results" -name summary.csv | head -1)
  qt=$(python3 - "$sum" <<'EOF'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
print(r["tpmC"], r["tx.new_order.count"])
EOF
)
  qcpu=$(cpu_of "$work/qtime.log")
  set -- $qt
  echo "$1 $2 $qcpu" >>"$work/q.txt"
  echo "pair $p quadrant: tpmC $1, NewOrders $2, client CPU ${qcpu}s"

  /usr/bin/time -f "%U %S" "$work/go-tpc" tpcc -H 127.0.0.1 -P "$port" -U root -p "$pw" -D gotpc --warehouses "$WAREHOUSES" \
    -T "$THREADS" --time "$TIME" run >"$work/grun.log" 2>"$work/gtime.log" || { tail -20 "$work/grun.log" "$work/gtime.log"; exit 1; }
  gtpmc=$(sed -n 's/^tpmC: \([0-9.]*\).*/\1/p' "$work/grun.log" | tail -1)
  gno=$(grep '\[Summary\] NEW_ORDER ' "$work/grun.log" | grep -v ERR | sed -n 's/.*Count: \([0-9]*\).*/\1/p' | tail -1)
  gcpu=$(cpu_of "$work/gtime.log")
  echo "$gtpmc $gno $gcpu" >>"$work/g.txt"
  echo "pair $p go-tpc:   tpmC $gtpmc, NewOrders $gno, client CPU ${gcpu}s"
  p=$((p + 1))
done

python3 - "$work/q.txt" "$work/g.txt" <<'EOF'
import statistics, sys
def load(f):
    rows = [list(map(float, l.split())) for l in open(f) if l.strip()]
    return statistics.median(r[0] for r in rows), statistics.median(r[2] / r[1] * 1000 for r in rows if r[1] > 0)
qt, qc = load(sys.argv[1])
gt, gc = load(sys.argv[2])
print(f"median tpmC: quadrant {qt:.0f}, go-tpc {gt:.0f}, ratio {qt / gt:.2f} (goal >= 1.0)")
print(f"median client CPU per NewOrder: quadrant {qc:.3f} ms, go-tpc {gc:.3f} ms, ratio {qc / gc:.2f} (goal <= 0.6)")
EOF
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
