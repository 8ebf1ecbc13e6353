# tmux-lib.sh - what the tests that drive `vmmprof top` on a terminal share
# (t5020, t5030, t5220).  Source after lib.sh; $S names the tmux session.
#
#   screen FILE               the pane's text into FILE
#   screen_wait PATTERN FILE  poll the pane until PATTERN shows (10 s at most,
#                             for a loaded machine); else print it and fail
#   keys KEY...               send keys to the pane

screen() { tmux capture-pane -p -t "$S" >"$1"; }

screen_wait() {
	i=0
	while [ $i -lt 100 ]; do
		screen "$2"
		grep -q -- "$1" "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "screen never showed '$1':"
	cat "$2"
	return 1
}

keys() { tmux send-keys -t "$S" "$@"; }
