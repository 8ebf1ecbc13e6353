#!/bin/sh
# t11080-vm-unknown.sh - --vm NAME that no VM has is an error that lists the
# VMs there are (or says there is none), at once, unless --wait; a daemon
# session refuses it the same way unless "wait": true
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root/host-libvirt-v2   # its VMs: web1 and db-2 (tests/data/root/README.md)

test_expect_success 'top --vm nosuch on a host with VMs: exit 1, the VMs there are' '
	expect_exit 1 vmmprof top --batch -n 1 --root "$R" --vm nosuch >out 2>err &&
	grep_q "error: no VM named .nosuch. here; VMs here: web1, db-2" err &&
	test ! -s out
'

test_expect_success 'diagnose and record --vm nosuch: the same, before any collecting' '
	expect_exit 1 vmmprof diagnose --root "$R" --vm web1 --vm nosuch -d 0.2 2>err &&
	grep_q "no VM named .nosuch. here; VMs here: web1, db-2" err &&
	expect_exit 1 vmmprof record --root "$R" -o r.vmmdb --vm nosuch -d 0.2 2>err &&
	grep_q "no VM named .nosuch. here; VMs here: web1, db-2" err &&
	test ! -e r.vmmdb
'

test_expect_success 'a host with no VM: "no VM found"' '
	expect_exit 1 vmmprof diagnose --root "$VP_DATA/root/local" --vm nosuch -d 0.2 2>err &&
	grep_q "no VM named .nosuch. here: no VM found" err
'

# live: the issue's run took the whole duration on 0 threads and exited 0
test_expect_success 'live diagnose --vm nosuch -d 30 fails at once, not after 30 s' '
	t0=$(date +%s) &&
	expect_exit 1 timeout 20 "$VMMPROF" diagnose --vm "nosuch-$$" -d 30 2>err &&
	test $(( $(date +%s) - t0 )) -lt 15 &&
	grep_q "no VM named .nosuch-$$. here" err
'

test_expect_success '--wait=SECS waits that long, says so, then fails naming it' '
	t0=$(date +%s) &&
	expect_exit 1 vmmprof record --root "$R" -o w.vmmdb --vm nosuch --wait=1 -d 0.2 2>err &&
	test $(( $(date +%s) - t0 )) -ge 1 &&
	grep_q "waiting up to 1 s for it (--wait)" err &&
	grep_q "error: no VM named .nosuch. here; VMs here: web1, db-2 (waited 1 s for it: --wait)" err &&
	test ! -e w.vmmdb
'

test_expect_success 'a --vm that is there is counted as before; bad --wait is a usage error' '
	vmmprof top --batch -n 1 --root "$R" --vm web1 >out 2>err &&
	grep_q web1 out &&
	expect_exit 2 vmmprof diagnose --vm x --wait=-1 2>err && grep_q "wait needs seconds > 0" err &&
	# top waits as long as it runs: --wait takes no seconds there
	expect_exit 2 vmmprof top --batch --vm x --wait=5 2>err && grep_q "option .--wait. takes no value" err
'

if command -v qemu-system-x86_64 >/dev/null; then
	test_expect_success '--wait: a VM that starts while waiting is then counted' '
		vmname=vpwait-$$
		# started once diagnose says it waits (at load 20 its start-up takes seconds)
		( i=0; while ! grep -q "waiting up to" err 2>/dev/null && [ $i -lt 600 ]; do
			sleep 0.1; i=$((i + 1)); done
		  exec qemu-system-x86_64 -accel tcg -name "guest=$vmname,debug-threads=on" \
			-smp 1 -m 64 -display none -nodefaults -no-reboot >/dev/null 2>&1 ) &
		starter=$!
		vmmprof diagnose --vm "$vmname" --wait=60 -d 0.5 --json >d.json 2>err; rc=$?
		pkill -f "guest=$vmname," 2>/dev/null; wait $starter 2>/dev/null
		cat err && test $rc = 0 &&
		grep_q "waiting up to 60 s for it" err &&
		json_get d.json "j[\"targets\"] >= 1" | grep -q True
	'
else
	test_skip '--wait: a VM that starts while waiting is then counted' 'qemu-system-x86_64 is not installed'
fi

. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
cd "$TRASH" || exit 1
vmmprof user add op --role operator --users users >op.tok 2>/dev/null
start_daemon d --users users --root "$R"

test_expect_success 'a daemon session on a VM that is not there: 400 with the VMs there are' '
	expect_status 400 d op.tok POST /api/v1/sessions -d "{\"vms\":[\"nosuch\"]}" &&
	grep_q "no VM named .nosuch. here; VMs here: web1, db-2" body
'

test_expect_success 'with "wait": true it is made' '
	expect_status 201 d op.tok POST /api/v1/sessions -d "{\"vms\":[\"nosuch\"],\"wait\":true}"
'

stop_daemon d
test_done
