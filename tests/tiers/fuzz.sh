#!/bin/sh
# fuzz.sh - builds every libFuzzer harness in tests/fuzz/, replays its corpus
# (tests/fuzz/corpus/NAME/) and then fuzzes it for a bounded time
# (VP_FUZZ_SECONDS, default 10).  A crash fails the harness; the crashing
# input is kept under tests/fuzz/out/.  Last line: "fuzz: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
secs=${VP_FUZZ_SECONDS:-10}
if ! command -v clang >/dev/null; then
	echo "fuzz: clang not installed (scripts/install-deps.sh --test)"
	echo "fuzz: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
make -s FUZZ=1 -j"$(nproc)" fuzzers || { echo "fuzz: 0 passed, 1 failed, 0 skipped"; exit 1; }
pass=0
fail=0
mkdir -p tests/fuzz/out
for src in tests/fuzz/*.c; do
	name=$(basename "$src" .c)
	bin=build-fuzz/fuzz/$name
	corpus=tests/fuzz/corpus/$name
	work=$(mktemp -d)
	[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/ 2>/dev/null
	if "$bin" -runs=0 "$work" >"tests/fuzz/out/$name.replay.log" 2>&1 &&
	   "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="tests/fuzz/out/$name-" "$work" >"tests/fuzz/out/$name.log" 2>&1; then
		pass=$((pass + 1))
		echo "ok   $name ($(grep -o 'stat::number_of_executed_units: [0-9]*' "tests/fuzz/out/$name.log" || echo "fuzzed ${secs}s"))"
	else
		fail=$((fail + 1))
		echo "FAIL $name"
		tail -n 30 "tests/fuzz/out/$name.replay.log" "tests/fuzz/out/$name.log"
	fi
	rm -rf "$work"
done
echo "fuzz: $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
