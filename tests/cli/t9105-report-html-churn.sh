#!/bin/sh
# t9105-report-html-churn.sh - report --html draws every VM and vCPU recorded,
# over the whole run, with gaps where it did not exist: a VM restarted under
# a new pid is two series told apart by pid, and a VM that lived for one
# interval still shows after downsampling (issue 20 item 2)
. "$(dirname "$0")/lib.sh"

synth="$VP_HELPERS/rec_synth"
if [ ! -x "$synth" ]; then
	test_skip 'HTML report of a changing host' 'VP_HELPERS/rec_synth is not built'
	test_done
	exit $?
fi

# rec_synth PATH F VCPUS churn: vm1 (pid 42) in frames 0 .. F/2-1, restarted
# as pid 43 for F/2 .. F-1; vm2 (pid 77, one vCPU) in frame F/4 alone.  Every
# row's locality score is (k % 100) / 100 in frame k.
#
# The chart geometry (src/cli/report_html.c): CHART_W 720, CHART_H 180,
# bucket b at x = 40 + 670 * b / (nb - 1), a value v at y = 180 - v / vmax * 170.

# check.py FILE F NB: the series of the page against the frames above
cat >"$TRASH/check.py" <<'PY'
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
PY

test_expect_success 'a short recording: every incarnation, gaps, and the one-interval VM as a dot' '
	"$synth" r.vmmdb 8 2 churn >/dev/null &&
	vmmprof report --html r.html r.vmmdb 2>err &&
	python3 check.py r.html 8 8 &&
	# vm2 lived in frame 2 only, place 0.02; the highest score is frame 7 of pid 43, 0.07:
	# y = 180 - 0.02 / 0.07 * 170 = 131.43
	grep_q "<circle cx=\"231.4\" cy=\"131.4\"" r.html
'

test_expect_success 'downsampled (2400 intervals in 1000 squares): the one-interval VM still shows' '
	"$synth" d.vmmdb 2400 2 churn >/dev/null &&
	vmmprof report --html d.html d.vmmdb 2>err &&
	python3 check.py d.html 2400 1000 &&
	grep_q "Downsampled: 2400 intervals in 1000 squares" d.html
'

test_expect_success 'a host that never changed: one series, no label of pid or intervals' '
	"$synth" s.vmmdb 5 1 >/dev/null &&
	vmmprof report --html s.html s.vmmdb 2>err &&
	test "$(grep -c "<g class=\"vm\"" s.html)" = 1 &&
	grep_q ">vm1</text></g>" s.html &&
	! grep -q "class=\"c gone\"" s.html
'

# lifecycle: the churn above with the states a collector records: pid 42
# ended in frame F/2-1, vm2 in its one frame F/4, pid 43 paused from frame
# 3F/4 on.  With F = 8 and 8 buckets, bucket b is at x = 40 + 670 * b / 7:
# the cross of an end is drawn from x - 4 (pid 42: frame 3, 327.14 - 4 =
# 323.1; vm2: frame 2, 231.43 - 4 = 227.4); a paused bucket is a band of one
# bucket width (95.71) centred on it and clipped to the axis: frame 6 from
# 614.29 - 47.86 = 566.4, frame 7 from 662.1 to the axis end 710 (47.9 wide)
test_expect_success 'ended and paused VMs are marked on the chart and in their labels' '
	"$synth" l.vmmdb 8 2 lifecycle >/dev/null &&
	vmmprof report --html l.html l.vmmdb 2>err &&
	grep_q ">vm1 (pid 42) \[intervals 1-4\] ended in interval 4</text>" l.html &&
	grep_q ">vm2 \[interval 3\] ended in interval 3</text>" l.html &&
	grep_q ">vm1 (pid 43) \[intervals 5-8\] paused in 2 of 4</text>" l.html &&
	grep_q "class=\"ended\" stroke=\"#1f77b4\" stroke-width=\"2\" d=\"M323.1," l.html &&
	grep_q "class=\"ended\" stroke=\"#d62728\" stroke-width=\"2\" d=\"M227.4," l.html &&
	test "$(grep -o "<rect class=\"paused\" x=\"[0-9.]*\" y=\"[0-9]*\" width=\"[0-9.]*\"" l.html | tr "\n" " ")" = \
		"<rect class=\"paused\" x=\"566.4\" y=\"165\" width=\"95.7\" <rect class=\"paused\" x=\"662.1\" y=\"165\" width=\"47.9\" " &&
	# a churn recording without states has no marks
	"$synth" c.vmmdb 8 2 churn >/dev/null &&
	vmmprof report --html c.html c.vmmdb 2>err &&
	! grep -q "class=\"ended\"\|class=\"paused\"\|ended in\|paused in" c.html
'

test_done
