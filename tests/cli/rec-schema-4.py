#!/usr/bin/env python3
"""rec-schema-4.py FILE - make a schema 5 recording the schema 4 file an earlier vmmprof
wrote: each row's inputs (rows.vals, packed as docs/record-format.md says) become
entries of a vals table, rows.vals is dropped and the schema number set back to 4.
For tests of how files from before schema 5 read; it decodes the format on its own,
from the document, not with vmmprof's code."""
import sqlite3
import struct
import sys


def unpack(blob, n):
    """The (input, value) pairs of one row's packed inputs, n recorded inputs."""
    if blob is None:
        return []
    head = (n + 3) // 4
    at, out = head, []
    for k in range(n):
        code = (blob[k // 4] >> (2 * (k % 4))) & 3
        if code == 0:
            continue
        if code == 1:
            v, shift = 0, 0
            while True:
                b = blob[at]
                at += 1
                v |= (b & 0x7F) << shift
                shift += 7
                if not b & 0x80:
                    break
            out.append((k, float(v)))
        elif code == 2:
            out.append((k, struct.unpack("<d", blob[at:at + 8])[0]))
            at += 8
        else:
            raise SystemExit("rec-schema-4.py: input %d has code 3" % k)
    if at != len(blob):
        raise SystemExit("rec-schema-4.py: %d bytes left over" % (len(blob) - at))
    return out


def main():
    db = sqlite3.connect(sys.argv[1])
    n = db.execute("SELECT count(*) FROM inputs").fetchone()[0]
    db.execute("CREATE TABLE vals (seq INTEGER NOT NULL, pos INTEGER NOT NULL, "
               "input INTEGER NOT NULL, value REAL, PRIMARY KEY (seq, pos, input)) WITHOUT ROWID")
    rows = db.execute("SELECT seq, pos, vals FROM rows ORDER BY seq, pos").fetchall()
    for seq, pos, blob in rows:
        for k, v in unpack(blob, n):
            db.execute("INSERT INTO vals VALUES (?, ?, ?, ?)", (seq, pos, k, v))
    db.execute("ALTER TABLE rows DROP COLUMN vals")
    db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    db.commit()
    db.execute("PRAGMA user_version = 4")
    db.close()


main()
