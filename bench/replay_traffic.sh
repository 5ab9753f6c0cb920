#!/bin/sh
# Replay of captured traffic. Reading: a generated 1 GB slow log streamed through the parser and
# fingerprinting, MB/s and peak RSS (flat whatever the size). Keeping up: a generated slow log of
# point selects at 10k statements/s over 16 sessions for 10 s, replayed at its captured timing at
# speed 1 and 2 (alternated, 3 each): replay time against the schedule, achieved rate, schedule lag.
# Timing's cost: 5 sessions at 2000 statements/s, timing: none and original alternated, client CPU
# per statement of each.
set -eu
cd "$(dirname "$0")/.."
go run ./bench/replaybench -mode stream -size 1073741824
go run ./bench/replaybench -mode timing -rate 2000 -sessions 5 -span 15s -arrivals poisson
exec go run ./bench/replaybench -mode rate -rate 10000 -sessions 16 -span 10s "$@"
