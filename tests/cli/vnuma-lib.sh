# vnuma-lib.sh - the fixture trees of t9046 and t9047 (worked by hand in
# t9046's header): host-libvirt-v2 with db-2's IOThread and vhost worker on
# node 0 (libvirt_tree, into ./t), host-qemu with m0 bound to node 0 and m1
# interleaved, both vCPUs on node 1 (qemu_tree, into ./q).  Sourced after
# lib.sh, with R set.

# stat FILE TID COMM PPID CPU: a /proc stat line (fields 1-52) with that CPU in field 39
stat() {
	python3 - "$@" <<-'PY'
	import sys
	f, tid, comm, ppid, cpu = sys.argv[1:]
	rest = ["S", ppid, tid, tid, "0", "-1", "4194560", "0", "0", "0", "0", "400", "100", "0", "0",
	        "20", "0", "2", "0", "5000", "1642369024", "9234", "18446744073709551615"]
	rest += ["0"] * (36 - len(rest)) + [cpu] + ["0"] * 13
	open(f, "w").write("%s (%s) %s\n" % (tid, comm, " ".join(rest)))
	PY
}

# status FILE TID TGID NAME CPUS
status() {
	printf "Name:\t%s\nState:\tS (sleeping)\nTgid:\t%s\nPid:\t%s\nCpus_allowed_list:\t%s\n" \
		"$4" "$3" "$2" "$5" >"$1"
}

libvirt_tree() {
	rm -rf t && cp -R "$R/host-libvirt-v2" t &&
	mkdir -p t/proc/2000/task/2003 t/proc/2500/task/2500 &&
	stat t/proc/2000/task/2003/stat 2003 "IO iothread1" 1 0 &&
	status t/proc/2000/task/2003/status 2003 2000 "IO iothread1" 0-3 &&
	: >t/proc/2500/cmdline &&
	stat t/proc/2500/stat 2500 vhost-2000 2 1 &&
	cp t/proc/2500/stat t/proc/2500/task/2500/stat &&
	status t/proc/2500/task/2500/status 2500 2500 vhost-2000 0-3
}

qemu_tree() {
	rm -rf q && cp -R "$R/host-qemu" q &&
	printf "%s\0" qemu-system-x86_64 -accel tcg -name "vptest,,x,debug-threads=on" -smp 2 \
		-m 256 -object memory-backend-ram,id=m0,size=128M,host-nodes=0,policy=bind \
		-object "memory-backend-ram,id=m1,size=128M,host-nodes=0-1,policy=interleave" \
		-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
		-display none -nodefaults >q/proc/4000/cmdline &&
	sed -e "s/^7f4000000000 default/7f4000000000 bind:0/" \
		-e "s/^7f4008000000 default/7f4008000000 interleave:0-1/" \
		"$R/host-qemu/proc/4000/numa_maps" >q/proc/4000/numa_maps &&
	stat q/proc/4000/task/4002/stat 4002 "CPU 0/TCG" 1 2 &&
	stat q/proc/4000/task/4003/stat 4003 "CPU 1/TCG" 1 3
}

