#!/bin/sh
# t11090-install.sh - `make install` into a temporary DESTDIR gives users what
# the build tree has: every model with the fragments it includes (the same
# `model list`, each model checked), `info --root` choosing the same model,
# the docs the systemd unit points at, man pages and completion
. "$(dirname "$0")/lib.sh"

SRC=$(cd "$VP_DATA/../.." && pwd)
BDIR=$(cd "$(dirname "$VMMPROF")" && pwd)
D=$TRASH/dest
P=/usr/local
I=$D$P/bin/vmmprof

if ! command -v make >/dev/null; then
	test_skip 'make install into a temporary tree' 'make is not installed'
	test_done
	exit $?
fi

# no user models: both trees see only what they ship
mkdir -p "$TRASH/home"
export HOME="$TRASH/home" XDG_CONFIG_HOME="$TRASH/home/.config"

# -o: the binary under test is installed as it is, never rebuilt (SAN builds too)
test_expect_success 'make install DESTDIR=... PREFIX=/usr/local' '
	make -s -C "$SRC" install DESTDIR="$D" PREFIX="$P" BUILD="$BDIR" -o "$BDIR/vmmprof" >out 2>&1 ||
		{ cat out; false; } &&
	test -x "$I" && test -L "$D$P/bin/vmmprofd"
'

test_expect_success 'every model and every fragment it includes is installed' '
	for f in "$SRC"/models/*.model "$SRC"/models/*.inc; do
		cmp "$f" "$D$P/share/vmmprof/models/$(basename "$f")" || return 1
	done &&
	test "$(ls "$D$P/share/vmmprof/models" | wc -l)" = "$(ls "$SRC"/models/*.model "$SRC"/models/*.inc | wc -l)"
'

test_expect_success 'model list of the installed tree equals the build tree'"'"'s' '
	"$VMMPROF" model list --json >build.json &&
	"$I" model list --json >inst.json &&
	python3 - build.json inst.json "$D$P/share/vmmprof/models" <<-\PY
	import json, sys
	b, i = (json.load(open(f)) for f in sys.argv[1:3])
	strip = lambda j: [(m["name"], m["description"], m["match"], m["error"]) for m in j["models"]]
	assert strip(b) == strip(i), (strip(b), strip(i))
	assert all(m["path"].startswith(sys.argv[3]) for m in i["models"]), i["models"]
	assert not any(m["error"] for m in i["models"]), i["models"]
	assert len(i["models"]) >= 12, len(i["models"])
	PY
'

test_expect_success 'model check passes on every installed model (fixture machines)' '
	for m in "$D$P"/share/vmmprof/models/*.model; do
		"$I" model check --parse-only "$m" >out 2>&1 || { echo "$m:"; cat out; return 1; }
	done
'

test_expect_success 'info --root skx-2s with the installed binary: the skx model, as in the build tree' '
	"$I" info --root "$VP_DATA/root/skx-2s" >inst.txt 2>err &&
	"$VMMPROF" info --root "$VP_DATA/root/skx-2s" >build.txt 2>&1 &&
	grep_q "skx" inst.txt &&
	! grep -qi "fall.*back\|architectural-only" inst.txt &&
	sed "s|$D$P/share/vmmprof/models|MODELS|g" inst.txt >a &&
	sed "s|$SRC/models|MODELS|g; s|$BDIR/../models|MODELS|g" build.txt >b &&
	diff a b
'

test_expect_success 'docs, the unit'"'"'s Documentation= file, man pages and completion' '
	doc=$(sed -n "s|^Documentation=.*file:\([^ ]*\).*|\1|p" "$SRC/contrib/vmmprofd.service") &&
	test -n "$doc" && test -s "$D$doc" &&
	test -s "$D$P/share/doc/vmmprof/README.md" &&
	test -s "$D$P/share/doc/vmmprof/contrib/vmmprofd.service" &&
	for c in $("$VMMPROF" help | awk "/^  [a-z]/ {print \$1}"); do
		test -s "$D$P/share/man/man1/vmmprof-$c.1" || return 1
	done &&
	grep_q "^\.TH" "$D$P/share/man/man1/vmmprof-diagnose.1" &&
	# vmmprof(1), the page every command page cites in SEE ALSO
	grep_q "^\.TH VMMPROF 1" "$D$P/share/man/man1/vmmprof.1" &&
	test -s "$D$P/share/bash-completion/completions/vmmprof"
'

test_done
