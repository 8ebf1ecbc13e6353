#!/bin/sh
# t9100-report-html.sh - the HTML report of a live QEMU VM's recording renders in headless Chromium
. "$(dirname "$0")/lib.sh"

vm=vphtml-$$
qpid=
stop_vm() { [ -n "$qpid" ] && kill $qpid 2>/dev/null && wait $qpid 2>/dev/null; qpid=; true; }
trap stop_vm EXIT
chromium_bin=$(command -v chromium || true)
# the PNG checks of the web UI tests (tests/web/cdp.py)
png_lib=$(cd "$(dirname "$0")/../web" && pwd)
have_vm=0
if [ -n "$chromium_bin" ] && command -v qemu-system-x86_64 >/dev/null; then
	qemu-system-x86_64 -accel tcg -name "guest=$vm,debug-threads=on" -smp 2 -m 128 \
		-display none -nodefaults -no-reboot >/dev/null 2>&1 &
	qpid=$!
	i=0
	while [ $i -lt 50 ]; do
		if grep -qs "CPU 1/TCG" /proc/$qpid/task/*/comm; then have_vm=1; break; fi
		sleep 0.2
		i=$((i + 1))
	done
	sleep 0.5
fi

if [ $have_vm = 1 ]; then
test_expect_success 'record 2 s of the VM and write the HTML report' '
	vmmprof record -q -o r.vmmdb -d 2 -I 500 --vm $vm &&
	vmmprof report --html r.html r.vmmdb 2>err &&
	test -s r.html
'
stop_vm

# The screenshot is kept for a person to look at in $(test_artefacts) (build/test-artefacts/t9100-report-html/);
# the checks read it with python3's zlib (no PIL), through tests/web/cdp.py.
test_expect_success 'headless Chromium renders it: a 1200x2000 PNG, not blank, with text and charts' '
	prof=$(mktemp -d) &&
	timeout 120 "$chromium_bin" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$prof" --screenshot="$PWD/out.png" \
		--window-size=1200,2000 "file://$PWD/r.html" >chr.log 2>&1;
	rm -rf "$prof";
	test -s out.png &&
	cp out.png "$(test_artefacts)/t9100-report-html.png" &&
	python3 - out.png "$png_lib" <<-PY
	import sys
	sys.path.insert(0, sys.argv[2])
	from cdp import png_stats
	# an 8-bit RGB(A) PNG without interlace (png_stats checks), sampled every 2nd row and column
	s = png_stats(sys.argv[1], step=2)
	print("colours", s.colours, "non-white %.3f" % (1 - s.white))
	# --window-size is in CSS pixels at device scale 1
	assert (s.width, s.height) == (1200, 2000), (s.width, s.height)
	# text, chart lines, heatmap cells: many colours; a blank or error page has few
	assert s.colours >= 20, s.colours
	assert 1 - s.white >= 0.01, s.white
	PY
'
else
	stop_vm
	if [ -z "$chromium_bin" ]; then
		test_skip 'render the HTML report in headless Chromium' 'chromium is not installed (scripts/install-deps.sh --test)'
	else
		test_skip 'render the HTML report of a live VM in headless Chromium' 'qemu-system-x86_64 is not installed or the VM did not start'
	fi
fi

test_done
