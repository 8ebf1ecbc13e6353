#!/bin/sh
# run.sh - quick start: install what is missing, build, and run vmmprof's
# main job on this machine.  Extra arguments go to that command.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
make -s -j"$(nproc)" build/vmmprof >/dev/null
if [ $# -gt 0 ]; then
	exec build/vmmprof "$@"
fi
# The main job: what this machine can measure, then the diagnosis of every
# VM on it (5 s of collection).
build/vmmprof info
echo
exec build/vmmprof diagnose
