#!/bin/sh
# t8004-probe.sh - the guest probe prints the virtual layout next to the inferred one
. "$(dirname "$0")/lib.sh"

test_expect_success 'probe --json: a group per vCPU and a latency per vCPU and node' '
	vmmprof probe --quick --time 2 --json -q >p.json &&
	json_get p.json "len(j[\"probe\"][\"group_of\"]) == len(j[\"probe\"][\"c2c\"][\"cpus\"])" >ok &&
	grep_q True ok &&
	json_get p.json "len(j[\"probe\"][\"mem_ns\"]) == len(j[\"probe\"][\"c2c\"][\"cpus\"])" >ok &&
	grep_q True ok &&
	json_get p.json "all(v > 0 for row in j[\"probe\"][\"mem_ns\"] for v in row)" >ok &&
	grep_q True ok &&
	json_get p.json "j[\"probe\"][\"group_evidence\"]" >ev && test -s ev
'

test_expect_success 'probe table: virtual and inferred layout with evidence' '
	vmmprof probe --quick --time 2 -q >p.txt &&
	grep_q "virtual node" p.txt && grep_q "inferred group" p.txt &&
	grep_q "evidence:" p.txt
'

test_done
