/* statfmt.c - one counter row in perf stat's layouts (table and -x CSV), into a string buffer */
#include "pmu/statfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void stat_fmt_num(struct sbuf *out, double v, int decimals, bool big)
{
	char buf[64];
	char *dot;
	size_t int_len, i, start;

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	if (!big) {
		sbuf_addstr(out, buf);
		return;
	}
	start = buf[0] == '-' ? 1 : 0;
	dot = strchr(buf, '.');
	int_len = (dot ? (size_t)(dot - buf) : strlen(buf)) - start;
	sbuf_add(out, buf, start);
	for (i = 0; i < int_len; i++) {
		if (i && (int_len - i) % 3 == 0)
			sbuf_addch(out, ',');
		sbuf_addch(out, buf[start + i]);
	}
	if (dot)
		sbuf_addstr(out, dot);
}

static void time_prefix(struct sbuf *out, uint64_t ns, char sep)
{
	sbuf_addf(out, "%6llu.%09llu", (unsigned long long)(ns / 1000000000ull),
		  (unsigned long long)(ns % 1000000000ull));
	if (sep)
		sbuf_addch(out, sep);
}

void stat_format_line(struct sbuf *out, const struct stat_line *l, char sep, bool big_num,
		      bool with_cgroup)
{
	struct sbuf num = SBUF_INIT;
	const char *unit = l->unit ? l->unit : "";

	if (l->interval)
		time_prefix(out, l->t_ns, sep);
	if (l->tid > 0 && sep)
		sbuf_addf(out, "%s-%d%c", l->comm ? l->comm : "", l->tid, sep);
	if (l->aggr_id && sep) {
		sbuf_addf(out, "%s%c", l->aggr_id, sep);
		if (l->aggr_cpus >= 0)
			sbuf_addf(out, "%d%c", l->aggr_cpus, sep);
	}
	if (l->not_supported)
		sbuf_addstr(&num, "<not supported>");
	else if (isnan(l->value))
		sbuf_addstr(&num, "<not counted>");
	else
		stat_fmt_num(&num, l->value, l->decimals, big_num && !sep);
	if (sep) {
		sbuf_addf(out, "%s%c%s%c%s", sbuf_str(&num), sep, unit, sep, l->name);
		if (with_cgroup)
			sbuf_addf(out, "%c%s", sep, l->cgroup ? l->cgroup : "");
		if (l->noise)
			sbuf_addf(out, "%c%.2f%%", sep, l->noise_pct);
		sbuf_addf(out, "%c%llu%c", sep, (unsigned long long)l->running_ns, sep);
		if (l->not_supported || isnan(l->pct))
			sbuf_addstr(out, "100.00");
		else
			sbuf_addf(out, "%.2f", l->pct);
		if (l->has_metric)
			sbuf_addf(out, "%c%.3f%c%s\n", sep, l->metric, sep, l->metric_unit);
		else
			sbuf_addf(out, "%c%c\n", sep, sep);
	} else {
		struct sbuf name = SBUF_INIT;
		size_t start = out->len;

		sbuf_addstr(&name, l->name);
		if (l->cgroup)
			sbuf_addf(&name, "  %s", l->cgroup);
		if (l->interval)
			sbuf_addch(out, ' ');
		if (l->tid > 0)
			sbuf_addf(out, "%16s-%-7d ", l->comm ? l->comm : "", l->tid);
		if (l->aggr_id) {   /* perf's "N%-5d %4d ", "CPU%-7d " */
			sbuf_addf(out, "%-*s ", l->aggr_width, l->aggr_id);
			if (l->aggr_cpus >= 0)
				sbuf_addf(out, "%4d ", l->aggr_cpus);
		}
		sbuf_addf(out, "%18s %-4s %-32s", sbuf_str(&num), unit, sbuf_str(&name));
		if (l->has_metric)
			sbuf_addf(out, " # %8.3f %-14s", l->metric, l->metric_unit);
		else if (l->noise)
			sbuf_addf(out, "%26s", "");  /* the metric's width: the spreads line up */
		if (l->noise && l->noise_pct != 0 && !l->not_supported && !isnan(l->value))
			sbuf_addf(out, "  ( +-%6.2f%% )", l->noise_pct);
		if (!l->not_supported && !isnan(l->pct) && l->pct < 100.0 - 1e-9)
			sbuf_addf(out, "  (%.2f%%)", l->pct);
		while (out->len > start && out->buf[out->len - 1] == ' ')
			out->buf[--out->len] = 0;
		sbuf_addch(out, '\n');
		sbuf_release(&name);
	}
	sbuf_release(&num);
}
