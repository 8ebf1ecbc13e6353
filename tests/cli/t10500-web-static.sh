#!/bin/sh
# t10500-web-static.sh - the web UI's files: served by the daemon, self-contained, valid JavaScript
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../web/daemon.sh"

test_expect_success 'web/ holds index.html, app.js, map.js, style.css and nothing that loads from the network' '
	for f in index.html app.js map.js style.css; do test -s "$web_dir/$f" || { echo "no $f"; exit 1; }; done &&
	python3 - "$web_dir" <<-PY
	import os, re, sys
	d = sys.argv[1]
	bad = []
	for name in sorted(os.listdir(d)):
	    text = open(os.path.join(d, name), encoding="utf-8").read()
	    # any absolute URL (scheme or protocol-relative) in src, href, url(), import or fetch
	    for m in re.finditer(r"(?:src|href)\s*=\s*[\"\x27]([^\"\x27]*)|url\(\s*[\"\x27]?([^)\"\x27]*)|"
	                         r"import\s*\(?\s*[\"\x27]([^\"\x27]*)|fetch\(\s*[\"\x27]([^\"\x27]*)", text):
	        ref = next(g for g in m.groups() if g is not None)
	        if re.match(r"[a-z][a-z0-9+.-]*:|//", ref, re.I) and not ref.startswith("data:"):
	            bad.append("%s: %s" % (name, ref))
	    if re.search(r"https?://", text):
	        bad.append("%s: names an http(s) URL" % name)
	print("\n".join(bad))
	sys.exit(1 if bad else 0)
	PY
'

test_expect_success 'index.html loads its script and style from /ui/ (where the daemon serves web/)' '
	grep_q "<script src=\"/ui/app.js\"" "$web_dir/index.html" &&
	grep_q "<script src=\"/ui/map.js\"" "$web_dir/index.html" &&
	grep_q "<link rel=\"stylesheet\" href=\"/ui/style.css\">" "$web_dir/index.html"
'

if command -v node >/dev/null; then
	test_expect_success 'app.js and map.js are valid JavaScript (node --check)' '
		node --check "$web_dir/app.js" && node --check "$web_dir/map.js"
	'
else
	test_skip 'app.js is valid JavaScript (node --check)' 'node is not installed'
fi

test_expect_success 'the page puts host data in as text only: app.js and map.js never assign innerHTML' '
	! grep -n "innerHTML\|outerHTML\|insertAdjacentHTML\|document.write" "$web_dir/app.js" "$web_dir/map.js"
'

web_begin 'the daemon serves the UI files with their content types'

test_expect_success 'the daemon serves the UI files with their content types, without a token' '
	test $started = 1 &&
	python3 - "$web_url" "$web_dir" <<-PY
	import sys, urllib.request
	url, d = sys.argv[1], sys.argv[2]
	want = {"/": ("index.html", "text/html"), "/ui/": ("index.html", "text/html"),
	        "/ui/index.html": ("index.html", "text/html"), "/ui/app.js": ("app.js", "javascript"),
	        "/ui/map.js": ("map.js", "javascript"),
	        "/ui/style.css": ("style.css", "text/css")}
	for path, (name, ctype) in want.items():
	    with urllib.request.urlopen(url + path, timeout=10) as r:
	        body, ct = r.read(), r.headers.get("Content-Type", "")
	    assert body == open(d + "/" + name, "rb").read(), "%s is not web/%s" % (path, name)
	    assert ctype in ct, "%s: Content-Type %r, want %s" % (path, ct, ctype)
	    print("ok", path, ct)
	PY
'

test_expect_success 'paths outside web/ are not served' '
	test $started = 1 &&
	python3 - "$web_url" <<-PY
	import sys, urllib.request, urllib.error
	url = sys.argv[1]
	for path in ("/ui/../Makefile", "/ui/%2e%2e/Makefile", "/ui/..%2fMakefile", "/ui/nonexistent.js"):
	    try:
	        urllib.request.urlopen(url + path, timeout=10)
	        sys.exit("%s was served" % path)
	    except urllib.error.HTTPError as e:
	        assert e.code in (400, 403, 404), (path, e.code)
	        print("ok", path, e.code)
	PY
'

test_done
