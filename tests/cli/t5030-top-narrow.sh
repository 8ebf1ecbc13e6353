#!/bin/sh
# t5030-top-narrow.sh - `vmmprof top` at 80x24 and 200x50 in tmux: every
# factor column on screen, no row wrapped, Left/Right pages, sort by a
# factor, / filter, NO_COLOR (issue 23, top)
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
S=vp-t5030-$$

. "$(dirname "$0")/tmux-lib.sh"
# start W H [ENV]: top on the two-VM libvirt fixture (web1: LLC 1.5M from resctrl, LOCAL 50 %e;
# db-2: LLC n/a, LOCAL 0 %e) in a W x H terminal
start() {
	tmux kill-session -t "$S" 2>/dev/null
	tmux new-session -d -s "$S" -x "$1" -y "$2" \
		"TERM=xterm-256color ${3:-} $VMMPROF top -d 0.3 --root $R/host-libvirt-v2; echo EXIT=\$?; sleep 30"
}
# every line of the capture within W columns, and a row ends where it should:
# no line starts with a stray fragment of a wrapped header or row
fits() {
	awk -v w="$1" 'length($0) > w { print "line " NR " is " length($0) " wide: " $0; bad = 1 }
		END { exit bad }' "$2"
}

if ! command -v tmux >/dev/null; then
	test_skip 'top at 80x24 and 200x50' 'tmux is not installed'
	test_done
	exit
fi

start 80 24
test_expect_success '80x24, VMs: all five factors on screen, each row one line' '
	screen_wait "2:VMs" s1 && screen_wait "^ web1 " s1 &&
	fits 80 s1 &&
	grep_q "^ VM .* LOCAL .* LLC .* SHARE .* IMC .* QUEUE *$" s1 &&
	# the row that follows the header is a VM row, not the rest of a wrapped header
	test "$(sed -n 4p s1 | cut -c1-6)" = " db-2 " &&
	grep_q "^ web1 .* 50.0%e  *1.5M  *n/a  *n/a  *n/a *$" s1
'

test_expect_success '80x24, vCPUs: all five factors; Right pages to thread and affinity, Left back' '
	keys 3 && screen_wait "^ VM  *VCPU" s2 && screen_wait "^ web1  *1 " s2 &&
	fits 80 s2 && grep_q "LOCAL .* LLC .* SHARE .* IMC .* QUEUE *$" s2 &&
	grep_q "^ web1  *1  *2  *1 .* 75.0%e" s2 &&
	keys Right && screen_wait "AFFINITY" s2 && screen_wait "^ web1  *1  *1003 2-3" s2 &&
	fits 80 s2 && ! grep -q "^ VM .*QUEUE" s2 &&
	keys Left && screen_wait "^ VM .*QUEUE" s2
'

test_expect_success 'sort by a factor: l (LLC) puts web1 (1.5M) above db-2 (n/a, last)' '
	keys 2 && screen_wait "sort:name" s3 &&
	keys l && screen_wait "sort:llc" s3 &&
	awk "/^ web1/{w=NR} /^ db-2/{d=NR} END{exit !(w && d && w < d)}" s3 &&
	keys n && screen_wait "sort:name" s3 &&
	awk "/^ web1/{w=NR} /^ db-2/{d=NR} END{exit !(w && d && d < w)}" s3
'

test_expect_success '/ filters the rows by VM name, an empty filter clears it' '
	keys / && screen_wait "filter (VM name" s4 &&
	keys d b Enter && screen_wait "filter:db" s4 &&
	screen_wait "^ db-2 " s4 && ! grep -q "^ web1" s4 &&
	keys / BSpace BSpace Enter && screen_wait "^ web1 " s4 && ! grep -q "filter:" s4
'

test_expect_success 'the help screen fits 80 columns and names every sort key' '
	keys "?" && screen_wait "factor columns" s5 && fits 80 s5 &&
	grep_q "c CPU  r remote  l LLC  s sharing  i IMC  u queue" s5 &&
	keys x && screen_wait "2:VMs" s5 && keys q && screen_wait "EXIT=0" s5
'

start 200 50
test_expect_success '200x50: the wide layout, identity columns and factors on one row' '
	screen_wait "^ web1 " w1 && fits 200 w1 &&
	grep_q "^ VM  *HV  *ID VCPU .* LOCAL .* QUEUE *$" w1 &&
	grep_q "^ web1  *kvm  *1000  *2 .* 50.0%e  *1.5M" w1 &&
	keys q && screen_wait "EXIT=0" w1
'

test_expect_success 'NO_COLOR: no colour escapes on the screen, the severity marked instead' '
	start 80 24 NO_COLOR=1 &&
	screen_wait "^ web1 " c1 &&
	tmux capture-pane -p -e -t "$S" >c1e &&
	# SGR colour codes: 30-37/90-97 foreground, 40-47 background, 38;5 / 48;5 256-colour
	! grep -Eq "\[([0-9;]*;)?(3[0-7]|9[0-7]|4[0-7]|38;5|48;5)(;[0-9;]*)?m" c1e &&
	keys q && screen_wait "EXIT=0" c1
'

test_expect_success 'with colours the same screen has them (the check above can fail)' '
	start 80 24 &&
	screen_wait "^ web1 " c2 &&
	tmux capture-pane -p -e -t "$S" >c2e &&
	grep -Eq "\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5)(;[0-9;]*)?m" c2e &&
	keys q && screen_wait "EXIT=0" c2
'

tmux kill-session -t "$S" 2>/dev/null

test_expect_success '--sort takes the factors; an unknown key lists them' '
	vmmprof top --batch -n 1 -d 0.2 --sort llc --root $R/host-libvirt-v2 >b &&
	awk "/^VMS/{v=1} v && /^web1/{w=NR} v && /^db-2/{d=NR} END{exit !(w && d && w < d)}" b &&
	expect_exit 2 vmmprof top --batch --sort frob --root $R/host-libvirt-v2 2>e &&
	grep_q "llc, sharing, imc, queue" e
'

test_done
