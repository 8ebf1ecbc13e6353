# vmtest.sh - what the guest's checks.sh sources: result lines on the
# console, the expectation the host put on the kernel command line, and
# small numeric helpers (busybox sh and awk only: the guest has no python).
#
# Result lines, one per check, read by tests/vm/lib.sh vm_results:
#   VMTEST ok NAME [detail]
#   VMTEST fail NAME detail
#   VMTEST skip NAME reason
# Data lines for checks that the host evaluates (JSON that busybox cannot
# parse): "VMDATA NAME <one line of JSON>".

vt_ok() { n=$1; shift; echo "VMTEST ok $n $*"; }
vt_fail() { n=$1; shift; echo "VMTEST fail $n ${*:-failed}"; }
vt_skip() { n=$1; shift; echo "VMTEST skip $n $*"; }

# vt_arg KEY: the value of vmtest.KEY=VALUE on the kernel command line.
vt_arg() {
	for w in $(cat /proc/cmdline); do
		case $w in
		"vmtest.$1="*) echo "${w#*=}"; return 0 ;;
		esac
	done
	return 1
}

# vt_want GROUP: true when the run wants this group of checks: every group
# unless vmtest.checks=G1,G2 names some (VP_VM_CHECKS on the host).
vt_want() {
	w=$(vt_arg checks) || return 0
	case ",$w," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

# vt_has CMD...: true when this vmmprof has the subcommand (help knows it).
vt_has() { vmmprof help "$@" >/dev/null 2>&1; }

# vt_data NAME CMD...: runs CMD, prints its output as one VMDATA line for the
# host; returns CMD's status.
vt_data() {
	n=$1
	shift
	"$@" >/tmp/vt_data.out 2>/tmp/vt_data.err
	rc=$?
	printf 'VMDATA %s %s\n' "$n" "$(tr -d '\n\r' </tmp/vt_data.out)"
	[ $rc -ne 0 ] && echo "VMDATA-ERR $n rc=$rc $(tr '\n' ' ' </tmp/vt_data.err | cut -c1-300)"
	return $rc
}

# vt_wait_for WORD FILE TENTHS: wait until FILE holds WORD (a helper's
# "placed" line), at most TENTHS tenths of a second; 1 when it never did.
vt_wait_for() {
	i=0
	while ! grep -q "$1" "$2" 2>/dev/null; do
		[ $i -ge "$3" ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# vt_within GOT WANT TOL_PERMILLE: |GOT - WANT| <= WANT * TOL / 1000.
vt_within() {
	awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN {
		d = g - w; if (d < 0) d = -d
		exit !(g != "" && d <= w * t / 1000) }'
}

# vt_numastat NODE FIELD: a counter from /sys/devices/system/node/nodeN/numastat.
vt_numastat() {
	awk -v f="$2" '$1 == f { print $2 }' "/sys/devices/system/node/node$1/numastat"
}

# vt_topology: the kernel's own view of the virtual NUMA layout against the
# expectation on the command line (vmtest.nodes, .cpus, .mem, .dist: one
# '/'-separated field per node), then vmmprof info's view (host-evaluated).
vt_topology() {
	want_nodes=$(vt_arg nodes)
	got_nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	if [ "$got_nodes" = "$want_nodes" ]; then
		vt_ok topo/sysfs-nodes "$got_nodes nodes"
	else
		vt_fail topo/sysfs-nodes "kernel sees $got_nodes nodes, QEMU defined $want_nodes"
	fi
	bad=""
	n=0
	for c in $(vt_arg cpus | tr '/' ' '); do
		got=$(cat /sys/devices/system/node/node$n/cpulist 2>/dev/null)
		[ "$got" = "$c" ] || bad="$bad node$n:'$got'!='$c'"
		n=$((n + 1))
	done
	[ -z "$bad" ] && vt_ok topo/sysfs-cpus "$(vt_arg cpus)" || vt_fail topo/sysfs-cpus "$bad"
	# MemTotal is the node's memory less what the kernel reserved at boot:
	# at most the size QEMU gave; on node 0, which holds the kernel image
	# and the early boot allocations (nokaslr keeps them there), at least
	# that less 64 MiB; on the other nodes (struct pages, 1.6 %, and per-node
	# tables) at least 95 % of it less 4 MiB.  Measured: x86_64 node 0 lost
	# 50 MiB of 256, the others 2-4 %.
	bad=""
	seen=""
	n=0
	for m in $(vt_arg mem | tr '/' ' '); do
		kb=$(awk '/MemTotal/ { print $4 }' /sys/devices/system/node/node$n/meminfo 2>/dev/null)
		seen="$seen node$n=${kb}kB/$((m * 1024))kB"
		awk -v k="${kb:-0}" -v m="$m" -v n="$n" 'BEGIN { s = m * 1024
			lo = n == 0 ? s - 65536 : s * 0.95 - 4096; exit !(k <= s && k >= lo) }' ||
			bad="$bad node$n:${kb}kB-for-${m}MiB"
		n=$((n + 1))
	done
	[ -z "$bad" ] && vt_ok topo/sysfs-mem "$seen" || vt_fail topo/sysfs-mem "$bad; all:$seen"
	bad=""
	n=0
	for row in $(vt_arg dist | tr '/' ' '); do
		got=$(cat /sys/devices/system/node/node$n/distance 2>/dev/null)
		[ "$got" = "$(echo "$row" | tr ',' ' ')" ] || bad="$bad node$n:'$got'!='$row'"
		n=$((n + 1))
	done
	[ -z "$bad" ] && vt_ok topo/sysfs-distance "$(vt_arg dist)" || vt_fail topo/sysfs-distance "$bad"
	if vt_has info; then
		# the host compares this against the same expectation
		vt_data info vmmprof info --json || vt_fail topo/vmmprof-info "vmmprof info --json failed: $(head -c 200 /tmp/vt_data.err)"
	else
		vt_skip topo/vmmprof-info "'vmmprof info' is not on main yet (issue 2)"
	fi
	if vt_has model; then
		vt_data models vmmprof model list --json ||
			vt_fail model/chosen "vmmprof model list --json failed: $(head -c 200 /tmp/vt_data.err)"
	else
		vt_skip model/chosen "'vmmprof model' is not on main yet (issue 4)"
	fi
}
