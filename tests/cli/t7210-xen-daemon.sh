#!/bin/sh
# t7210-xen-daemon.sh - the daemon's opt-in to Xen's page dump
# (xen_numa_dump / --xen-numa-dump[=SECS]): its collector (sessions and their
# diagnosis), GET /api/v1/vms and `vmmprof --remote ... diagnose` show each
# domain's memory per node; without it they do not.  On the xen-dom0 fixture:
# its newest dump in xl/dmesg.txt gives guest1 16384 pages (4 KiB) on each of
# nodes 0 and 1, and guest1's two vCPUs run on node 0 (pCPUs 1 and 0), so its
# placement estimate of the remote share is 16384 / 32768 = 0.5.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

daemon_home
R=$VP_DATA/root/xen-dom0
P=4096
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null

# guest EXPR FILE: EXPR of guest1 (as v) in a list vms document
guest() {
	json_get "$2" "[v for v in j[\"vms\"] if v[\"name\"] == \"guest1\"][0]$1"
}

test_expect_success 'xen_numa_dump in the configuration file: the daemon says it asks Xen' '
	printf "users = users\nroot = \"%s\"\nxen_numa_dump = 0\n" "$R" >conf &&
	start_daemon on --config conf &&
	grep_q "^vmmprofd: Xen.s memory per node: .xl debug-keys u. at most every 0 s" on.err
'

test_expect_success 'GET /api/v1/vms: guest1 has memory per node from the dump (pages x 4 KiB)' '
	expect_status 200 on adm.tok GET /api/v1/vms &&
	test "$(guest "[\"mem_node_bytes\"]" body)" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	guest "[\"mem_reason\"]" body | grep -q "debug key"
'

test_expect_success 'a session diagnosis: memory per node and the locality estimate from the dump' '
	expect_status 201 on adm.tok POST /api/v1/sessions -d "{\"model\":\"software\",\"interval_ms\":200}" &&
	id=$(json_get body "j[\"id\"]") &&
	sleep 0.6 &&
	expect_status 200 on adm.tok GET /api/v1/sessions/$id/diagnosis &&
	test "$(json_get body "[v[\"mem_node_bytes\"] for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"guest1\"][0]")" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	test "$(json_get body "[v[\"factors\"][\"locality\"][\"score\"] for v in j[\"diagnosis\"][\"vms\"] if v[\"vm\"] == \"guest1\"][0]")" = 0.5 &&
	expect_status 200 on adm.tok DELETE /api/v1/sessions/$id
'

if vmmprof --remote http://127.0.0.1:1 info --json 2>&1 | grep -q "built without libcurl"; then
	test_skip 'vmmprof --remote diagnose (text) from the daemon answer' 'this build has no --remote client (libcurl missing)'
else
	test_expect_success 'vmmprof --remote diagnose (text): the memory rows rendered from the daemon answer' '
		vmmprof --remote "$(cat on.url)" --token-file adm.tok diagnose -m software -d 0.5 >out 2>err &&
		grep_q "^  guest1   node 0 64.0 MiB, node 1 64.0 MiB (Xen.s pages per node" out
	'
fi

test_expect_success 'stopped cleanly' '
	stop_daemon on && test "$(cat on.rc)" = 0
'

test_expect_success 'without the opt-in: no dump is read, guest1 has none and the reason says how' '
	start_daemon off --users users --root "$R" &&
	! grep_q "debug-keys" off.err &&
	expect_status 200 off adm.tok GET /api/v1/vms &&
	test "$(guest "[\"mem_node_bytes\"]" body)" = None &&
	guest "[\"mem_reason\"]" body | grep -q -- "--xen-numa-dump" &&
	stop_daemon off
'

test_expect_success '--xen-numa-dump on the command line (the default 60 s), and bad values refused' '
	start_daemon cli --users users --root "$R" --xen-numa-dump &&
	grep_q "at most every 60 s" cli.err &&
	expect_status 200 cli adm.tok GET /api/v1/vms &&
	test "$(guest "[\"mem_node_bytes\"]" body)" = \
		"{'\''0'\'': $((16384 * P)), '\''1'\'': $((16384 * P))}" &&
	stop_daemon cli &&
	expect_exit 2 vmmprof serve --users users --root "$R" --xen-numa-dump=soon 2>err &&
	grep_q "xen_numa_dump is seconds from 0 to 86400, on or off, not .soon." err &&
	printf "xen-numa-dump = -5\n" >bad.conf &&
	expect_exit 1 vmmprof serve --config bad.conf --users users 2>err &&
	grep_q "bad.conf:1:17: xen_numa_dump is seconds" err
'

test_expect_success 'help names the setting' '
	vmmprof help serve >h && grep_q "xen-numa-dump" h
'

stop_all_daemons

# a dom0 root where xl cannot be run (no captured xl list -l) and the
# process is not root (proc/self/status Uid 998): /api/v1/vms says why
test_expect_success 'a daemon that is not root in dom0: /api/v1/vms says why no domain is listed' '
	mkdir -p noroot/proc/self && cp -r "$R/proc" "$R/sys" noroot/ &&
	printf "Name:\tvmmprofd\nUid:\t998\t998\t998\t998\nCapEff:\t0000000000000000\n" >noroot/proc/self/status &&
	start_daemon nr --users users --root noroot &&
	expect_status 200 nr adm.tok GET /api/v1/vms &&
	json_get body "j[\"notes\"]" >notes &&
	grep_q "xen: no domain listed: cannot open .*/.vmmprof-fixture/xl/list-l" notes &&
	grep_q "xl needs root in dom0 (/dev/xen/privcmd and xenstored)" notes &&
	test "$(json_get body "len(j[\"vms\"])")" = 0 &&
	stop_daemon nr
'

test_done
