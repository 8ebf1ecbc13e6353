#!/bin/sh
# t10027-daemon-history-bytes.sh - a session keeps its newest frames up to
# history_mib MiB (issue 22: at 1,000 vCPUs a frame is some 1.5 MB, and 600
# of them were 900 MB per session): the same recording replayed by a daemon
# with the default (64 MiB: every frame here) and one with history_mib = 1,
# whose history is the newest frames that fit in 1 MiB, counted here from the
# first daemon's frames (their bytes as the history endpoint gives them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
[ -x "$VP_HELPERS/rec_synth" ] || { test_skip 'history size cap' 'VP_HELPERS/rec_synth is not built'; test_done; }

daemon_home
mkdir rec
# 30 frames of 200 vCPUs: some 0.3 MB a frame, 9 MB in all
"$VP_HELPERS/rec_synth" rec/alice+big.vmmdb 30 200 >/dev/null || exit 1
add_users "$TRASH/users" alice:operator || exit 1
printf "users = users\nrecordings_dir = rec\nhistory_mib = 1\n" >small.conf
printf "users = users\nhistory_mib = 0\n" >zero.conf
started=0
start_daemon all --users users --recordings-dir rec >start.out 2>&1 &&
	start_daemon small --config small.conf >>start.out 2>&1 && started=1

field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" body; }
# history NAME: the replayed session's history into NAME.json
history() {
	expect_status 201 "$1" "$TRASH/alice.token" POST /api/v1/sessions \
		-d "{\"recording\":\"alice+big.vmmdb\"}" &&
	sid=$(field id) &&
	expect_status 200 "$1" "$TRASH/alice.token" GET "/api/v1/sessions/$sid/history" &&
	mv body "$1.json"
}
# frames FILE: each frame's seq and its bytes in the {"frames":[...]} body, one a line
frames() {
	python3 -c '
import json, sys
t = open(sys.argv[1]).read()
i = len("{\"frames\":[")
assert t.startswith("{\"frames\":[")
d = json.JSONDecoder()
while t[i] != "]":
	f, e = d.raw_decode(t, i)
	print(f["seq"], e - i)
	i = e + (t[e] == ",")
' "$1"
}

test_expect_success 'both daemons start' '
	test $started = 1 || { cat start.out; false; }
'

test_expect_success 'the default keeps every frame; history_mib = 1 the newest that fit in 1 MiB' '
	history all && history small &&
	frames all.json >all.frames && frames small.json >small.frames &&
	test "$(wc -l <all.frames)" = 30 &&
	# by hand: from the newest back, while the sum stays within 1048576 bytes
	sort -k1,1nr all.frames | awk "{ s += \$2; if (s > 1048576) exit; print }" |
		sort -k1,1n >want.frames &&
	n=$(wc -l <want.frames) && echo "kept $n of 30" &&
	test "$n" -ge 1 && test "$n" -lt 30 &&
	diff -u want.frames small.frames &&
	test "$(tail -1 small.frames | cut -d" " -f1)" = 30
'

test_expect_success 'history_mib below 1 is refused with the file and the key' '
	expect_exit 1 vmmprof serve --config zero.conf 2>err &&
	grep_q "history_mib" err && grep_q "zero.conf" err
'

test_done
