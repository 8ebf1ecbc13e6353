#!/bin/sh
# t10310-prometheus.sh - a real prometheus scrapes a real vmmprofd every second: the factor series
# exist with the labels docs/prometheus.md lists, and every query of the Grafana dashboard is valid
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/daemon-lib.sh"

. "$(dirname "$0")/remote-lib.sh"


if ! daemon_usable; then
	test_skip 'prometheus scrapes vmmprofd' "$daemon_why"
	test_done
	exit
fi
if ! command -v prometheus >/dev/null 2>&1; then
	test_skip 'prometheus scrapes vmmprofd' "no 'prometheus' binary (Debian package prometheus: scripts/install-deps.sh --test)"
	test_done
	exit
fi

"$VP_HELPERS/workload" --cpu-ms 60000 --hold-ms 1000 >/dev/null 2>&1 &
WL=$!

# the daemon on this branch must serve /metrics and sessions
vmmprof user add probe --role viewer --users probe.users >probe.tok 2>/dev/null
start_daemon probe --users probe.users >/dev/null 2>&1
why=""
body=$(curl -s -m 2 -H "Authorization: Bearer $(cat probe.tok)" "$(cat probe.url 2>/dev/null)/metrics" 2>/dev/null)
case $body in
*"# TYPE vmmprof_"*) ;;
*) why="the daemon does not serve /metrics yet" ;;
esac
curl -s -m 1 -X POST -H "Authorization: Bearer $(cat probe.tok)" "$(cat probe.url 2>/dev/null)/api/v1/sessions" 2>/dev/null |
	grep -q "no such endpoint" && why="the daemon has no /api/v1/sessions yet"
stop_daemon probe >/dev/null 2>&1
if [ -n "$why" ]; then
	test_skip 'prometheus scrapes vmmprofd: factor series and dashboard queries' "$why"
	kill "$WL" 2>/dev/null
	wait "$WL" 2>/dev/null
	test_done
	exit
fi

test_expect_success 'set-up: a daemon, a session on a workload process, prometheus scraping every 1 s' '
	vmmprof user add alice --role operator --users users >alice.tok &&
	vmmprof user add vera --role viewer --users users >vera.tok &&
	start_daemon live --users users &&
	U=$(cat live.url) &&
	curl -sf -X POST -H "Authorization: Bearer $(cat alice.tok)" -d "{\"model\":\"software\",\"pids\":[$WL],\"interval_ms\":500}" \
		"$U/api/v1/sessions" >session.json &&
	PP=$(free_port) && echo $PP >prom.port &&
	cat >prom.yml <<-EOT &&
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: vmmprof
	    authorization:
	      type: Bearer
	      credentials_file: $TRASH/vera.tok
	    static_configs:
	      - targets: ["$(sed "s|^http://||" live.url)"]
	EOT
	(prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address=127.0.0.1:$PP \
		>prom.log 2>&1 & echo $! >prom.pid)
'
PP=$(cat "$TRASH/prom.port" 2>/dev/null)

query() { prom_query "$PP" "$1"; }

test_expect_success 'prometheus scrapes the daemon: up == 1 within 30 s' '
	prom_wait_up "$PP" vmmprof
'

test_expect_success 'the factor series: one per factor and level, labelled host, vm, session, model' '
	i=0
	while [ $i -lt 40 ]; do
		query "vmmprof_factor_quality" >q.json &&
		[ "$(json_get q.json "len(j[\"data\"][\"result\"])")" -ge 5 ] && break
		sleep 0.5; i=$((i + 1))
	done
	json_get q.json "\",\".join(sorted(set(r[\"metric\"][\"factor\"] for r in j[\"data\"][\"result\"])))" >factors &&
	echo "imc,llc,locality,queue,sharing" >want && cmp factors want &&
	sid=$(json_get session.json "j[\"id\"]") &&
	json_get q.json "all(r[\"metric\"].get(\"session\") == \"$sid\" and r[\"metric\"].get(\"model\") == \"software\" and r[\"metric\"].get(\"host\") and r[\"metric\"].get(\"vm\") and r[\"metric\"][\"level\"] in (\"process\", \"thread\") for r in j[\"data\"][\"result\"])" | grep -qx True &&
	# the software model cannot see LLC, sharing and queue: unavailable, never a 0 score
	json_get q.json "sorted(set(r[\"metric\"][\"factor\"] for r in j[\"data\"][\"result\"] if r[\"metric\"][\"quality\"] == \"unavailable\"))" | grep -q "queue" &&
	query "vmmprof_factor_score{factor=\"queue\"}" >s.json &&
	test "$(json_get s.json "len(j[\"data\"][\"result\"])")" = 0
'

test_expect_success 'CPU use of the workload process: cycles per second above 0' '
	query "vmmprof_cycles_per_second{level=\"process\"}" >c.json &&
	json_get c.json "max(float(r[\"value\"][1]) for r in j[\"data\"][\"result\"]) > 0" | grep -qx True
'

test_expect_success 'every query of the Grafana dashboard is valid PromQL on these series' '
	dashboard_queries_run "$PP"
'

[ -f "$TRASH/prom.pid" ] && kill "$(cat "$TRASH/prom.pid")" 2>/dev/null
# started inside a test (a subshell), so stop_all_daemons does not know it: stop it by name
stop_daemon live
kill "$WL" 2>/dev/null
wait "$WL" 2>/dev/null
test_done
