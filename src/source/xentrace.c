/* xentrace.c - exact vCPU residency per pCPU from xentrace's binary output (format in xentrace.h) */
#include "source/xentrace.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The vCPU running on each pCPU, and since when. */
struct cur {
	int domid, vcpu;               /* -1: none known */
	uint64_t since;
	bool from_start;               /* no start seen: charged from the trace's first stamp */
};

struct state {
	struct xentrace_res *r;
	size_t cap;
	struct cur *cur;
	int n_cur;
};

static struct xt_run *run_slot(struct state *s, int domid, int vcpu, int pcpu)
{
	struct xentrace_res *r = s->r;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->runs[i].domid == domid && r->runs[i].vcpu == vcpu && r->runs[i].pcpu == pcpu)
			return &r->runs[i];
	VP_GROW(r->runs, s->cap, r->n + 1);
	memset(&r->runs[r->n], 0, sizeof(r->runs[0]));
	r->runs[r->n].domid = domid;
	r->runs[r->n].vcpu = vcpu;
	r->runs[r->n].pcpu = pcpu;
	return &r->runs[r->n++];
}

static struct cur *cur_of(struct state *s, int pcpu)
{
	if (pcpu >= s->n_cur) {
		int n = pcpu + 1, i;

		s->cur = xrealloc(s->cur, (size_t)n * sizeof(*s->cur));
		for (i = s->n_cur; i < n; i++) {
			s->cur[i].domid = s->cur[i].vcpu = -1;
			s->cur[i].since = 0;
			s->cur[i].from_start = false;
		}
		s->n_cur = n;
	}
	return &s->cur[pcpu];
}

/* A runstate change of (domid, vcpu) on pcpu at tsc, from old to new. */
static void runstate(struct state *s, int pcpu, uint64_t tsc, int domid, int vcpu, int old,
		     int new)
{
	struct cur *c = cur_of(s, pcpu);

	if (domid == XT_DOMID_IDLE)
		return;
	if (old == 0) { /* it stops running here */
		struct xt_run *x;

		if (c->domid == domid && c->vcpu == vcpu) {
			x = run_slot(s, domid, vcpu, pcpu);
			x->ticks += tsc - c->since;
		} else if (c->domid < 0 && !c->from_start) {
			/* running when the trace began: from its first stamp */
			x = run_slot(s, domid, vcpu, pcpu);
			x->ticks += tsc - s->r->tsc_first;
		}
		c->domid = c->vcpu = -1;
		c->from_start = true; /* this pCPU's state is known from here on */
	}
	if (new == 0) {
		run_slot(s, domid, vcpu, pcpu)->starts++;
		c->domid = domid;
		c->vcpu = vcpu;
		c->since = tsc;
		c->from_start = true;
	}
}

int xentrace_parse(const unsigned char *buf, size_t len, struct xentrace_res *out,
		   struct vp_err *err)
{
	struct state s = { out, 0, NULL, 0 };
	size_t off = 0, wend = 0;
	int pcpu = -1, ret = 0, i;
	bool any_tsc = false;

	memset(out, 0, sizeof(*out));
	/* first pass: the trace's first stamp (a vCPU running at the start is charged from it) */
	for (int pass = 0; pass < 2; pass++) {
		off = 0;
		wend = 0;
		pcpu = -1;
		while (off < len) {
			uint32_t hdr, ev;
			unsigned n_extra;
			bool tsc_in;
			size_t size;
			uint64_t tsc = 0;
			const unsigned char *p = buf + off;

			if (len - off < 4) {
				ret = vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: a record "
						 "header cut short (%zu of 4 bytes)", off, len - off);
				goto out;
			}
			hdr = le32(p);
			ev = hdr & 0x0fffffffu;
			n_extra = (hdr >> 28) & 7;
			tsc_in = hdr >> 31;
			if (off >= wend && ev == XT_CPU_CHANGE && !tsc_in) {
				/* xentrace's window header: cpu, then the window's size in bytes */
				if (n_extra != 2 || len - off < 12) {
					ret = vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: a "
							 "CPU-change record cut short", off);
					goto out;
				}
				pcpu = (int)le32(p + 4);
				wend = off + 12 + le32(p + 8);
				if (pcpu < 0 || pcpu >= 65536 || wend > len) {
					ret = vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: window "
							 "of pCPU %d runs past the end (%zu > %zu bytes)",
							 off, pcpu, wend, len);
					goto out;
				}
				off += 12;
				continue;
			}
			if (pcpu < 0 || off >= wend) {
				ret = vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: a record "
						 "outside any pCPU window (not xentrace output?)", off);
				goto out;
			}
			size = 4 + (tsc_in ? 8 : 0) + 4 * (size_t)n_extra;
			if (off + size > wend) {
				ret = vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: record 0x%08x "
						 "cut short (%zu bytes, %zu left in the window)", off,
						 ev, size, wend - off);
				goto out;
			}
			if (tsc_in)
				tsc = (uint64_t)le32(p + 4) | (uint64_t)le32(p + 8) << 32;
			if (pass == 0) {
				if (tsc_in) {
					if (!any_tsc || tsc < out->tsc_first)
						out->tsc_first = tsc;
					if (!any_tsc || tsc > out->tsc_last)
						out->tsc_last = tsc;
					any_tsc = true;
				}
			} else {
				const unsigned char *x = p + 4 + (tsc_in ? 8 : 0);

				out->n_records++;
				if (pcpu + 1 > out->n_pcpus)
					out->n_pcpus = pcpu + 1;
				if (ev == XT_LOST_RECORDS && n_extra >= 1) {
					out->n_lost += le32(x);
				} else if ((ev & XT_CLASS_MASK) == XT_SCHED_MIN) {
					out->n_sched++;
					if ((ev & 0xf) == 1 && n_extra >= 1 && tsc_in) {
						uint32_t d = le32(x);

						runstate(&s, pcpu, tsc, (int)(d >> 16), (int)(d & 0xffff),
							 (int)((ev >> 8) & 3), (int)((ev >> 4) & 3));
					}
				}
			}
			off += size;
		}
	}
	/* still running at the end: to the last stamp */
	for (i = 0; i < s.n_cur; i++)
		if (s.cur[i].domid >= 0)
			run_slot(&s, s.cur[i].domid, s.cur[i].vcpu, i)->ticks +=
				out->tsc_last - s.cur[i].since;
out:
	free(s.cur);
	if (ret)
		xentrace_res_release(out);
	return ret;
}

void xentrace_res_release(struct xentrace_res *r)
{
	free(r->runs);
	memset(r, 0, sizeof(*r));
}

uint64_t xentrace_ticks(const struct xentrace_res *r, int domid, int vcpu, int pcpu)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->runs[i].domid == domid && (vcpu < 0 || r->runs[i].vcpu == vcpu) &&
		    (pcpu < 0 || r->runs[i].pcpu == pcpu))
			t += r->runs[i].ticks;
	return t;
}
