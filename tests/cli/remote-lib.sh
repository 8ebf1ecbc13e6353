# remote-lib.sh - what the --remote and Prometheus tests share (t103xx).  Source after lib.sh
# (and daemon-lib.sh when a daemon is started); it changes to $TRASH with HOME there.

# free_port: a TCP port nothing listens on now (for "connection refused" and prometheus)
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# daemon_usable: this build has the daemon and the remote client ($daemon_why says why not).
daemon_usable() {
	daemon_why=""
	if ! "$VMMPROF" help serve >/dev/null 2>&1; then
		daemon_why="this build has no 'vmmprof serve' (libmicrohttpd missing)"
		return 1
	fi
	if "$VMMPROF" --remote http://127.0.0.1:1 info --json 2>&1 | grep -q "built without libcurl"; then
		daemon_why="this build has no --remote client (libcurl missing)"
		return 1
	fi
	return 0
}

# prom_query PORT EXPR: prometheus's instant query API answer (JSON)
prom_query() {
	curl -s -G "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2"
}

# prom_wait_up PORT JOB: wait (30 s at most) until prometheus scraped JOB successfully
prom_wait_up() {
	i=0
	while [ $i -lt 60 ]; do
		prom_query "$1" "up{job=\"$2\"}" >up.json 2>/dev/null &&
		json_get up.json "[r[\"value\"][1] for r in j[\"data\"][\"result\"]]" 2>/dev/null | grep -q "1" &&
			return 0
		sleep 0.5
		i=$((i + 1))
	done
	cat up.json
	tail prom.log
	return 1
}

# dashboard_queries_run PORT: every query of contrib/grafana/vmmprof.json (variables as .*)
# is answered with status success
dashboard_queries_run() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for p in d['panels']:
    for t in p['targets']:
        print(t['expr'].replace('\$host', '.*').replace('\$vm', '.*').replace('\$factor', '.*'))
" "$VP_SRC/contrib/grafana/vmmprof.json" >exprs &&
	test $(wc -l <exprs) -ge 8 &&
	while read -r e; do
		prom_query "$1" "$e" >r.json &&
		test "$(json_get r.json "j[\"status\"]")" = success || { echo "$e"; cat r.json; return 1; }
	done <exprs
}

VP_SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TRASH" || exit 1
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME
