#!/bin/sh
# t10311-prometheus-format.sh - a real prometheus parses prom_render()'s exposition: label values
# with quotes, backslashes and newlines come back intact, NaN is absent, the dashboard's queries run
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/remote-lib.sh"

if ! command -v prometheus >/dev/null 2>&1; then
	test_skip 'prometheus parses the exposition' "no 'prometheus' binary (Debian package prometheus: scripts/install-deps.sh --test)"
	test_done
	exit
fi
if [ -z "$VP_HELPERS" ] || [ ! -x "$VP_HELPERS/prom_synth" ]; then
	test_skip 'prometheus parses the exposition' 'VP_HELPERS/prom_synth is not built'
	test_done
	exit
fi
# A VM name with every character the format escapes
VMNAME='we"b\1
x'
mkdir -p www &&
"$VP_HELPERS/prom_synth" "$VMNAME" >www/metrics
EP=$(free_port)
PP=$(free_port)
python3 -m http.server "$EP" --bind 127.0.0.1 --directory www >http.log 2>&1 &
HTTP=$!
cat >prom.yml <<EOT
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: synth
    static_configs:
      - targets: ["127.0.0.1:$EP"]
EOT
prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address=127.0.0.1:$PP >prom.log 2>&1 &
PROM=$!

query() { prom_query "$PP" "$1"; }

test_expect_success 'prometheus scrapes the exposition without a parse error (up == 1)' '
	prom_wait_up "$PP" synth
'

test_expect_success 'the VM name comes back byte for byte, on the VM and on its vCPUs' '
	query "vmmprof_factor_score" >s.json &&
	python3 -c "
import json, sys
j = json.load(open(\"s.json\"))
r = j[\"data\"][\"result\"]
want = sys.argv[1]
assert len(r) == 3, r
assert all(x[\"metric\"][\"vm\"] == want for x in r), [x[\"metric\"][\"vm\"] for x in r]
by = {(x[\"metric\"][\"level\"], x[\"metric\"].get(\"vcpu\")): float(x[\"value\"][1]) for x in r}
assert by == {(\"vm\", None): 0.25, (\"vcpu\", \"0\"): 0.2, (\"vcpu\", \"1\"): 0.3}, by
assert all(x[\"metric\"][\"factor\"] == \"locality\" and x[\"metric\"][\"host\"] == \"synth\" for x in r)
" "$VMNAME"
'

test_expect_success 'unmeasurable factors have no sample (not 0), and say unavailable' '
	query "vmmprof_factor_score{factor=\"llc\"}" >llc.json &&
	test "$(json_get llc.json "len(j[\"data\"][\"result\"])")" = 0 &&
	query "vmmprof_factor_quality{factor=\"llc\",quality=\"unavailable\"}" >q.json &&
	test "$(json_get q.json "len(j[\"data\"][\"result\"])")" = 3
'

test_expect_success 'node aggregate: cost of the vCPUs on node 0 over their cycles (2e8 + 3e8) / 2e9 = 25 %' '
	query "vmmprof_factor_cost_pct{level=\"node\",factor=\"locality\"}" >n.json &&
	test "$(json_get n.json "float(j[\"data\"][\"result\"][0][\"value\"][1])")" = 25.0
'

test_expect_success 'every query of the Grafana dashboard runs on these series' '
	dashboard_queries_run "$PP" &&
	query "max by (vm, factor) (vmmprof_factor_cost_pct{level=\"vm\"})" >v.json &&
	test "$(json_get v.json "float(j[\"data\"][\"result\"][0][\"value\"][1])")" = 10.0
'

kill "$PROM" "$HTTP" 2>/dev/null
wait "$PROM" "$HTTP" 2>/dev/null
test_done
