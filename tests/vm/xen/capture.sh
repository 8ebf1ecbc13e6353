#!/bin/sh
# capture.sh - refreshes tests/data/xen-captured/ from a live Xen dom0: runs
# the vm-xen tier with vmtest.capture=1 (dom0 then also copies the /proc and
# /sys files vmmprof reads) and lays the outputs out as a fixture root that
# the Xen adapter's default runner reads (.vmmprof-fixture/CMD/ARGS.txt).
#   sh tests/vm/xen/capture.sh
set -u
cd "$(dirname "$0")/../../.."
VP_XEN_DOM0_ARGS=vmtest.capture=1 sh tests/tiers/vm-xen.sh
src=tests/vm/cache/xen/last-run/data
dst=tests/data/xen-captured
[ -s "$src/xl-list-l" ] && [ -s "$src/root.tgz" ] || { echo "capture.sh: no capture in $src" >&2; exit 1; }
find "$dst" -mindepth 1 ! -name README.md -exec rm -rf {} + 2>/dev/null
mkdir -p "$dst/.vmmprof-fixture/xl" "$dst/.vmmprof-fixture/xentop"
tar xzf "$src/root.tgz" -C "$dst"
x=$dst/.vmmprof-fixture/xl
cp "$src/xl-list" "$x/list.txt"
cp "$src/xl-list-l" "$x/list-l.json"
cp "$src/xl-list-n" "$x/list-n.txt"
cp "$src/xl-vcpu-list" "$x/vcpu-list.txt"
cp "$src/xl-info-n" "$x/info-n.txt"
cp "$src/xl-dmesg-numa" "$x/dmesg-numa.txt"
# the whole ring (two dumps in it) and the empty output of 'xl debug-keys u':
# what --xen-numa-dump reads on this root
cp "$src/xl-dmesg" "$x/dmesg.txt"
: >"$x/debug-keys-u.txt"
cp "$src/xentop" "$dst/.vmmprof-fixture/xentop/b-i-1.txt"
[ -s "$src/cpuid-signature" ] && cp "$src/cpuid-signature" "$dst/.vmmprof-fixture/cpuid-hypervisor"
mkdir -p "$dst/after-destroy/.vmmprof-fixture/xl"
cp "$src/xl-list-after-destroy" "$dst/after-destroy/.vmmprof-fixture/xl/list.txt"
cp "$src/xl-vcpu-list-after-destroy" "$dst/after-destroy/.vmmprof-fixture/xl/vcpu-list.txt"
cp "$src/xl-list-l-after-destroy" "$dst/after-destroy/.vmmprof-fixture/xl/list-l.json"
echo "capture.sh: wrote $dst"
