#!/bin/sh
# Reports at scale (issue 10): `quadrant report` of a generated results folder of 1 h at 1 s, 200 watched
# columns, 12 iterations and 2 targets (bench/resultsgen), and `quadrant compare` of two such folders.
# Prints per run: wall time, CPU time (user+sys: what a quiet machine would take, spread over its cores)
# and peak RSS of quadrant (/usr/bin/time), the page's size, and its first render in headless Chromium
# (data-render-ms: navigation start to every chart drawn, stamped by the page itself); then medians.
# Goals: build < 5 s, RSS < 500 MB, report.html < 15 MB, first render < 2 s.
#
# Usage: bench/report_scale.sh [-runs 3] [-dir DIR] [resultsgen flags, e.g. -duration 10m -columns 50]
# The folders are generated once into DIR (default a temporary directory, removed at the end); with -dir
# they are kept and reused by the next call with the same DIR.
set -eu
cd "$(dirname "$0")/.."
runs=3
dir=
while [ $# -gt 0 ]; do
  case "$1" in
    -runs) runs=$2; shift 2 ;;
    -dir) dir=$2; shift 2 ;;
    *) break ;;
  esac
done
keep=1
if [ -z "$dir" ]; then
  dir=$(mktemp -d /tmp/report_scale.XXXXXX)
  keep=0
fi
mkdir -p "$dir"
cleanup() { [ "$keep" = 1 ] || rm -rf "$dir"; }
trap cleanup EXIT INT TERM
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "report_scale: chromium is needed (apt-get install chromium)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "report_scale: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }

go build -o "$dir/quadrant" ./cmd/quadrant
go build -o "$dir/resultsgen" ./bench/resultsgen
# gen NAME FLAGS...: a folder is only reused once complete.
gen() {
  [ -d "$dir/$1" ] && return
  rm -rf "$dir/$1.tmp"
  name=$1
  shift
  "$dir/resultsgen" -out "$dir/$name.tmp" "$@" && mv "$dir/$name.tmp" "$dir/$name"
}
gen a -seed 1 "$@"
gen b -seed 2 -scale 1.1 "$@"
echo "folders: $(du -shL "$dir/a" | cut -f1) each ($(ls "$dir/a/timeseries" | wc -l) time series of $(wc -l <"$dir/a/timeseries/primary.csv") lines, $(head -1 "$dir/a/timeseries/primary.csv" | tr ',' '\n' | wc -l) columns)"
echo "load before: $(uptime)"

calc() { awk "BEGIN { printf \"%.3f\", $1 }"; }

# render PAGE: prints "render_ms charts errors chromium_wall_s" of one headless Chromium run with a fresh profile.
render() {
  profile=$(mktemp -d /tmp/report_scale_chromium.XXXXXX)
  start=$(date +%s.%N)
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" --window-size=1200,900 \
    --dump-dom "file://$1" 2>/dev/null >"$profile.dom" || true
  end=$(date +%s.%N)
  attr() { grep -o "<body[^>]*" "$profile.dom" | grep -o " $1=\"[^\"]*\"" | cut -d'"' -f2; }
  echo "$(attr data-render-ms) $(attr data-charts) $(attr data-errors) $(calc "$end - $start")"
  rm -rf "$profile" "$profile.dom"
}

# measure NAME PAGE CMD...: runs CMD under /usr/bin/time, then renders PAGE; one line of figures.
measure() {
  name=$1 page=$2
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" >/dev/null
  read -r wall user sys rss <"$dir/time"
  size=$(stat -c %s "$page")
  set -- $(render "$page")
  printf "%-8s wall %6.2f s  cpu %6.2f s  rss %5d MB  html %6.2f MB  render %5s ms  (charts %s, script errors %s, chromium %.1f s)\n" \
    "$name" "$wall" "$(calc "$user + $sys")" $((rss / 1024)) "$(calc "$size / 1048576")" "$1" "$2" "$3" "$4"
  echo "$name $wall $(calc "$user + $sys") $((rss / 1024)) $size $1" >>"$dir/figures"
}

rm -f "$dir/figures"
i=1
while [ "$i" -le "$runs" ]; do
  measure report "$dir/a/report.html" "$dir/quadrant" report "$dir/a"
  measure compare "$dir/compare.html" "$dir/quadrant" compare "$dir/a" "$dir/b" --out "$dir/compare.html"
  i=$((i + 1))
done
echo "load after:  $(uptime)"
echo "medians of $runs runs:"
for name in report compare; do
  grep "^$name " "$dir/figures" | awk -v name="$name" '
    { w[NR]=$2; c[NR]=$3; r[NR]=$4; s[NR]=$5; m[NR]=$6 }
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { n = NR; printf "%-8s wall %.2f s (goal < 5)  cpu %.2f s  rss %d MB (goal < 500)  html %.2f MB (goal < 15)  render %d ms (goal < 2000)\n",
      name, med(w, n), med(c, n), med(r, n), med(s, n) / 1048576, med(m, n) }'
done
