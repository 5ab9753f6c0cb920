#!/usr/bin/env bash
# Static analysis for `make test`: staticcheck (its default checks) and deadcode -test, both
# clean. A finding fails unless scripts/lint-exceptions lists it with its reason; an exception
# that matches nothing fails too, so the list stays true. staticcheck's own exceptions are
# //lint:ignore CHECK reason at the site; the list is for findings that cannot carry one
# (deadcode has no directive).
#   scripts/lint.sh    run from the repository root; the tools come from PATH or $(go env GOPATH)/bin
set -euo pipefail

gobin="$(go env GOPATH | cut -d: -f1)/bin"
PATH="$PATH:$gobin"
for tool in staticcheck deadcode; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "lint: $tool is not installed: run scripts/setup.sh --test (it installs the pinned version into $gobin)" >&2
    exit 1
  fi
done

exceptions=scripts/lint-exceptions
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# staticcheck exits 1 on findings: the list below decides, so both tools' lines are collected
# first; an error of the tool itself (no findings printed) still fails.
if ! staticcheck ./... >"$out" 2>&1 && ! grep -qE '^[^ :]+\.go:[0-9]+:[0-9]+: ' "$out"; then
  cat "$out" >&2
  echo "lint: staticcheck failed" >&2
  exit 1
fi
deadcode -test ./... >>"$out"

# A finding without its line and column ("file.go: message"), so that an exception survives
# edits above it.
status=0
declare -A used=()
keys=$(grep -vE '^(#|$)' "$exceptions" | sed -E 's/ *\|.*$//' || true) # no exception at all is fine
while IFS= read -r line; do
  [[ -z $line ]] && continue
  key=$(sed -E 's/^([^:]+):[0-9]+:[0-9]+: /\1: /' <<<"$line")
  if grep -qxF "$key" <<<"$keys"; then
    used[$key]=1
    continue
  fi
  echo "$line"
  status=1
done <"$out"
if ((status)); then
  echo "lint: the findings above are new: fix them, or for one that must stay add //lint:ignore CHECK reason (staticcheck) or a line to $exceptions (finding | reason)" >&2
fi
while IFS= read -r entry; do
  key=$(sed -E 's/ *\|.*$//' <<<"$entry")
  reason=$(sed -E 's/^[^|]*\| *//' <<<"$entry")
  if [[ $entry != *"|"* || -z $reason ]]; then
    echo "lint: $exceptions: \"$entry\" has no reason (finding | reason)" >&2
    status=1
  elif [[ -z ${used[$key]:-} ]]; then
    echo "lint: $exceptions: \"$key\" matches no finding any more: remove it" >&2
    status=1
  fi
done < <(grep -vE '^(#|$)' "$exceptions")
exit "$status"
