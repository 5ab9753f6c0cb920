#!/bin/sh
# restore: setup on a sandbox of about 1 GiB: the snapshot after setup and the restores
# before iterations (copy alone, and with the stop and the start), reflink or copy.
# Usage: bench/restore.sh [-n 3] [-gb 1] [-dir /mnt/xfs]
set -e
cd "$(dirname "$0")/.."
go run ./bench/restore "$@"
