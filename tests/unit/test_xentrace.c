/* test_xentrace.c - the xentrace parser on traces built from Xen 4.17's documented record layout */
#include "test.h"

#include <stdlib.h>

#include "source/xentrace.h"
#include "util/alloc.h"

/*
 * A trace is written here as xentrace writes one (tools/xentrace/xentrace.c,
 * public/trace.h): per window a CPU-change record (0x0001f003 | 2 << 28,
 * cpu, window bytes), then records: u32 header (event | extra words << 28 |
 * 1 << 31 with a TSC), TSC low and high, extra words.  A runstate change is
 * 0x00021001 | old << 8 | new << 4 (running 0, runnable 1, blocked 2) with
 * one extra word, vCPU | domain << 16 (xen/common/sched/core.c).
 */
struct tb {
	unsigned char *b;
	size_t n, cap, win;             /* win: offset of the open window's header */
};

static void put32(struct tb *t, uint32_t v)
{
	VP_GROW(t->b, t->cap, t->n + 4);
	t->b[t->n++] = v & 0xff;
	t->b[t->n++] = v >> 8 & 0xff;
	t->b[t->n++] = v >> 16 & 0xff;
	t->b[t->n++] = v >> 24 & 0xff;
}

static void set32(struct tb *t, size_t off, uint32_t v)
{
	t->b[off] = v & 0xff;
	t->b[off + 1] = v >> 8 & 0xff;
	t->b[off + 2] = v >> 16 & 0xff;
	t->b[off + 3] = v >> 24 & 0xff;
}

static void window(struct tb *t, int cpu)
{
	if (t->win != (size_t)-1)
		set32(t, t->win + 8, (uint32_t)(t->n - t->win - 12));
	t->win = t->n;
	put32(t, 0x0001f003u | 2u << 28);
	put32(t, (uint32_t)cpu);
	put32(t, 0);                    /* size, set when the window closes */
}

static void close_window(struct tb *t)
{
	set32(t, t->win + 8, (uint32_t)(t->n - t->win - 12));
	t->win = (size_t)-1;
}

static void rec(struct tb *t, uint32_t ev, uint64_t tsc, int n, const uint32_t *x)
{
	int i;

	put32(t, ev | (uint32_t)n << 28 | 1u << 31);
	put32(t, (uint32_t)tsc);
	put32(t, (uint32_t)(tsc >> 32));
	for (i = 0; i < n; i++)
		put32(t, x[i]);
}

static void rs(struct tb *t, uint64_t tsc, int dom, int vcpu, int old, int new)
{
	uint32_t d = (uint32_t)vcpu | (uint32_t)dom << 16;

	rec(t, 0x00021001u | (uint32_t)old << 8 | (uint32_t)new << 4, tsc, 1, &d);
}

/*
 * pCPU 0: dom1 vCPU 1 runs from the trace's start (a continue-running record
 * at 100) to 500; dom1 vCPU 0 arrives at 6000 (moved from pCPU 1) and blocks
 * at 9000, in a second window; the idle vCPU is skipped.  pCPU 1: dom1 vCPU 0
 * runs 1000-5000; dom2 vCPU 0 from 7000 to the end (9800, the lost-records
 * record); a TRC_MEM record is skipped.
 */
static void build(struct tb *t)
{
	/* 3 lost from TSC 9700 on (count, domain/vCPU, first_tsc low, high) */
	uint32_t one = (uint32_t)1 | 1u << 16, lost[4] = { 3, 0, 9700, 0 }, mem = 7;

	memset(t, 0, sizeof(*t));
	t->win = (size_t)-1;
	window(t, 0);
	rec(t, 0x00021002u, 100, 1, &one);          /* TRC_SCHED_CONTINUE_RUNNING dom1 v1 */
	rs(t, 500, 1, 1, 0, 1);
	rs(t, 6000, 1, 0, 1, 0);
	window(t, 1);
	rs(t, 1000, 1, 0, 1, 0);
	rs(t, 5000, 1, 0, 0, 1);
	rs(t, 7000, 2, 0, 2, 0);
	rec(t, 0x00101001u, 8000, 1, &mem);         /* TRC_MEM: another class */
	rec(t, 0x0001f001u, 9800, 4, lost);         /* TRC_LOST_RECORDS: 3 lost */
	window(t, 0);
	rs(t, 9000, 1, 0, 0, 2);
	rs(t, 9500, 0x7fff, 0, 2, 0);               /* idle vCPU */
	close_window(t);
}

TEST(xentrace_runstate_residency_per_pcpu)
{
	struct tb t;
	struct xentrace_res r;
	struct vp_err err = { 0, "" };

	build(&t);
	CHECK_INT(xentrace_parse(t.b, t.n, &r, &err), 0);
	CHECK_U64(r.tsc_first, 100);
	CHECK_U64(r.tsc_last, 9800);
	CHECK_INT(r.n_pcpus, 2);
	CHECK_INT((int)r.n_records, 10);
	CHECK_INT((int)r.n_sched, 8);              /* 5 on pCPU 0 (one idle), 3 on pCPU 1 */
	CHECK_U64(r.n_lost, 3);
	/* dom1 vCPU 0: 5000 - 1000 on pCPU 1, 9000 - 6000 on pCPU 0 */
	CHECK_U64(xentrace_ticks(&r, 1, 0, 1), 4000);
	CHECK_U64(xentrace_ticks(&r, 1, 0, 0), 3000);
	CHECK_U64(xentrace_ticks(&r, 1, 0, -1), 7000);
	/* dom1 vCPU 1: running at the start, charged from the first stamp: 500 - 100 */
	CHECK_U64(xentrace_ticks(&r, 1, 1, 0), 400);
	CHECK_U64(xentrace_ticks(&r, 1, -1, -1), 7400);
	/* dom2 vCPU 0: still running at the end: 9800 - 7000 */
	CHECK_U64(xentrace_ticks(&r, 2, 0, 1), 2800);
	CHECK_U64(xentrace_ticks(&r, 0x7fff, -1, -1), 0);
	xentrace_res_release(&r);
	free(t.b);
}

TEST(xentrace_bad_input)
{
	struct tb t;
	struct xentrace_res r;
	struct vp_err err = { 0, "" };
	static const unsigned char junk[8] = { 1, 0, 2, 0, 0, 0, 0, 0 };

	build(&t);
	/* cut inside the last record: the window overruns the data */
	CHECK_INT(xentrace_parse(t.b, t.n - 2, &r, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "runs past the end");
	CHECK_INT(xentrace_parse(junk, sizeof(junk), &r, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "outside any pCPU window");
	CHECK_INT(xentrace_parse(t.b, 3, &r, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "cut short");
	/* nothing at all: no records, no error */
	CHECK_INT(xentrace_parse(t.b, 0, &r, &err), 0);
	CHECK_INT(r.n_pcpus, 0);
	xentrace_res_release(&r);
	free(t.b);
}

/*
 * The same trace fed as a running xentrace writes it, in pieces of every
 * size from 1 byte: the same run times as the whole parse (dom2 vCPU 0,
 * still running, up to the newest stamp), and nothing parsed of a window
 * before all of it is there.
 */
TEST(xentrace_stream_in_pieces)
{
	struct tb t;
	struct vp_err err = { 0, "" };
	size_t piece, off;

	build(&t);
	for (piece = 1; piece <= t.n; piece += piece < 16 ? 1 : 37) {
		struct xentrace_stream s;

		xentrace_stream_init(&s);
		for (off = 0; off < t.n; off += piece) {
			size_t n = t.n - off < piece ? t.n - off : piece;

			CHECK_INT(xentrace_stream_feed(&s, t.b + off, n, &err), 0);
			if (off + n < 12 + 3 * 16)   /* the first window (3 records) not all there */
				CHECK_INT((int)s.res.n_records, 0);
		}
		CHECK_U64(s.res.tsc_first, 100);
		CHECK_U64(s.res.tsc_last, 9800);
		CHECK_INT((int)s.res.n_sched, 8);
		CHECK_U64(xentrace_stream_ticks(&s, 1, 0, 1), 4000);
		CHECK_U64(xentrace_stream_ticks(&s, 1, 0, 0), 3000);
		CHECK_U64(xentrace_stream_ticks(&s, 1, 1, 0), 400);
		CHECK_U64(xentrace_stream_ticks(&s, 2, 0, 1), 2800);
		xentrace_stream_release(&s);
	}
	free(t.b);
}

/*
 * A vCPU that runs without a runstate change for several feeds (a busy
 * vCPU alone on its pCPU) is charged for all of it: its run stays open
 * from 1000 and reaches the newest stamp of each feed (other pCPUs' records
 * move the clock), then closes at 5000.
 */
TEST(xentrace_stream_open_run_carries_over)
{
	struct tb a, b, c;
	struct xentrace_stream s;
	struct vp_err err = { 0, "" };

	memset(&a, 0, sizeof(a));
	a.win = (size_t)-1;
	b = c = a;
	window(&a, 0);
	rs(&a, 1000, 1, 0, 1, 0);
	close_window(&a);
	window(&b, 1);
	rs(&b, 1500, 2, 0, 2, 0);
	rs(&b, 2000, 2, 0, 0, 2);
	close_window(&b);
	window(&c, 0);
	rs(&c, 5000, 1, 0, 0, 1);
	close_window(&c);
	xentrace_stream_init(&s);
	CHECK_INT(xentrace_stream_feed(&s, a.b, a.n, &err), 0);
	CHECK_U64(xentrace_stream_ticks(&s, 1, 0, 0), 0);      /* started at the newest stamp */
	CHECK_INT(xentrace_stream_feed(&s, b.b, b.n, &err), 0);
	CHECK_U64(xentrace_stream_ticks(&s, 1, 0, 0), 1000);   /* 2000 - 1000, still running */
	CHECK_U64(xentrace_stream_ticks(&s, 2, 0, 1), 500);
	CHECK_INT(xentrace_stream_feed(&s, c.b, c.n, &err), 0);
	CHECK_U64(xentrace_stream_ticks(&s, 1, 0, 0), 4000);   /* 5000 - 1000, closed */
	CHECK_U64(xentrace_stream_ticks(&s, 1, 0, -1), 4000);
	xentrace_stream_release(&s);
	free(a.b);
	free(b.b);
	free(c.b);
}

/*
 * Xen booted with tbuf_size= traces from boot: its buffers are full before
 * xentrace -D empties them, and the first record Xen writes on a pCPU then
 * tells of the records lost before the trace began.  That loss leaves the
 * trace exact, as does one whose first lost record (first_tsc) is older
 * than the trace's first stamp; one that began inside the trace does not.
 */
TEST(xentrace_lost_before_the_trace)
{
	struct tb t;
	struct xentrace_res r;
	struct vp_err err = { 0, "" };
	uint32_t lost[4] = { 500, 0, 10, 0 }, later[4] = { 2, 0, 250, 0 }, old[4] = { 7, 0, 20, 0 };

	memset(&t, 0, sizeof(t));
	t.win = (size_t)-1;
	window(&t, 0);
	rec(&t, 0x0001f001u, 50, 4, lost);
	rs(&t, 100, 1, 0, 1, 0);
	rs(&t, 400, 1, 0, 0, 2);
	window(&t, 1);
	rec(&t, 0x0001f001u, 60, 4, lost);
	rs(&t, 200, 2, 0, 1, 0);
	rec(&t, 0x0001f001u, 300, 4, later);
	/* not a pCPU's first record, but its losses began before the trace (TSC 20 < 50) */
	rec(&t, 0x0001f001u, 350, 4, old);
	close_window(&t);
	CHECK_INT(xentrace_parse(t.b, t.n, &r, &err), 0);
	CHECK_U64(r.n_lost_before, 1007);
	CHECK_U64(r.n_lost, 2);
	CHECK_U64(xentrace_ticks(&r, 1, 0, 0), 300);
	xentrace_res_release(&r);
	free(t.b);
}
