#!/usr/bin/env bash
# Installs what Quadrant needs on Debian/Ubuntu, and only what is missing, so it is
# safe to run on every `make demo` / `make test`.
#   scripts/setup.sh          MariaDB server and client, sysbench, net-snmp (snmpd, snmp), galera-4 and rsync
#                             (Galera sandboxes: the provider library and the rsync their nodes join by; Debian's
#                             mariadb-server depends on both, named here for the systems where it does not)
#   scripts/setup.sh --test   the same plus Chromium (headless checks of the HTML report), tmux (a real terminal for the live progress lines),
#                             HAProxy and socat (the proxy and its runtime API client of the failover drill on one's own servers,
#                             examples/failover-own-servers.yaml), staticcheck, deadcode and gotestsum (Go tools, into $(go env GOPATH)/bin)
set -euo pipefail

packages=(mariadb-server mariadb-client sysbench snmpd snmp galera-4 rsync)
if [[ "${1:-}" == "--test" ]]; then
  packages+=(chromium tmux haproxy socat)
fi

if ! command -v go >/dev/null 2>&1; then
  echo "setup: Go is not installed. Install Go 1.26 or newer (https://go.dev/doc/install) and rerun." >&2
  exit 1
fi

# The static analysers `make test` runs (scripts/lint.sh) and gotestsum, which runs the suite and
# says which tests took longest (scripts/gotest.sh), at pinned versions, into $(go env GOPATH)/bin,
# from the Go module proxy; not in go.mod: the module does not import them.
if [[ "${1:-}" == "--test" ]]; then
  gobin="$(go env GOPATH | cut -d: -f1)/bin"
  for tool in honnef.co/go/tools/cmd/staticcheck@v0.8.2 golang.org/x/tools/cmd/deadcode@v0.52.0 gotest.tools/gotestsum@v1.13.0; do
    name=${tool%@*}
    name=${name##*/}
    if [[ ! -x $gobin/$name ]]; then
      echo "setup: installing $tool"
      GOBIN=$gobin go install "$tool"
    fi
  done
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: missing ${missing[*]} and this is not a Debian-like system (no apt-get); install them with your package manager." >&2
  exit 1
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: missing ${missing[*]}; run as root or install sudo." >&2
    exit 1
  fi
  sudo=(sudo)
fi

echo "setup: installing ${missing[*]}"
# The Debian mariadb-server and haproxy packages start system services; Quadrant never uses
# them (sandboxes run their own mariadbd on private ports, the tests their own haproxy), so
# keep the packages from starting them.
policy=/usr/sbin/policy-rc.d
added_policy=0
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod +x "$policy"
  added_policy=1
fi
remove_policy() { if [[ $added_policy == 1 ]]; then "${sudo[@]}" rm -f "$policy"; fi; }
trap remove_policy EXIT

"${sudo[@]}" apt-get update -qq
# env, not a prefix: sudo would drop a variable set before it
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
