#!/bin/sh
# t10390-remote-bounded.sh - the remote client is as careful as the server:
# an answer over 64 MiB and a stream line over 16 MiB are refused with
# "the daemon's answer is malformed" instead of being read into memory
# without bound; info documents with fields of the wrong type or range are
# an error or a page, never a crash.  A fake daemon on 127.0.0.1 (python)
# serves the documents.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"
. "$(dirname "$0")/remote-lib.sh"

if ! daemon_usable; then
	test_skip 'the remote client against a fake daemon' "$daemon_why"
	test_done
	exit
fi
cd "$TRASH" || exit 1
echo "not-a-real-token-but-long-enough-for-the-client-0123" >tok

# fake N: serve N requests on a free port (in ./port): /api/v1/info is ./info,
# /api/v1/top/stream is ./stream as an event stream
fake() {
	rm -f ready port
	free_port >port || return 1
	python3 -c "
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.0'
    def do_GET(self):
        if self.path.startswith('/api/v1/top/stream'):
            b = open('stream', 'rb').read(); t = 'text/event-stream'
        else:
            b = open('info', 'rb').read(); t = 'application/json'
        self.send_response(200); self.send_header('Content-Type', t)
        self.send_header('Content-Length', str(len(b))); self.end_headers()
        try:
            self.wfile.write(b)
        except OSError:
            pass
    def log_message(self, *a): pass
s = http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H)
s.timeout = 30
open('ready', 'w').close()
for i in range(int(sys.argv[2])):
    s.handle_request()
" "$(cat port)" "$1" &
	i=0
	while [ ! -e ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
U() { echo "http://127.0.0.1:$(cat port)"; }

test_expect_success 'an answer over 64 MiB: refused, not read into memory' '
	python3 -c "import sys; sys.stdout.write(\"{\\\"schema\\\":\\\"vmmprof-info/1\\\",\\\"x\\\":\\\"\" + \"a\" * (65 << 20) + \"\\\"}\")" >info &&
	fake 1 &&
	expect_exit 1 vmmprof --remote "$(U)" --token-file tok info --json >out 2>err &&
	cat err &&
	grep_q "the daemon.s answer is malformed: larger than 64 MiB" err &&
	test ! -s out
'

test_expect_success 'a stream line over 16 MiB: refused' '
	python3 -c "import sys; sys.stdout.write(\"event: sample\\ndata: \" + \"a\" * (17 << 20))" >stream &&
	fake 1 &&
	expect_exit 1 vmmprof --remote "$(U)" --token-file tok top -n 1 --json >out 2>err &&
	cat err &&
	grep_q "the daemon.s answer is malformed: a stream line or event over 16 MiB" err
'

# Found by fuzz_top_json (74fc791): a sample refused half-way (a vCPU row
# naming no VM of the sample) after a good one left the good sample's freed
# rows in place, and top_release() freed them again (glibc: double free,
# SIGABRT; ASan: attempting double-free).
test_expect_success 'a top sample with a vCPU of no VM after a good one: refused, no double free' '
	vmmprof top --root "$VP_SRC/tests/data/root/skx-2s" --json -n 1 >good.json 2>/dev/null &&
	python3 - <<-\EOF2 &&
	import json
	good = json.load(open("good.json"))
	assert good["vcpus"], "the fixture sample has vCPU rows"
	bad = json.loads(json.dumps(good))
	bad["sample"] = good["sample"] + 1
	v = bad["vcpus"][0]
	v["fa"] = v.pop("vm")
	with open("stream", "w") as f:
	    for d in (good, bad):
	        f.write("event: sample\ndata: " + json.dumps(d) + "\n\n")
	EOF2
	fake 1 &&
	expect_exit 1 vmmprof --remote "$(U)" --token-file tok top --batch -n 3 >out 2>err &&
	cat err &&
	grep_q "vCPU row 0 names VM .(none)., which is not in the sample" err &&
	test -s out
'

test_expect_success 'info documents with fields of the wrong type or range: never a crash' '
	vmmprof info --json >good.json 2>/dev/null &&
	python3 - <<-\EOF2 &&
	import json, copy
	base = json.load(open("good.json"))
	bad = [None, "x", -1, 1e300, -1e300, [], {}, [1, "a", None], True]
	n = 0
	for k in list(base):
	    if k == "schema":
	        continue
	    for v in bad:
	        d = copy.deepcopy(base); d[k] = v
	        open("doc%03d" % n, "w").write(json.dumps(d)); n += 1
	    if isinstance(base[k], dict):
	        for k2 in list(base[k])[:12]:
	            for v in bad:
	                d = copy.deepcopy(base); d[k][k2] = v
	                open("doc%03d" % n, "w").write(json.dumps(d)); n += 1
	EOF2
	n=$(ls doc* | wc -l) && echo "$n documents" &&
	fake "$n" &&
	for f in doc*; do
		cp "$f" info
		vmmprof --remote "$(U)" --token-file tok info >out 2>err
		rc=$?
		if [ $rc -gt 1 ]; then echo "$f: exit $rc"; cat err; exit 1; fi
	done
'

test_done
