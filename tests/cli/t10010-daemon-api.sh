#!/bin/sh
# t10010-daemon-api.sh - vmmprof serve on loopback: tokens and roles, the
# read-only endpoints answer exactly what the local --json commands print,
# limits on bodies and headers, the web UI files and recordings without
# path traversal, the audit log, clean shutdown
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon

R=$VP_DATA/root
daemon_home
vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
vmmprof user add op --role operator --users users >op.tok 2>/dev/null
vmmprof user add view --role viewer --users users --max-sessions 0 --min-interval 0 >view.tok 2>/dev/null
printf 'not-a-token\n' >bad.tok
mkdir -p web/js recs secret
printf '<html>vmmprof ui</html>\n' >web/index.html
printf 'console.log(1)\n' >web/js/app.js
printf 'top secret\n' >secret/file
ln -s ../secret/file web/link
printf 'SQLite format 3\000' >recs/op+20261130-000000-s1.vmmrec
printf 'SQLite format 3\000' >recs/adm+20261130-000000-s2.vmmrec
ln -s ../secret/file recs/op+link.vmmrec
# the extension the daemon writes now (.vmmdb, as the CLI); .vmmrec above is its old one
printf 'SQLite format 3\000' >recs/op+20261201-000000-s3.vmmdb
printf 'not a recording\n' >recs/op+notes.txt

start_daemon d --users users --web-dir web --recordings-dir recs --audit-log audit \
	--root "$R/host-qemu"

test_expect_success 'no token, a wrong token, a malformed header: 401 with WWW-Authenticate' '
	expect_status 401 d - GET /api/v1/whoami &&
	grep_q "\"status\":401" body &&
	grep -qi "^WWW-Authenticate: Bearer" headers &&
	expect_status 401 d bad.tok GET /api/v1/whoami &&
	expect_status 401 d - GET /api/v1/info -H "Authorization: Basic YWRtOng=" &&
	expect_status 401 d - GET /api/v1/info -H "Authorization: Bearer" &&
	expect_status 401 d - GET /api/v1/vms
'

test_expect_success 'whoami names the user, its role and limits' '
	expect_status 200 d op.tok GET /api/v1/whoami &&
	test "$(json_get body "j[\"user\"], j[\"role\"], j[\"limits\"][\"max_sessions\"], j[\"limits\"][\"min_interval_ms\"]")" = "('"'"'op'"'"', '"'"'operator'"'"', 4, 100)" &&
	expect_status 200 d view.tok GET /api/v1/whoami &&
	test "$(json_get body "j[\"role\"], j[\"limits\"][\"max_sessions\"]")" = "('"'"'viewer'"'"', 0)"
'

test_expect_success 'a token passed as ?access_token= works for GET (EventSource cannot set headers)' '
	expect_status 200 d - GET "/api/v1/whoami?access_token=$(cat adm.tok)" &&
	grep_q "\"user\":\"adm\"" body &&
	expect_status 401 d - POST "/api/v1/sessions?access_token=$(cat adm.tok)"
'

test_expect_success 'GET /api/v1/info is exactly vmmprof info --json on the same root' '
	expect_status 200 d view.tok GET /api/v1/info &&
	grep -qi "^Content-Type: application/json" headers &&
	vmmprof info --json --root "$R/host-qemu" >want &&
	cmp want body
'

test_expect_success 'GET /api/v1/vms is exactly vmmprof list vms --json' '
	expect_status 200 d view.tok GET /api/v1/vms &&
	vmmprof list vms --json --root "$R/host-qemu" >want &&
	cmp want body &&
	test "$(json_get body "len(j[\"vms\"]) > 0")" = True
'

test_expect_success 'GET /api/v1/models and /models/NAME are exactly model list/show --json' '
	expect_status 200 d view.tok GET /api/v1/models &&
	vmmprof model list --json --root "$R/host-qemu" >want &&
	cmp want body &&
	expect_status 200 d view.tok GET /api/v1/models/software &&
	vmmprof model show software --json --root "$R/host-qemu" >want &&
	cmp want body &&
	expect_status 404 d view.tok GET /api/v1/models/nosuch &&
	grep_q "no model .nosuch." body &&
	expect_status 400 d view.tok GET /api/v1/models/..%2f..%2fetc%2fpasswd
'

test_expect_success 'unknown endpoints 404, wrong methods 405' '
	expect_status 404 d view.tok GET /api/v1/nothing &&
	expect_status 404 d - GET /nothing &&
	expect_status 405 d adm.tok DELETE /api/v1/info &&
	expect_status 405 d adm.tok POST /api/v1/vms -d "{}"
'

test_expect_success 'a body over 64 KiB gets 413, headers over the limit 431' '
	head -c 70000 /dev/zero | tr "\0" a >big &&
	expect_status 413 d adm.tok POST /api/v1/sessions --data-binary @big &&
	head -c 65536 /dev/zero | tr "\0" a >limit &&
	expect_status 413 d adm.tok POST /api/v1/sessions --data-binary @big -H "Transfer-Encoding: chunked" &&
	expect_status 431 d adm.tok GET /api/v1/whoami -H "X-Big: $(head -c 40000 big)"
'

test_expect_success 'the web UI: / is index.html, /ui/PATH a file of --web-dir, no token needed' '
	expect_status 200 d - GET / &&
	cmp web/index.html body &&
	grep -qi "^Content-Type: text/html" headers &&
	expect_status 200 d - GET /ui/js/app.js &&
	cmp web/js/app.js body &&
	grep -qi "^Content-Type: text/javascript" headers &&
	expect_status 404 d - GET /ui/nothing.js
'

test_expect_success 'the web UI refuses traversal and symbolic links out of its directory' '
	expect_status 400 d - GET /ui/../users --path-as-is &&
	expect_status 400 d - GET /ui/js/../../secret/file --path-as-is &&
	expect_status 400 d - GET /ui/%2e%2e/secret/file --path-as-is &&
	expect_status 400 d - GET /ui/.hidden &&
	expect_status 404 d - GET /ui/link &&
	! grep -q "top secret" body
'

test_expect_success 'recordings: each user lists its own, admin all; downloads are sqlite3 files' '
	expect_status 200 d op.tok GET /api/v1/recordings &&
	test "$(json_get body "[r[\"name\"] for r in j[\"recordings\"]]")" = "['"'"'op+20261130-000000-s1.vmmrec'"'"', '"'"'op+20261201-000000-s3.vmmdb'"'"', '"'"'op+link.vmmrec'"'"']" &&
	expect_status 200 d adm.tok GET /api/v1/recordings &&
	test "$(json_get body "len(j[\"recordings\"])")" = 4 &&
	expect_status 200 d op.tok GET /api/v1/recordings/op+20261201-000000-s3.vmmdb &&
	cmp recs/op+20261201-000000-s3.vmmdb body &&
	grep -qi "^Content-Type: application/vnd.sqlite3" headers &&
	expect_status 200 d op.tok GET /api/v1/recordings/op+20261130-000000-s1.vmmrec &&
	cmp recs/op+20261130-000000-s1.vmmrec body &&
	grep -qi "^Content-Type: application/vnd.sqlite3" headers &&
	expect_status 404 d op.tok GET /api/v1/recordings/adm+20261130-000000-s2.vmmrec &&
	expect_status 200 d adm.tok GET /api/v1/recordings/op+20261130-000000-s1.vmmrec
'

test_expect_success 'recording names with .., /, NUL are refused; nothing outside the directory is served' '
	for p in "..%2fusers" "..%2f..%2fetc%2fpasswd" "../users" "a%00b" "%2e%2e" "sub%2ffile"; do
		code=$(req d adm.tok GET "/api/v1/recordings/$p" --path-as-is) &&
		case $code in 400|404) ;; *) echo "$p: $code"; return 1 ;; esac &&
		! grep -q "adm:admin" body || return 1
	done &&
	expect_status 400 d adm.tok GET /api/v1/recordings/..%2fusers &&
	expect_status 404 d op.tok GET /api/v1/recordings/op+link.vmmrec &&
	! grep -q "top secret" body
'

test_expect_success 'the audit log has a line per refused token and download' '
	grep_q "user=- action=auth session=- result=\"401 GET /api/v1/whoami\"" audit &&
	grep_q "^20[0-9-]*T[0-9:]*Z client=127.0.0.1 user=op action=recording.download session=- result=\"op+20261130-000000-s1.vmmrec\"" audit
'

test_expect_success 'a new user added while it runs can log in at once' '
	vmmprof user add late --role viewer --users users >late.tok 2>/dev/null &&
	expect_status 200 d late.tok GET /api/v1/whoami &&
	vmmprof user remove late --users users 2>/dev/null &&
	expect_status 401 d late.tok GET /api/v1/whoami
'

test_expect_success 'SIGTERM stops it cleanly (exit 0)' '
	stop_daemon d &&
	test "$(cat d.rc)" = 0 &&
	grep_q "stopping" d.err
'

test_expect_success 'plain HTTP on a non-loopback address is refused unless allowed' '
	expect_exit 1 vmmprof serve --users users --listen 0.0.0.0:0 2>err &&
	grep_q "refusing plain HTTP on .0.0.0.0:0." err &&
	start_daemon open --users users --listen 0.0.0.0:0 --allow-plain-http &&
	stop_daemon open && test "$(cat open.rc)" = 0
'

test_expect_success 'configuration file: settings, and errors as FILE:LINE:COL' '
	printf "# daemon\nusers = users\nweb_dir = \"web\"\n" >conf &&
	start_daemon c --config conf &&
	expect_status 200 c - GET / && cmp web/index.html body &&
	stop_daemon c &&
	printf "users = users\n  listen  127.0.0.1:1\n" >bad.conf &&
	expect_exit 1 vmmprof serve --config bad.conf 2>err &&
	grep_q "bad.conf:2:11: expected .=. after .listen." err &&
	printf "listen = 127.0.0.1:99999\n" >bad.conf &&
	expect_exit 1 vmmprof serve --config bad.conf 2>err &&
	grep_q "bad.conf:1:10: invalid port .99999." err &&
	expect_exit 2 vmmprof serve --frob 2>err &&
	expect_exit 1 vmmprof serve --users missing 2>err &&
	grep_q "cannot read the users file .missing." err
'

if command -v openssl >/dev/null 2>&1; then
test_expect_success 'TLS: HTTPS with a self-signed certificate, plain HTTP on its port fails' '
	openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
		-subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1" 2>/dev/null &&
	start_daemon tls --users users --tls-cert cert.pem --tls-key key.pem &&
	grep_q "^https://127.0.0.1:" tls.url &&
	expect_status 200 tls adm.tok GET /api/v1/whoami --cacert cert.pem &&
	grep_q "\"user\":\"adm\"" body &&
	code=$(req tls adm.tok GET /api/v1/whoami -k 2>/dev/null; true) &&
	test "$code" = 200 &&
	url=$(cat tls.url) &&
	! curl -s -o /dev/null "http://${url#https://}/api/v1/whoami" &&
	stop_daemon tls &&
	expect_exit 1 vmmprof serve --users users --tls-cert cert.pem 2>err &&
	grep_q "needs both a certificate and a key" err &&
	start_daemon tlsall --users users --tls-cert cert.pem --tls-key key.pem --listen 0.0.0.0:0 &&
	stop_daemon tlsall
'
else
test_skip 'TLS with a self-signed certificate' 'openssl is not installed'
fi

test_expect_success 'a start-up failure is the daemon saying it, not the command line' '
	expect_exit 1 vmmprof serve --users users --listen 127.0.0.1:0 --root "$R/host-qemu" \
		--calibration missing-cal.json 2>err &&
	cat err &&
	grep_q "^vmmprofd: error: cannot open .missing-cal.json." err &&
	! grep_q "^vmmprof: error" err
'

test_expect_success 'vmmprofd is the same program: its help is the serve page' '
	d=$(dirname "$VMMPROF") &&
	test -e "$d/vmmprofd" &&
	"$d/vmmprofd" --help >out &&
	grep_q "usage: vmmprof serve\|serve \[--config FILE\]" out &&
	expect_exit 2 "$d/vmmprofd" --frob 2>err
'

stop_all_daemons
test_done
