#!/bin/sh
# t5020-top-tui.sh - `vmmprof top` on a terminal, driven in tmux: views, drill-down, sort, help, resize, quit
. "$(dirname "$0")/lib.sh"

R=$VP_DATA/root
S=vp-t5020-$$

. "$(dirname "$0")/tmux-lib.sh"

if ! command -v tmux >/dev/null; then
	test_skip 'top in tmux' 'tmux is not installed'
	test_done
	exit
fi

tmux kill-session -t "$S" 2>/dev/null
tmux new-session -d -s "$S" -x 150 -y 40 \
	"TERM=xterm-256color $VMMPROF top -d 0.3 --root $R/host-libvirt-v2; echo EXIT=\$?; sleep 30"

test_expect_success 'starts in the VMs view with both VMs and the estimate' '
	screen_wait "2:VMs" s1 &&
	screen_wait "web1 .* kvm .* 1000 .* 2 " s1 &&
	grep_q "db-2" s1 && grep_q "50.0%e" s1
'

test_expect_success 'nodes view (1): memory per node and numastat rates after a sample' '
	keys 1 && screen_wait "MEM_TOTAL" s2 &&
	screen_wait "^ *1  *2048M  *8192M  *0  *0  *0 " s2
'

test_expect_success 'vCPUs view (3): every vCPU with its thread, CPU and node' '
	keys 3 && screen_wait "AFFINITY" s3 &&
	# the rows may reach the terminal after the header: wait for the last one
	screen_wait "web1  *1  *1003  *2  *1 " s3 &&
	grep_q "web1  *0  *1002  *1  *0 " s3 && grep_q "db-2  *0  *2002  *3  *1 " s3
'

test_expect_success 'drill-down: Enter on a VM shows its vCPUs only, Esc goes back' '
	keys 2 && screen_wait "HOME" s4 &&
	keys Down Enter && screen_wait "vCPUs of web1" s4 && screen_wait "1003" s4 &&
	! grep -q "2002" s4 &&
	keys Escape && screen_wait "HOME" s4
'

test_expect_success 'sort by remote fraction (r): web1 (50%) above db-2 (0%)' '
	keys r && screen_wait "sort:remote" s5 &&
	awk "/web1/{w=NR} /db-2/{d=NR} END{exit !(w && d && w < d)}" s5
'

test_expect_success 'help (?) explains the factor columns and why they are n/a' '
	keys "?" && screen_wait "factor columns" s6 &&
	grep_q "SHARE  n/a: ." s6 &&
	keys x && screen_wait "2:VMs" s6
'

test_expect_success 'a terminal resize redraws, top keeps running' '
	tmux resize-window -t "$S" -x 90 -y 20 2>/dev/null || tmux refresh-client -t "$S" -C 90x20 &&
	sleep 0.5 && screen_wait "2:VMs" s7 && ! grep -q "EXIT=" s7
'

test_expect_success 'q quits with exit 0 and restores the terminal' '
	keys q && screen_wait "EXIT=0" s8 &&
	! grep -q "2:VMs" s8
'

tmux kill-session -t "$S" 2>/dev/null
test_done
