#!/usr/bin/env python3
# vocab-check.py - one recording through report (text, CSV, JSON, HTML) and diagnose (text,
# JSON): the same value and quality in the same words everywhere (t9109)
#
# usage: vocab-check.py VMMPROF RECORDING
# Prints one line per disagreement and exits 1 when there is one.
import csv
import io
import json
import re
import subprocess
import sys

# The quality words and the marks the text puts after a value (docs/method.md "Quality"):
# written here, not read from the program.
MARK = {'measured': '', 'estimate': 'e', 'apportioned': 'a', 'proxy': 'p'}
WORDS = set(MARK) | {'unavailable'}
FACTORS = ('locality', 'llc', 'sharing', 'imc', 'queue')


def out(vmmprof, *args):
    p = subprocess.run([vmmprof, *args], capture_output=True, text=True, timeout=60)
    if p.returncode:
        sys.exit(f'vmmprof {" ".join(args)}: exit {p.returncode}: {p.stderr.strip()}')
    return p.stdout


def cell(cost, cost_q, score, score_q):
    """The text a factor's value and quality should read as, by the rule of the legend."""
    if cost is not None:
        return '%.1f%%%s' % (cost, MARK[cost_q])
    if score is not None:
        return 's%.3g%s' % (score, MARK[score_q])
    return 'n/a'


def cells(line, first):
    """The table cells of a text line (columns two or more blanks apart) from index first."""
    return re.split(r'\s{2,}', line.strip())[first:first + len(FACTORS)]


def main():
    vmmprof, rec = sys.argv[1], sys.argv[2]
    bad = []
    rj = json.loads(out(vmmprof, 'report', '--json', rec))
    rows = [r for i in rj['intervals'] for r in i['rows']]
    if not rows:
        sys.exit('report --json has no rows')

    # every factor of every row carries its quality, in the five words
    for r in rows:
        for f in FACTORS:
            v = r['factors'][f]
            if v.get('quality') not in WORDS:
                bad.append(f'report --json {r["vm"]} {f}: quality {v.get("quality")!r}')
            if v['cost_pct'] is not None and v.get('cost_quality') not in WORDS:
                bad.append(f'report --json {r["vm"]} {f}: a cost without cost_quality')
            if v['cost_pct'] is None and v['score'] is None and v.get('quality') != 'unavailable':
                bad.append(f'report --json {r["vm"]} {f}: no value, quality {v.get("quality")}')
        if 'cycles_estimated' not in r:
            bad.append('report --json: a row without cycles_estimated')

    # the text timeline: the same rows in the same order, each cell by the legend
    text = out(vmmprof, 'report', '--timeline', rec).splitlines()
    trows = [l for l in text if re.match(r'^ +\d+\.\d +\S', l) and not re.match(r'^ +\S+ +node ', l)]
    if len(trows) != len(rows):
        bad.append(f'report text: {len(trows)} timeline rows, --json {len(rows)}')
    for l, r in zip(trows, rows):
        want = []
        for f in FACTORS:
            v = r['factors'][f]
            q = v.get('quality')
            want.append('n/a' if q == 'unavailable' else
                        cell(v['cost_pct'], v.get('cost_quality', 'measured'), v['score'],
                             q if q in MARK else 'measured'))
        got = re.split(r'\s{2,}', l.strip())[-len(FACTORS):]
        if got != want:
            bad.append(f'report text {l.strip()!r}: cells {got}, the JSON says {want}')

    # the CSV: the same scores and the same quality words, row for row
    crows = [c for c in csv.DictReader(io.StringIO(out(vmmprof, 'report', '--csv', rec)))
             if c['kind'] != 'node']
    if len(crows) != len(rows):
        bad.append(f'report --csv: {len(crows)} rows, --json {len(rows)}')
    for c, r in zip(crows, rows):
        for f in FACTORS:
            v = r['factors'][f]
            if c[f + '_quality'] != v.get('quality'):
                bad.append(f'report --csv {c["vm"]} {f}_quality {c[f + "_quality"]}, --json {v.get("quality")}')
            s = float(c[f + '_score']) if c[f + '_score'] else None
            if (s is None) != (v['score'] is None) or (s is not None and abs(s - v['score']) > 1e-9 * max(1, abs(s))):
                bad.append(f'report --csv {c["vm"]} {f}_score {s}, --json {v["score"]}')
        if c['cycles_estimated'] != ('1' if r.get('cycles_estimated') else '0'):
            bad.append(f'report --csv cycles_estimated {c["cycles_estimated"]}, --json {r.get("cycles_estimated")}')

    # diagnose: its per-VM table by the same legend, and the same words as the report
    dj = json.loads(out(vmmprof, 'diagnose', '--json', rec))
    dt = out(vmmprof, 'diagnose', rec).splitlines()
    try:
        h = next(i for i, l in enumerate(dt) if l.startswith('Factor cost per VM'))
    except StopIteration:
        sys.exit('diagnose: no "Factor cost per VM" table')
    for k, vm in enumerate(dj['diagnosis']['vms']):
        line = dt[h + 2 + k]
        want = []
        for f in FACTORS:
            v = vm['factors'][f]
            if v['quality'] not in WORDS:
                bad.append(f'diagnose --json {vm["vm"]} {f}: quality {v["quality"]!r}')
                continue
            want.append('n/a' if v['quality'] == 'unavailable' else
                        cell(v['cost_pct'], v['quality'], v['score'], v['quality']))
            # the report says the same of this VM's rows: the cost's quality where a
            # cost is known, else the value's
            mine = [r['factors'][f] for r in rows if r['kind'] == 'vm' and r['vm'] == vm['vm']]
            words = {(x.get('cost_quality') if v['cost_pct'] is not None else x.get('quality'))
                     for x in mine}
            if words and words != {v['quality']}:
                bad.append(f'{vm["vm"]} {f}: diagnose says {v["quality"]}, report says {sorted(words)}')
        got = cells(line, 2)
        if got != want:
            bad.append(f'diagnose text {line.strip()!r}: cells {got}, its JSON says {want}')

    # the HTML page: only the five words where it names a quality
    html = subprocess.run([vmmprof, 'report', '--html', '/dev/stdout', rec], capture_output=True,
                          text=True, timeout=60).stdout
    for w in re.findall(r'quality[^<>]{0,40}?(?:>|: |=")\s*([a-z]+)', html):
        if w not in WORDS:
            bad.append(f'report --html: quality {w!r}')

    for b in bad:
        print(b)
    print(f'checked {len(rows)} report rows, {len(dj["diagnosis"]["vms"])} diagnose VMs')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
