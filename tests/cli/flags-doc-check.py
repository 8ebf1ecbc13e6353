#!/usr/bin/env python3
# flags-doc-check.py - docs/flags.md against every command's --help and parser (t0010)
#
# usage: flags-doc-check.py VMMPROF DOC CHECK...
#   CHECK: commands (the commands of the page = the commands of 'vmmprof help'),
#          flags (each command's flags and argument words = its --help options),
#          units (each unit = the legend's unit of the argument word),
#          letters (a letter or long flag with two meanings is in the page's tables),
#          synopsis (each flag of a usage line is in the options with its word),
#          parser (the parser accepts every long flag --help lists)
# Prints one line per problem; exit 1 when there is one.
import re
import subprocess
import sys

FLAG = re.compile(r'(?:-(\w), )?(--[\w-]+)(\[=[A-Z]+\]| (\S+))?$')


def run(vmmprof, *args):
    p = subprocess.run([vmmprof, *args], capture_output=True, text=True, timeout=20)
    return p.returncode, p.stdout + p.stderr


def split_flag(f):
    m = FLAG.match(f)
    if not m:
        return None
    arg = (m.group(3) or '').strip()
    return m.group(1), m.group(2), arg


def help_commands(vmmprof):
    _, out = run(vmmprof, 'help')
    return [l.split()[0] for l in out.splitlines() if re.match(r'^  [a-z]', l)]


def help_options(vmmprof, cmd):
    """The FLAGS column of the options: section, and the usage lines."""
    _, out = run(vmmprof, cmd, '--help')
    opts, usage, section = [], [], None
    for l in out.splitlines():
        if l.startswith('usage:'):
            section = 'usage'
            continue
        if l.startswith('options:'):
            section = 'options'
            continue
        if l and not l.startswith(' '):
            section = None
        if section == 'usage':
            if not l.strip():
                section = None
            else:
                usage.append(l)
        elif section == 'options' and l.startswith('  -'):
            opts.append(re.split(r'   +', l[2:], maxsplit=1)[0])
    return opts, usage


def parse_doc(path):
    """Tables of the page: legend, letters, forms, and one per ### command."""
    doc = {'legend': {}, 'letters': {}, 'forms': {}, 'cmds': {}}
    section, cmd = None, None
    for n, l in enumerate(open(path), 1):
        l = l.rstrip('\n')
        if l.startswith('## '):
            section, cmd = l[3:].strip(), None
            continue
        if l.startswith('### '):
            cmd = l[4:].strip()
            doc['cmds'][cmd] = []
            continue
        if not l.startswith('| `') and not l.startswith('| (none)'):
            continue
        cells = [c.strip().replace('\\|', '|') for c in re.split(r'(?<!\\)\|', l)[1:-1]]
        key = cells[0].strip('`')
        if cmd is not None:
            doc['cmds'][cmd].append((n, key, cells[1]))
        elif section == 'Argument words':
            doc['legend']['' if cells[0] == '(none)' else key] = cells[1]
        elif section == 'Letters with two meanings':
            doc['letters'][key] = cells[1]
        elif section == 'Flags with two argument forms':
            doc['forms'][key] = cells[1]
    return doc


def unit_of(legend, arg):
    if arg in legend:
        return legend[arg]
    if re.match(r'^[a-z0-9|]+$', arg):
        return 'one of: ' + arg.replace('|', ', ')
    return None


def main():
    vmmprof, docpath, checks = sys.argv[1], sys.argv[2], sys.argv[3:]
    doc = parse_doc(docpath)
    bad = []
    cmds = help_commands(vmmprof)
    if not cmds:
        bad.append('vmmprof help lists no command')
    if 'commands' in checks:
        for c in cmds:
            if c not in doc['cmds']:
                bad.append(f'{docpath}: no table for command {c}')
        for c in doc['cmds']:
            if c not in cmds:
                bad.append(f'{docpath}: a table for {c}, which vmmprof help does not list')
    short, longs = {}, {}
    for c in cmds:
        opts, usage = help_options(vmmprof, c)
        if not opts:
            bad.append(f'{c} --help lists no option')
        rows = doc['cmds'].get(c, [])
        if 'flags' in checks:
            have = {k for _, k, _ in rows}
            for f in opts:
                if f not in have:
                    bad.append(f'{c} --help has "{f}", {docpath} does not')
            for n, k, _ in rows:
                if k not in opts:
                    bad.append(f'{docpath}:{n}: "{k}" is not in {c} --help')
        if 'units' in checks:
            for n, k, unit in rows:
                s = split_flag(k)
                if s is None:
                    bad.append(f'{docpath}:{n}: "{k}" is not FLAGS [ARG]')
                    continue
                want = unit_of(doc['legend'], s[2])
                if want is None:
                    bad.append(f'{docpath}:{n}: argument word "{s[2]}" of {c} {s[1]} is not in the legend')
                elif unit != want:
                    bad.append(f'{docpath}:{n}: {c} {s[1]} {s[2]}: unit "{unit}", the legend says "{want}"')
        words = {}
        for f in opts:
            s = split_flag(f)
            if s is None:
                bad.append(f'{c} --help: "{f}" is not FLAGS [ARG]')
                continue
            letter, lng, arg = s
            words[lng] = arg
            if letter:
                words['-' + letter] = arg
                short.setdefault(letter, {}).setdefault(lng + (' ' + arg if arg else ''), []).append(c)
            longs.setdefault(lng, {}).setdefault(arg, []).append(c)
        if 'synopsis' in checks:
            for l in usage:
                for m in re.finditer(r'(?<![\w-])(--?\w[\w-]*)(\[=([A-Z]+)\]| ([A-Z][A-Z|:=]*)\b)?', l):
                    f, arg = m.group(1), m.group(3) or m.group(4) or ''
                    if m.group(3):
                        arg = '[=' + arg + ']'
                    if f not in words:
                        bad.append(f'{c} --help: usage has {f}, its options do not')
                    # an argument written in the usage line is the options' word
                    # (PID[,PID...] stands for PIDS, KEY for an enumeration)
                    # (a flag that takes no value may be followed by the positional
                    # arguments it changes: list --encode SPEC...)
                    elif arg and words[f] and arg != words[f] and not words[f].startswith(arg) and \
                            not (arg == 'KEY' and '|' in words[f]) and \
                            not (arg == 'PID' and words[f] == 'PIDS'):
                        bad.append(f'{c} --help: usage has {f} {arg}, its options {f} {words[f] or "(no value)"}')
        if 'parser' in checks:
            for f in opts:
                s = split_flag(f)
                if s is None or s[1] == '--help':
                    continue
                # the value and an unknown option after it: a parser that knows the
                # flag stops at the unknown one (or refuses the value); one that does
                # not stops at the flag itself
                argv = [c, s[1] + '=1', '--zz-no-such-option']
                if c == 'model':
                    argv = ['model', 'list', s[1] + '=1', '--zz-no-such-option']
                if c == 'user':
                    argv = ['user', 'list', s[1] + '=1', '--zz-no-such-option']
                rc, out = run(vmmprof, *argv)
                if re.search("unknown option '" + re.escape(s[1]) + "['=]", out) or rc != 2:
                    bad.append(f'{c}: {s[1]} listed in --help, the parser says: '
                               f'{out.strip().splitlines()[0] if out.strip() else "exit %d" % rc}')
    if 'letters' in checks:
        for letter, meanings in short.items():
            if len(meanings) > 1 and '-' + letter not in doc['letters']:
                bad.append(f'-{letter} means ' + '; '.join(f'{k} ({", ".join(v)})' for k, v in meanings.items()) +
                           f': not in "Letters with two meanings" of {docpath}')
        for lng, forms in longs.items():
            if len(forms) > 1 and lng not in doc['forms']:
                bad.append(f'{lng} takes ' + '; '.join(f'"{k or "no value"}" ({", ".join(v)})' for k, v in forms.items()) +
                           f': not in "Flags with two argument forms" of {docpath}')
        for k in doc['letters']:
            if len(short.get(k.lstrip('-'), {})) < 2:
                bad.append(f'{docpath}: {k} is listed with two meanings, the commands give it one')
        for k in doc['forms']:
            if len(longs.get(k, {})) < 2:
                bad.append(f'{docpath}: {k} is listed with two forms, the commands give it one')
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
