/* xentrace.c - exact vCPU residency per pCPU from xentrace's binary output (format in xentrace.h) */
#include "source/xentrace.h"
#include "util/alloc.h"

#include <stdlib.h>
#include <string.h>

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static struct xt_run *run_slot(struct xentrace_stream *s, int domid, int vcpu, int pcpu)
{
	struct xentrace_res *r = &s->res;
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

static struct xt_cur *cur_of(struct xentrace_stream *s, int pcpu)
{
	if (pcpu >= s->n_cur) {
		int n = pcpu + 1, i;

		s->cur = xrealloc(s->cur, (size_t)n * sizeof(*s->cur));
		for (i = s->n_cur; i < n; i++) {
			s->cur[i].domid = s->cur[i].vcpu = -1;
			s->cur[i].since = 0;
			s->cur[i].known = false;
			s->cur[i].any = false;
		}
		s->n_cur = n;
	}
	return &s->cur[pcpu];
}

/* A runstate change of (domid, vcpu) on pcpu at tsc, from old to new. */
static void runstate(struct xentrace_stream *s, int pcpu, uint64_t tsc, int domid, int vcpu,
		     int old, int new)
{
	struct xt_cur *c = cur_of(s, pcpu);

	if (domid == XT_DOMID_IDLE)
		return;
	if (c->domid >= 0 && (c->domid != domid || c->vcpu != vcpu) && new == 0) {
		/* another vCPU starts while one was running: it stopped unseen (lost records) */
		run_slot(s, c->domid, c->vcpu, pcpu)->ticks += tsc - c->since;
		c->domid = c->vcpu = -1;
	}
	if (old == 0) { /* it stops running here */
		struct xt_run *x;

		if (c->domid == domid && c->vcpu == vcpu) {
			x = run_slot(s, domid, vcpu, pcpu);
			x->ticks += tsc - c->since;
		} else if (c->domid < 0 && !c->known) {
			/* running when the trace began: from its first stamp */
			x = run_slot(s, domid, vcpu, pcpu);
			x->ticks += tsc - s->res.tsc_first;
		}
		c->domid = c->vcpu = -1;
		c->known = true; /* this pCPU's state is known from here on */
	}
	if (new == 0) {
		run_slot(s, domid, vcpu, pcpu)->starts++;
		c->domid = domid;
		c->vcpu = vcpu;
		c->since = tsc;
		c->known = true;
	}
}

void xentrace_stream_init(struct xentrace_stream *s)
{
	memset(s, 0, sizeof(*s));
}

void xentrace_stream_release(struct xentrace_stream *s)
{
	xentrace_res_release(&s->res);
	free(s->cur);
	free(s->pend);
	memset(s, 0, sizeof(*s));
}

/*
 * Walk the records of buf[0, len): whole windows only (*used: the bytes of
 * the windows walked).  pass 0 only collects the first and last stamps;
 * pass 1 charges run time.  A window that is not all there yet ends the
 * walk without error unless last (the data is complete).
 */
static int walk(struct xentrace_stream *s, const unsigned char *buf, size_t len, int pass,
		bool last, size_t base, size_t *used, struct vp_err *err)
{
	struct xentrace_res *out = &s->res;
	size_t off = 0, wend = 0;
	int pcpu = -1;

	*used = 0;
	while (off < len) {
		uint32_t hdr, ev;
		unsigned n_extra;
		bool tsc_in;
		size_t size;
		uint64_t tsc = 0;
		const unsigned char *p = buf + off;

		if (off >= wend && len - off < 12 && !last)
			break;  /* the next window's header is not all here yet */
		if (len - off < 4)
			return vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: a record "
					  "header cut short (%zu of 4 bytes)", base + off, len - off);
		hdr = le32(p);
		ev = hdr & 0x0fffffffu;
		n_extra = (hdr >> 28) & 7;
		tsc_in = hdr >> 31;
		if (off >= wend && ev == XT_CPU_CHANGE && !tsc_in) {
			/* xentrace's window header: cpu, then the window's size in bytes */
			size_t end;

			if (n_extra != 2 || len - off < 12)
				return vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: a "
						  "CPU-change record cut short", base + off);
			pcpu = (int)le32(p + 4);
			end = off + 12 + le32(p + 8);
			if (pcpu < 0 || pcpu >= 65536)
				return vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: pCPU %d "
						  "out of range", base + off, pcpu);
			if (end > len) {
				if (!last)
					break; /* the window is not all here yet */
				return vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: window "
						  "of pCPU %d runs past the end (%zu > %zu bytes)",
						  base + off, pcpu, base + end, base + len);
			}
			wend = end;
			off += 12;
			if (off == wend)
				*used = off;
			continue;
		}
		if (pcpu < 0 || off >= wend)
			return vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: a record "
					  "outside any pCPU window (not xentrace output?)", base + off);
		size = 4 + (tsc_in ? 8 : 0) + 4 * (size_t)n_extra;
		if (off + size > wend)
			return vp_err_set(err, VP_EFORMAT, "xentrace data: byte %zu: record 0x%08x "
					  "cut short (%zu bytes, %zu left in the window)", base + off,
					  ev, size, wend - off);
		if (tsc_in)
			tsc = (uint64_t)le32(p + 4) | (uint64_t)le32(p + 8) << 32;
		if (pass == 0) {
			if (tsc_in) {
				if (!s->any_tsc || tsc < out->tsc_first)
					out->tsc_first = tsc;
				if (!s->any_tsc || tsc > out->tsc_last)
					out->tsc_last = tsc;
				s->any_tsc = true;
			}
		} else {
			const unsigned char *x = p + 4 + (tsc_in ? 8 : 0);

			out->n_records++;
			if (pcpu + 1 > out->n_pcpus)
				out->n_pcpus = pcpu + 1;
			if (tsc_in && tsc > out->tsc_last)
				out->tsc_last = tsc;
			if (ev == XT_LOST_RECORDS && n_extra >= 1) {
				/*
				 * Lost before the trace began: reported by its pCPU's first
				 * record, or its first lost record (first_tsc, extra words
				 * 2-3) is older than the trace's first stamp (Xen stops
				 * writing while a buffer is full, until xentrace -D empties it)
				 */
				uint64_t first = n_extra >= 4 ? (uint64_t)le32(x + 8) |
						 (uint64_t)le32(x + 12) << 32 : UINT64_MAX;

				if (cur_of(s, pcpu)->any && first >= out->tsc_first)
					out->n_lost += le32(x);
				else
					out->n_lost_before += le32(x);
			} else if ((ev & XT_CLASS_MASK) == XT_SCHED_MIN) {
				out->n_sched++;
				if ((ev & 0xf) == 1 && n_extra >= 1 && tsc_in) {
					uint32_t d = le32(x);

					runstate(s, pcpu, tsc, (int)(d >> 16), (int)(d & 0xffff),
						 (int)((ev >> 8) & 3), (int)((ev >> 4) & 3));
				}
			}
		}
		if (pass == 1)
			cur_of(s, pcpu)->any = true;
		off += size;
		if (off == wend)
			*used = off;
	}
	if (last)
		*used = off;
	return 0;
}

static int feed(struct xentrace_stream *s, const unsigned char *buf, size_t len, bool last,
		struct vp_err *err)
{
	const unsigned char *data = buf;
	size_t n = len, used = 0, base = s->consumed;
	int ret;

	if (s->n_pend) {   /* the part of a window an earlier feed kept */
		VP_GROW(s->pend, s->cap_pend, s->n_pend + len);
		if (len)
			memcpy(s->pend + s->n_pend, buf, len);
		s->n_pend += len;
		data = s->pend;
		n = s->n_pend;
	}
	/* the first data: the trace's first stamp (a vCPU running at the start is charged from it) */
	if (!s->started) {
		ret = walk(s, data, n, 0, last, base, &used, err);
		if (ret)
			return ret;
		if (used)
			s->started = true;
	}
	if (s->started) {
		ret = walk(s, data, n, 1, last, base, &used, err);
		if (ret)
			return ret;
	}
	s->consumed += used;
	if (used < n) {    /* keep the rest for the next feed */
		unsigned char *rest = xmalloc(n - used);

		memcpy(rest, data + used, n - used);
		free(s->pend);
		s->pend = rest;
		s->cap_pend = s->n_pend = n - used;
	} else {
		s->n_pend = 0;
	}
	return 0;
}

int xentrace_stream_feed(struct xentrace_stream *s, const unsigned char *buf, size_t len,
			 struct vp_err *err)
{
	return feed(s, buf, len, false, err);
}

uint64_t xentrace_stream_ticks(const struct xentrace_stream *s, int domid, int vcpu, int pcpu)
{
	uint64_t t = xentrace_ticks(&s->res, domid, vcpu, pcpu);
	int i;

	/* still running: up to the newest stamp */
	for (i = 0; i < s->n_cur; i++)
		if (s->cur[i].domid == domid && (vcpu < 0 || s->cur[i].vcpu == vcpu) &&
		    (pcpu < 0 || i == pcpu) && s->res.tsc_last > s->cur[i].since)
			t += s->res.tsc_last - s->cur[i].since;
	return t;
}

int xentrace_parse(const unsigned char *buf, size_t len, struct xentrace_res *out,
		   struct vp_err *err)
{
	struct xentrace_stream s;
	int ret, i;

	xentrace_stream_init(&s);
	ret = feed(&s, buf, len, true, err);
	if (!ret) {
		/* still running at the end: to the last stamp */
		for (i = 0; i < s.n_cur; i++)
			if (s.cur[i].domid >= 0)
				run_slot(&s, s.cur[i].domid, s.cur[i].vcpu, i)->ticks +=
					s.res.tsc_last - s.cur[i].since;
		*out = s.res;
		memset(&s.res, 0, sizeof(s.res));
	} else {
		memset(out, 0, sizeof(*out));
	}
	xentrace_stream_release(&s);
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
