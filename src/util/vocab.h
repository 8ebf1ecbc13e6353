/* vocab.h - the one vocabulary every stage and renderer shares: the five factors, the quality of a value */
#ifndef VP_VOCAB_H
#define VP_VOCAB_H

#include <stddef.h>

/*
 * A value's quality says how it was obtained, in the same words in text,
 * CSV, JSON, HTML, the web UI and /metrics (docs/method.md "Quality"):
 */
enum vp_quality {
	VQ_MEASURED,     /* counted for this entity itself */
	VQ_ESTIMATE,     /* computed from a model (placement, count x latency), not counted */
	VQ_APPORTIONED,  /* a per-node/socket count shared out by residency: an estimate */
	VQ_PROXY,        /* a related quantity stands in for it */
	VQ_UNAVAILABLE,  /* nothing here tells: the value is NaN, and a reason says why */
	VQ_N
};

/* "measured", "estimate", "apportioned", "proxy", "unavailable"; "?" out of range. */
const char *vp_quality_name(enum vp_quality q);
/* The one-letter mark of a value in text cells: "a", "e", "p"; "" measured or unavailable. */
const char *vp_quality_mark(enum vp_quality q);
/* The quality named name, or -1. */
int vp_quality_lookup(const char *name);

/*
 * A factor's text cell, the same in every table (diagnose, report, top):
 * its cost "12.3%" when known, else its score "s0.52", each followed by
 * its quality mark (vp_quality_mark(): "12.3%e", "s0.52p"); "n/a" when
 * neither is a number.  Returns buf.
 */
/* What the marks of vp_factor_cell() mean, for a table's legend line. */
#define VP_QUALITY_LEGEND "a = apportioned, e = estimated without a stall count, p = proxy"
const char *vp_factor_cell(char *buf, size_t size, double cost_pct, enum vp_quality cost_q,
			   double score, enum vp_quality score_q);

/* The five NUMA factors, in the order every output lists them. */
enum factor_id {
	FACTOR_LOCALITY, FACTOR_LLC, FACTOR_SHARING, FACTOR_IMC, FACTOR_QUEUE, FACTOR_N
};

const char *factor_name(enum factor_id f);        /* "locality", "llc", ...; "?" out of range */
const char *factor_title(enum factor_id f);       /* "data locality", "LLC contention", ... */
/* The factor named name ("locality" ...), or -1. */
int factor_lookup(const char *name);

#endif
