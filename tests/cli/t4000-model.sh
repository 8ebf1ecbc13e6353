#!/bin/sh
# t4000-model.sh - vmmprof model list / show / check: the built-in models,
# the automatic choice, the search path, and errors with file:line:col
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
BAD=$VP_DATA/models/bad
MODELS=$(cd "$VP_DATA/../../models" && pwd)
# no user models from the machine running the tests
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME

# A fixture: the PMUs of a captured host plus a /proc/cpuinfo naming its CPU.
mkroot() { # NAME SRC VENDOR FAMILY MODEL
	mkdir -p "$1/proc" && cp -r "$R/$2/sys" "$1/" &&
	printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: test\nstepping\t: 6\nflags\t\t: fpu\n\n' \
		"$3" "$4" "$5" >"$1/proc/cpuinfo"
}

test_expect_success 'list shows every built-in model with its match rules' '
	vmmprof model list --root "$R/guest" >out &&
	for m in nhm-ep wsm-ep skx icx spr zen2 zen3 zen4 neoverse-n1 vpmu vpmu-intel software; do
		grep_q "^.  $m  " out || return 1
	done &&
	grep_q "skx .*cpu GenuineIntel family 0x6 model 0x55; pmu skx clx" out &&
	grep_q "$MODELS" out
'

test_expect_success 'no core PMU (a guest without vPMU): the software model is chosen' '
	vmmprof model list --root "$R/guest" >out &&
	grep_q "^\* chosen for .*guest: software, by software" out &&
	grep_q "^\*  software" out
'

test_expect_success 'an Ice Lake-SP host (family 6 model 106) gets the icx model' '
	mkroot icx "icx-2s" GenuineIntel 6 106 &&
	vmmprof model list --root icx >out &&
	grep_q "chosen for icx: icx, by CPU GenuineIntel family 0x6 model 0x6a" out
'

test_expect_success 'a Zen 4 host (family 25 model 17) gets zen4, a Zen 2 host (23/49) zen2' '
	mkroot z4 zen4-2s AuthenticAMD 25 17 && mkroot z2 zen2-2s AuthenticAMD 23 49 &&
	vmmprof model list --root z4 >out && grep_q "chosen for z4: zen4" out &&
	vmmprof model list --root z2 >out && grep_q "chosen for z2: zen2" out
'

# A Haswell desktop part (6/60; Haswell-EP, 6/63, has the hsx model)
test_expect_success 'an Intel CPU no model covers, with a PMU: vpmu-intel; an unknown AMD one: vpmu' '
	mkroot hsw icx-2s GenuineIntel 6 60 && mkroot amd icx-2s AuthenticAMD 21 2 &&
	vmmprof model list --root hsw >out && grep_q "chosen for hsw: vpmu-intel" out &&
	vmmprof model list --root amd >out && grep_q "chosen for amd: vpmu, by a core PMU is present" out
'

test_expect_success 'Sandy Bridge-EP .. Broadwell-EP, Emerald and Granite Rapids, Zen 5 hosts get their models' '
	mkroot hsx icx-2s GenuineIntel 6 63 && mkroot bdx icx-2s GenuineIntel 6 79 &&
	mkroot z5 icx-2s AuthenticAMD 26 2 &&
	vmmprof model list --root hsx >out && grep_q "chosen for hsx: hsx, by CPU GenuineIntel family 0x6 model 0x3f" out &&
	vmmprof model list --root bdx >out && grep_q "chosen for bdx: bdx, by CPU GenuineIntel family 0x6 model 0x4f" out &&
	vmmprof model list --root z5 >out && grep_q "chosen for z5: zen5, by CPU AuthenticAMD family 0x1a model 0x2" out &&
	mkroot snb icx-2s GenuineIntel 6 45 && mkroot ivb icx-2s GenuineIntel 6 62 &&
	mkroot emr icx-2s GenuineIntel 6 207 && mkroot gnr icx-2s GenuineIntel 6 174 &&
	vmmprof model list --root snb >out && grep_q "chosen for snb: snb-ep, by CPU GenuineIntel family 0x6 model 0x2d" out &&
	vmmprof model list --root ivb >out && grep_q "chosen for ivb: ivb-ep, by CPU GenuineIntel family 0x6 model 0x3e" out &&
	vmmprof model list --root emr >out && grep_q "chosen for emr: emr, by CPU GenuineIntel family 0x6 model 0xcf" out &&
	vmmprof model list --root gnr >out && grep_q "chosen for gnr: gnr, by CPU GenuineIntel family 0x6 model 0xae" out
'

# The fixture trees make-model-fixtures.py writes for the newer models, as they are
test_expect_success 'each newer model is chosen on its own fixture tree' '
	for p in zen1:zen1-2s zen5:zen5-2s snb-ep:snb-ep-2s ivb-ep:ivb-ep-2s hsx:hsx-2s bdx:bdx-2s emr:emr-2s gnr:gnr-2s \
		 neoverse-n2:neoverse-n2-2s neoverse-v1:neoverse-v1-2s neoverse-v2:neoverse-v2-2s; do
		m=${p%%:*} t=${p#*:} &&
		vmmprof model list --root "$R/$t" >out &&
		grep_q "chosen for $R/$t: $m, by CPU" out || return 1
	done
'

test_expect_success 'list --json: every model, the chosen one, the search path' '
	mkroot icx icx-2s GenuineIntel 6 106 &&
	vmmprof model list --json --root icx >j &&
	test "$(json_get j "j[\"chosen\"]")" = icx &&
	test "$(json_get j "len([m for m in j[\"models\"] if not m[\"shadowed\"]])")" -ge 12 &&
	test "$(json_get j "[m[\"match\"] for m in j[\"models\"] if m[\"name\"] == \"zen3\"][0]")" = \
		"cpu AuthenticAMD family 0x19 model 0x0-0xf,0x20-0x5f; pmu amd64_fam19h_zen3"
'

test_expect_success '--model-path comes first: a user model shadows the built-in of that name' '
	mkdir mine && sed "s/^description .*/description \"my own\"/" "$MODELS/software.model" >mine/software.model &&
	vmmprof model list --root "$R/guest" --model-path mine >out &&
	grep_q "software .*my own" out &&
	grep_q "shadowed by an earlier .software." out &&
	grep_q "chosen for .*: software, by software (.*mine/software.model" out
'

test_expect_success '~/.config/vmmprof/models is searched (before the built-in models)' '
	mkdir -p "$HOME/.config/vmmprof/models" &&
	printf "model extra\ndescription \"from home\"\ninclude vpmu\nmatch software\n" \
		>"$HOME/.config/vmmprof/models/extra.model" &&
	vmmprof model list --root "$R/guest" >out &&
	grep_q "extra .*from home" out && grep_q "$HOME/.config/vmmprof/models" out
'

test_expect_success 'show: events, metrics, factors and what is available on a fixture' '
	vmmprof model show icx --root "$R/icx-2s" >out &&
	grep_q "^model icx (" out &&
	grep_q "cas_rd .*uncore_imc/event=0x04,umask=0x0f/ .*yes" out &&
	grep_q "llc_mpki .*MPKI .*1000 \* llc_miss / instr .*yes" out &&
	grep_q "locality .*measured .*remote_frac .*0.2 .*0.5 .*yes" out
'

test_expect_success 'show on a machine without its PMUs: metrics n/a, each reason once as a footnote' '
	vmmprof model show zen4 --root "$R/icx-2s" >out &&
	k=$(sed -n "s/^  umc_rd .*n\/a \[\([0-9]*\)\]\$/\1/p" out) && test -n "$k" &&
	grep_q "^  \[$k\] no PMU .amd_umc. here\$" out &&
	grep_q "mem_bw .*n/a: event .umc_rd. unavailable \[$k\]\$" out &&
	grep_q "imc .*apportioned .*n/a: event .umc_rd. unavailable \[$k\]\$" out &&
	# the reason is written once, in its footnote, however many rows it makes n/a
	test "$(grep -c "no PMU .amd_umc. here" out)" = 1 &&
	test "$(sed -n "/^why n\/a:/,/^\$/p" out | grep -c "^  \[")" = "$(sed -n "/^why n\/a:/,/^\$/p" out | grep "^  \[" | cut -d" " -f4- | sort -u | wc -l)"
'

test_expect_success 'show --json: unavailable factors carry their reason' '
	vmmprof model show neoverse-n1 --json --root "$R/guest" >j &&
	test "$(json_get j "[f[\"available\"] for f in j[\"factors\"] if f[\"factor\"] == \"sharing\"][0]")" = False &&
	json_get j "[f[\"reason\"] for f in j[\"factors\"] if f[\"factor\"] == \"sharing\"][0]" >r &&
	grep_q "no snoop or cache-to-cache transfer event" r &&
	test "$(json_get j "[i[\"spec\"] for i in j[\"inputs\"] if i[\"name\"] == \"remote\"][0]")" = r31
'

test_expect_success 'check: built-in models against their fixture trees' '
	vmmprof model check --root "$R/icx-2s" "$MODELS/icx.model" >out &&
	grep_q "icx.model: ok: model icx against .*icx-2s" out &&
	vmmprof model check --root "$R/zen2-2s" zen2 >out && grep_q "^zen2: ok" out
'

test_expect_success 'check: an unknown event is an error at its spec, with a caret' '
	cat >t.model <<-\EOF &&
	model t
	include vpmu
	match pmu icx
	event a = MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAMM
	event b = uncore_imc/evnt=0x04/   optional
	EOF
	expect_exit 1 vmmprof model check --root "$R/icx-2s" t.model >out 2>err &&
	grep_q "t.model: FAILED: 2 errors" out &&
	grep_q "^t.model:4:36: error: event .a.: not in libpfm4 table .icx.: .*unknown umask or modifier .LOCAL_DRAMM. at column 26" err &&
	grep_q "^    4 | event a = MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAMM" err &&
	grep_q "^      |                                    ^" err &&
	grep_q "^t.model:5:22: error: event .b.: .*unknown format field .evnt. at column 12" err
'

test_expect_success 'check: an optional event absent here is not an error (-v names it)' '
	cat >o.model <<-\EOF &&
	model o
	include vpmu
	event u = uncore_imc/event=0x04,umask=0x0f/ optional
	EOF
	vmmprof model check --root "$R/zen2-2s" o.model >out 2>err &&
	grep_q "o.model: ok: .*optional absent" out && ! grep -q "uncore_imc" err &&
	vmmprof model check -v --root "$R/zen2-2s" o.model >out 2>err &&
	grep_q "o.model:3:11: warning: optional event .u. is not available: no PMU .uncore_imc. here" err
'

test_expect_success 'check: every bad model fails at the file:line:col it states' '
	for f in "$BAD"/*.model; do
		pos=$(head -n 1 "$f" | cut -d " " -f 3 | sed "s/:\$//") &&
		expect_exit 1 vmmprof model check --parse-only "$f" >out 2>err || return 1
		grep -q "^[^ ]*\.model:$pos: error: " err ||
			{ echo "$f: expected an error at $pos"; cat err; return 1; }
	done
'

test_expect_success 'check: several files, one bad: exit 1, the good one still reported' '
	expect_exit 1 vmmprof model check --parse-only "$MODELS/skx.model" "$BAD/cycle.model" >out 2>err &&
	grep_q "skx.model: ok (parsed only)" out &&
	grep_q "cycle.model: FAILED" out &&
	grep_q "cycle in metric references: b -> c -> b" err
'

test_expect_success 'show/check of a name that does not exist: exit 1' '
	expect_exit 1 vmmprof model show nosuch 2>err && grep_q "no model named .nosuch." err &&
	expect_exit 1 vmmprof model check --parse-only ./nosuch.model >out 2>err &&
	grep_q "cannot read model .*nosuch.model.: No such file" err
'

test_expect_success 'usage errors exit 2' '
	expect_exit 2 vmmprof model 2>err && grep_q "needs a subcommand" err &&
	expect_exit 2 vmmprof model frob 2>err && grep_q "unknown subcommand .frob." err &&
	expect_exit 2 vmmprof model show 2>err && grep_q "needs a model name" err &&
	expect_exit 2 vmmprof model check 2>err &&
	expect_exit 2 vmmprof model list --bogus 2>err && grep_q "unknown option .--bogus." err &&
	expect_exit 2 vmmprof model list --root "$TRASH/nope" 2>err && grep_q "does not exist" err
'

test_done
