/* vocab.c - the names of the factors and of the qualities, one table each */
#include "util/vocab.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const quality_names[VQ_N] = {
	[VQ_MEASURED] = "measured", [VQ_ESTIMATE] = "estimate", [VQ_APPORTIONED] = "apportioned",
	[VQ_PROXY] = "proxy", [VQ_UNAVAILABLE] = "unavailable",
};

static const char *const factor_names[FACTOR_N] = {
	"locality", "llc", "sharing", "imc", "queue",
};

static const char *const factor_titles[FACTOR_N] = {
	"data locality", "LLC contention", "sharing overhead", "IMC contention",
	"queue-tracker contention",
};

const char *vp_quality_mark(enum vp_quality q)
{
	switch (q) {
	case VQ_APPORTIONED: return "a";
	case VQ_ESTIMATE: return "e";
	case VQ_PROXY: return "p";
	case VQ_MEASURED:
	case VQ_UNAVAILABLE:
	case VQ_N: break;
	}
	return "";
}

const char *vp_factor_cell(char *buf, size_t size, double cost_pct, enum vp_quality cost_q,
			   double score, enum vp_quality score_q)
{
	if (isfinite(cost_pct))
		snprintf(buf, size, "%.1f%%%s", cost_pct, vp_quality_mark(cost_q));
	else if (isfinite(score))
		snprintf(buf, size, "s%.3g%s", score, vp_quality_mark(score_q));
	else
		snprintf(buf, size, "n/a");
	return buf;
}

const char *vp_quality_name(enum vp_quality q)
{
	return (unsigned)q < VQ_N ? quality_names[q] : "?";
}

int vp_quality_lookup(const char *name)
{
	int q;

	for (q = 0; q < VQ_N; q++)
		if (!strcmp(name, quality_names[q]))
			return q;
	return -1;
}

const char *factor_name(enum factor_id f)
{
	return (unsigned)f < FACTOR_N ? factor_names[f] : "?";
}

const char *factor_title(enum factor_id f)
{
	return (unsigned)f < FACTOR_N ? factor_titles[f] : "?";
}

int factor_lookup(const char *name)
{
	int f;

	for (f = 0; f < FACTOR_N; f++)
		if (!strcmp(name, factor_names[f]))
			return f;
	return -1;
}
