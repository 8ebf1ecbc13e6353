#!/usr/bin/env python3
# vocab-fronts.py - one recording through the front ends that do not print a report: top
# (--replay, --json and --batch text), the daemon replaying it as a session (its frames,
# its diagnosis, /metrics) and the web UI (what the page showed of it), each held against
# report --json and diagnose --json of the same file: the same value and quality in the
# same words everywhere (t9111)
#
# usage: vocab-fronts.py DIR SESSION
# DIR holds report.json, diagnose.json, top.jsonl (JSON lines), top.txt, history.json, diagnosis.json,
# metrics.txt and, when the web UI could be driven, web.json; SESSION is the replayed
# session's id.  Prints one line per disagreement and exits 1 when there is one.
import json
import os
import re
import sys

# The quality words and the marks the text puts after a value (docs/method.md "Quality"):
# written here, not read from the program.
MARK = {'measured': '', 'estimate': 'e', 'apportioned': 'a', 'proxy': 'p'}
WORDS = set(MARK) | {'unavailable'}
FACTORS = ('locality', 'llc', 'sharing', 'imc', 'queue')

bad = []


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def cell(cost, cost_q, score, score_q):
    """The text a value and its quality read as, by the rule of the legend."""
    if cost is not None:
        return '%.1f%%%s' % (cost, MARK[cost_q])
    if score is not None:
        return 's%.3g%s' % (score, MARK[score_q])
    return 'n/a'


def load(d, name):
    with open(os.path.join(d, name)) as f:
        return json.load(f) if name.endswith('.json') else f.read()


def rkey(r):
    """A report row's identity: (VM, vCPU index or None)."""
    return (r['vm'], r.get('vcpu') if r['kind'] in ('vcpu', 'thread') else None)


def words_of(where, q, cq=None):
    for w in (q, cq):
        if w is not None and w not in WORDS:
            bad.append(f'{where}: quality word {w!r} is not one of {sorted(WORDS)}')


def check_top_json(intervals, top):
    """top --replay --json: sample i is interval i; each cell's value and words the report's."""
    if len(top) != len(intervals):
        bad.append(f'top --json: {len(top)} samples, report {len(intervals)} intervals')
    for i, (s, iv) in enumerate(zip(top, intervals)):
        rows = {rkey(r): r for r in iv['rows']}
        shown = [((v['name'], None), v) for v in s['vms']] + \
                [((c['vm'], c['vcpu']), c) for c in s['vcpus']]
        # the process rows are their VM's cells; a node's cells are one of its vCPUs'
        shown += [((p['name'], None), p) for p in s.get('processes', [])]
        check_top_nodes(i, s, rows)
        if {k for k, _ in shown} != set(rows):
            bad.append(f'top --json sample {i + 1}: rows {sorted(map(str, (k for k, _ in shown)))}, '
                       f'report {sorted(map(str, rows))}')
        for k, t in shown:
            r = rows.get(k)
            if r is None:
                continue
            for f in FACTORS:
                tv, rv = t['factors'][f], r['factors'][f]
                where = f'top --json sample {i + 1} {k} {f}'
                words_of(where, tv.get('quality'), tv.get('cost_quality'))
                if tv.get('quality') != rv['quality']:
                    bad.append(f'{where}: quality {tv.get("quality")}, report {rv["quality"]}')
                if not same(tv.get('value'), rv['score']):
                    bad.append(f'{where}: value {tv.get("value")}, report score {rv["score"]}')
                if not same(tv.get('cost_pct'), rv['cost_pct']):
                    bad.append(f'{where}: cost {tv.get("cost_pct")}, report {rv["cost_pct"]}')
                if rv['cost_pct'] is not None and tv.get('cost_quality') != rv.get('cost_quality'):
                    bad.append(f'{where}: cost quality {tv.get("cost_quality")}, report {rv.get("cost_quality")}')


def check_top_nodes(i, s, rows):
    """A node's factor cell in top --json: n/a (unavailable), or the cell of a vCPU on the node."""
    for n in s['nodes']:
        for f in FACTORS:
            nv = n.get('factors', {}).get(f)
            if nv is None:
                continue
            where = f'top --json sample {i + 1} node {n["node"]} {f}'
            words_of(where, nv.get('quality'), nv.get('cost_quality'))
            if nv.get('value') is None:
                if nv.get('quality') != 'unavailable':
                    bad.append(f'{where}: no value, quality {nv.get("quality")}')
                continue
            cands = [rows[(c['vm'], c['vcpu'])]['factors'][f] for c in s['vcpus']
                     if c.get('node') == n['node'] and (c['vm'], c['vcpu']) in rows]
            rv = next((r for r in cands if same(nv['value'], r['score']) and same(nv.get('cost_pct'), r['cost_pct'])), None)
            if rv is None:
                bad.append(f'{where}: value {nv["value"]} is no vCPU of the node in the report')
            elif nv.get('quality') != rv['quality']:
                bad.append(f'{where}: quality {nv.get("quality")}, report {rv["quality"]}')
            elif rv['cost_pct'] is not None and nv.get('cost_quality') != rv.get('cost_quality'):
                bad.append(f'{where}: cost quality {nv.get("cost_quality")}, report {rv.get("cost_quality")}')


def top_cell(rv):
    """What top's text cell of a report value should read: the score, then /the cost."""
    if rv['quality'] == 'unavailable' or rv['score'] is None:
        return 'n/a'
    s = cell(None, None, rv['score'], rv['quality'])
    if rv['cost_pct'] is None:
        return s
    return s + '/' + cell(rv['cost_pct'], rv['cost_quality'], None, None)


def check_top_text(intervals, text):
    """top --replay --batch: each VM and vCPU row's five factor cells, by the legend."""
    samples = [x for x in re.split(r'^vmmprof top: sample \d+', text, flags=re.M) if x.strip()]
    if len(samples) != len(intervals):
        bad.append(f'top --batch: {len(samples)} samples, report {len(intervals)} intervals')
    for i, (s, iv) in enumerate(zip(samples, intervals)):
        rows = {rkey(r): r for r in iv['rows']}
        part = None
        for line in s.splitlines():
            if line in ('VMS', 'VCPUS', 'NODES'):
                part = line
                continue
            w = line.split()
            if not w or part not in ('VMS', 'VCPUS') or w[0] == 'vm' or len(w) < 6:
                if not line.strip():
                    part = None
                continue
            k = (w[0], None) if part == 'VMS' else (w[0], int(w[1]))
            r = rows.get(k)
            if r is None:
                bad.append(f'top --batch sample {i + 1}: row {k} is not in the report')
                continue
            got = [c.rstrip('!') for c in w[-len(FACTORS):]]
            want = [top_cell(r['factors'][f]) for f in FACTORS]
            if got != want:
                bad.append(f'top --batch sample {i + 1} {k}: cells {got}, by the report {want}')


def check_history(intervals, frames):
    """The daemon's frames of the replayed session: row for row the report's intervals."""
    if len(frames) != len(intervals):
        bad.append(f'daemon history: {len(frames)} frames, report {len(intervals)} intervals')
    for i, (fr, iv) in enumerate(zip(frames, intervals)):
        rows = [r for r in fr['rows']]
        if len(rows) != len(iv['rows']):
            bad.append(f'daemon frame {fr["seq"]}: {len(rows)} rows, report {len(iv["rows"])}')
        for d, r in zip(rows, iv['rows']):
            for f in FACTORS:
                dv, rv = d['factors'][f], r['factors'][f]
                where = f'daemon frame {fr["seq"]} {rkey(r)} {f}'
                words_of(where, dv.get('quality'), dv.get('cost_quality'))
                if dv.get('quality') != rv['quality']:
                    bad.append(f'{where}: quality {dv.get("quality")}, report {rv["quality"]}')
                if not same(dv['score'], rv['score']) or not same(dv['cost_pct'], rv['cost_pct']):
                    bad.append(f'{where}: score/cost {dv["score"]}/{dv["cost_pct"]}, report '
                               f'{rv["score"]}/{rv["cost_pct"]}')
                if rv['cost_pct'] is not None and dv.get('cost_quality') != rv.get('cost_quality'):
                    bad.append(f'{where}: cost quality {dv.get("cost_quality")}, report {rv.get("cost_quality")}')
                if dv['score'] is None and dv['cost_pct'] is None and not dv.get('reason'):
                    bad.append(f'{where}: n/a without a reason')


def strip_path(x):
    if isinstance(x, dict):
        return {k: strip_path(v) for k, v in x.items() if k != 'recording'}
    if isinstance(x, list):
        return [strip_path(v) for v in x]
    return x


LINE = re.compile(r'^(#\s*n/a\s+)?(vmmprof_\w+)\{([^}]*)\}(?::\s.*|\s+(\S+))$')


def check_metrics(last, text, sid):
    """/metrics of the replayed session: the last interval's scores, costs and words."""
    rows = {rkey(r): r for r in last['rows']}
    seen = set()
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        na, name, labels, value = m.group(1), m.group(2), m.group(3), m.group(4)
        lab = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', labels))
        if lab.get('session') != sid or lab.get('level') not in ('vm', 'vcpu') or 'factor' not in lab:
            continue
        k = (lab['vm'], int(lab['vcpu']) if lab['level'] == 'vcpu' else None)
        r = rows.get(k)
        if r is None:
            bad.append(f'/metrics: {k} is not a row of the last interval')
            continue
        rv = r['factors'][lab['factor']]
        where = f'/metrics {name} {k} {lab["factor"]}'
        words_of(where, lab.get('quality'))
        if name == 'vmmprof_factor_quality' and not na:
            seen.add((k, lab['factor']))
            if lab.get('quality') != rv['quality']:
                bad.append(f'{where}: quality {lab.get("quality")}, report {rv["quality"]}')
        elif name == 'vmmprof_factor_score' and not na:
            if not same(float(value), rv['score']):
                bad.append(f'{where}: {value}, report score {rv["score"]}')
        elif name == 'vmmprof_factor_cost_pct':
            if na and rv['cost_pct'] is not None:
                bad.append(f'{where}: n/a, report {rv["cost_pct"]}')
            if not na and (rv['cost_pct'] is None or not same(float(value), rv['cost_pct'])):
                bad.append(f'{where}: {value}, report {rv["cost_pct"]}')
            if not na and lab.get('quality') != rv.get('cost_quality'):
                bad.append(f'{where}: quality {lab.get("quality")}, report cost quality {rv.get("cost_quality")}')
    for k in rows:
        for f in FACTORS:
            if (k, f) not in seen:
                bad.append(f'/metrics: no vmmprof_factor_quality of {k} {f}')


def check_web(last_frame, intervals, diag, web):
    """What the page showed: the last frame's cells (score, cost, the words of the daemon's
    frame) and the diagnosis's words; every word one of the five."""
    if web['seq'] != len(intervals):
        bad.append(f'web UI: showed frame {web["seq"]}, the recording has {len(intervals)}')
    last = intervals[-1]
    for d, r in zip(last_frame['rows'], last['rows']):
        cells = web['rows'].get(d['key'])
        if cells is None or len(cells) != len(FACTORS):
            bad.append(f'web UI: row {d["key"]} not shown with five factor cells ({cells})')
            continue
        for f, c in zip(FACTORS, cells):
            rv = r['factors'][f]
            where = f'web UI {rkey(r)} {f}'
            for w in c['words']:
                words_of(where, w)
            want = [rv['quality']]
            if rv['cost_pct'] is not None and rv.get('cost_quality') != rv['quality']:
                want = [rv['cost_quality'], rv['quality']]
            if c['words'] != want:
                bad.append(f'{where}: words {c["words"]}, report {want}')
            if rv['score'] is None:
                if not c['text'].startswith('n/a'):
                    bad.append(f'{where}: {c["text"]!r}, report n/a')
            elif c['score'] != '%.2f' % rv['score']:
                bad.append(f'{where}: score {c["score"]!r}, report {rv["score"]}')
            if rv['cost_pct'] is not None and c['cost'] != 'cost %.1f %%' % rv['cost_pct']:
                bad.append(f'{where}: {c["cost"]!r}, report cost {rv["cost_pct"]}')
    for vm in diag['diagnosis']['vms']:
        cells = web['diagnosis'].get(vm['vm'])
        if cells is None:
            bad.append(f'web UI diagnosis: no row of {vm["vm"]}')
            continue
        for f, c in zip(FACTORS, cells):
            v = vm['factors'][f]
            want = [v['quality']] if v['score'] is not None else []
            for w in c['words']:
                words_of(f'web UI diagnosis {vm["vm"]} {f}', w)
            if c['words'] != want:
                bad.append(f'web UI diagnosis {vm["vm"]} {f}: words {c["words"]}, diagnose {want}')


def main():
    d, sid = sys.argv[1], sys.argv[2]
    report = load(d, 'report.json')
    intervals = report['intervals']
    if not intervals:
        sys.exit('report --json has no intervals')
    check_top_json(intervals, [json.loads(x) for x in load(d, 'top.jsonl').splitlines() if x.strip()])
    check_top_text(intervals, load(d, 'top.txt'))
    frames = load(d, 'history.json')['frames']
    check_history(intervals, frames)
    diag = load(d, 'diagnose.json')
    if strip_path(load(d, 'diagnosis.json')) != strip_path(diag):
        bad.append('the daemon diagnosis of the replayed session is not diagnose --json of the file')
    check_metrics(intervals[-1], load(d, 'metrics.txt'), sid)
    web = os.path.exists(os.path.join(d, 'web.json'))
    if web and frames:
        check_web(frames[-1], intervals, diag, load(d, 'web.json'))
    for b in bad:
        print(b)
    print(f'checked {len(intervals)} intervals of {sum(len(i["rows"]) for i in intervals)} rows: '
          f'top json and text, daemon frames, diagnosis, /metrics{", web UI" if web else ""}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
