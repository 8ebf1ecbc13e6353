#!/bin/sh
# t10330-remote-ctrlc.sh - Ctrl-C and `vmmprof --remote URL stat`: the first stops the
# session (the client waits for the daemon's answer), a second ends the client at once
# even when that answer never comes.  Against a stand-in daemon (python) whose DELETE
# hangs, which a real vmmprofd does not do.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/remote-lib.sh"

if ! daemon_usable; then
	test_skip 'Ctrl-C against a daemon that does not answer the stop' "$daemon_why"
	test_done
	exit
fi

# A daemon that starts session s1 (in 2 s when the file slow-post exists), streams a frame every 100 ms, logs each request
# (method, path, its Accept headers) to requests.log, and never answers DELETE.
cat >fake.py <<'PY'
import http.server, json, os, time

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def note(self):
        with open("requests.log", "a") as f:
            f.write("%s %s accept=%s\n" % (self.command, self.path, "|".join(self.headers.get_all("Accept") or [])))

    def do_POST(self):
        self.note()
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if os.path.exists("slow-post"):
            time.sleep(2)
        body = json.dumps({"id": "s1", "recording": None}).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.note()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        seq = 0
        try:
            while True:
                seq += 1
                self.wfile.write(b"event: frame\ndata: {\"seq\": %d}\n\n" % seq)
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass

    def do_DELETE(self):
        self.note()
        time.sleep(3600)

s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
with open("port", "w") as f:
    f.write("%d\n" % s.server_address[1])
s.serve_forever()
PY
python3 fake.py 2>fake.err &
FAKE=$!
i=0
while [ ! -s port ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
U=http://127.0.0.1:$(cat port 2>/dev/null)
echo tok >t.tok

# client_diag: what the client printed and, when it still runs, that it is killed
client_diag() {
	echo "client exit status '$(cat rc 2>/dev/null)', $(wc -l <out) line(s); stderr:"
	sed "s/^/|  /" err
	echo "requests:"; sed "s/^/|  /" requests.log
	[ -d "/proc/$(cat pid)" ] && echo "the client still runs: killed" && kill -KILL "$(cat pid)"
	return 1
}

test_expect_success 'first Ctrl-C: the client asks the daemon to stop the session and waits for it' '
	rm -f out err pid rc requests.log &&
	{ ("$VMMPROF" --remote "$U" --token-file t.tok stat -m software -p 1 -I 100 --json >out 2>err &
	   echo $! >pid; wait $!; echo $? >rc) & } &&
	i=0 && while [ $i -lt 300 ] && ! { [ -s out ] && [ -s pid ]; }; do sleep 0.1; i=$((i + 1)); done &&
	{ [ -s out ] || { echo "no frame in 30 s"; client_diag; }; } &&
	kill -INT "$(cat pid)" &&
	i=0 && while [ $i -lt 300 ] && ! grep -q "^DELETE /api/v1/sessions/s1 " requests.log; do
		sleep 0.1; i=$((i + 1)); done &&
	{ grep -q "^DELETE" requests.log || { echo "no DELETE in 30 s"; client_diag; }; } &&
	# the stop is not given up: the client still waits for its answer
	sleep 1.5 &&
	{ [ ! -s rc ] || { echo "the client did not wait for the stop"; client_diag; }; }
'

test_expect_success 'a second Ctrl-C ends it at once; it says the session was left running' '
	kill -INT "$(cat pid)" &&
	# curl asks whether to go on at least once a second
	i=0 && while [ $i -lt 50 ] && [ ! -s rc ]; do sleep 0.1; i=$((i + 1)); done &&
	{ [ -s rc ] || { echo "the client had not exited 5 s after the second SIGINT"; client_diag; }; } &&
	test "$(cat rc)" = 1 &&
	grep_q "cannot stop session .s1.: interrupted (it runs on .$U. until stopped)" err
'

test_expect_success 'the stream asks for events, the stop after it for JSON (headers not carried over)' '
	grep_q "^POST /api/v1/sessions accept=application/json$" requests.log &&
	grep_q "^GET /api/v1/sessions/s1/stream accept=text/event-stream$" requests.log &&
	grep_q "^DELETE /api/v1/sessions/s1 accept=application/json$" requests.log
'

test_expect_success 'Ctrl-C while the session is being started: the start is not given up, the session is stopped' '
	rm -f out err pid rc requests.log && touch slow-post &&
	{ ("$VMMPROF" --remote "$U" --token-file t.tok stat -m software -p 1 -I 100 --json >out 2>err &
	   echo $! >pid; wait $!; echo $? >rc) & } &&
	i=0 && while [ $i -lt 300 ] && ! { grep -q "^POST" requests.log 2>/dev/null && [ -s pid ]; }; do
		sleep 0.1; i=$((i + 1)); done &&
	kill -INT "$(cat pid)" &&
	i=0 && while [ $i -lt 300 ] && ! grep -q "^DELETE /api/v1/sessions/s1 " requests.log; do
		sleep 0.1; i=$((i + 1)); done &&
	{ grep -q "^DELETE" requests.log || { echo "no DELETE in 30 s"; client_diag; }; } &&
	kill -INT "$(cat pid)" &&
	i=0 && while [ $i -lt 50 ] && [ ! -s rc ]; do sleep 0.1; i=$((i + 1)); done &&
	{ [ -s rc ] || { echo "the client had not exited 5 s after the second SIGINT"; client_diag; }; }
'

kill "$FAKE" 2>/dev/null
wait "$FAKE" 2>/dev/null
test_done
