/* verify.h - `vmmprof verify`: the judge of each factor's check, a pure function of counts */
#ifndef VP_VERIFY_H
#define VP_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "platform/platform.h"
#include "util/err.h"
#include "util/sbuf.h"

/*
 * A check provokes a factor (the treatment runs) beside a control (the same
 * code without the factor, or with less of it), and the measuring side
 * (src/bench/provoke.c) fills in each run's value.  The judge never runs
 * anything: it reduces the runs to medians, takes the margin from the
 * spread of the runs (the control's range, plus the treatment's where the
 * expectation is an exact figure), and says pass, fail or skipped with the
 * reason (docs/verification.md "vmmprof verify").
 */

#define VERIFY_MAX_RUNS 16
#define VERIFY_TEXT 640

enum verify_kind {
	VK_HARDWARE,   /* counted by a core or uncore PMU */
	VK_SOFTWARE,   /* counted by the kernel's software events or /proc */
	VK_PLACEMENT,  /* where the kernel put threads or pages (move_pages, numa_maps) */
};

enum verify_expect {
	VX_RISE,       /* treatment above control by more than the margin */
	VX_EXACT,      /* treatment - control = expected, within the margin (the runs' spread) */
	VX_AT_LEAST,   /* treatment >= expected - margin (a share that must be near all) */
};

enum verify_verdict { VV_PASS, VV_FAIL, VV_SKIP };

struct verify_check {
	/* what the measuring side fills in */
	const char *factor;        /* "locality", "llc", "sharing", "imc", "queue", "counting" */
	const char *name;          /* "remote share, remote vs local binding" */
	const char *unit;          /* "", "instructions", "%", ... for the table */
	enum verify_kind kind;
	enum verify_expect expect;
	double expected;           /* VX_EXACT: the difference; VX_AT_LEAST: the floor */
	double control[VERIFY_MAX_RUNS];
	int n_control;             /* VX_AT_LEAST takes none */
	double treat[VERIFY_MAX_RUNS];
	int n_treat;
	/*
	 * A count that must be above 0 when the checked count is real (the
	 * cycles or DRAM loads of the same runs): a hardware count of 0 beside
	 * it > 0 is a suspect zero of an emulated or partial PMU, not a
	 * measurement.  NaN: none given.
	 */
	double companion;
	const char *companion_name;
	char skip[VERIFY_TEXT];    /* set when it could not be measured: why ("" measured) */
	char note[VERIFY_TEXT];    /* how it was provoked (for the table's foot and JSON) */
	/* what the judge fills in */
	enum verify_verdict verdict;
	double measured;           /* median treatment (minus median control for RISE, EXACT) */
	double margin;             /* from the spread of the runs; NaN unknown */
	char why[VERIFY_TEXT];     /* the verdict's reason */
};

/* Median of the first n values of v (v is not changed); NaN for n = 0. */
double verify_median(const double *v, int n);

/*
 * Judge one check from its runs: fills verdict, measured, margin and why.
 * A check with skip set stays skipped with that reason; a run that is NaN,
 * a hardware count that is 0 in every run beside a companion > 0 (suspect
 * zero) and too few runs to have a spread (< 2 control runs) are skipped
 * with the reason, never passed.
 */
void verify_judge(struct verify_check *c);

/* The verdict word: "pass", "FAIL", "skipped". */
const char *verify_verdict_name(enum verify_verdict v);
const char *verify_kind_name(enum verify_kind k);

/* What a verify run was made on: written beside the checks (`verify --save`). */
struct verify_machine {
	char host[128];
	char kernel[128];          /* uname -r */
	char arch[32];             /* uname -m */
	char cpu[160];             /* vendor, family/model, model name */
	int n_cpus, n_nodes, n_packages;
	char hypervisor[96];       /* "KVM", "QEMU TCG", "none", ... */
	char core_pmu[PLAT_NAME + 128]; /* the core PMU's name (whole), or "none: REASON" */
	char model[96];            /* the model the hardware checks count with */
	char when[32];             /* UTC, ISO 8601 */
	char version[32];          /* vmmprof's */
};

/* Counts of each verdict over checks. */
void verify_tally(const struct verify_check *c, size_t n, int *pass, int *fail, int *skip);

/* The table, its foot (how each check was provoked) and the short verdict. */
void verify_text(const struct verify_machine *m, const struct verify_check *c, size_t n,
		 struct sbuf *out);
/* The same as one JSON document (docs/verification.md). */
void verify_json(const struct verify_machine *m, const struct verify_check *c, size_t n,
		 struct sbuf *out);

struct jv;
/*
 * Read a document of verify_json() back (`verify --load FILE`): the machine
 * into *m, at most max checks into c (*n of them), each judged again from
 * its saved runs (a skipped one keeps its reason).  The checks' texts point
 * into doc, which must outlive them.  0, or VP_EFORMAT naming what is wrong.
 */
int verify_from_json(const struct jv *doc, struct verify_machine *m, struct verify_check *c,
		     size_t max, size_t *n, struct vp_err *err);

#endif
