#!/bin/sh
# t10302-remote-diagnose-options.sh - `vmmprof --remote URL diagnose` knows every option of the
# local diagnose: --wait and --xen-hard-pin passed through to the daemon, --apply refused with
# the reason (it acts on the machine it runs on), the daemon-side settings refused as local only
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

. "$(dirname "$0")/remote-lib.sh"

if ! daemon_usable; then
	test_skip 'remote diagnose options against a real daemon' "$daemon_why"
	test_done
	exit
fi

R=$VP_DATA/root/host-libvirt-v2
X=$VP_DATA/root/xen-dom0

test_expect_success 'set-up: an operator, a daemon on a KVM fixture tree and one on a Xen dom0 tree' '
	vmmprof user add alice --role operator --users users >alice.tok &&
	start_daemon fx --users users --root "$R" &&
	start_daemon xen --users users --root "$X"
'
U=$(cat "$TRASH/fx.url" 2>/dev/null)
UX=$(cat "$TRASH/xen.url" 2>/dev/null)
T=$TRASH/alice.tok

# sessions: how many sessions alice has on the daemon at URL
sessions() {
	curl -s -H "Authorization: Bearer $(cat "$T")" "$1/api/v1/sessions" >sessions.json &&
	json_get sessions.json "len(j[\"sessions\"])"
}

test_expect_success '--apply and its options are refused with the reason, before any session' '
	for o in --apply --dry-run --yes --allow-low-confidence; do
		expect_exit 2 vmmprof --remote "$U" --token-file "$T" diagnose $o -d 0.3 2>err &&
		grep_q "$o. does not apply with --remote: --apply runs the advice.s commands on the machine it runs on" err ||
		return 1
	done &&
	test "$(sessions "$U")" = 0
'

test_expect_success 'the daemon-side settings are local only, named (not their argument)' '
	for o in "--root /" "--model-path /tmp" "--calibration c.json" --xentrace --xen-numa-dump; do
		expect_exit 2 vmmprof --remote "$U" --token-file "$T" diagnose $o -d 0.3 2>err &&
		grep_q "${o%% *}. does not apply with --remote (the daemon has its own)" err ||
		return 1
	done
'

# A VM no one starts: without --wait the daemon refuses at once; --wait=2 asks again every
# second, so the refusal comes after 2 s at least (and well before the 60 s default).
test_expect_success '--wait=SECS asks again for a VM that is not there, then gives the daemon reason' '
	expect_exit 1 vmmprof --remote "$U" --token-file "$T" diagnose --vm no-such-vm -d 0.3 2>err &&
	grep_q "no VM named .no-such-vm." err &&
	t0=$(date +%s) &&
	expect_exit 1 vmmprof --remote "$U" --token-file "$T" diagnose --vm no-such-vm --wait=2 -d 0.3 2>err &&
	t1=$(date +%s) &&
	grep_q "no VM named .no-such-vm." err &&
	test $((t1 - t0)) -ge 2 && test $((t1 - t0)) -lt 30 &&
	expect_exit 2 vmmprof --remote "$U" --token-file "$T" diagnose --wait=x -d 0.3 2>err &&
	grep_q "invalid --wait" err
'

test_expect_success '--wait with a VM that is there: the diagnosis, as without it' '
	vmmprof --remote "$U" --token-file "$T" diagnose --vm web1 --wait=5 -d 0.5 --json >d.json 2>err &&
	test "$(json_get d.json "\",\".join(v[\"vm\"] for v in j[\"diagnosis\"][\"vms\"])")" = web1
'

# --xen-hard-pin goes to the daemon as ?xen_hard_pin=1 on the diagnosis.  The Xen dom0
# fixture advises a vNUMA restart (no vCPU pin, whose soft or hard form the flag decides),
# so what this shows is that the flag is taken and the advice is the local one with it;
# the soft/hard wording itself is tested on diagnose inputs (test_diagnose).
test_expect_success '--xen-hard-pin is passed to the daemon: the advice the local diagnose gives with it' '
	vmmprof diagnose --root "$X" -d 0.5 --json --xen-hard-pin >local.json &&
	vmmprof --remote "$UX" --token-file "$T" diagnose -d 0.5 --json --xen-hard-pin >remote.json &&
	rules() { json_get "$1" "sorted(a[\"rule\"] for a in j[\"diagnosis\"][\"advice\"])"; } &&
	test "$(rules local.json)" != "[]" &&
	test "$(rules remote.json)" = "$(rules local.json)"
'

stop_daemon fx
stop_daemon xen
test_done
