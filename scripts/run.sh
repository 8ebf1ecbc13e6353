#!/bin/sh
# run.sh - quick start: install what is missing, build, and run vmmprof's
# main job on this machine.  Extra arguments go to that command.
#
#   scripts/run.sh                 the main job (info, then diagnose)
#   scripts/run.sh ARGS...         vmmprof ARGS...
#   scripts/run.sh --demo-vm [S]   boot the testbed's small QEMU guest and
#                                  profile it live (scripts/demo-vm.sh)
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = --demo-vm ]; then
	shift
	scripts/install-deps.sh --demo
	make -s -j"$(nproc)" build/vmmprof >/dev/null
	exec scripts/demo-vm.sh "$@"
fi
scripts/install-deps.sh
make -s -j"$(nproc)" build/vmmprof >/dev/null
if [ $# -gt 0 ]; then
	exec build/vmmprof "$@"
fi
# The main job: what this machine can measure, then the diagnosis of every
# VM on it (5 s of collection).
build/vmmprof info
echo
build/vmmprof diagnose
# No VM here (a laptop, a CI machine): show what a diagnosis gives on a
# captured two-socket host instead, labelled as such.
if build/vmmprof list vms 2>&1 | grep -qi '^no VMs found'; then
	echo
	echo "=== No VM on this machine.  For a picture of what vmmprof gives, the diagnosis of a"
	echo "=== captured two-socket Skylake-SP host (tests/data/root/skx-2s, a fixture tree:"
	echo "=== placement from its files, no counters), with the software model:"
	echo
	build/vmmprof diagnose --root tests/data/root/skx-2s -m software -d 1
	echo
	echo "=== To see vmmprof on a live VM here: scripts/run.sh --demo-vm (boots a small QEMU guest)"
fi
