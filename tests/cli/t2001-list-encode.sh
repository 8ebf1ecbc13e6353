#!/bin/sh
# t2001-list-encode.sh - `vmmprof list --encode`: perf_event_attr of specs, text and JSON
. "$(dirname "$0")/lib.sh"

ICX=$VP_DATA/root/icx-2s
ZEN4=$VP_DATA/root/zen4-2s

test_expect_success 'an uncore family expands to every instance (text)' '
	vmmprof list --encode --root "$ICX" uncore_imc/cas_count_read/ >out &&
	test "$(grep -c "^uncore_imc_[0-9]*/cas_count_read/$" out)" = 12 &&
	test "$(grep -c "^  config  *0xf04$" out)" = 12 &&
	grep_q "^  type  *10$" out &&
	grep_q "^  type  *21$" out &&
	grep_q "^  unit  *MiB$" out &&
	grep_q "^  scale  *6.103515625e-05$" out &&
	grep_q "^  cpus  *0,40$" out
'

test_expect_success 'JSON: hex configs, exclude bits, scale, unit, cpus' '
	vmmprof list --encode --json --root "$ICX" "uncore_cha_3/event=0x35,umask=0xc8177e01/" cycles:u >out.json &&
	test "$(json_get out.json "len(j[\"events\"])")" = 2 &&
	test "$(json_get out.json "j[\"events\"][0][\"config\"]")" = 0xc8177e00000135 &&
	test "$(json_get out.json "j[\"events\"][0][\"type\"]")" = 25 &&
	test "$(json_get out.json "j[\"events\"][0][\"cpus\"]")" = 0,40 &&
	test "$(json_get out.json "j[\"events\"][0][\"uncore\"]")" = True &&
	test "$(json_get out.json "j[\"events\"][1][\"exclude_kernel\"]")" = True &&
	test "$(json_get out.json "j[\"events\"][1][\"exclude_user\"]")" = False &&
	test "$(json_get out.json "j[\"events\"][1][\"exclude_guest\"]")" = False &&
	test "$(json_get out.json "j[\"events\"][1][\"spec_index\"]")" = 1
'

test_expect_success 'AMD data fabric: event bits spread over three ranges' '
	vmmprof list --encode --json --root "$ZEN4" "amd_df/event=0x11f,umask=0x7fe/" >out.json &&
	test "$(json_get out.json "j[\"events\"][0][\"config\"]")" = 0x10700fe1f
'

test_expect_success 'libpfm4 names with LIBPFM_ENCODE_INACTIVE=1: exclude_guest cleared' '
	LIBPFM_ENCODE_INACTIVE=1 vmmprof list --encode --json icx::OCR:DEMAND_DATA_RD_REMOTE_DRAM >out.json &&
	test "$(json_get out.json "j[\"events\"][0][\"config\"]")" = 0x1b7 &&
	test "$(json_get out.json "j[\"events\"][0][\"config1\"]")" = 0x730000001 &&
	test "$(json_get out.json "j[\"events\"][0][\"exclude_guest\"]")" = False &&
	test "$(json_get out.json "j[\"events\"][0][\"source\"]")" = libpfm &&
	json_get out.json "j[\"events\"][0][\"libpfm4_name\"]" | grep -q "^icx::OFFCORE_RESPONSE_0:DEMAND_DATA_RD_REMOTE_DRAM"
'

test_expect_success 'an error names the spec and column and exits 1; good specs still print' '
	expect_exit 1 vmmprof list --encode --root "$ICX" task-clock "cpu/evnt=1/" >out 2>err &&
	grep_q "event .cpu/evnt=1/.: unknown format field .evnt. at column 5" err &&
	grep_q "^task-clock$" out
'

test_expect_success 'a value too wide for its field is refused' '
	expect_exit 1 vmmprof list --encode --root "$ICX" "uncore_imc_0/umask=0x100/" 2>err &&
	grep_q "does not fit format field .umask." err
'

test_expect_success '--encode without a spec is a usage error' '
	expect_exit 2 vmmprof list --encode 2>err && grep_q "needs at least one SPEC" err
'

test_expect_success 'this machine: software events encode with the kernel software type' '
	vmmprof list --encode --json task-clock page-faults >out.json &&
	test "$(json_get out.json "j[\"events\"][0][\"type\"]")" = 1 &&
	test "$(json_get out.json "j[\"events\"][1][\"config\"]")" = 0x2
'

test_done
