import re, sys
page = open(sys.argv[1]).read()
F, nb = int(sys.argv[2]), int(sys.argv[3])
def bucket(i):
    return i * nb // F
def x(b):
    return 40 + 670 * b / (nb - 1)
groups = re.findall(r'<g class="vm" data-key="([^"]*)"><path [^>]* d="([^"]*)"/>(.*?)<text[^>]*>([^<]*)</text></g>', page)
assert [g[0] for g in groups] == ["vm:kvm:42", "vm:kvm:77", "vm:kvm:43"], [g[0] for g in groups]
labels = [g[3] for g in groups]
assert labels == ["vm1 (pid 42) [intervals 1-%d]" % (F // 2),
                  "vm2 [interval %d]" % (F // 4 + 1),
                  "vm1 (pid 43) [intervals %d-%d]" % (F // 2 + 1, F)], labels
def points(d):
    return [(c, float(a), float(b)) for c, a, b in re.findall(r'([ML])([0-9.]+),([0-9.]+)', d)]
p42, p77, p43 = (points(g[1]) for g in groups)
# the first incarnation: one segment over the buckets of frames 0 .. F/2-1
last42 = bucket(F // 2 - 1)
assert [c for c, _, _ in p42] == ["M"] + ["L"] * last42, (len(p42), last42)
assert abs(p42[-1][1] - x(last42)) <= 0.051, (p42[-1], x(last42))
# the restart: from the bucket of frame F/2 to the last one, nothing before
first43 = bucket(F // 2)
assert [c for c, _, _ in p43] == ["M"] + ["L"] * (nb - 1 - first43), (len(p43), first43)
assert abs(p43[0][1] - x(first43)) <= 0.051, (p43[0], x(first43))
# vm2: one bucket, drawn as a dot where its one frame falls
assert len(p77) == 1, p77
dots = re.findall(r'<circle cx="([0-9.]+)" cy="([0-9.]+)"', groups[1][2])
assert len(dots) == 1, groups[1][2]
assert abs(float(dots[0][0]) - x(bucket(F // 4))) <= 0.051, (dots, x(bucket(F // 4)))
print("ok", len(p42), len(p43), dots)
# the heatmap: each incarnation's vCPUs, cells only where it existed
rows = re.findall(r'<tr data-key="([^"]*)"><th>[^<]*</th><td>(.*?)</td></tr>', page)
keys = [k for k, _ in rows]
assert keys == ["vcpu:kvm:42:0", "vcpu:kvm:42:1", "vcpu:kvm:77:0", "vcpu:kvm:43:0", "vcpu:kvm:43:1"], keys
for k, cells in rows:
    spans = re.findall(r'<span class="c( gone)?"', cells)
    assert len(spans) == nb, (k, len(spans))
    there = [i for i, g in enumerate(spans) if not g]
    if k.startswith("vcpu:kvm:42:"):
        want = list(range(0, last42 + 1))
    elif k.startswith("vcpu:kvm:43:"):
        want = list(range(first43, nb))
    else:
        want = [bucket(F // 4)]
    assert there == want, (k, there[:3], there[-3:], want[:3], want[-3:])
