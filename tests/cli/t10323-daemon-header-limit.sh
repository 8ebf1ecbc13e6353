#!/bin/sh
# t10323-daemon-header-limit.sh - request headers over the daemon's limit (32 KiB,
# docs/daemon.md) get 431 with the API's JSON error body, like every other API
# error, before authentication; a header block too large for libmicrohttpd's
# per-connection memory (128 KiB) is answered by libmicrohttpd itself (its
# built-in HTML page, no hook replaces it), still 431, and the daemon goes on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
skip_without_daemon
cd "$TRASH" || exit 1

vmmprof user add adm --role admin --users users >adm.tok 2>/dev/null
start_daemon d --users users

# raw SIZE [query|header] [token]: one HTTP/1.1 request whose X-Big header (or
# query string) holds SIZE bytes; status line, Content-Type and body into files.
raw() {
	python3 - "$(cat "$TRASH/d.url")" "$1" "${2:-header}" "${3:-}" <<-\EOF
	import socket, sys
	url, n, where, tok = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
	host, port = url[len("http://"):].split(":")
	path = "/api/v1/whoami" + ("?x=" + "a" * n if where == "query" else "")
	req = "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n" % (path, host)
	if tok:
	    req += "Authorization: Bearer %s\r\n" % open(tok).read().strip()
	if where == "header":
	    req += "X-Big: " + "a" * n + "\r\n"
	req += "\r\n"
	s = socket.create_connection((host, int(port)), timeout=20)
	try:
	    s.sendall(req.encode())
	except OSError:
	    pass  # the server may answer and close before reading it all
	data = b""
	try:
	    while True:
	        d = s.recv(65536)
	        if not d:
	            break
	        data += d
	except OSError:
	    pass
	head, _, body = data.partition(b"\r\n\r\n")
	lines = head.decode("latin-1").split("\r\n")
	open("status", "w").write(lines[0] + "\n")
	ct = [l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("content-type:")]
	open("ctype", "w").write((ct[0] if ct else "") + "\n")
	open("body", "wb").write(body)
	EOF
}

test_expect_success 'headers just under 32 KiB: served' '
	raw 32000 header adm.tok &&
	grep_q "^HTTP/1.1 200 " status &&
	test "$(json_get body "j[\"user\"]")" = adm
'

test_expect_success 'a 40 000-byte header: 431 with the JSON error body' '
	raw 40000 header adm.tok &&
	grep_q "^HTTP/1.1 431 " status &&
	grep_q "^application/json" ctype &&
	test "$(json_get body "j[\"error\"][\"status\"]")" = 431 &&
	test "$(json_get body "j[\"error\"][\"message\"]")" = "request headers larger than 32768 bytes"
'

test_expect_success 'the limit comes before authentication: no token, 431 (not 401)' '
	raw 40000 header &&
	grep_q "^HTTP/1.1 431 " status &&
	test "$(json_get body "j[\"error\"][\"status\"]")" = 431
'

test_expect_success 'a 40 000-byte query string counts too: 431 JSON' '
	raw 40000 query adm.tok &&
	grep_q "^HTTP/1.1 431 " status &&
	test "$(json_get body "j[\"error\"][\"status\"]")" = 431
'

test_expect_success 'up to libmicrohttpd'"'"'s 128 KiB (120 000 bytes): still the JSON body' '
	raw 120000 header adm.tok &&
	grep_q "^HTTP/1.1 431 " status &&
	grep_q "^application/json" ctype
'

test_expect_success 'over 128 KiB (1 MB): libmicrohttpd'"'"'s own 431, HTML, as docs/daemon.md says' '
	raw 1000000 header adm.tok &&
	grep_q "^HTTP/1.1 431 " status &&
	grep_q "<html>" body
'

test_expect_success 'the daemon goes on serving after all of them' '
	raw 10 header adm.tok &&
	grep_q "^HTTP/1.1 200 " status
'

# As a user meets it: the client sends the token file's content as a header.
test_expect_success 'vmmprof --remote with a 40 000-byte token: the JSON message, exit 1' '
	head -c 40000 /dev/zero | tr "\0" a >long.tok &&
	expect_exit 1 vmmprof --remote "$(cat "$TRASH/d.url")" --token-file long.tok info --json >out 2>err &&
	grep_q "GET /api/v1/info: 431: request headers larger than 32768 bytes" err &&
	test ! -s out
'

test_expect_success 'vmmprof --remote with a 200 000-byte token: libmicrohttpd'"'"'s page, its title as the message' '
	head -c 200000 /dev/zero | tr "\0" a >huge.tok &&
	expect_exit 1 vmmprof --remote "$(cat "$TRASH/d.url")" --token-file huge.tok info --json >out 2>err &&
	grep_q "GET /api/v1/info: 431: Request too big$" err &&
	test ! -s out
'

test_expect_success 'SIGTERM stops it cleanly' '
	stop_daemon d &&
	test "$(cat "$TRASH/d.rc")" = 0
'

stop_all_daemons
test_done
