#!/bin/sh
# run.sh - boots the Xen testbed built by build.sh under QEMU TCG and writes
# the serial console to LOG.  A run that passes TIMEOUT seconds is killed.
#   sh tests/vm/xen/run.sh CACHE_DIR LOG [TIMEOUT]
# VP_XEN_DOM0_ARGS adds to the dom0 kernel command line (vmtest.capture=1).
# Xen sees two NUMA nodes (pCPU 0 on node 0, pCPU 1 on node 1).
set -u
cache=$1
log=$2
limit=${3:-300}
kver=$(cat "$cache/kernel/version")
timeout -k 5 "$limit" qemu-system-x86_64 -accel tcg -cpu qemu64 -smp 2 -m 3072 \
	-object memory-backend-ram,id=m0,size=1536M -object memory-backend-ram,id=m1,size=1536M \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
	-display none -monitor none -serial stdio -no-reboot \
	-kernel "$cache/xen.elf" \
	-append "dom0_mem=2048M,max:2048M console=com1 com1=115200 noreboot loglvl=warning tbuf_size=256" \
	-initrd "$cache/kernel/vmlinuz console=hvc0 rdinit=/init quiet loglevel=3 ${VP_XEN_DOM0_ARGS:-},$cache/dom0.cpio" \
	</dev/null >"$log" 2>&1
rc=$?
# 124: timeout killed qemu
exit $rc
