#!/bin/sh
# t9100-report-html.sh - the HTML report of a live QEMU VM's recording renders in headless Chromium
. "$(dirname "$0")/lib.sh"

vm=vphtml-$$
qpid=
stop_vm() { [ -n "$qpid" ] && kill $qpid 2>/dev/null && wait $qpid 2>/dev/null; qpid=; true; }
trap stop_vm EXIT
chromium_bin=$(command -v chromium || true)
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

# Set VP_SCREENSHOTS=DIR to keep the screenshot for a person to look at;
# the checks read it with python3's zlib (no PIL).
test_expect_success 'headless Chromium renders it: a 1200x2000 PNG, not blank, with text and charts' '
	prof=$(mktemp -d) &&
	timeout 120 "$chromium_bin" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$prof" --screenshot="$PWD/out.png" \
		--window-size=1200,2000 "file://$PWD/r.html" >chr.log 2>&1;
	rm -rf "$prof";
	test -s out.png &&
	{ [ -z "${VP_SCREENSHOTS:-}" ] || cp out.png "$VP_SCREENSHOTS/t9100-report-html.png"; } &&
	python3 - out.png <<-PY
	import struct, sys, zlib
	b = open(sys.argv[1], "rb").read()
	assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
	pos, idat, w = 8, b"", 0
	while pos < len(b):
	    n, typ = struct.unpack(">I4s", b[pos:pos + 8])
	    data = b[pos + 8:pos + 8 + n]
	    if typ == b"IHDR":
	        w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", data)
	    elif typ == b"IDAT":
	        idat += data
	    pos += 12 + n
	# --window-size is in CSS pixels at device scale 1
	assert (w, h) == (1200, 2000), (w, h)
	assert depth == 8 and ctype in (2, 6) and inter == 0, (depth, ctype, inter)
	bpp = 3 if ctype == 2 else 4
	raw = zlib.decompress(idat)
	stride = w * bpp
	prev = bytearray(stride)
	colours, nonwhite, p = set(), 0, 0
	for y in range(h):
	    f = raw[p]; line = bytearray(raw[p + 1:p + 1 + stride]); p += 1 + stride
	    for i in range(stride):
	        a = line[i - bpp] if i >= bpp else 0
	        c = prev[i - bpp] if i >= bpp else 0
	        up = prev[i]
	        if f == 1: line[i] = (line[i] + a) & 255
	        elif f == 2: line[i] = (line[i] + up) & 255
	        elif f == 3: line[i] = (line[i] + (a + up) // 2) & 255
	        elif f == 4:
	            pa, pb, pc = abs(up - c), abs(a - c), abs(a + up - 2 * c)
	            pr = a if pa <= pb and pa <= pc else (up if pb <= pc else c)
	            line[i] = (line[i] + pr) & 255
	    if y % 4 == 0:
	        for x in range(0, stride, bpp * 2):
	            px = bytes(line[x:x + 3]); colours.add(px)
	            if px != b"\xff\xff\xff": nonwhite += 1
	    prev = line
	sampled = (h // 4) * (w // 2)
	print("colours", len(colours), "non-white", nonwhite, "of", sampled)
	# text, chart lines, heatmap cells: many colours; a blank or error page has few
	assert len(colours) >= 20, len(colours)
	assert nonwhite >= sampled // 100, nonwhite
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
