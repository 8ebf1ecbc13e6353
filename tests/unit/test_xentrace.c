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
	uint32_t one = (uint32_t)1 | 1u << 16, lost[4] = { 3, 0, 0, 0 }, mem = 7;

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
