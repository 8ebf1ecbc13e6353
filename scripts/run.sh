#!/bin/sh
# run.sh - quick start: install what is missing, build, and run vmmprof's
# main job on this machine.  Extra arguments go to that command.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
make -s -j"$(nproc)" build/vmmprof >/dev/null
if [ $# -eq 0 ]; then
	set -- info
fi
exec build/vmmprof "$@"
