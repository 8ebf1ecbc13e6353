/* xentrace.h - exact vCPU residency per pCPU from a Xen trace (xentrace's binary output) */
#ifndef VP_XENTRACE_H
#define VP_XENTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Xen 4.17 logs each vCPU's runstate change (xen/common/sched/core.c,
 * trace_runstate_change) as event TRC_SCHED_RUNSTATE_CHANGE, 0x00021001,
 * with the old state in bits 8-9 and the new in bits 4-5 of the event id
 * (running 0, runnable 1, blocked 2, offline 3: public/vcpu.h), a TSC
 * stamp, and one extra word: vCPU id in bits 0-15, domain id in bits
 * 16-31.  So records are matched by class, (event & 0x0ffff000) ==
 * TRC_SCHED_MIN (0x00021000), and the low nibble (1 runstate change, 2
 * continue running), never by one id.
 *
 * xentrace writes, for each window of a pCPU's buffer it copies out, a
 * CPU-change record (tools/xentrace/xentrace.c: header
 * TRC_TRACE_CPU_CHANGE | 2 << 28, then int cpu, unsigned window size in
 * bytes) followed by that many bytes of records, each (public/trace.h
 * struct t_rec) a u32 header (event in bits 0-27, number of extra words
 * in 28-30, bit 31 set when a TSC follows), the TSC as two u32 (low,
 * high), and the extra words.  Little-endian, as Xen on x86 and Arm.
 *
 * A vCPU runs on a pCPU from a record there with new state running to the
 * next record there with old state running.  A vCPU running when tracing
 * began (its first record leaves running with no start) is charged from
 * the trace's first stamp; one still running at the end to its last.
 * Idle vCPUs (domain 0x7fff) are skipped.  TRC_LOST_RECORDS (0x0001f001)
 * counts records Xen could not write (a full buffer): figures are then
 * inexact and n_lost says how many.  Its extra words are the count, the
 * domain and vCPU, and first_tsc, the stamp of the first record lost.  As
 * a pCPU's first record, or with a first_tsc older than the trace's first
 * stamp, it tells of records lost before the trace began (Xen traces from
 * boot when booted with tbuf_size=, and stops writing while a buffer is
 * full until xentrace -D empties it): n_lost_before, which leaves the
 * trace exact.
 */

#define XT_SCHED_MIN        0x00021000u /* TRC_SCHED_MIN: runstate changes only */
#define XT_CLASS_MASK       0x0ffff000u
#define XT_CPU_CHANGE       0x0001f003u /* TRC_TRACE_CPU_CHANGE */
#define XT_LOST_RECORDS     0x0001f001u /* TRC_LOST_RECORDS */
#define XT_DOMID_IDLE       0x7fff

/* One vCPU's run time on one pCPU, in TSC ticks. */
struct xt_run {
	int domid, vcpu, pcpu;
	uint64_t ticks;
	unsigned starts;                /* times it began running there */
};

struct xentrace_res {
	struct xt_run *runs;            /* one per (domain, vCPU, pCPU) seen running */
	size_t n;
	uint64_t tsc_first, tsc_last;   /* the trace's first and last stamps */
	size_t n_records;               /* records read (CPU-change headers excluded) */
	size_t n_sched;                 /* of them, TRC_SCHED_MIN records */
	uint64_t n_lost;                /* records Xen lost during the trace (TRC_LOST_RECORDS) */
	uint64_t n_lost_before;         /* ... before it: a pCPU's first record (harmless) */
	int n_pcpus;                    /* highest pCPU seen + 1 */
};

/*
 * Parse len bytes of xentrace output into *out (caller-owned; release with
 * xentrace_res_release()).  VP_EFORMAT, with the byte offset, for a
 * truncated record or a window that overruns the data.
 */
int xentrace_parse(const unsigned char *buf, size_t len, struct xentrace_res *out,
		   struct vp_err *err);
void xentrace_res_release(struct xentrace_res *r);

/*
 * The same read as it is written: a running xentrace's output fed in
 * pieces as they appear (a pipe, a growing file).  Only whole windows are
 * parsed; the rest is kept for the next feed.  The per-pCPU state carries
 * over, so a vCPU that runs for many feeds without a runstate change is
 * charged for all of it, and xentrace_stream_ticks() includes the runs
 * still open, up to the newest stamp.  The trace's first stamp is the
 * smallest of the first feed that held a whole window.
 */
struct xt_cur {
	int domid, vcpu;                /* running on this pCPU; -1 none known */
	uint64_t since;
	bool known;                     /* a change was seen here: no run from the start */
	bool any;                       /* a record was seen here */
};

struct xentrace_stream {
	struct xentrace_res res;        /* closed runs, stamps, counts so far */
	size_t cap;
	struct xt_cur *cur;             /* per pCPU */
	int n_cur;
	unsigned char *pend;            /* bytes of a window not all fed yet */
	size_t n_pend, cap_pend;
	size_t consumed;                /* bytes parsed so far (offsets in errors) */
	bool started, any_tsc;
};

void xentrace_stream_init(struct xentrace_stream *s);
int xentrace_stream_feed(struct xentrace_stream *s, const unsigned char *buf, size_t len,
			 struct vp_err *err);
uint64_t xentrace_stream_ticks(const struct xentrace_stream *s, int domid, int vcpu, int pcpu);
void xentrace_stream_release(struct xentrace_stream *s);

/* Ticks domid's vCPU vcpu ran on pcpu (-1: on every pCPU; vcpu -1: every vCPU). */
uint64_t xentrace_ticks(const struct xentrace_res *r, int domid, int vcpu, int pcpu);

#endif
