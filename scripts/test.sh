#!/bin/sh
# test.sh - quick start: install what is missing, build, and run every test:
# unit and command-line tests (normal build, then ASan+UBSan), model checks,
# the fuzz corpus replay, and the testbed tiers (tests/tiers/*.sh: the QEMU
# guests, Xen, libvirt).  Prints one line per tier and a last line
# "tests: N passed, N failed, N skipped".
#
#   VP_SKIP_VM=1 scripts/test.sh   leaves out the testbed tiers (vm-*)
set -u
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test || { echo "test.sh: installing dependencies failed" >&2; exit 1; }

jobs=$(nproc)
log=$(mktemp -d)
status=0
summary=""

# tier NAME COMMAND...: runs it, keeps its output, collects "N passed, N failed".
tier() {
	name=$1
	shift
	echo "== $name"
	if "$@" >"$log/$name.log" 2>&1; then rc=0; else rc=1; status=1; fi
	# show failures in full, successes as their last lines
	if [ $rc -ne 0 ]; then cat "$log/$name.log"; else tail -n 3 "$log/$name.log"; fi
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log/$name.log" | tail -n 1)
	if [ -z "$line" ] && [ $rc -ne 0 ]; then line="0 passed, 1 failed, 0 skipped"; fi
	summary="$summary
$line"
}

build() { make -j"$jobs" "$@" all; }

tier build build
tier unit make -s unit
tier cli make -s cli-tests
tier build-san make -s SAN=1 -j"$jobs" all
tier unit-san env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 make -s SAN=1 unit
tier cli-san env ASAN_OPTIONS=detect_leaks=1 make -s SAN=1 cli-tests
for extra in tests/tiers/*.sh; do
	[ -e "$extra" ] || continue
	case "$(basename "$extra")" in
	vm-*) [ "${VP_SKIP_VM:-0}" = 1 ] && continue ;;
	esac
	tier "$(basename "$extra" .sh)" sh "$extra"
done

echo "$summary" | awk '
	match($0, /[0-9]+ passed/) { p += substr($0, RSTART, RLENGTH) + 0 }
	match($0, /[0-9]+ failed/) { f += substr($0, RSTART, RLENGTH) + 0 }
	match($0, /[0-9]+ skipped/) { s += substr($0, RSTART, RLENGTH) + 0 }
	END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }'
rm -rf "$log"
exit $status
