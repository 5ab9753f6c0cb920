#!/bin/bash
# quadrant over TLS vs plaintext, and quadrant over TLS vs sysbench --mysql-ssl=on (sysbench
# 1.0.20's REQUIRED), on oltp_point_select and oltp_read_write: one sandbox that accepts
# both, certificates made here with openssl (sysbench 1.0 reads cacert.pem, client-cert.pem
# and client-key.pem from its working directory, and the server checks the client's
# certificate against its CA, so all three come from one CA). Alternated pairs in ABBA
# order; prints every run, then the medians of tps and client CPU (user+sys, the whole
# process) per transaction, and the load average.
# Env: PAIRS (2), TIME seconds (10), THREADS (4), ROWS (100000).
set -eu
PAIRS=${PAIRS:-2} TIME=${TIME:-10} THREADS=${THREADS:-4} ROWS=${ROWS:-100000}
cd "$(dirname "$0")/.."
W=$(mktemp -d "${TMPDIR:-/tmp}/quadrant-tlsbench-XXXXXX")
chmod 755 "$W"
Q=$W/quadrant
go build -o "$Q" ./cmd/quadrant
cd "$W"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca-key.pem -out cacert.pem -days 2 -subj /CN=bench-ca 2>/dev/null
for who in server client; do
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $who-key.pem -out $who.csr -subj /CN=$who 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > ext
	openssl x509 -req -in $who.csr -CA cacert.pem -CAkey ca-key.pem -CAcreateserial -days 2 -extfile ext -out $who-cert.pem 2>/dev/null
done
chmod 644 ./*.pem # a throwaway bench: the server's OS user reads them
"$Q" sandbox up --name tlsbench --print-env --config innodb_buffer_pool_size=512M \
	--config ssl_ca="$W/cacert.pem" --config ssl_cert="$W/server-cert.pem" --config ssl_key="$W/server-key.pem" > env 2> sandbox.log &
SB=$!
trap 'kill $SB 2>/dev/null; wait $SB 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 120); do grep -q QUADRANT_SANDBOX_CNF env 2>/dev/null && break; sleep 1; done
. ./env
mariadb --defaults-extra-file="$QUADRANT_SANDBOX_CNF" -e "CREATE DATABASE sbtest"
SBARGS="--mysql-host=127.0.0.1 --mysql-port=$QUADRANT_SANDBOX_PORT --mysql-user=root --mysql-password=$QUADRANT_SANDBOX_PASSWORD --mysql-db=sbtest --tables=1 --table-size=$ROWS"
sysbench oltp_read_write $SBARGS prepare > /dev/null

cpu() { awk '{print $1 + $2}' "$1"; }
# quadrant SCRIPT tls|plain -> "tps cpu_per_tx_us"
quadrant() {
	local tls=""
	[ "$2" = tls ] && tls="tls: {mode: verify-identity, ca: $W/cacert.pem}"
	cat > plan.yaml <<PLAN
version: 1
name: tlsbench
targets:
  db:
    dsn: "root:$QUADRANT_SANDBOX_PASSWORD@tcp(127.0.0.1:$QUADRANT_SANDBOX_PORT)/sbtest"
    $tls
iteration:
  workload: {builtin: $1, options: {tables: 1, table_size: $ROWS}, threads: $THREADS, duration: ${TIME}s}
report: {dir: $W/results, formats: [csv]}
PLAN
	rm -rf results
	/usr/bin/time -f "%U %S" -o time.txt "$Q" run plan.yaml > /dev/null 2>&1
	local sum; sum=$(ls results/tlsbench/*/summary.csv)
	local tps; tps=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="tps") c=i} NR==2{print $c}' "$sum")
	local tx; tx=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="transactions") c=i} NR==2{print $c}' "$sum")
	echo "$tps $(awk -v c="$(cpu time.txt)" -v t="$tx" 'BEGIN{printf "%.1f", c*1e6/t}')"
}
sysbench_tls() {
	/usr/bin/time -f "%U %S" -o time.txt sysbench "$1" $SBARGS --mysql-ssl=on --threads=$THREADS --time=$TIME run > sb.txt 2>&1
	local tx tps
	tx=$(awk '/transactions:/{print $2}' sb.txt)
	tps=$(awk '/transactions:/{gsub(/\(/,"",$3); print $3}' sb.txt)
	echo "$tps $(awk -v c="$(cpu time.txt)" -v t="$tx" 'BEGIN{printf "%.1f", c*1e6/t}')"
}
median() { sort -n | awk '{a[NR]=$1} END{if(NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }

printf "%-18s %-22s %10s %14s\n" workload client tps cpu_us/tx
for script in oltp_point_select oltp_read_write; do
	for cmp in plain sysbench; do
		: > a.txt; : > b.txt
		for p in $(seq "$PAIRS"); do
			order="A B"; [ $((p % 2)) = 0 ] && order="B A"
			for side in $order; do
				if [ $side = A ]; then r=$(quadrant $script tls); echo "$r" >> a.txt; name="quadrant tls"
				elif [ $cmp = plain ]; then r=$(quadrant $script plain); echo "$r" >> b.txt; name="quadrant plaintext"
				else r=$(sysbench_tls $script); echo "$r" >> b.txt; name="sysbench --mysql-ssl"; fi
				printf "%-18s %-22s %10s %14s\n" $script "$name" $r
			done
		done
		B="quadrant plaintext"; [ $cmp = sysbench ] && B="sysbench --mysql-ssl"
		printf "%-18s %-22s %10s %14s   (median)\n" $script "quadrant tls" "$(cut -d' ' -f1 a.txt | median)" "$(cut -d' ' -f2 a.txt | median)"
		printf "%-18s %-22s %10s %14s   (median)\n" $script "$B" "$(cut -d' ' -f1 b.txt | median)" "$(cut -d' ' -f2 b.txt | median)"
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
