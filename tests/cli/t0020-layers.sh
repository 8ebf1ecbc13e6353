#!/bin/sh
# t0020-layers.sh - the pipeline's one direction, held by the #include lines
# of src/*/*.[ch] (issue 24: "a check in the test suite enforces it"), and
# library modules that never print or exit.  The table of allowed
# directions is the one in docs/architecture.md ("Layers"); a change to one
# is a change to the other.
. "$(dirname "$0")/lib.sh"

SRC="$(cd "$(dirname "$0")/../.." && pwd)/src"

# Each directory under src/ and the directories it may include from (its
# own is always allowed).  LIB stands for every library directory: the front
# ends (cli, tui, daemon) may compose any library module, never each other.
# ALL is the binary's main() (src/bin/), the one place that links the front
# ends together (struct cli_fronts); nothing includes it.  A new directory
# under src/ fails the check until it has its row here.
layer_table() {
	cat <<'EOF'
util     -
platform util
calib    util platform
pmu      util platform
source   util platform
srv      util
hv       util platform source
model    util platform pmu source calib
plan     util platform pmu source calib model
analysis util platform pmu source calib hv model
bench    util platform pmu source calib hv model analysis
collect  util platform pmu source calib hv model analysis
record   util platform pmu source calib hv model analysis collect
top      util platform pmu source calib hv model analysis collect
compose  util platform pmu source calib hv model analysis collect record
cli      LIB
tui      LIB
daemon   LIB
bin      ALL
EOF
}

# There are no exceptions to the layer table: the last five (the command
# line including the daemon and the TUI, the daemon including the command
# line's model path and pipeline) were removed by issue 24 (item 6), and a
# test below puts each back to see it fail.

# Library files that may print or exit: FILE CALL REASON.
print_exceptions() {
	cat <<'EOF'
util/alloc.c   fprintf(stderr  out of memory: one line, then abort (documented in alloc.h)
util/alloc.c   abort           out of memory: one line, then abort (documented in alloc.h)
util/check.c   fprintf(stderr  a broken invariant: one line, then abort (documented in check.h)
util/check.c   abort           a broken invariant: one line, then abort (documented in check.h)
util/run.c     _exit           in the forked child when exec fails (126/127, as a shell does)
hv/xen_tracer.c _exit          in the forked child when exec fails (126/127, as a shell does)
bench/sharing.c abort          posix_memalign failing is out of memory, the policy of util/alloc.c
EOF
}

# check_layers SRCDIR: prints one line per violation, fails when there is one.
check_layers() {
	ck_dir=$1
	ck_tmp=$(mktemp -d "${TMPDIR:-/tmp}/vp-layers.XXXXXX") || return 1
	layer_table >"$ck_tmp/table"
	print_exceptions >"$ck_tmp/pexc"
	(cd "$ck_dir" && ls -d */ | tr -d /) >"$ck_tmp/dirs"
	(cd "$ck_dir" && grep -n "^[[:space:]]*#[[:space:]]*include" */*.[ch]) >"$ck_tmp/inc"
	# code lines only: block comments on one line and comment
	# continuation lines (" * ...") dropped, then // comments
	(cd "$ck_dir" && grep -nE "printf|puts|putchar|perror|exit|abort|stdout|stderr|fwrite|fputc|putc" */*.[ch] |
		sed -e "s|/\*.*\*/||g" -e "s|//.*||" |
		grep -vE "^[^:]*:[0-9]+:[[:space:]]*(\*|/\*)") >"$ck_tmp/calls"
	awk -v T="$ck_tmp" '
	function dirof(p) { sub(/\/.*/, "", p); return p }
	BEGIN {
		while ((getline l < (T "/table")) > 0) {
			n = split(l, f, " ")
			known[f[1]] = 1
			deps[f[1]] = f[2]
			for (i = 3; i <= n; i++) deps[f[1]] = deps[f[1]] " " f[i]
			if (f[2] == "LIB") front[f[1]] = 1
			if (f[2] == "ALL") top[f[1]] = 1
		}
		while ((getline l < (T "/pexc")) > 0) {
			split(l, f, " ")
			pexc[f[1] SUBSEP f[2]] = 1
		}
		while ((getline d < (T "/dirs")) > 0) {
			if (!(d in known)) {
				print "src/" d "/: directory not in the layer table"
				bad = 1
			}
		}
		while ((getline l < (T "/inc")) > 0) {
			# l is FILE:LINE:#include ...
			file = l; sub(/:.*/, "", file)
			ln = l; sub(/^[^:]*:/, "", ln); sub(/:.*/, "", ln)
			if (l !~ /include[[:space:]]*"/) continue
			tgt = l; sub(/^[^"]*"/, "", tgt); sub(/".*/, "", tgt)
			from = dirof(file)
			where = "src/" file ":" ln ": "
			if (tgt == "version.h") continue
			if (tgt !~ /\//) {
				print where "includes \"" tgt "\" without its directory"
				bad = 1; continue
			}
			if (tgt ~ /\.\./) {
				print where "includes \"" tgt "\" through .."
				bad = 1; continue
			}
			to = dirof(tgt)
			if (to == from) continue
			if (!(to in known)) {
				print where "includes \"" tgt "\" from a directory not in the layer table"
				bad = 1; continue
			}
			ok = 0
			if (to in top) ok = 0
			else if (from in top) ok = 1
			else if (from in front) ok = !(to in front)
			else if (from in known) ok = (" " deps[from] " ") ~ (" " to " ")
			if (!ok) {
				if (to in top)
					print where "includes \"" tgt "\": src/" to "/ is the main() of the binary, which nothing includes"
				else if (to in front)
					print where "includes \"" tgt "\": src/" to "/ is a front end; " ((from in front) ? "front ends never include each other" : "library modules never include a front end")
				else
					print where "includes \"" tgt "\": src/" from "/ may not include src/" to "/ (allowed: " deps[from] ")"
				bad = 1
			}
		}
		while ((getline l < (T "/calls")) > 0) {
			file = l; sub(/:.*/, "", file)
			from = dirof(file)
			if (from in front || from in top || !(from in known)) continue
			ln = l; sub(/^[^:]*:/, "", ln); sub(/:.*/, "", ln)
			code = l; sub(/^[^:]*:[^:]*:/, "", code)
			split("", hit)
			if (code ~ /(^|[^A-Za-z0-9_])v?printf[[:space:]]*\(/) hit["printf"] = 1
			if (code ~ /(^|[^A-Za-z0-9_])(puts|putchar|perror)[[:space:]]*\(/) hit["puts"] = 1
			if (code ~ /f(v?printf|puts|write|putc)[[:space:]]*\(.*stdout/) hit["fprintf(stdout"] = 1
			if (code ~ /f(v?printf|puts|write|putc)[[:space:]]*\(.*stderr/) hit["fprintf(stderr"] = 1
			if (code ~ /(^|[^A-Za-z0-9_])putc[[:space:]]*\(.*(stdout|stderr)/) hit["fprintf(stdout"] = 1
			if (code ~ /(^|[^A-Za-z0-9_])dprintf[[:space:]]*\([[:space:]]*[12][[:space:]]*,/) hit["printf"] = 1
			if (code ~ /(^|[^A-Za-z0-9_])(exit|quick_exit)[[:space:]]*\(/) hit["exit"] = 1
			if (code ~ /(^|[^A-Za-z0-9])_[Ee]xit[[:space:]]*\(/) hit["_exit"] = 1
			if (code ~ /(^|[^A-Za-z0-9_])abort[[:space:]]*\(/) hit["abort"] = 1
			for (c in hit) {
				if ((file SUBSEP c) in pexc) { pused[file SUBSEP c] = 1; continue }
				print "src/" file ":" ln ": library module calls " c ": library modules never print or exit (return a code and fill struct vp_err)"
				bad = 1
			}
		}
		for (k in pexc) if (!(k in pused)) {
			split(k, f, SUBSEP)
			print "note: print exception no longer needed, remove it: " f[1] " " f[2] > "/dev/stderr"
		}
		exit bad
	}'
	ck_rc=$?
	rm -rf "$ck_tmp"
	return $ck_rc
}

if ! [ -d "$SRC/util" ]; then
	test_skip 'layers of src/' "no source tree at $SRC"
	test_done
	exit
fi

test_expect_success 'the source tree keeps the layer table and prints nowhere in libraries' '
	check_layers "$SRC" >out 2>notes
	rc=$?
	cat out notes
	[ $rc -eq 0 ] && ! test -s out
'

# negative controls: the same check on a copy with one bad line each
test_expect_success 'the check finds the source tree (it sees every directory)' '
	rm -rf src && cp -R "$SRC" src &&
	check_layers src >out 2>/dev/null &&
	for d in util model analysis collect cli daemon; do
		test -d src/$d || { echo "no src/$d"; return 1; }
	done &&
	test $(cat src/*/*.[ch] | grep -c "#[[:space:]]*include") -gt 200
'

test_expect_success 'a library including a front end fails, naming file and line' '
	rm -rf src && cp -R "$SRC" src &&
	printf "#include \"cli/cli.h\"\n" >>src/model/lex.c &&
	n=$(wc -l <src/model/lex.c) &&
	! check_layers src >out 2>/dev/null &&
	cat out &&
	grep_q "^src/model/lex.c:$n: includes \"cli/cli.h\"" out &&
	grep_q "library modules never include a front end" out
'

test_expect_success 'an include going up a layer fails (util including model)' '
	rm -rf src && cp -R "$SRC" src &&
	printf "#include \"model/model.h\"\n" >>src/util/sbuf.c &&
	! check_layers src >out 2>/dev/null &&
	grep_q "^src/util/sbuf.c:[0-9]*: includes \"model/model.h\": src/util/ may not include src/model/" out
'

test_expect_success 'a front end including another front end fails' '
	rm -rf src && cp -R "$SRC" src &&
	printf "#include \"daemon/serve.h\"\n" >>src/tui/tui.c &&
	! check_layers src >out 2>/dev/null &&
	grep_q "front ends never include each other" out
'

# the five includes issue 24 removed, each put back: every one fails
for leak in "cli/cmd_serve.c daemon/serve.h" "cli/cmd_top.c tui/tui.h" "cli/remote.c tui/tui.h" \
	"daemon/api.c cli/model_path.h" "daemon/session.c cli/pipeline.h"; do
	set -- $leak
	LEAK_FROM=$1 LEAK_TO=$2
	export LEAK_FROM LEAK_TO
	test_expect_success "$1 including $2 again fails (no exception left)" '
		rm -rf src && cp -R "$SRC" src &&
		printf "#include \"%s\"\n" "$LEAK_TO" >>src/$LEAK_FROM &&
		n=$(wc -l <src/$LEAK_FROM) &&
		! check_layers src >out 2>/dev/null &&
		cat out &&
		grep_q "^src/$LEAK_FROM:$n: includes \"$LEAK_TO\": src/[a-z]*/ is a front end; front ends never include each other" out
	'
done

test_expect_success 'the binary (src/bin/) links the front ends, and nothing includes it' '
	rm -rf src && cp -R "$SRC" src &&
	grep_q "include \"daemon/serve.h\"" src/bin/vmmprof.c &&
	grep_q "include \"tui/tui.h\"" src/bin/vmmprof.c &&
	check_layers src >out 2>/dev/null &&
	printf "#include \"bin/x.h\"\n" >>src/cli/main.c &&
	! check_layers src >out 2>/dev/null &&
	grep_q "^src/cli/main.c:[0-9]*: includes \"bin/x.h\": src/bin/ is the main() of the binary" out
'

test_expect_success 'a new directory without a row in the table fails' '
	rm -rf src && cp -R "$SRC" src &&
	mkdir src/newstage && printf "int x;\n" >src/newstage/a.c &&
	! check_layers src >out 2>/dev/null &&
	grep_q "src/newstage/: directory not in the layer table" out
'

test_expect_success 'a library module that prints or exits fails' '
	rm -rf src && cp -R "$SRC" src &&
	printf "void f(void) { printf(\"x\"); }\n" >>src/pmu/event.c &&
	printf "void g(void) { fprintf(stderr, \"x\"); exit(1); }\n" >>src/analysis/diagnose.c &&
	! check_layers src >out 2>/dev/null &&
	grep_q "^src/pmu/event.c:[0-9]*: library module calls printf" out &&
	grep_q "^src/analysis/diagnose.c:[0-9]*: library module calls exit" out &&
	grep_q "^src/analysis/diagnose.c:[0-9]*: library module calls fprintf(stderr" out
'

test_expect_success 'snprintf, comments and front ends are not counted as printing' '
	rm -rf src && cp -R "$SRC" src &&
	printf "/* printf(x); exit(1); */\n// abort();\nint h(char *b) { return snprintf(b, 2, \"x\"); }\n" >>src/pmu/event.c &&
	printf "void k(void) { printf(\"x\"); exit(1); }\n" >>src/cli/cli.c &&
	check_layers src >out 2>/dev/null || { cat out; return 1; }
'

test_done
