#!/bin/sh
# t10300-remote.sh - `vmmprof --remote URL` against a real vmmprofd on loopback: the same
# JSON as the local commands byte for byte, top through the local renderer, clear errors
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

. "$(dirname "$0")/remote-lib.sh"

R=$VP_DATA/root/host-libvirt-v2

if ! daemon_usable; then
	test_skip 'remote commands against a real daemon' "$daemon_why"
	test_done
	exit
fi

# One daemon on a fixture tree (two libvirt VMs, web1 and db-2), so that its
# answers can be compared with the local commands on the same tree.
test_expect_success 'set-up: users alice (operator) and vera (viewer), a daemon on a fixture tree' '
	vmmprof user add alice --role operator --users users >alice.tok &&
	vmmprof user add vera --role viewer --users users >vera.tok &&
	start_daemon fx --users users --root "$R"
'
U=$(cat "$TRASH/fx.url" 2>/dev/null)
T=$TRASH/alice.tok

# has_endpoint METHOD PATH: the daemon routes it (anything but "no such endpoint")
has_endpoint() {
	curl -s -m 1 -X "$1" -H "Authorization: Bearer $(cat "$TRASH/vera.tok")" "$U$2" 2>/dev/null |
		grep -q "no such endpoint" && return 1
	return 0
}
HAVE_TOP=; has_endpoint GET "/api/v1/top/stream?interval_ms=1000" && HAVE_TOP=1
HAVE_SESSIONS=; has_endpoint POST /api/v1/sessions && HAVE_SESSIONS=1
NO_TOP="the daemon has no /api/v1/top/stream yet"
NO_SESSIONS="the daemon has no /api/v1/sessions yet"

test_expect_success 'info --json: byte for byte what the local info --json prints' '
	vmmprof --remote "$U" --token-file "$T" info --json >remote &&
	vmmprof info --json --root "$R" >local &&
	cmp remote local
'

test_expect_success 'list vms --json and model list --json: the local documents (VMMPROF_* variables)' '
	VMMPROF_REMOTE=$U VMMPROF_TOKEN_FILE=$T vmmprof list vms --json >remote &&
	vmmprof list vms --json --root "$R" >local &&
	cmp remote local &&
	json_get remote "sorted(v[\"name\"] for v in j[\"vms\"])" >names &&
	grep_q "db-2" names && grep_q "web1" names &&
	VMMPROF_REMOTE=$U VMMPROF_TOKEN_FILE=$T vmmprof model list --json >remote &&
	vmmprof model list --json >local &&
	cmp remote local
'

test_expect_success 'model list (text): the local renderer over the daemon document' '
	vmmprof --remote "$U" --token-file "$T" model list >remote &&
	vmmprof model list --root "$R" >local &&
	grep_q "^\* chosen for .$U.: " remote &&
	# the same but for where the daemon runs: the fixture root locally, the URL remotely
	sed "s/^\* chosen for .*: \([^ ]*\), by /* chosen for X: \1, by /" remote >r &&
	sed "s/^\* chosen for .*: \([^ ]*\), by /* chosen for X: \1, by /" local >l &&
	cmp r l &&
	grep_q "^\*  software  " r
'

if [ -n "$HAVE_TOP" ]; then
test_expect_success 'top --batch: the local top text renderer over the daemon stream' '
	vmmprof --remote "$U" --token-file "$T" top --batch -n 2 -d 0.2 >remote &&
	test $(grep -c "^vmmprof top: sample" remote) = 2 &&
	# the fixture: web1 50 % remote (estimate), its resctrl group holds 1 MiB + 512 KiB of LLC
	grep_q "^web1 .* 50.0%e  *1.5M " remote &&
	grep_q "^LLC n/a: ." remote && grep_q "^QUEUE n/a: ." remote &&
	vmmprof top --batch -n 2 -d 0.2 --root "$R" >local &&
	# the same text, but for the measured interval on the header line
	sed "s/interval [0-9.]* s/interval X s/" remote >r && sed "s/interval [0-9.]* s/interval X s/" local >l &&
	cmp r l
'

test_expect_success 'top --batch --view node and process: composed from the stream, as locally' '
	for v in node process; do
		vmmprof --remote "$U" --token-file "$T" top --batch --view $v -n 1 -d 0.2 >remote &&
		vmmprof top --batch --view $v -n 1 --root "$R" >local &&
		sed "s/interval [0-9.]* s/interval X s/" remote >r &&
		sed "s/interval [0-9.]* s/interval X s/" local >l &&
		cmp r l || return 1
	done &&
	grep_q "^   1000 web1  *n/a  *25.0  *50.0%e" r
'
else
	test_skip 'top --batch: the local top text renderer over the daemon stream' "$NO_TOP"
fi

if [ -n "$HAVE_TOP" ]; then
test_expect_success 'top --json: the daemon lines as they come, one per sample' '
	vmmprof --remote "$U" --token-file "$T" top --json -n 2 -d 0.2 >out &&
	test $(wc -l <out) = 2 &&
	tail -1 out >s2 &&
	json_get s2 "sorted(v[\"name\"] for v in j[\"vms\"])" | grep -q "db-2" &&
	json_get s2 "j[\"interval_s\"] > 0.1" | grep -q True
'
else
	test_skip 'top --json: the daemon lines as they come, one per sample' "$NO_TOP"
fi

test_expect_success 'no token: 401, says which option gives one' '
	expect_exit 1 vmmprof --remote "$U" info --json >out 2>err &&
	test ! -s out &&
	grep_q "wants a token (401): give --token-file" err
'

test_expect_success 'a wrong token: 401, says the token in that file was refused' '
	echo not-a-token >bad.tok &&
	expect_exit 1 vmmprof --remote "$U" --token-file bad.tok info --json 2>err &&
	grep_q "refused the token in .bad.tok. (401)" err
'

if [ -n "$HAVE_SESSIONS" ]; then
test_expect_success 'a viewer cannot start a session: 403 names the user and the role' '
	expect_exit 1 vmmprof --remote "$U" --token-file "$TRASH/vera.tok" diagnose --json -d 0.1 2>err &&
	grep_q "forbidden (403) for user .vera. with role .viewer." err
'
else
	test_skip 'a viewer cannot start a session: 403 names the user and the role' "$NO_SESSIONS"
fi

test_expect_success 'connection refused names the URL' '
	port=$(free_port) &&
	expect_exit 1 vmmprof --remote "http://127.0.0.1:$port" --token-file "$T" info --json 2>err &&
	grep_q "cannot connect to .http://127.0.0.1:$port.: connection refused" err
'

test_expect_success 'usage errors: a bad URL, --root with --remote (also in text), no URL' '
	expect_exit 1 vmmprof --remote "ftp://x" info --json 2>err && grep_q "not an http" err &&
	expect_exit 2 vmmprof --remote "$U" --token-file "$T" info --json --root / 2>err &&
	grep_q "does not apply with --remote" err &&
	expect_exit 2 vmmprof --remote "$U" --token-file "$T" list vms --root / 2>err &&
	grep_q "does not apply with --remote" err &&
	expect_exit 2 vmmprof --remote 2>err
'

if [ -n "$HAVE_TOP" ]; then
test_expect_success 'top on a terminal: the local screen, fed by the daemon stream (tmux)' '
	command -v tmux >/dev/null || { echo "tmux missing"; return 1; }
	S=vp-t10300-$$ &&
	tmux kill-session -t "$S" 2>/dev/null
	tmux new-session -d -s "$S" -x 150 -y 40 \
		"TERM=xterm-256color $VMMPROF --remote $U --token-file $T top -d 0.3; echo EXIT=\$?; sleep 30" &&
	i=0; while [ $i -lt 50 ]; do tmux capture-pane -p -t "$S" >s1; grep -q "web1 .* kvm .* 1000 .* 2 " s1 && break; sleep 0.1; i=$((i + 1)); done &&
	grep_q "2:VMs" s1 && grep_q "db-2" s1 && grep_q "50.0%e" s1 &&
	tmux send-keys -t "$S" 1 &&
	i=0; while [ $i -lt 50 ]; do tmux capture-pane -p -t "$S" >s2; grep -q "^ *1  *2048M  *8192M  *0  *0  *0 " s2 && break; sleep 0.1; i=$((i + 1)); done &&
	grep_q "MEM_TOTAL" s2 &&
	tmux send-keys -t "$S" q &&
	i=0; while [ $i -lt 50 ]; do tmux capture-pane -p -t "$S" >s3; grep -q "EXIT=" s3 && break; sleep 0.1; i=$((i + 1)); done &&
	tmux kill-session -t "$S" &&
	grep_q "EXIT=0" s3
'
else
	test_skip 'top on a terminal: the local screen, fed by the daemon stream (tmux)' "$NO_TOP"
fi

if command -v openssl >/dev/null; then
test_expect_success 'https: an untrusted certificate is a TLS error that names --cacert; with --cacert it works' '
	openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
		-subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null &&
	start_daemon tls --users users --root "$R" --tls-cert cert.pem --tls-key key.pem &&
	S_U=$(cat tls.url) &&
	expect_exit 1 vmmprof --remote "$S_U" --token-file "$T" info --json >out 2>err &&
	grep_q "TLS with .$S_U. failed: .*--cacert" err &&
	vmmprof --remote "$S_U" --token-file "$T" --cacert cert.pem info --json >remote &&
	vmmprof info --json --root "$R" >local && cmp remote local &&
	expect_exit 1 vmmprof --remote "$(sed s/https/http/ tls.url)" --token-file "$T" info --json 2>err &&
	grep_q "https" err
'
stop_daemon tls
else
test_skip 'https with an untrusted and a trusted certificate' 'openssl is not installed'
fi

if [ -n "$HAVE_TOP" ]; then
test_expect_success 'the daemon going away mid-stream: non-zero exit, the samples printed stay' '
	(vmmprof --remote "$U" --token-file "$T" top --json -d 0.2 >out 2>err; echo $? >rc) &
	i=0; while [ $i -lt 50 ] && [ $(wc -l <out 2>/dev/null || echo 0) -lt 2 ]; do sleep 0.1; i=$((i + 1)); done &&
	kill -9 "$(cat fx.pid)" &&
	i=0; while [ $i -lt 100 ] && [ ! -s rc ]; do sleep 0.1; i=$((i + 1)); done &&
	test "$(cat rc)" = 1 &&
	test $(wc -l <out) -ge 2 &&
	python3 -c "import json,sys; [json.loads(l) for l in open(\"out\")]" &&
	grep_q "ended the stream after [0-9]* events" err
'
else
	test_skip 'the daemon going away mid-stream: non-zero exit, the samples printed stay' "$NO_TOP"
fi
# started inside a test (a subshell), so stop_all_daemons does not know it: stop it by name
stop_daemon fx KILL

test_done
