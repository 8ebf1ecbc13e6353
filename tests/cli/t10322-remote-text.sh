#!/bin/sh
# t10322-remote-text.sh - `vmmprof --remote URL info|list vms|model show` without --json:
# the daemon's JSON read back and printed by the local command's own renderer, so the
# remote text equals the local text on the same machine.  What may differ, and why:
#   - info's first line and model show's "on ...:" line name where the daemon is
#     ('URL', with "(root DIR)" when it reads a fixture tree) instead of
#     "this machine" or the root;
#   - on the live machine, info's per-node "free" memory (two probes, two moments),
#     and list vms's running figures of a live VM (cpu, node, state, cpu_s, the
#     estimate, resident memory).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
. "$(dirname "$0")/remote-lib.sh"

R=$VP_DATA/root

if ! daemon_usable; then
	test_skip 'remote text against a real daemon' "$daemon_why"
	test_done
	exit
fi

vmmprof user add vera --role viewer --users users >vera.tok 2>/dev/null
T=$TRASH/vera.tok

# --- fixture trees: byte for byte but the line naming the machine ---
for fx in host-libvirt-v2 xen-dom0 skx-2s; do
	test_expect_success "$fx: daemon on the fixture tree" '
		start_daemon "$fx" --users users --root "$R/$fx"
	'
	U=$(cat "$TRASH/$fx.url" 2>/dev/null)

	test_expect_success "$fx: info (text) is the local text; line 1 names the daemon" '
		vmmprof --remote "$U" --token-file "$T" info >remote &&
		vmmprof info --root "$R/'"$fx"'" >local &&
		test "$(head -1 remote)" = "vmmprof info: '"'"'$U'"'"' (root $R/'"$fx"')" &&
		test "$(head -1 local)" = "vmmprof info: $R/'"$fx"'" &&
		tail -n +2 remote >r && tail -n +2 local >l &&
		test $(wc -l <l) -gt 30 &&
		cmp l r
	'

	test_expect_success "$fx: list vms (text), and with a pattern, is the local text byte for byte" '
		vmmprof --remote "$U" --token-file "$T" list vms >remote &&
		vmmprof list vms --root "$R/'"$fx"'" >local &&
		cmp local remote &&
		vmmprof --remote "$U" --token-file "$T" list vms "*1*" >remote &&
		vmmprof list vms "*1*" --root "$R/'"$fx"'" >local &&
		cmp local remote &&
		vmmprof --remote "$U" --token-file "$T" list vms no-such-vm >remote &&
		grep_q "^no VMs found matching .no-such-vm.$" remote
	'

	test_expect_success "$fx: model show skx and software (text): local text but the \"on\" line" '
		for m in skx software; do
			vmmprof --remote "$U" --token-file "$T" model show $m >remote &&
			vmmprof model show $m --root "$R/'"$fx"'" >local || return 1
			grep_q "^  on '"'"'$U'"'"' (root $R/'"$fx"'): " remote &&
			grep_q "^  on $R/'"$fx"': " local &&
			sed "s#^  on '"'"'$U'"'"'[^:]*: #  on X: #" remote >r &&
			sed "s#^  on $R/'"$fx"': #  on X: #" local >l &&
			grep_q "^  on X: " r && grep_q "^factors:" l &&
			cmp l r || return 1
		done
	'
	stop_daemon "$fx"
done

test_expect_success 'host-libvirt-v2: both VMs, their vCPU threads and estimates in the remote text' '
	start_daemon lv --users users --root "$R/host-libvirt-v2" &&
	vmmprof --remote "$(cat "$TRASH/lv.url")" --token-file "$T" list vms >remote &&
	grep_q "^web1$" remote && grep_q "^db-2$" remote &&
	grep_q "^ *0  *1002  *1  *0  *0-1 " remote && grep_q "^ *1  *1003  *2  *1  *2-3 " remote &&
	grep_q "an estimate, not a count" remote &&
	stop_daemon lv
'

test_expect_success 'list vms --json with a pattern is refused remotely (the document is the daemon'"'"'s)' '
	start_daemon lv2 --users users --root "$R/host-libvirt-v2" &&
	expect_exit 2 vmmprof --remote "$(cat "$TRASH/lv2.url")" --token-file "$T" list vms web --json 2>err &&
	grep_q "no PATTERN" err &&
	stop_daemon lv2
'

# --- this machine: a daemon on / and the local commands ---
test_expect_success 'live: daemon on this machine' '
	start_daemon live --users users
'
U=$(cat "$TRASH/live.url" 2>/dev/null)

# the node table's last column ("free") blanked: it is read at two moments
mask_free() {
	awk '/^Topology$/ {t = 1} /^PMUs/ {t = 0}
	     t && $1 ~ /^[0-9]+$/ && NF >= 4 { sub(/[0-9.]+ [KMGT]?i?B *$/, "FREE") } {print}'
}

# QEMU processes of other users start and stop between two probes (the role,
# the summary, "QEMU here"): the remote page must equal the local page taken
# just before or just after it; five tries.
test_expect_success 'live info (text): the local text but line 1 and the free memory per node' '
	i=0
	while [ $i -lt 5 ]; do
		vmmprof info >local1 &&
		vmmprof --remote "$U" --token-file "$T" info >remote &&
		vmmprof info >local2 || return 1
		test "$(head -1 remote)" = "vmmprof info: '"'"'$U'"'"'" &&
		test "$(head -1 local1)" = "vmmprof info: this machine" || return 1
		tail -n +2 remote | mask_free >r &&
		tail -n +2 local1 | mask_free >l1 && tail -n +2 local2 | mask_free >l2 &&
		grep_q "FREE" l1 || return 1
		if cmp -s l1 r || cmp -s l2 r; then
			return 0
		fi
		i=$((i + 1))
	done
	diff -u l1 r
'

test_expect_success 'live model show (text) of the chosen model and of skx: the local text but the "on" line' '
	m=$(vmmprof model list --json | python3 -c "import json,sys; print(json.load(sys.stdin)[\"chosen\"] or \"software\")") &&
	for n in "$m" skx; do
		vmmprof --remote "$U" --token-file "$T" model show "$n" >remote &&
		vmmprof model show "$n" >local || return 1
		grep_q "^  on '"'"'$U'"'"': " remote &&
		grep_q "^  on this machine: " local &&
		sed "s#^  on '"'"'$U'"'"': #  on X: #" remote >r &&
		sed "s#^  on this machine: #  on X: #" local >l &&
		grep_q "^  on X: " r &&
		cmp l r || return 1
	done
'

test_expect_success 'a document the renderer cannot read is an error, not a page of unknowns' '
	mkdir -p fake && printf "{\"schema\":\"something-else\"}\n" >fake/info &&
	p=$(free_port) || return 1
	python3 -c "
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b = open(\"fake/info\", \"rb\").read()
        self.send_response(200); self.send_header(\"Content-Type\", \"application/json\")
        self.send_header(\"Content-Length\", str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
s = http.server.HTTPServer((\"127.0.0.1\", int(sys.argv[1])), H)
s.timeout = 30
open(\"fake/ready\", \"w\").close()
s.handle_request()
" "$p" &
	i=0
	while [ ! -e fake/ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	expect_exit 1 vmmprof --remote "http://127.0.0.1:$p" --token-file "$T" info >out 2>err &&
	grep_q "not a vmmprof-info/2 document" err &&
	test ! -s out
'

# --- a live VM: the same VM in both lists ---
if command -v qemu-system-x86_64 >/dev/null 2>&1; then
	NAME=vp-t10322-$$
	python3 -c 'import sys; d = bytearray(65536); d[0xfff0:0xfff2] = b"\xeb\xfe"; open(sys.argv[1], "wb").write(d)' \
		"$TRASH/spin.rom"
	qemu-system-x86_64 -accel tcg -name "guest=$NAME,debug-threads=on" -smp 2 -m 64 \
		-bios "$TRASH/spin.rom" -display none -nodefaults >"$TRASH/qemu.log" 2>&1 &
	QPID=$!
	i=0
	while [ $i -lt 100 ] && ! grep -qs "CPU 1/TCG" /proc/$QPID/task/*/comm; do sleep 0.1; i=$((i + 1)); done
	# what does not move while it runs: the name line, the hypervisor line, vcpu and tid
	steady() {
		awk -v n="$NAME" '$0 == n {p = 1; print; next} /^$/ {p = 0}
		     p && /^  hypervisor/ {print} p && /^ *[0-9]+ +[0-9]+ / {print $1, $2}'
	}
	test_expect_success 'live QEMU: the remote list vms text shows the same VM, vCPUs and threads' '
		vmmprof --remote "$U" --token-file "$T" list vms "$NAME" >remote &&
		vmmprof list vms "$NAME" >local &&
		steady <remote >r && steady <local >l &&
		grep_q "^$NAME$" r &&
		grep_q "hypervisor  kvm, type tcg, pid $QPID " r &&
		test $(grep -c "^[01] [0-9]" r) = 2 &&
		cmp l r
	'
	kill "$QPID" 2>/dev/null
	wait "$QPID" 2>/dev/null
else
	test_skip 'live QEMU: the same VM in the remote list vms text' 'qemu-system-x86_64 is not installed'
fi

stop_all_daemons
test_done
