#!/bin/sh
# vm-xen.sh - the Xen testbed tier: boots Xen 4.17 under QEMU TCG with a PV
# dom0 (Debian's kernel, a debootstrap'ed root holding xen-utils), creates a
# PV domU there and runs vmmprof in dom0 against what xl reports
# (tests/vm/xen/, docs/xen.md).  The dom0 root is cached under
# tests/vm/cache/xen/; the first build takes a few minutes, later runs about
# a minute.  Last line: "vm-xen: N passed, N failed, N skipped".
#
#   VP_XEN_TIMEOUT=S   kill a boot that runs longer (default 1500 s)
#   VP_BUILD=DIR       the vmmprof build to put in dom0 (default build)
set -u
cd "$(dirname "$0")/../.."
xen_repo=$(pwd)
. tests/vm/xen/build.sh
limit=${VP_XEN_TIMEOUT:-1500}
bdir=${VP_BUILD:-build}
out=$XEN_CACHE/last-run

finish() { # finish PASS FAIL SKIP
	echo "vm-xen: $1 passed, $2 failed, $3 skipped"
	[ "$2" -eq 0 ]
	exit
}
for tool in qemu-system-x86_64 debootstrap cpio apt-get dpkg; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "vm-xen: skip: $tool not installed (scripts/install-deps.sh --test)"
		finish 0 0 1
	fi
done
if ! make -s -j"$(nproc)" "$bdir/vmmprof" >/dev/null; then
	echo "vm-xen: FAIL building $bdir/vmmprof"
	finish 0 1 0
fi
start=$(date +%s)
mkdir -p "$XEN_CACHE"
if ! xen_build_all "$xen_repo/$bdir/vmmprof"; then
	echo "vm-xen: FAIL building the testbed (see messages above)"
	finish 0 1 0
fi
built=$(date +%s)
echo "vm-xen: testbed ready in $((built - start)) s; booting (limit ${limit} s)"

rm -rf "$out"
mkdir -p "$out/data"
# the checks' xl parsers against the captured outputs, before booting
if ! python3 tests/vm/xen/compare.py selftest tests/data/xen-captured >"$out/selftest" 2>&1 &&
   ! grep -q '^VMTEST fail' "$out/selftest"; then
	echo "VMTEST fail compare-parsers $(tail -n 1 "$out/selftest")" >>"$out/selftest"
fi
sh tests/vm/xen/run.sh "$XEN_CACHE" "$out/console.raw" "$limit"
qrc=$?
tr -d '\r' <"$out/console.raw" >"$out/console.log"
echo "vm-xen: boot and checks took $(($(date +%s) - built)) s (qemu exit $qrc)"

# VMTEST-DATA NAME: LINE -> $out/data/NAME
awk -v dir="$out/data" '
	/^VMTEST-DATA [^ ]+: ?/ {
		name = $2; sub(/:$/, "", name)
		line = $0; sub(/^VMTEST-DATA [^ ]+: ?/, "", line)
		print line > (dir "/" name)
	}' "$out/console.log"
if [ -s "$out/data/root.tgz.b64" ]; then
	base64 -d <"$out/data/root.tgz.b64" >"$out/data/root.tgz" 2>/dev/null
	if [ "$(md5sum <"$out/data/root.tgz" | cut -d' ' -f1)" != "$(cat "$out/data/root.tgz.md5")" ]; then
		echo "vm-xen: note: the dom0 capture arrived damaged (md5 mismatch)"
		rm -f "$out/data/root.tgz"
	fi
	rm -f "$out/data/root.tgz.b64"
fi

grep -E '^VMTEST (ok|fail|skip) ' "$out/selftest" "$out/console.log" -h >"$out/results"
grep -E '^VMTEST-LOG ' "$out/console.log" >"$out/vmmprof.log"
pass=$(grep -c '^VMTEST ok ' "$out/results")
fail=$(grep -c '^VMTEST fail ' "$out/results")
skip=$(grep -c '^VMTEST skip ' "$out/results")
sed 's/^VMTEST /  /' "$out/results"
if ! grep -q '^VMTEST done' "$out/console.log"; then
	fail=$((fail + 1))
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "  fail boot: killed after ${limit} s; console tail:"
	else
		echo "  fail boot: dom0 did not reach the end of its checks (qemu exit $qrc); console tail:"
	fi
	tail -n 40 "$out/console.log" | sed 's/^/    /'
fi
if [ "$fail" -gt 0 ]; then
	echo "vm-xen: vmmprof's output in dom0 ($out/vmmprof.log):"
	head -n 80 "$out/vmmprof.log" | sed 's/^/    /'
fi
finish "$pass" "$fail" "$skip"
