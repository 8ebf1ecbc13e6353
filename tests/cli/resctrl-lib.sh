# resctrl-lib.sh - what the resctrl tests (t52xx) share: the fixture tree and
# the kernel's part played by hand.  Source after lib.sh.
#
#   make_root DIR            host-libvirt-v2 with the resctrl overlay
#                            (tests/data/resctrl/README.md) copied into DIR
#   mon GROUPDIR DOMAIN OCC TOTAL LOCAL
#                            write a group's mon_data/mon_L3_DOMAIN files as
#                            the kernel would show them (a new domain at once)
#   wait_for PATH, wait_gone PATH   until PATH exists / is gone (10 s at most)

make_root() {
	mkdir -p "$1" &&
	cp -a "$VP_DATA/root/host-libvirt-v2/." "$1/" &&
	cp -a "$VP_DATA/resctrl/." "$1/"
}

mon() {
	# a new domain appears at once (renamed into place), so that a sample
	# never reads some of its files and not the others
	t=$1/.mon_L3_$2.new
	mkdir -p "$t" "$1/mon_data" &&
	printf '%s\n' "$3" >"$t/llc_occupancy" &&
	printf '%s\n' "$4" >"$t/mbm_total_bytes" &&
	printf '%s\n' "$5" >"$t/mbm_local_bytes" &&
	if [ -d "$1/mon_data/mon_L3_$2" ]; then
		mv -f "$t"/* "$1/mon_data/mon_L3_$2/" && rmdir "$t"
	else
		mv "$t" "$1/mon_data/mon_L3_$2"
	fi
}

wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

wait_gone() {
	i=0
	while [ -e "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -e "$1" ]
}
