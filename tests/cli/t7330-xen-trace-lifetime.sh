#!/bin/sh
# t7330-xen-trace-lifetime.sh - the xentrace that --xentrace starts dies with
# vmmprof, however vmmprof ends (SIGKILL included): it gets SIGINT, on which
# the real xentrace turns Xen's tracing off and exits (tools/xentrace/
# xentrace.c handles SIGINT, SIGTERM, SIGHUP alike).  And a second xentrace
# is refused while one runs: Xen's trace buffers are one per host and each
# reader takes the records it reads, so two would leave both traces
# incomplete.  The xentrace here is a stand-in script on PATH (its process
# name is xentrace, as the real one's) that writes which signal it got.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TRASH/bin"
cat >"$TRASH/bin/xentrace" <<'SH'
#!/bin/sh
trap 'echo INT >"$XT_DIR/got"; exit 0' INT
trap 'echo TERM >"$XT_DIR/got"; exit 0' TERM
echo $$ >"$XT_DIR/started"
while :; do sleep 0.1; done
SH
chmod +x "$TRASH/bin/xentrace"
PATH=$TRASH/bin:$PATH
XT_DIR=$TRASH
export PATH XT_DIR

# wait_file FILE SECS: until FILE exists (a loaded machine: generous)
wait_file() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	test -e "$1"
}

# gone PID: the process has exited (a zombie nobody reaped counts: it has exited)
gone() {
	i=0
	while [ $i -lt 100 ]; do
		st=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
		case $st in Z*) return 0 ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

test_expect_success 'a SIGKILLed top --xentrace: its xentrace gets SIGINT and exits' '
	rm -f started got &&
	{ "$VMMPROF" top --batch --no-counters --xentrace -n 10000 -d 0.5 >top.out 2>top.err & } &&
	vp=$! &&
	wait_file started 30 &&
	xt=$(cat started) &&
	kill -9 $vp &&
	wait_file got 20 &&
	test "$(cat got)" = INT &&
	gone $xt
'

test_expect_success 'a second xentrace is refused while one runs: top, diagnose and record exit non-zero naming its pid' '
	rm -f started got &&
	mkdir -p other &&
	{ XT_DIR=$TRASH/other "$TRASH/bin/xentrace" & } &&
	other=$! &&
	wait_file other/started 30 &&
	{ vmmprof top --batch --no-counters --xentrace -n 1 >out 2>err; echo $? >st1;
	  vmmprof diagnose --xentrace -d 0.2 >out 2>err2; echo $? >st2;
	  vmmprof record --xentrace -d 0.2 -o r.vmmdb >out 2>err3; echo $? >st3; } ;
	kill $other; wait $other;
	test "$(cat st1)" != 0 && test "$(cat st2)" != 0 && test "$(cat st3)" != 0 &&
	for e in err err2 err3; do
		grep_q "xentrace is already running (pid $other): Xen.s trace buffers are one per host" $e || return 1
	done &&
	! test -e started && ! test -e r.vmmdb
'

test_expect_success 'a second xentrace on a fixture root (its /proc lists one, and an exited one): refused the same way' '
	mkdir -p r/proc/4242 r/proc/4243 &&
	echo "4242 (xentrace) S 1 4242 4242 0 -1" >r/proc/4242/stat &&
	echo "4243 (xentrace) Z 1 4243 4243 0 -1" >r/proc/4243/stat &&
	cp -r "$VP_DATA/xen-captured/sys" "$VP_DATA/xen-captured/.vmmprof-fixture" r/ &&
	cp -r "$VP_DATA/xen-captured/proc/." r/proc/ &&
	mkdir -p r/.vmmprof-fixture/xentrace/stream &&
	! vmmprof top --root r --xentrace --json -n 1 >j 2>err &&
	grep_q "xentrace is already running (pid 4242)" err &&
	rm -r r/proc/4242 &&
	vmmprof top --root r --xentrace --json -n 1 >j

'

test_done
