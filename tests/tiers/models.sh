#!/bin/sh
# models.sh - `vmmprof model check` over every built-in model, each against
# the fixture tree of its platform (tests/data/root/NAME), and `vmmprof model
# test` over each model's scenario file (tests/models/NAME.cases).  A model whose
# fixture tree does not exist yet is parsed and name-checked only, and
# counted as skipped with the reason.  Last line: "models: N passed, N failed,
# N skipped".
set -u
cd "$(dirname "$0")/../.."
make -s -j"$(nproc)" build/vmmprof >/dev/null || { echo "models: 0 passed, 1 failed, 0 skipped"; exit 1; }
bin=build/vmmprof
roots=tests/data/root

# model -> fixture tree of its platform
fixture_of() {
	case "$1" in
	nhm-ep) echo nhm-ep ;;
	wsm-ep) echo wsm-ep ;;
	skx) echo skx-2s ;;
	icx) echo icx-2s ;;
	spr) echo spr-2s ;;
	zen1) echo zen1-2s ;;
	zen2) echo zen2-2s ;;
	zen3) echo zen3-2s ;;
	zen4) echo zen4-2s ;;
	zen5) echo zen5-2s ;;
	hsx) echo hsx-2s ;;
	bdx) echo bdx-2s ;;
	ivb-ep) echo ivb-ep-2s ;;
	snb-ep) echo snb-ep-2s ;;
	emr) echo emr-2s ;;
	gnr) echo gnr-2s ;;
	neoverse-n2) echo neoverse-n2-2s ;;
	neoverse-v1) echo neoverse-v1-2s ;;
	neoverse-v2) echo neoverse-v2-2s ;;
	neoverse-n1) echo arm-n1 ;;
	vpmu | vpmu-intel) echo kvm-guest-vpmu ;;
	software) echo local ;;
	*) echo "" ;;
	esac
}

pass=0
fail=0
skip=0
out=$(mktemp)
for f in models/*.model; do
	name=$(basename "$f" .model)
	fx=$(fixture_of "$name")
	# every model must at least parse, whatever the fixture situation
	if [ -n "$fx" ] && [ -d "$roots/$fx" ]; then
		if HOME=/nonexistent "$bin" model check --root "$roots/$fx" "$f" >"$out" 2>&1; then
			pass=$((pass + 1))
			echo "ok   $name against $roots/$fx: $(sed -n "s/.*; \([0-9]* events and sources ([0-9]* optional absent\).*/\1)/p" "$out")"
		else
			fail=$((fail + 1))
			echo "FAIL $name against $roots/$fx"
			sed 's/^/     /' "$out"
		fi
	elif HOME=/nonexistent "$bin" model check --parse-only "$f" >"$out" 2>&1; then
		skip=$((skip + 1))
		echo "SKIP $name: parsed only, no fixture tree ${fx:+$roots/$fx }to resolve its events against yet"
	else
		fail=$((fail + 1))
		echo "FAIL $name does not parse"
		sed 's/^/     /' "$out"
	fi
done
# each model's scenario file (tests/models/NAME.cases): the physics expanded into
# counts by tests/helpers/gen_counts.py, then `model test` against the hand-worked costs
cases=$(mktemp)
for f in tests/models/*.cases; do
	name=$(basename "$f" .cases)
	if ! command -v python3 >/dev/null; then
		skip=$((skip + 1))
		echo "SKIP $name.cases: python3 is needed by tests/helpers/gen_counts.py"
	elif python3 tests/helpers/gen_counts.py "$f" "$cases" >"$out" 2>&1 &&
	     HOME=/nonexistent "$bin" model test "$cases" >>"$out" 2>&1; then
		pass=$((pass + 1))
		echo "ok   $name.cases: $(tail -n 1 "$out" | sed 's/^[^:]*: //')"
	else
		fail=$((fail + 1))
		echo "FAIL $name.cases"
		sed 's/^/     /' "$out"
	fi
done
rm -f "$out" "$cases"
echo "models: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
