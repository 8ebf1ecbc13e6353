#!/bin/sh
# record-throughput.sh - recording write throughput and report/diagnose time on a large recording
#
#   bench/record-throughput.sh [SAMPLES] [VCPUS]    (default 10000000 samples, 99 vCPUs)
#
# A sample is one row's one model input value as stored in the recording
# (table vals).  build/helpers/rec_synth writes frames of one VM row and
# VCPUS vCPU rows, two inputs each, so a frame is 2 * (1 + VCPUS) samples,
# through rec_create/rec_append/rec_close (one transaction per frame, WAL).
# The peer is the sqlite3 CLI inserting the same number of (seq, pos, input,
# value) rows into one table, one transaction per frame, same pragmas.
# Then `vmmprof report --csv` and `vmmprof diagnose` read the file back;
# wall time and peak RSS come from /usr/bin/time.  The read peer, run
# just before them for the machine's state at that moment, is the sqlite3
# CLI scanning the same file: `SELECT count(*), sum(value) FROM vals`.
# PEER_WRITE=0 leaves out the write peer (at 10M samples it takes the
# sqlite3 CLI some 10 minutes on a loaded 2-CPU machine).
# Run after `make all`; needs sqlite3 and /usr/bin/time (package time).
set -eu
cd "$(dirname "$0")/.."
N=${1:-10000000}
V=${2:-99}
per=$((2 * (1 + V)))
frames=$(( (N + per - 1) / per ))
samples=$((frames * per))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

[ -x build/helpers/rec_synth ] && [ -x build/vmmprof ] || { echo "run make all first" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed" >&2; exit 1; }

echo "frames $frames of $per samples: $samples samples"
out=$(build/helpers/rec_synth "$dir/r.vmmdb" $frames $V)
wsec=$(echo "$out" | awk '{print $4}')
size=$(stat -c %s "$dir/r.vmmdb")

psec=
if [ "${PEER_WRITE:-1}" != 0 ]; then
python3 - $frames $V >"$dir/peer.sql" <<'PY'
import sys
frames, v = int(sys.argv[1]), int(sys.argv[2])
w = sys.stdout.write
w("PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n"
  "CREATE TABLE vals (seq INTEGER, pos INTEGER, input INTEGER, value REAL, "
  "PRIMARY KEY (seq, pos, input)) WITHOUT ROWID;\n")
for k in range(frames):
    w("BEGIN;\n")
    for p in range(1 + v):
        w("INSERT INTO vals VALUES (%d,%d,0,%r);INSERT INTO vals VALUES (%d,%d,1,%r);\n"
          % (k, p, 1e8 + k % 1000, k, p, (k % 100) / 100.0))
    w("COMMIT;\n")
PY
t0=$(date +%s.%N)
sqlite3 "$dir/peer.db" <"$dir/peer.sql" >/dev/null
t1=$(date +%s.%N)
psec=$(echo "$t1 $t0" | awk '{printf "%.3f", $1 - $2}')
rm -f "$dir/peer.sql" "$dir/peer.db"
fi

echo "load before reading: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "%e %M" -o "$dir/scan.t" sqlite3 "$dir/r.vmmdb" \
	'SELECT count(*), sum(value) FROM vals' >/dev/null

# the CSV is counted as it comes (at 10M samples it would be 800 MB on disk)
lines=$(/usr/bin/time -f "%e %M" -o "$dir/rep.t" build/vmmprof report --csv "$dir/r.vmmdb" | wc -l)
/usr/bin/time -f "%e %M" -o "$dir/diag.t" build/vmmprof diagnose "$dir/r.vmmdb" >/dev/null

awk -v s=$samples -v w=$wsec -v p="$psec" -v sz=$size -v l=$lines \
    -v rep="$(cat "$dir/rep.t")" -v dg="$(cat "$dir/diag.t")" -v sc="$(cat "$dir/scan.t")" 'BEGIN {
	split(rep, a, " "); split(dg, b, " "); split(sc, c, " ");
	printf "writer (rec_append):   %d samples in %.2f s = %.0f samples/s, file %.1f MB (%.1f B/sample)\n", s, w, s / w, sz / 1e6, sz / s;
	if (p != "")
		printf "peer (sqlite3 CLI):    %d rows in %.2f s = %.0f rows/s; vmmprof/sqlite3 = %.2f\n", s, p, s / p, (s / w) / (s / p);
	printf "read peer (sqlite3):   count(*), sum(value) of vals: %.2f s, peak RSS %.0f MB\n", c[1], c[2] / 1024;
	printf "report --csv:          %.2f s = %.0f samples/s, peak RSS %.0f MB, %d CSV lines\n", a[1], s / a[1], a[2] / 1024, l;
	printf "diagnose FILE:         %.2f s = %.0f samples/s, peak RSS %.0f MB\n", b[1], s / b[1], b[2] / 1024;
}'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
