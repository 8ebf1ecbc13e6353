#!/bin/sh
# t9140-recording-schema-4.sh - a schema 4 recording (inputs in the vals table) reads as it did
# before schema 5 put each row's inputs in one column; a schema 5 file has no vals table
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
	test_skip 'a schema 4 recording reads as before' 'no python3'
	test_done
fi

# A schema 4 file as vmmprof wrote it before schema 5, written by hand: the software
# model (tclk input 0, place_rem input 1), VM "old" (pid 7) and its vCPU 0 (tid 8),
# two intervals of 0.5 s at 1000 MHz.  Interval 0: the vCPU ran 0.25 s (tclk 2.5e8 ns)
# on CPU 0 with a remote share of 0.1; interval 1: 0.4 s on CPU 1, remote share 0.6.
# By hand: cycles = tclk / 1e9 s * 1000e6 Hz: 250000000, then 400000000; the locality
# score is the remote share (software.model: warning 0.2, critical 0.5): 0.1 ok, then
# 0.6 critical.  The VM row has no remote share (n/a) and the same tclk as its vCPU.
cat >"$TRASH/mk4.py" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE nodes (id INTEGER PRIMARY KEY, cpus TEXT NOT NULL, mem_total INTEGER);
CREATE TABLE inputs (idx INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
  spec TEXT NOT NULL, reason TEXT);
CREATE TABLE frames (seq INTEGER PRIMARY KEY, t_ns INTEGER NOT NULL, duration REAL NOT NULL,
  cpu_mhz REAL, notes TEXT, rdt_why INTEGER);
CREATE TABLE rows (seq INTEGER NOT NULL, pos INTEGER NOT NULL, kind TEXT NOT NULL,
  key TEXT, name TEXT, vm_pos INTEGER, adapter TEXT, libvirt INTEGER, pid INTEGER,
  domid INTEGER, idx INTEGER, tid INTEGER, cpu INTEGER, node INTEGER, remote REAL,
  remote_quality TEXT, mem_reason INTEGER, started REAL, state TEXT, llc_alone INTEGER,
  persist TEXT, numa_mode TEXT, iothreads TEXT, PRIMARY KEY (seq, pos)) WITHOUT ROWID;
CREATE TABLE row_mem (seq INTEGER NOT NULL, pos INTEGER NOT NULL, node INTEGER NOT NULL,
  bytes INTEGER NOT NULL, PRIMARY KEY (seq, pos, node)) WITHOUT ROWID;
CREATE TABLE vals (seq INTEGER NOT NULL, pos INTEGER NOT NULL, input INTEGER NOT NULL,
  value REAL, PRIMARY KEY (seq, pos, input)) WITHOUT ROWID;
CREATE TABLE node_rdt (seq INTEGER NOT NULL, node INTEGER NOT NULL, llc REAL,
  mbm_total REAL, mbm_local REAL, PRIMARY KEY (seq, node)) WITHOUT ROWID;
CREATE TABLE texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE scaling (seq INTEGER NOT NULL, input INTEGER NOT NULL, enabled REAL,
  running REAL, PRIMARY KEY (seq, input)) WITHOUT ROWID;
INSERT INTO meta VALUES ('schema_version', '4'), ('vmmprof_version', '0.9'),
  ('model', 'software'), ('created', '2026-12-01T00:00:00Z'), ('command', 'vmmprof record'),
  ('interval_s', '0.5'), ('topology', '2 1 2 0');
INSERT INTO nodes VALUES (0, '0-1', NULL);
INSERT INTO inputs VALUES (0, 'tclk', 'event', 'task-clock', NULL),
  (1, 'place_rem', 'source', 'placement.remote_fraction', NULL);
INSERT INTO texts VALUES (0, 'resident pages of 1 guest RAM mapping (numa_maps)');
INSERT INTO frames VALUES (0, 1500000000, 0.5, 1000, '', NULL), (1, 2000000000, 0.5, 1000, '', NULL);
INSERT INTO rows VALUES
  (0, 0, 'vm', 'vm:kvm:7', 'old', 0, 'kvm', 0, 7, NULL, NULL, NULL, NULL, NULL, NULL,
   'unavailable', 0, 100.5, NULL, NULL, NULL, NULL, NULL),
  (0, 1, 'vcpu', 'vcpu:kvm:7:0', NULL, 0, 'kvm', 0, 7, NULL, 0, 8, 0, 0, 0.1,
   'estimate', NULL, 100.5, NULL, 1, NULL, NULL, NULL),
  (1, 0, 'vm', 'vm:kvm:7', 'old', 0, 'kvm', 0, 7, NULL, NULL, NULL, NULL, NULL, NULL,
   'unavailable', 0, 100.5, NULL, NULL, NULL, NULL, NULL),
  (1, 1, 'vcpu', 'vcpu:kvm:7:0', NULL, 0, 'kvm', 0, 7, NULL, 0, 8, 1, 0, 0.6,
   'estimate', NULL, 100.5, NULL, 1, NULL, NULL, NULL);
INSERT INTO row_mem VALUES (0, 0, 0, 1048576), (1, 0, 0, 2097152);
INSERT INTO vals VALUES (0, 0, 0, 2.5e8), (0, 1, 0, 2.5e8), (0, 1, 1, 0.1),
  (1, 0, 0, 4e8), (1, 1, 0, 4e8), (1, 1, 1, 0.6);
INSERT INTO scaling VALUES (0, 0, 0.5, 0.5), (1, 0, 0.5, 0.5);
PRAGMA user_version = 4;
""")
db.commit()
PY

test_expect_success 'report --csv of a schema 4 file: the values written by hand' '
	python3 mk4.py old.vmmdb &&
	vmmprof report --csv old.vmmdb >old.csv &&
	grep -E "^0,1500000000,0.500000,vcpu,old,0,8,0,0,250000000,1,0\.10*1?,,ok," old.csv &&
	grep -E "^1,2000000000,0.500000,vcpu,old,0,8,1,0,400000000,1,0\.(60*1?|59999*8?),,critical," old.csv &&
	grep "^0,1500000000,0.500000,vm,old,,,,,250000000,1," old.csv &&
	grep "^1,2000000000,0.500000,vm,old,,,,,400000000,1," old.csv &&
	test "$(grep -c "^[01]," old.csv)" = 4
'

test_expect_success 'report --json, diagnose and top --replay read it too' '
	vmmprof report --json old.vmmdb >old.json &&
	test "$(json_get old.json "j[\"schema\"]")" = 4 &&
	test "$(json_get old.json "[r[\"cycles\"] for i in j[\"intervals\"] for r in i[\"rows\"]]")" = \
		"[250000000, 250000000, 400000000, 400000000]" &&
	test "$(json_get old.json "[round(i[\"rows\"][1][\"factors\"][\"locality\"][\"score\"], 9) for i in j[\"intervals\"]]")" = \
		"[0.1, 0.6]" &&
	vmmprof diagnose --json old.vmmdb >d.json &&
	test "$(json_get d.json "j[\"diagnosis\"][\"vms\"][0][\"vm\"]")" = old &&
	vmmprof top --replay old.vmmdb --json >top.json &&
	test "$(wc -l <top.json)" = 2
'

test_expect_success 'a new recording is schema 5: inputs in rows.vals, no vals table' '
	"$VP_HELPERS/rec_synth" new.vmmdb 2 1 &&
	python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[1]);
print(d.execute(\"pragma user_version\").fetchone()[0],
      d.execute(\"select count(*) from sqlite_master where name = (?)\", (\"vals\",)).fetchone()[0],
      d.execute(\"select count(*) from rows where typeof(vals) = (?)\", (\"blob\",)).fetchone()[0])" \
		new.vmmdb >n.out &&
	echo "5 0 4" >n.want &&
	diff -u n.want n.out &&
	vmmprof report --json new.vmmdb >new.json &&
	test "$(json_get new.json "j[\"schema\"]")" = 5
'

test_expect_success 'a schema 5 row whose values are not what vmmprof writes is damage' '
	cp new.vmmdb bad.vmmdb &&
	python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[1]);
d.execute(\"update rows set vals = x\x27ff\x27 where seq = 1 and pos = 1\"); d.commit()" bad.vmmdb &&
	{ expect_exit 1 vmmprof report --csv bad.vmmdb >bad.csv 2>bad.err; } &&
	grep_q "damaged at frame 1: a row.s values are not what vmmprof writes" bad.err &&
	test "$(grep -c "^0," bad.csv)" = 2
'

test_done
