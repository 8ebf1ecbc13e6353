# daemon-lib.sh - start and stop a real vmmprof daemon on loopback for tests,
# in the manner of redis's start_server.  Source after lib.sh.
#
#   start_daemon NAME [serve options...]   starts `vmmprof serve` on 127.0.0.1,
#       a free port chosen by the kernel (port 0, read back from its
#       "listening on" line); the URL is in $TRASH/NAME.url, its standard
#       error in $TRASH/NAME.err, its pid in $TRASH/NAME.pid.
#   stop_daemon NAME [SIGNAL]              signals it (TERM) and waits (30 s at
#       most); its exit status is in $TRASH/NAME.rc.
#   add_users FILE NAME:ROLE...            `vmmprof user add` each to the users file FILE,
#       its token in $TRASH/NAME.token (written by --token-out).
#   req NAME TOKENFILE METHOD PATH [curl args...]
#       one request; the body into ./body, the headers into ./headers, the
#       status code on standard output.  TOKENFILE "-" sends no token.
# Every daemon still running when the script exits is stopped.

# skip_without_daemon: ends the script (all skipped) when this vmmprof has no
# daemon (built without libmicrohttpd) or curl is missing.
skip_without_daemon() {
	why=""
	if "$VMMPROF" serve --users /nonexistent 2>&1 | grep -q "built without libmicrohttpd"; then
		why="vmmprof was built without libmicrohttpd"
	elif ! command -v curl >/dev/null 2>&1; then
		why="curl is not installed"
	fi
	if [ -n "$why" ]; then
		test_skip "the daemon on loopback" "$why"
		test_done
		exit $?
	fi
}

# daemon_home: the daemon tests' own HOME (tokens and configuration the
# client finds there) in $TRASH, no XDG_CONFIG_HOME of the caller's, and
# $TRASH as the working directory.
daemon_home() {
	HOME=$TRASH/home
	export HOME
	unset XDG_CONFIG_HOME
	cd "$TRASH" || exit 1
}

vp_daemons=""
# Pids of every daemon started, in a file next to $TRASH: a test body runs in
# a subshell (its variables are lost) and test_done removes $TRASH with the
# pid files before the EXIT trap runs.
vp_daemon_pids="$TRASH.daemons"
# stop_all_daemons: what a script calls before test_done (also on any exit):
# no daemon outlives its script.
stop_all_daemons() {
	for n in $vp_daemons; do
		[ -f "$TRASH/$n.pid" ] && [ ! -s "$TRASH/$n.rc" ] && stop_daemon "$n" KILL
	done
	if [ -f "$vp_daemon_pids" ]; then
		while read -r p; do
			# still ours (a pid can be reused): a vmmprof serve
			cat "/proc/$p/cmdline" 2>/dev/null | tr '\0' ' ' | grep -q "vmmprof.* serve" &&
				kill -KILL "$p" 2>/dev/null
		done <"$vp_daemon_pids"
		rm -f "$vp_daemon_pids"
	fi
	return 0
}
trap stop_all_daemons EXIT

start_daemon() {
	name=$1
	shift
	rm -f "$TRASH/$name.rc" "$TRASH/$name.pid" "$TRASH/$name.url"
	# a subshell waits for it, so its exit status is kept whoever stops it
	(
		"$VMMPROF" serve --listen 127.0.0.1:0 "$@" 2>"$TRASH/$name.err" &
		echo $! >"$TRASH/$name.pid"
		wait $!
		echo $? >"$TRASH/$name.rc"
	) &
	while [ ! -s "$TRASH/$name.pid" ]; do sleep 0.05; done
	vp_daemons="$vp_daemons $name"
	cat "$TRASH/$name.pid" >>"$vp_daemon_pids"
	i=0
	while [ $i -lt 100 ]; do
		url=$(sed -n 's|^vmmprofd: listening on \(https*://[^ ]*\)/ .*|\1|p' "$TRASH/$name.err")
		if [ -n "$url" ]; then
			echo "$url" >"$TRASH/$name.url"
			return 0
		fi
		kill -0 "$(cat "$TRASH/$name.pid")" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "daemon $name did not start:"
	cat "$TRASH/$name.err"
	return 1
}

stop_daemon() {
	kill -"${2:-TERM}" "$(cat "$TRASH/$1.pid")" 2>/dev/null
	i=0
	while [ ! -s "$TRASH/$1.rc" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$TRASH/$1.rc" ] || { echo "daemon $1 did not stop in 30 s"; return 1; }
}

add_users() {
	f=$1
	shift
	for u in "$@"; do
		"$VMMPROF" user add "${u%%:*}" --role "${u#*:}" --users "$f" \
			--token-out "$TRASH/${u%%:*}.token" >"$TRASH/user-add.out" 2>&1 || {
			cat "$TRASH/user-add.out"
			return 1
		}
	done
}

req() {
	name=$1 tokf=$2 method=$3 path=$4
	shift 4
	if [ "$tokf" = - ]; then
		curl -sS -o body -D headers -w '%{http_code}' -X "$method" "$@" \
			"$(cat "$TRASH/$name.url")$path"
	else
		curl -sS -o body -D headers -w '%{http_code}' -X "$method" \
			-H "Authorization: Bearer $(cat "$tokf")" "$@" "$(cat "$TRASH/$name.url")$path"
	fi
}

# expect_status WANT NAME TOKENFILE METHOD PATH [curl args]: req, and show the body when it differs.
expect_status() {
	want=$1
	shift
	got=$(req "$@")
	if [ "$got" != "$want" ]; then
		echo "expected HTTP $want, got $got for $3 $4:"
		cat body
		return 1
	fi
}
