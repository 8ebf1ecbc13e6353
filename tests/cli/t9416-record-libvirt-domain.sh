#!/bin/sh
# t9416-record-libvirt-domain.sh - a recording keeps what libvirt says of each
# domain (rows.persist, rows.numa_mode, rows.iothreads: docs/record-format.md),
# read from the status files of host-libvirt-v2 (a copy, with IOThreads added):
# - web1: /etc/libvirt/qemu/web1.xml exists: persistent; its status XML has
#   <memory mode='restrictive'>: restrictive; IOThreads 1 and 3 added below;
# - db-2: no configuration file: transient; no numatune: strict (libvirt's
#   default); no <iothreads> or <iothreadids>: none, written as "".
. "$(dirname "$0")/lib.sh"
# a schema 5 recording made the schema 4 file an earlier vmmprof wrote
TO4="$(cd "$(dirname "$0")" && pwd)/rec-schema-4.py"

if vmmprof record -o "$TRASH/probe.vmmdb" -d 0.1 --root "$VP_DATA/root/host-libvirt-v2" 2>&1 |
	grep -q "built without SQLite"; then
	test_skip 'recorded libvirt domain facts' 'built without SQLite'
	test_done
	exit 0
fi

cp -R "$VP_DATA/root/host-libvirt-v2" "$TRASH/root"
python3 - "$TRASH/root/run/libvirt/qemu/web1.xml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("<name>web1</name>", "<name>web1</name>\n    <iothreadids>\n"
              "      <iothread id='1'/>\n      <iothread id='3'/>\n    </iothreadids>", 1)
open(p, "w").write(s)
PY

# rows FILE: name persist numa_mode iothreads of each VM row of the last interval
# (NULL not known, <empty> an empty text)
rows() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
last = db.execute("SELECT max(seq) FROM rows").fetchone()[0]
for r in db.execute("SELECT name, persist, numa_mode, iothreads FROM rows "
                    "WHERE kind = 'vm' AND seq = ? ORDER BY name", (last,)):
    print(" ".join("NULL" if v is None else v or "<empty>" for v in r))
PY
}

test_expect_success 'record: persistence, memory mode and IOThreads of each domain' '
	vmmprof record --root "$TRASH/root" -d 0.3 -o "$TRASH/r.vmmdb" >out 2>err &&
	rows "$TRASH/r.vmmdb" >got &&
	printf "%s\n" "db-2 transient strict <empty>" "web1 persistent restrictive 1,3" >want &&
	diff -u want got
'

test_expect_success 'a recording from before the two columns still reads (diagnose FILE)' '
	cp "$TRASH/r.vmmdb" "$TRASH/old.vmmdb" &&
	python3 "$TO4" "$TRASH/old.vmmdb" &&
	python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute(\"ALTER TABLE rows DROP COLUMN numa_mode\")
db.execute(\"ALTER TABLE rows DROP COLUMN iothreads\")
db.commit()
" "$TRASH/old.vmmdb" &&
	vmmprof diagnose "$TRASH/old.vmmdb" >old 2>err &&
	vmmprof diagnose "$TRASH/r.vmmdb" >new 2>err &&
	grep_q "virsh vcpupin web1 1 0-1 --live --config" old &&
	grep_q "virsh vcpupin web1 1 0-1 --live --config" new
'

test_done
