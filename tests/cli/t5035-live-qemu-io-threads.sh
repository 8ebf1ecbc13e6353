#!/bin/sh
# t5035-live-qemu-io-threads.sh - live: a real QEMU (TCG) with an IOThread and
# two virtual NUMA nodes, and a stand-in QEMU with a vhost worker thread as
# Linux 6.4+ makes them: list vms finds each I/O thread by the name /proc
# gives it, with the affinity taskset set, and each virtual node's backend
# with its pages.  This machine has one node: the advice itself is tested on
# fixture trees (t9046).
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
FAKE=$HERE/../helpers/fake_qemu.py
PY=/usr/bin/python3
NAME=vp-io-$$
QPID=""
FPID=""
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	[ -n "$FPID" ] && kill "$FPID" 2>/dev/null
	true
}
trap cleanup EXIT

# wait_thread PID COMM: until PID has a thread named COMM, 10 s at most
wait_thread() {
	i=0
	while [ $i -lt 100 ] && ! thread_named "$1" "$2" >/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}

if command -v qemu-system-x86_64 >/dev/null; then
	# 2 x 64 MiB preallocated: every page resident; m0 bound to host node 0
	qemu-system-x86_64 -accel tcg -name "guest=$NAME,debug-threads=on" -smp 2 -m 128 \
		-object iothread,id=iothread1 \
		-object memory-backend-ram,id=m0,size=64M,prealloc=on,host-nodes=0,policy=bind \
		-object memory-backend-ram,id=m1,size=64M,prealloc=on \
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
		-display none -nodefaults -S >"$TRASH/qemu.log" 2>&1 &
	QPID=$!
	# the vCPU threads come after the backends are preallocated (the IOThread before)
	wait_thread "$QPID" "CPU 1/TCG"
	IOT=$(thread_named "$QPID" "IO iothread1")

	test_expect_success 'QEMU started with a thread named IO iothread1' '
		test -n "$IOT" || { cat "$TRASH/qemu.log"; false; }
	'

	test_expect_success 'list vms: the IOThread by its tid, number 1, affinity as taskset set it; the main loop' '
		taskset -p -c 0 "$IOT" >/dev/null &&
		vmmprof list vms --json "$NAME" >out &&
		test "$(json_get out "\" \".join(\"%s/%s/%s\" % (t[\"tid\"], t[\"iothread_id\"], t[\"affinity\"]) for t in j[\"vms\"][0][\"io_threads\"] if t[\"kind\"] == \"IOThread\")")" = "$IOT/1/0" &&
		test "$(json_get out "[t[\"tid\"] for t in j[\"vms\"][0][\"io_threads\"] if t[\"kind\"] == \"main loop\"]")" = "[$QPID]"
	'

	test_expect_success 'list vms: both virtual nodes, each backend 64 MiB resident (prealloc=on)' '
		vmmprof list vms --json "$NAME" >out &&
		v=$(json_get out "\" \".join(\"%s/%s/%s/%s\" % (n[\"id\"], n[\"memdev\"], n[\"policy\"], sum((n[\"mem_node_bytes\"] or {}).values())) for n in j[\"vms\"][0][\"vnuma\"])") &&
		{ test "$v" = "0/m0/bind/67108864 1/m1/default/67108864" ||
		  { echo "got: $v"; grep -A3 "vnuma" out; false; }; }
	'
	kill "$QPID" 2>/dev/null
	wait "$QPID" 2>/dev/null
	QPID=""
else
	test_skip 'live QEMU with an IOThread and virtual nodes' 'qemu-system-x86_64 is not installed'
fi

if [ -x $PY ] && command -v bash >/dev/null; then
	FAKE_QEMU_IO=1 bash -c 'exec -a qemu-system-x86_64 "$0" "$1" -name "guest=$2" -smp 1' \
		$PY "$FAKE" "$NAME-f" &
	FPID=$!
	wait_thread "$FPID" "vhost-$FPID"
	VH=$(thread_named "$FPID" "vhost-$FPID")

	test_expect_success 'list vms: the vhost worker thread vhost-PID of the QEMU process (Linux 6.4+)' '
		test -n "$VH" &&
		vmmprof list vms --json "$NAME-f" >out &&
		test "$(json_get out "\" \".join(\"%s/%s\" % (t[\"tid\"], t[\"name\"]) for t in j[\"vms\"][0][\"io_threads\"] if t[\"kind\"] == \"vhost\")")" = "$VH/vhost-$FPID" &&
		vmmprof list vms "$NAME-f" >out.txt &&
		grep_q "I/O thread  vhost, tid $VH (vhost-$FPID): CPU [0-9]*, node " out.txt
	'
else
	test_skip 'a stand-in QEMU with a vhost thread' "no system python3 at $PY, or no bash"
fi

test_done
