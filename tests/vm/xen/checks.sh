#!/bin/sh
# checks.sh - runs in the testbed's dom0 once the domU "vptest" exists: waits
# for its vCPUs, prints the raw xl outputs and a capture of dom0's /sys and
# /proc (VMTEST-DATA NAME: LINE, for tests/data/xen-captured/), then asserts
# what vmmprof reports against what xl reports (compare.py) and prints one
# "VMTEST ok|fail|skip NAME ..." line per check.
VM=/usr/local/bin/vmmprof
T=/tmp/vt
mkdir -p "$T"
cmp() { python3 /vmtest/compare.py "$@"; }
# has_cmd NAME: vmmprof has the subcommand NAME
has_cmd() { "$VM" help 2>/dev/null | awk '/^  [a-z]/ { print $1 }' | grep -qx "$1"; }
# has_opt CMD OPT: the help page of CMD names OPT
has_opt() { "$VM" help "$1" 2>/dev/null | grep -q -- "$2"; }
stamp() { echo "VMTEST-INFO $* at $(cut -d' ' -f1 /proc/uptime) s"; }
# want SECTION: the section runs (all do unless vmtest.only=A,B,... is on
# dom0's command line: VP_XEN_DOM0_ARGS=vmtest.only=xentrace for one check;
# several joined by '+', since QEMU's -initrd takes a comma for a new module)
only=$(sed -n 's/.*vmtest\.only=\([^ ]*\).*/\1/p' /proc/cmdline | tr '+' ',')
want() { [ -z "$only" ] || case ",$only," in *",$1,"*) true ;; *) false ;; esac; }
data() { # data NAME CMD...: CMD's output (and stderr) as VMTEST-DATA lines
	n=$1
	shift
	"$@" >"$T/$n" 2>&1
	sed "s/^/VMTEST-DATA $n: /" "$T/$n"
}

# The domU is up once both vCPUs have been placed on a pCPU (a vCPU the
# guest has not brought online yet shows CPU "-" and state "--p").
up=0
for i in $(seq 1 120); do
	if xl vcpu-list vptest 2>/dev/null | awk '$1 == "vptest" && $4 != "-" { n++ } END { exit n != 2 }'; then
		up=1
		break
	fi
	sleep 1
done
if [ $up = 1 ]; then
	echo "VMTEST ok domu-vcpus-online"
else
	echo "VMTEST fail domu-vcpus-online vptest vCPUs not online after 120 s: $(xl vcpu-list vptest 2>&1 | tr '\n' '|')"
fi
stamp domu up
sleep 1

# The raw outputs, for the captured fixture and for the checks below.
data xl-list xl list
data xl-list-l xl list -l
data xl-list-n xl list -n
data xl-vcpu-list xl vcpu-list
data xl-info-n xl info -n
data pmu_mode cat /sys/hypervisor/pmu/pmu_mode
xl debug-keys u >/dev/null 2>&1
data xl-dmesg-numa sh -c "xl dmesg | sed -n '/Memory location of each domain/,\$p'"
# A copy of the /proc and /sys files vmmprof reads (capture_root.py),
# only when asked for (vmtest.capture=1 on the dom0 command line).
if grep -q 'vmtest.capture=1' /proc/cmdline; then
	# the whole ring, with a second dump in it, for the --xen-numa-dump fixture
	xl debug-keys u >/dev/null 2>&1
	data xl-dmesg xl dmesg
	data xentop xentop -b -i 1
	python3 /vmtest/capture_root.py "$T/root"
	(cd "$T/root" && tar czf - .) >"$T/root.tgz"
	echo "VMTEST-DATA root.tgz.md5: $(md5sum <"$T/root.tgz" | cut -d' ' -f1)"
	base64 -w 0 <"$T/root.tgz" | fold -w 120 | sed 's/^/VMTEST-DATA root.tgz.b64: /'
	echo
fi

stamp captures done
if [ ! -x "$VM" ]; then
	echo "VMTEST fail vmmprof-present no vmmprof in dom0"
	exit 0
fi
"$VM" --version >"$T/version" 2>&1 && echo "VMTEST ok vmmprof-runs $(cat "$T/version")" ||
	echo "VMTEST fail vmmprof-runs $(head -n 3 "$T/version" | tr '\n' '|')"

stamp info start
# --- vmmprof info: role host, hypervisor Xen, dom0, the PMU mode and why it is unknown
if ! want info; then
	for c in info-role info-pmu-mode info-topology-xen info-psr-reason; do echo "VMTEST skip $c not selected (vmtest.only=$only)"; done
elif has_cmd info; then
	"$VM" info --json >"$T/info.json" 2>"$T/info.err"
	echo "$?" >"$T/info.rc"
	"$VM" info >"$T/info.txt" 2>&1
	sed 's/^/VMTEST-LOG info: /' "$T/info.txt"
	cmp info "$T"
	# the raw CPUID leaf as vmmprof read it, for the fixture's CPUID seam
	if grep -q 'vmtest.capture=1' /proc/cmdline; then
		data cpuid-signature python3 -c "import json; print(json.load(open('$T/info.json'))['virtualization']['signature'] or '')"
	fi
else
	echo "VMTEST skip info-role waiting for vmmprof info"
	echo "VMTEST skip info-pmu-mode waiting for vmmprof info"
fi

stamp list-vms start
# --- vmmprof list vms: the domU, its vCPUs' pCPU and affinity, memory, node affinity
# (on a build without the 'vms' kind, "vms" is taken as an event pattern:
# compare.py skips when the JSON has no "vms" array)
if ! want list; then
	for c in list-vms-domain list-vms-vcpus list-vms-memory list-vms-node-affinity list-vms-memory-per-node list-vms-memory-per-node-opt-in; do echo "VMTEST skip $c not selected (vmtest.only=$only)"; done
elif has_cmd list; then
	xl vcpu-list >"$T/vcpu-before" 2>&1
	xl dmesg >"$T/dmesg-list-before" 2>&1
	"$VM" list vms --json >"$T/list.json" 2>"$T/list.err"
	echo "$?" >"$T/list.rc"
	xl dmesg >"$T/dmesg-list-after" 2>&1
	xl vcpu-list >"$T/vcpu-after" 2>&1
	"$VM" list vms >"$T/list.txt" 2>&1
	sed 's/^/VMTEST-LOG list-vms: /' "$T/list.txt"
	# the opt-in: vmmprof asks Xen for its page dump; the dump it caused is
	# then the newest in the ring, which compare.py reads with its own parser
	if has_opt list xen-numa-dump; then
		cp "$T/dmesg-list-after" "$T/dmesg-numa-before"
		"$VM" list vms --json --xen-numa-dump >"$T/list-numa.json" 2>"$T/list-numa.err"
		echo "$?" >"$T/list-numa.rc"
		xl dmesg >"$T/dmesg-numa-after" 2>&1
		sed -n '/Memory location of each domain/,$p' "$T/dmesg-numa-after" | tail -n 12 |
			sed 's/^/VMTEST-LOG xl-dmesg: /'
	fi
	cmp list "$T"
else
	for c in list-vms-domain list-vms-vcpus list-vms-memory list-vms-node-affinity \
		list-vms-memory-per-node list-vms-memory-per-node-opt-in; do
		echo "VMTEST skip $c waiting for vmmprof list vms"
	done
fi

stamp diagnose start
# --- vmmprof diagnose --xen-numa-dump: the domU's memory per node as Xen's dump
# says (the newest in the ring after it ran: the one it asked for), weighed
# by the locality estimate
if ! want diagnose; then
	for c in diagnose-memory-per-node; do echo "VMTEST skip $c not selected (vmtest.only=$only)"; done
elif has_opt diagnose xen-numa-dump; then
	"$VM" diagnose -d 2 --xen-numa-dump --json >"$T/diag-numa.json" 2>"$T/diag-numa.err"
	echo "$?" >"$T/diag-numa.rc"
	xl dmesg >"$T/dmesg-diag-after" 2>&1
	cmp diagnose "$T"
else
	echo "VMTEST skip diagnose-memory-per-node waiting for vmmprof diagnose --xen-numa-dump"
fi

stamp xentrace start
# --- exact residency from xentrace: vCPU 0 of vptest is pinned to pCPU 1 by
# its config and moved to pCPU 0 with xl vcpu-pin while the trace runs.
# (1) list vms --xentrace=60: its traced seconds per pCPU against xl
# vcpu-list's Time(s) around the trace and dom0's wall clock (uptime) at
# each step (compare.py check_xentrace).  (2) top --xentrace, the trace read
# as xentrace writes it: the move comes after top's second sample and top
# samples twice more, so by construction samples before the move and
# after it exist (compare.py check_top_xentrace).  The domU's load keeps
# both vCPUs running a large part of the time under TCG.
up() { cut -d' ' -f1 /proc/uptime; }
if ! want xentrace; then
	echo "VMTEST skip xentrace-residency not selected (vmtest.only=$only)"
	echo "VMTEST skip top-xentrace not selected (vmtest.only=$only)"
elif has_opt list xentrace; then
	up >"$T/trace-w0"
	xl vcpu-list >"$T/trace-vcpu-before" 2>&1
	"$VM" list vms --json --xentrace=60 >"$T/trace.json" 2>"$T/trace.err" &
	pid=$!
	# the adapter's xl calls come first (seconds under TCG): wait for
	# xentrace, noting the last time it was not there yet (the trace began
	# after that: A >= wd), then read xl, move the vCPU, read xl again, and
	# once more 5 s later
	for i in $(seq 1 240); do
		pidof xentrace >/dev/null 2>&1 && break
		up >"$T/trace-wd"
		sleep 0.5
	done
	[ -s "$T/trace-wd" ] || up >"$T/trace-wd"
	up >"$T/trace-wa"
	xl vcpu-list >"$T/trace-vcpu-a" 2>&1
	sleep 3
	xl vcpu-list >"$T/trace-vcpu-p" 2>&1
	up >"$T/trace-wpin"
	xl vcpu-pin vptest 0 0 >"$T/trace-pin.out" 2>&1
	xl vcpu-list >"$T/trace-vcpu-switch" 2>&1
	up >"$T/trace-w1"
	stamp xentrace moved vptest vCPU 0 to pCPU 0
	sleep 3
	xl vcpu-list >"$T/trace-vcpu-s2" 2>&1
	up >"$T/trace-ws2"
	wait $pid
	echo "$?" >"$T/trace.rc"
	up >"$T/trace-wexit"
	xl vcpu-list >"$T/trace-vcpu-after" 2>&1
	up >"$T/trace-w2"
	xl vcpu-pin vptest 0 1 >/dev/null 2>&1
	sed 's/^/VMTEST-LOG xentrace: /' "$T/trace.err" "$T/trace-pin.out"
	python3 -c "import json; [print('VMTEST-LOG xentrace:', v.get('name'), v.get('trace_s'), v.get('trace_reason'), [c.get('traced_run_s_per_pcpu') for c in v.get('vcpus', [])]) for v in json.load(open('$T/trace.json')).get('vms', [])]" 2>&1
	for f in trace-vcpu-before trace-vcpu-a trace-vcpu-p trace-vcpu-switch trace-vcpu-s2 trace-vcpu-after; do
		grep vptest "$T/$f" | sed "s/^/VMTEST-LOG xentrace: $f: /"
	done
	echo "VMTEST-LOG xentrace: wall clock: $(for n in 0 d a pin 1 s2 exit 2; do printf 'w%s=%s ' $n "$(cat "$T/trace-w$n")"; done)"
	cmp xentrace "$T"
	# --- top --xentrace: the move (back to pCPU 1 now) after the second sample
	if has_opt top xentrace; then
		xl vcpu-pin vptest 0 0 >/dev/null 2>&1
		"$VM" top --json --xentrace -n 4 -d 1 >"$T/top-trace.jsonl" 2>"$T/top-trace.err" &
		pid=$!
		for i in $(seq 1 480); do
			[ "$(wc -l <"$T/top-trace.jsonl")" -ge 2 ] && break
			sleep 0.5
		done
		wc -l <"$T/top-trace.jsonl" >"$T/top-trace-before-move"
		xl vcpu-pin vptest 0 1 >"$T/top-trace-pin.out" 2>&1
		wc -l <"$T/top-trace.jsonl" >"$T/top-trace-after-move"
		stamp top-xentrace moved vptest vCPU 0 to pCPU 1 after sample "$(cat "$T/top-trace-before-move")"
		wait $pid
		echo "$?" >"$T/top-trace.rc"
		pidof xentrace >"$T/top-trace-after" 2>&1
		sed 's/^/VMTEST-LOG top-xentrace: /' "$T/top-trace.err" "$T/top-trace-pin.out"
		python3 -c "
import json
for k, l in enumerate(open('$T/top-trace.jsonl'), 1):
    s = json.loads(l)
    print('VMTEST-LOG top-xentrace: sample', k, s.get('interval_s'), [(c['vcpu'], c.get('cpu_pct'), c.get('residency')) for c in s['vcpus'] if c['vm'] == 'vptest'])" 2>&1
		cmp top-xentrace "$T"
		# --- the xentrace vmmprof starts dies with it, SIGKILL included; and with
		# another xentrace running (the real one), vmmprof refuses to start its own
		"$VM" top --json --xentrace -n 100 -d 1 >"$T/life.jsonl" 2>"$T/life.err" &
		pid=$!
		for i in $(seq 1 240); do pidof xentrace >"$T/life-xt" 2>/dev/null && break; sleep 0.5; done
		kill -9 $pid
		wait $pid 2>/dev/null
		# xentrace leaves at its next poll and turns Xen's tracing off (xc
		# calls, seconds under TCG at load): 60 s is far more than it needs
		for i in $(seq 1 120); do pidof xentrace >/dev/null 2>&1 || break; sleep 0.5; done
		pidof xentrace >"$T/life-after" 2>&1
		echo "$i" >"$T/life-waits"
		[ -s "$T/life-after" ] && kill -INT $(cat "$T/life-after") 2>/dev/null
		xentrace -D -e 0x00021000 "$T/other.trace" 2>"$T/other.err" &
		xt=$!
		echo "$xt" >"$T/second-xt"
		# vmmprof must find it running: wait until it is (not a fixed sleep)
		for i in $(seq 1 120); do pidof xentrace 2>/dev/null | grep -qw "$xt" && break; sleep 0.5; done
		pidof xentrace >"$T/second-seen" 2>&1
		"$VM" top --json --xentrace -n 1 >"$T/second.json" 2>"$T/second.err"
		echo "$?" >"$T/second.rc"
		kill -INT $xt 2>/dev/null
		wait $xt 2>/dev/null
		rm -f "$T/other.trace"
		sed 's/^/VMTEST-LOG xentrace-lifetime: /' "$T/life.err" "$T/second.err" "$T/other.err"
		cmp xentrace-lifetime "$T"
	else
		echo "VMTEST skip top-xentrace waiting for vmmprof top --xentrace"
	fi
else
	echo "VMTEST skip xentrace-residency waiting for vmmprof list vms --xentrace"
	echo "VMTEST skip top-xentrace waiting for vmmprof top --xentrace"
fi

stamp top start
# --- vmmprof top --batch: dom0's software sources; what it cannot measure says why
if ! want top; then
	for c in top-batch top-xen-numa-dump; do echo "VMTEST skip $c not selected (vmtest.only=$only)"; done
elif has_cmd top; then
	"$VM" top --batch -n 2 -d 1 >"$T/top.txt" 2>"$T/top.err"
	echo "$?" >"$T/top.rc"
	sed 's/^/VMTEST-LOG top: /' "$T/top.txt" "$T/top.err"
	xl vcpu-list >"$T/xl-vcpu-list" 2>&1
	"$VM" top --json -n 2 -d 1 >"$T/top.jsonl" 2>"$T/top-json.err"
	echo "$?" >"$T/top-json.rc"
	if has_opt top xen-numa-dump; then
		"$VM" top --json -n 1 --xen-numa-dump >"$T/top-numa.jsonl" 2>"$T/top-numa.err"
		echo "$?" >"$T/top-numa.rc"
	fi
	if has_opt top xen-psr; then
		"$VM" top --json -n 1 --xen-psr >"$T/top-psr.jsonl" 2>"$T/top-psr.err"
		echo "$?" >"$T/top-psr.rc"
	fi
	cmp top "$T"
else
	echo "VMTEST skip top-batch waiting for vmmprof top"
fi

stamp daemon start
# --- diagnose --xentrace, and a daemon with xentrace = on: a session's
# diagnosis and the top stream (compare.py check_daemon): Xen's two nodes,
# vptest's residency per vCPU exact from the trace, and every factor n/a
# with the reason naming what would enable it on Xen (vpmu=1, psr=cmt, the
# uncore).  The client is compare.py daemon-fetch (python3's urllib: dom0
# has no curl).
if ! want daemon; then
	echo "VMTEST skip diagnose-xentrace not selected (vmtest.only=$only)"
elif has_opt serve xentrace; then
	# what one xl call costs here (the daemon's scans are made of them)
	for c in "vcpu-list" "list -l" "list -n" "info -n"; do
		t0=$(up)
		xl $c >/dev/null 2>&1
		printf '%s %s; ' "$c" "$(echo "$(up) $t0" | awk '{ printf "%.2f s", $1 - $2 }')"
	done >"$T/xl-cost"
	echo "VMTEST-INFO xl call costs: $(cat "$T/xl-cost")"
	"$VM" diagnose -d 2 --xentrace --json >"$T/dx.json" 2>"$T/dx.err"
	echo "$?" >"$T/dx.rc"
	stamp diagnose-xentrace done
fi
# the daemon: its first live run found dom0's loopback down ("Network is
# unreachable"), so lo is brought up here.  It was opt-in until 2026-12-02:
# under TCG at load its collector's samples took longer than their interval
# (four xl calls a scan, 1-4 s each) and it never let go of its lock, so the
# top stream starved (0 samples in 300 s); the scans now make one xl call
# and the collector lets go between passes
if ! want daemon || ! has_opt serve xentrace; then
	for c in daemon-session daemon-top-residency; do echo "VMTEST skip $c not selected (vmtest.only=$only)"; done
	: >"$T/daemon-skipped"
else
	ip link set lo up 2>/dev/null || busybox ip link set lo up 2>/dev/null
	mkdir -p "$T/home"
	HOME=$T/home "$VM" user add adm --role admin --users "$T/users" --token-out "$T/adm.tok" >"$T/useradd.out" 2>&1
	HOME=$T/home "$VM" serve --listen 127.0.0.1:0 --users "$T/users" --xentrace 2>"$T/serve.err" &
	spid=$!
	for i in $(seq 1 480); do
		sed -n 's|^vmmprofd: listening on \(https*://[^ ]*\)/ .*|\1|p' "$T/serve.err" >"$T/serve.url"
		[ -s "$T/serve.url" ] && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.5
	done
	stamp daemon listening
	xl vcpu-list >"$T/daemon-vcpu-before" 2>&1
	[ -s "$T/serve.url" ] &&
		python3 /vmtest/compare.py daemon-fetch "$T" "$(cat "$T/serve.url")" "$T/adm.tok" >"$T/daemon-fetch.log" 2>&1
	stamp daemon client done "$(head -c 300 "$T/daemon-fetch.log")"
	xl vcpu-list >"$T/daemon-vcpu-after" 2>&1
	kill -TERM $spid 2>/dev/null
	wait $spid
	echo "$?" >"$T/serve.rc"
	stamp daemon stopped
	pidof xentrace >"$T/serve-xt-after" 2>&1
	sed 's/^/VMTEST-LOG daemon: /' "$T/dx.err" "$T/useradd.out" "$T/serve.err" "$T/daemon-fetch.log"
fi
if want daemon && has_opt serve xentrace; then
	cmp daemon "$T"
elif want daemon; then
	echo "VMTEST skip diagnose-xentrace waiting for vmmprof serve --xentrace"
fi

stamp destroy start
# --- the domU destroyed while vmmprof top runs: exit 0, its rows end
if ! want destroy; then
	for c in domu-destroyed-midrun; do echo "VMTEST skip $c not selected (vmtest.only=$only)"; done
elif has_cmd top; then
	"$VM" top --json -n 8 -d 1 >"$T/destroy.jsonl" 2>"$T/destroy.err" &
	pid=$!
	# destroy once the first sample (with the domU) is out
	for i in $(seq 1 120); do
		[ -s "$T/destroy.jsonl" ] && break
		sleep 0.5
	done
	sleep 1
	xl destroy vptest >"$T/destroy.xl" 2>&1
	wait $pid
	echo "$?" >"$T/destroy.rc"
	sed 's/^/VMTEST-LOG destroy: /' "$T/destroy.err"
	cmp destroy "$T"
else
	echo "VMTEST skip domu-destroyed-midrun waiting for vmmprof top"
fi
stamp checks done
xl destroy vptest >/dev/null 2>&1
data xl-list-after-destroy xl list
data xl-vcpu-list-after-destroy xl vcpu-list
data xl-list-l-after-destroy xl list -l
exit 0
