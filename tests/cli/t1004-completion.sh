#!/bin/sh
# t1004-completion.sh - `vmmprof help --completion bash`: the script bash
# sources, driven as bash drives it (COMP_LINE, COMP_POINT, and COMP_WORDS
# split at COMP_WORDBREAKS' ':' and '='); `list --raw-dump` and `model list
# --raw-dump`, the names it completes from.
. "$(dirname "$0")/lib.sh"

if ! command -v bash >/dev/null 2>&1; then
	test_skip 'bash completion' 'bash is not installed'
	test_done
	exit $?
fi
HOME=$TRASH/home
export HOME
unset XDG_CONFIG_HOME
cd "$TRASH" || exit 1
BIN=$(dirname "$VMMPROF")
MODELS=$(cd "$BIN/../models" 2>/dev/null && pwd)

# comp.bash: `comp LINE` prints the completions of LINE (the cursor at its
# end), sorted, one per line, as bash would put them in place of the word.
cat >comp.bash <<'EOF'
. ./vmmprof.bash
comp() {
	local line="$1" cur
	COMP_LINE=$line; COMP_POINT=${#line}
	read -ra COMP_WORDS <<<"$line"
	case $line in *" ") COMP_WORDS+=("") ;; esac
	cur=${COMP_WORDS[${#COMP_WORDS[@]}-1]}
	# bash splits the word at COMP_WORDBREAKS: right after a break its word is
	# the break character itself, else the part after the last one
	case $cur in
	*[:=]) COMP_WORDS[${#COMP_WORDS[@]}-1]=${cur#"${cur%?}"} ;;
	*[:=]*) COMP_WORDS[${#COMP_WORDS[@]}-1]=${cur##*[:=]} ;;
	esac
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_vmmprof
	[ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
comp "$@"
EOF
# comp LINE: the completions; the binary under test is found as "vmmprof"
comp() { PATH="$BIN:$PATH" bash ./comp.bash "$@"; }
# want WORD...: the expected completions, sorted, into ./want
want() { printf '%s\n' "$@" | sort -u >want; }

test_expect_success 'help --completion bash: a script bash accepts, completing vmmprof and vmmprofd' '
	vmmprof help --completion bash >vmmprof.bash &&
	bash -n vmmprof.bash &&
	bash -c ". ./vmmprof.bash && complete -p vmmprof vmmprofd" >spec &&
	grep_q "complete -F _vmmprof vmmprof$" spec &&
	grep_q "complete -F _vmmprof vmmprofd$" spec &&
	expect_exit 2 vmmprof help --completion zsh 2>err &&
	grep_q "one shell: bash" err
'

test_expect_success 'commands: a prefix completes to the command, no prefix to every command help lists' '
	comp "vmmprof st" >got && want stat && diff -u want got &&
	comp "vmmprof " >got &&
	vmmprof help | awk "/^  [a-z]/ {print \$1}" | sort >want && diff -u want got &&
	comp "vmmprof --remote http://127.0.0.1:1 to" >got && want top && diff -u want got &&
	comp "vmmprof --tok" >got && want --token-file && diff -u want got
'

# The flags of a help page, read as a user reads them: each options line
# starts with its flags ("-e, --event EVENTS"), before two blanks or the end.
test_expect_success 'every command: "CMD -" completes exactly the flags its help lists' '
	vmmprof help | awk "/^  [a-z]/ {print \$1}" >cmds &&
	while read -r c; do
		vmmprof "$c" --help | sed -n "/^options:/,/^examples:/p" |
			grep "^  -" | sed "s/   .*//" | tr "," "\n" |
			sed "s/^ *//; s/ .*//; s/\[.*//" | grep "^-" >w.$c || return 1
		sort -u w.$c >want
		comp "vmmprof $c -" >got
		diff -u want got || { echo "command $c"; return 1; }
	done <cmds
'

test_expect_success 'stat: perf stat'"'"'s flags are there; --per completes to the six --per- flags' '
	comp "vmmprof stat -" >got &&
	for f in -e -a -C -p -t -G -I -x -o -r -A --no-aggr --per-thread --per-node --no-big-num; do
		grep -qx -- "$f" got || { echo "no $f"; return 1; }
	done &&
	comp "vmmprof stat --per" >got &&
	want --per-thread --per-core --per-socket --per-node --per-die --per-cache && diff -u want got &&
	comp "vmmprof stat --per-t" >got && want --per-thread && diff -u want got
'

test_expect_success 'event names: after -e, after --event=, the last of a comma list' '
	comp "vmmprof stat -e task-c" >got && want task-clock && diff -u want got &&
	comp "vmmprof stat --event=page-fa" >got && want page-faults && diff -u want got &&
	comp "vmmprof stat -e cycles,cpu-mig" >got && want cycles,cpu-migrations && diff -u want got &&
	comp "vmmprof stat -e context-sw" >got && want context-switches && diff -u want got
'

if vmmprof list events "sched:sched_switch" 2>/dev/null | grep -q "sched:sched_switch"; then
	test_expect_success 'a tracepoint: bash replaces only the part after the colon' '
		comp "vmmprof stat -e sched:sched_swi" >got && want sched_switch && diff -u want got &&
		comp "vmmprof stat -e task-clock,sched:sched_swi" >got && want sched_switch &&
		diff -u want got &&
		comp "vmmprof stat -e sched:" >got &&
		grep -qx sched_switch got && ! grep -q : got
	'
else
	test_skip 'a tracepoint: bash replaces only the part after the colon' \
		'this machine lists no sched:sched_switch tracepoint'
fi

test_expect_success 'models: -m completes the model files'"'"' names' '
	test -n "$MODELS" && ls "$MODELS"/z*.model >/dev/null &&
	( cd "$MODELS" && ls z*.model ) | sed "s/\.model$//" | sort >want &&
	comp "vmmprof stat -m z" >got && diff -u want got &&
	comp "vmmprof model show z" >got && diff -u want got
'

test_expect_success 'the words a flag or an argument takes' '
	comp "vmmprof bench " >got &&
	want latency bandwidth llc sharing imc queue all && diff -u want got &&
	comp "vmmprof top --sort " >got && want name cpu remote memory llc sharing imc queue && diff -u want got &&
	comp "vmmprof top --sort=" >got && diff -u want got &&
	comp "vmmprof user add bob --role " >got && want admin operator viewer && diff -u want got &&
	comp "vmmprof list " >got && want events pmus vms && diff -u want got &&
	comp "vmmprof bench --isa s" >got && want scalar sse2 && diff -u want got &&
	comp "vmmprof help --man di" >got && want diagnose && diff -u want got &&
	comp "vmmprofd --metrics-auth " >got && want none token && diff -u want got
'

test_expect_success 'files: a recording argument and -o complete file names; -I takes a number' '
	mkdir -p recs && : >recs/run-1.vmmrec && : >recs/run-2.vmmrec &&
	comp "vmmprof report recs/run-" >got && want recs/run-1.vmmrec recs/run-2.vmmrec &&
	diff -u want got &&
	comp "vmmprof record -o recs/run-1" >got && want recs/run-1.vmmrec && diff -u want got &&
	comp "vmmprof stat -I re" >got && test ! -s got
'

test_expect_success 'vmmprofd is never run to complete (it would start a daemon)' '
	mkdir -p fake && cat >fake/vmmprofd <<-\EOT &&
	#!/bin/sh
	touch "$TRASH/ran"
	EOT
	chmod +x fake/vmmprofd &&
	PATH="$TRASH/fake:$BIN:$PATH" bash ./comp.bash "fake/vmmprofd --" >got &&
	grep -qx -- --listen got &&
	PATH="$TRASH/fake:$BIN:$PATH" bash ./comp.bash "vmmprofd --user ro" >/dev/null &&
	test ! -e "$TRASH/ran"
'

test_expect_success 'list --raw-dump: one line of names; "cycles OR cpu-cycles" is two names' '
	vmmprof list --all --raw-dump >raw &&
	test "$(wc -l <raw)" = 1 &&
	tr " " "\n" <raw >names &&
	grep -qx cycles names && grep -qx cpu-cycles names && grep -qx task-clock names &&
	! grep -qx OR names &&
	vmmprof list pmus --raw-dump | tr " " "\n" >pmus &&
	grep -qx software pmus &&
	test "$(vmmprof list events task-cl --raw-dump)" = task-clock &&
	expect_exit 2 vmmprof list --raw-dump --json 2>err && grep_q "choose one" err &&
	expect_exit 2 vmmprof list --encode --raw-dump cycles 2>err
'

test_expect_success 'model list --raw-dump: the name of each model file, once' '
	( cd "$MODELS" && ls *.model ) | sed "s/\.model$//" | sort >want &&
	vmmprof model list --raw-dump | tr " " "\n" | sort >got &&
	diff -u want got &&
	mkdir -p mp && cp "$MODELS/zen3.model" mp/zen3.model && cp "$MODELS/zen3.model" mp/extra.model &&
	vmmprof model list --raw-dump --model-path mp | tr " " "\n" | sort >got &&
	{ cat want; echo extra; } | sort >want2 && diff -u want2 got
'

test_done
