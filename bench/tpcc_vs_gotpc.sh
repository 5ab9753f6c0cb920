#!/bin/sh
# A/B: quadrant's builtin tpcc vs go-tpc's tpcc on one sandbox: same server, same number of
# warehouses (each client loads its own database), same threads and length, alternating runs.
# Prints every run and the medians of tpmC and of client CPU (user+sys) per NewOrder, and the
# ratios quadrant/go-tpc (goals: tpmC >= 1.0, CPU per NewOrder <= 0.6).
# It also prints what each run cost the server per NewOrder, from SHOW GLOBAL STATUS before and
# after the run: the storage work (Handler_write, _update, _delete: rows inserted, changed and
# deleted), the statements (Questions, Com_*) and the bytes (Bytes_received from the client,
# Bytes_sent to it), so anyone can check on their server that both do the same work per NewOrder
# and how they differ on the wire (docs/tpcc.md, "Compared with go-tpc and HammerDB").
# go-tpc is built from the Go module proxy into a temporary GOBIN, never added to go.mod; when
# it cannot be built (no network), the quadrant side runs alone and says so.
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
name="tpccbench$$"
up=
cleanup() {
  if [ -n "$up" ]; then
    "$work/quadrant" sandbox down "$name" >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPU(s)"
go build -o "$work/quadrant" ./cmd/quadrant
gotpc=yes
if ! GOBIN="$work" GOFLAGS=-mod=mod go install "github.com/pingcap/go-tpc/cmd/go-tpc@$GOTPC_VERSION"; then
  gotpc=
  echo "go-tpc could not be built: the quadrant side runs alone (its tpmC and its cost per NewOrder)"
fi

# --detach returns once the server answers, with its export lines; `sandbox down` stops it.
"$work/quadrant" sandbox up --detach --name "$name" --dir "$work/sb" --print-env \
  --config innodb_buffer_pool_size=1G --config innodb_flush_log_at_trx_commit=2 \
  --config max_connections=1000 >"$work/sandbox.out" || { echo "sandbox did not start"; exit 1; }
up=yes
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
if [ -n "$gotpc" ]; then
  echo "== prepare (go-tpc, database gotpc)"
  /usr/bin/time -f "%e s wall" "$work/go-tpc" tpcc -H 127.0.0.1 -P "$port" -U root -p "$pw" -D gotpc --warehouses "$WAREHOUSES" -T "$WAREHOUSES" prepare --no-check >"$work/gprep.log" 2>&1 || { tail -20 "$work/gprep.log"; exit 1; }
  tail -1 "$work/gprep.log"
fi

# cpu: user+sys seconds of the command, from GNU time's last line.
cpu_of() { tail -1 "$1" | awk '{print $1 + $2}'; }

# The server's counters of a run's cost, as NAME VALUE lines.
status() {
  mariadb --defaults-extra-file="$QUADRANT_SANDBOX_CNF" -N -B -e "SHOW GLOBAL STATUS WHERE Variable_name IN
    ('Handler_write', 'Handler_update', 'Handler_delete', 'Questions', 'Com_select', 'Com_insert',
     'Com_update', 'Com_delete', 'Com_commit', 'Com_rollback', 'Com_begin', 'Com_stmt_execute',
     'Bytes_received', 'Bytes_sent')" >"$1"
}
# per_neworder BEFORE AFTER NEWORDERS: each counter's increase per NewOrder, as NAME=VALUE words.
per_neworder() {
  awk -v n="$3" 'NR == FNR { before[$1] = $2; next } { printf "%s=%.2f ", $1, ($2 - before[$1]) / n } END { print "" }' "$1" "$2"
}

: >"$work/q.txt"
: >"$work/g.txt"
: >"$work/qcost.txt"
: >"$work/gcost.txt"
p=1
while [ $p -le "$PAIRS" ]; do
  rm -rf "$work/results"
  status "$work/before"
  /usr/bin/time -f "%U %S" "$work/quadrant" run "$work/run.yaml" >"$work/qrun.log" 2>"$work/qtime.log" || { cat "$work/qrun.log" "$work/qtime.log"; exit 1; }
  status "$work/after"
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
  qper=$(per_neworder "$work/before" "$work/after" "$2")
  echo "$qper" >>"$work/qcost.txt"
  echo "  per NewOrder: $qper"

  if [ -n "$gotpc" ]; then
    status "$work/before"
    /usr/bin/time -f "%U %S" "$work/go-tpc" tpcc -H 127.0.0.1 -P "$port" -U root -p "$pw" -D gotpc --warehouses "$WAREHOUSES" \
      -T "$THREADS" --time "$TIME" run >"$work/grun.log" 2>"$work/gtime.log" || { tail -20 "$work/grun.log" "$work/gtime.log"; exit 1; }
    status "$work/after"
    gtpmc=$(sed -n 's/^tpmC: \([0-9.]*\).*/\1/p' "$work/grun.log" | tail -1)
    gno=$(grep '\[Summary\] NEW_ORDER ' "$work/grun.log" | grep -v ERR | sed -n 's/.*Count: \([0-9]*\).*/\1/p' | tail -1)
    gcpu=$(cpu_of "$work/gtime.log")
    echo "$gtpmc $gno $gcpu" >>"$work/g.txt"
    echo "pair $p go-tpc:   tpmC $gtpmc, NewOrders $gno, client CPU ${gcpu}s"
    gper=$(per_neworder "$work/before" "$work/after" "$gno")
    echo "$gper" >>"$work/gcost.txt"
    echo "  per NewOrder: $gper"
  fi
  p=$((p + 1))
done

# The median of each counter per NewOrder, and quadrant's over go-tpc's.
python3 - "$work/qcost.txt" "$work/gcost.txt" <<'EOF'
import statistics, sys
def load(f):
    runs = [dict((k, float(v)) for k, v in (w.split("=") for w in l.split())) for l in open(f) if l.strip()]
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]} if runs else {}
q, g = load(sys.argv[1]), load(sys.argv[2])
print("median per NewOrder         quadrant      go-tpc   ratio")
for k in q:
    if g.get(k, 0) > 0:
        print(f"  {k:22s} {q[k]:10.2f}  {g[k]:10.2f}  {q[k] / g[k]:6.2f}")
    else:
        print(f"  {k:22s} {q[k]:10.2f}  {g.get(k, float('nan')):10.2f}")
EOF
if [ -z "$gotpc" ]; then
  echo "go-tpc was not built: nothing to compare with; the figures above are quadrant's alone"
  exit 0
fi

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
