#!/bin/sh
# The promote command of examples/failover-own-servers.yaml (docs/failover.md, "Own servers"):
# fails a MariaDB primary, promotes its replica and moves the address in front of them, an
# HAProxy frontend, to it, through HAProxy's runtime API. quadrant runs it with sh -c when the
# drill's lead is over and counts the fault from the moment it starts it: the fault comes first.
# It returns only once a connection through the address reaches the promoted replica: quadrant's
# writers connect again when it returns, and their first commit there ends the unavailability.
#
# Settings, from the environment (the plan's promote: line sets them; none may hold a quote):
#   FAULT           the command that fails the primary, e.g. kill -9 of its mariadbd,
#                   `ssh db1 sudo systemctl kill --signal=KILL mariadb`
#   REPLICA         mariadb client options reaching the replica as a user with SUPER
#                   (e.g. --defaults-extra-file=/etc/quadrant/replica.cnf); split on spaces
#   FRONT           mariadb client options reaching the address in front, the HAProxy frontend
#   HAPROXY_SOCKET  HAProxy's runtime API socket, `stats socket PATH level admin` in haproxy.cfg
#   BACKEND         the HAProxy backend (default mariadb)
#   OLD, NEW        its servers: the primary's (default primary) and the replica's (default
#                   replica, `disabled` in haproxy.cfg until it is promoted)
#   WAIT            seconds the replica may take to apply its relay log, and again the address
#                   to lead to it (default 60; the step's recover_timeout, 120s in the example,
#                   bounds the whole command)
# Needs the mariadb client and socat. Everything it does is in its output, which quadrant
# writes to log.txt. It starts no background process (one that it started would have to be
# detached: setsid, its output to a file, </dev/null).
set -eu

: "${FAULT:?the command that fails the primary}" "${REPLICA:?mariadb client options for the replica}"
: "${FRONT:?mariadb client options for the address in front}" "${HAPROXY_SOCKET:?HAProxy runtime API socket}"
BACKEND=${BACKEND:-mariadb} OLD=${OLD:-primary} NEW=${NEW:-replica} WAIT=${WAIT:-60}

replica() { mariadb $REPLICA --batch --skip-column-names -e "$1"; }

# haproxy sends one runtime API command; HAProxy answers these commands with nothing but a
# blank line when they succeed.
haproxy() {
  reply=$(printf '%s\n' "$1" | socat -t 5 - "UNIX-CONNECT:$HAPROXY_SOCKET")
  if [ -n "$(printf '%s' "$reply" | tr -d '[:space:]')" ]; then
    echo "promote: HAProxy refused \"$1\": $reply" >&2
    exit 1
  fi
}

# 1. The fault.
echo "promote: fault: $FAULT"
sh -c "$FAULT"

# 2. The replica applies all it received of the dead primary's binary log (its relay log):
# what it never received is lost, what it received and has not applied yet is not.
replica "STOP SLAVE IO_THREAD"
status=$(mariadb $REPLICA -e "SHOW SLAVE STATUS\G")
file=$(printf '%s\n' "$status" | sed -n 's/^ *Master_Log_File: //p')
pos=$(printf '%s\n' "$status" | sed -n 's/^ *Read_Master_Log_Pos: //p')
if [ -z "$file" ] || [ -z "$pos" ]; then
  echo "promote: the replica replicates from nobody (SHOW SLAVE STATUS is empty)" >&2
  exit 1
fi
waited=$(replica "SELECT MASTER_POS_WAIT('$file', $pos, $WAIT)")
case $waited in
  ''|NULL|-1) echo "promote: the replica did not apply its relay log up to $file:$pos within ${WAIT}s (MASTER_POS_WAIT: $waited; its SQL thread stopped?)" >&2; exit 1 ;;
esac
echo "promote: the replica applied all it received, up to $file:$pos"
replica "STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF"
new_id=$(replica "SELECT @@server_id")
echo "promote: the replica (server_id $new_id) is a primary, writable"

# 3. The address: no new connection to the old primary (and none of its still open), the
# promoted replica in its place.
haproxy "set server $BACKEND/$OLD state maint"
haproxy "shutdown sessions server $BACKEND/$OLD"
haproxy "set server $BACKEND/$NEW state ready"

# 4. Return only once the address leads to the new primary.
i=0
while [ "$(mariadb $FRONT --batch --skip-column-names -e 'SELECT @@server_id' 2>/dev/null || true)" != "$new_id" ]; do
  i=$((i + 1))
  if [ "$i" -gt $((WAIT * 10)) ]; then
    echo "promote: the address in front ($FRONT) does not lead to server_id $new_id after ${WAIT}s" >&2
    exit 1
  fi
  sleep 0.1
done
echo "promote: the address in front leads to the new primary (server_id $new_id)"
