#!/bin/sh
# run.sh - runs every tests/cli/t*.sh and prints the total as
# "cli: N passed, N failed, N skipped".  Exit status 1 when any failed.
dir=$(cd "$(dirname "$0")" && pwd)
VP_RESULTS=$(mktemp)
export VP_RESULTS
status=0
for t in "$dir"/t[0-9]*.sh; do
	[ -e "$t" ] || continue
	sh "$t" || status=1
done
awk '{p+=$1; f+=$2; s+=$3} END {printf "cli: %d passed, %d failed, %d skipped\n", p, f, s}' "$VP_RESULTS"
rm -f "$VP_RESULTS"
exit $status
