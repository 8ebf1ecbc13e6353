/* coverage.h - which source would measure each of the five factors on a platform */
#ifndef VP_COVERAGE_H
#define VP_COVERAGE_H

#include "platform/platform.h"
#include "util/vocab.h"

/*
 * The factor-coverage table that `vmmprof info` prints: for each factor,
 * the best source this platform offers (core PMU events of a named recipe,
 * an uncore PMU, resctrl, a software proxy) or "unavailable" with the
 * reason.  The decision is one function over struct platform so that a
 * model-based plan can later replace it without changing callers.
 */

enum cov_kind {
	COV_SRC_CORE,     /* core PMU events */
	COV_SRC_UNCORE,   /* an uncore PMU */
	COV_SRC_RESCTRL,  /* resctrl monitoring */
	COV_SRC_SOFTWARE, /* procfs/sysfs counters, placement estimates */
	COV_SRC_NONE,
};

struct cov_row {
	enum factor_id factor;
	enum vp_quality quality;
	enum cov_kind kind;
	char source[160];           /* "core PMU cpu (skx recipe)", "uncore_imc x6", "resctrl", "software" */
	char events[256];          /* what would be read: event names, files */
	char note[768];            /* why not better / what is lost; "" when nothing to add */
	char remains[256];         /* when unavailable: what is left to go on instead */
};

struct coverage {
	char recipe[48];           /* the event recipe family ("Skylake-SP / Cascade Lake"), "" when none */
	char summary[256];         /* one line: counts per quality */
	char verdict[256];         /* plain words: which factors are lost, which remain and how */
	struct cov_row rows[FACTOR_N];
};

/* Fill *c (caller-owned, nothing to release) from *p. */
void coverage_compute(const struct platform *p, struct coverage *c);

/*
 * The core-PMU events of the recipe serving libpfm4 table pfm for factor
 * f, in libpfm4 spelling ("EVENT:UMASK / :UMASK2, EVENT2"); NULL when the
 * recipe has none.  Static storage.
 */
const char *coverage_recipe_core(const char *pfm, enum factor_id f);

const char *cov_kind_name(enum cov_kind k);       /* "core", "uncore", "resctrl", "software", "none" */

#endif
