#!/bin/sh
# daemon-load.sh - 100 concurrent SSE clients at 1 Hz for 60 s against a real vmmprof daemon
#
#   bench/daemon-load.sh [CLIENTS] [SECONDS] [SESSIONS]     (default 100 60 2)
#
# Starts `vmmprof serve` on a free loopback port with one operator, starts
# SESSIONS sessions (model software, every 1000 ms) on an idle helper process
# (build/helpers/workload with 4 sleeping threads: it costs no CPU, so the
# figures are the daemon's), and runs bench/sse_load.py: CLIENTS clients
# spread over the sessions' streams read every frame; the daemon's CPU % and
# RSS every 5 s (from /proc), the slopes, each client's missed intervals, and
# the machine's load average.  Exit 1 when a pass criterion fails (see
# sse_load.py).  Run after `make all`.  Figures: docs/performance.md.
set -eu
cd "$(dirname "$0")/.."
N=${1:-100}
D=${2:-60}
S=${3:-2}
B=build/vmmprof
dir=$(mktemp -d)
dpid=
wpid=
cleanup() {
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ -x "$B" ] && [ -x build/helpers/workload ] || { echo "run make all first" >&2; exit 1; }
"$B" help serve >/dev/null 2>&1 || { echo "this vmmprof has no 'serve' command" >&2; exit 1; }

# the open files: CLIENTS connections and their sessions' descriptors
[ "$(ulimit -n)" -ge $((N * 2 + 64)) ] 2>/dev/null || ulimit -n $((N * 2 + 64)) 2>/dev/null || true

"$B" user add bench --role operator --users "$dir/users" --token-out "$dir/token" >"$dir/user.log" 2>&1 ||
	{ cat "$dir/user.log" >&2; exit 1; }
tok=$(cat "$dir/token")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
"$B" serve --listen "127.0.0.1:$port" --users "$dir/users" --audit-log "$dir/audit.log" >"$dir/daemon.log" 2>&1 &
dpid=$!
build/helpers/workload --idle-threads 4 --hold-ms $(((D + 60) * 1000)) >/dev/null 2>&1 &
wpid=$!

sids=$(python3 - "$url" "$tok" "$wpid" "$S" "$dpid" <<'PY'
import json, os, sys, time, urllib.request, urllib.error
url, tok, pid, n, dpid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def call(method, path, body=None):
    req = urllib.request.Request(url + "/api/v1" + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None)
    req.add_header("Authorization", "Bearer " + tok)
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())
for _ in range(150):
    try:
        call("GET", "/whoami")
        break
    except (OSError, urllib.error.URLError):
        os.kill(dpid, 0)
        time.sleep(0.1)
ids = [call("POST", "/sessions", {"model": "software", "pids": [pid], "interval_ms": 1000})["id"] for _ in range(n)]
print(",".join(ids))
PY
) || { cat "$dir/daemon.log" >&2; exit 1; }

echo "daemon pid $dpid on $url; $N clients over sessions $sids for $D s; $(nproc) CPUs"
python3 bench/sse_load.py --url "$url" --token "$tok" --pid "$dpid" --sessions "$sids" \
	--clients "$N" --duration "$D" --interval-ms 1000
