/* test_statfmt.c - perf stat's row layouts (src/pmu/statfmt.h), expected strings written by hand from perf's output */
#include "test.h"

#include "pmu/statfmt.h"
#include "util/alloc.h"

static const struct {
	int line;
	double v;
	int decimals;
	bool big;
	const char *want;
} num_rows[] = {
	{ __LINE__, 0, 0, true, "0" },
	{ __LINE__, 999, 0, true, "999" },
	{ __LINE__, 1000, 0, true, "1,000" },
	{ __LINE__, 1234567, 0, true, "1,234,567" },
	{ __LINE__, 2003.449, 2, true, "2,003.45" },
	{ __LINE__, -1234, 0, true, "-1,234" },
	{ __LINE__, 100000, 0, true, "100,000" },
	{ __LINE__, 1234567, 0, false, "1234567" },
	{ __LINE__, 1.08, 2, true, "1.08" },
};

TEST(statfmt_thousands)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(num_rows); i++) {
		struct sbuf sb = SBUF_INIT;

		stat_fmt_num(&sb, num_rows[i].v, num_rows[i].decimals, num_rows[i].big);
		CHECK_STR_AT(num_rows[i].line, sbuf_str(&sb), num_rows[i].want);
		sbuf_release(&sb);
	}
}

static struct stat_line line(const char *name, const char *unit, double value, int decimals,
			     double pct)
{
	struct stat_line l = { 0 };

	l.name = name;
	l.unit = unit;
	l.value = value;
	l.decimals = decimals;
	l.pct = pct;
	return l;
}

TEST(statfmt_table_rows)
{
	struct sbuf sb = SBUF_INIT;
	struct stat_line l;

	/* perf: "              1.08 msec task-clock                       #    0.004 CPUs utilized" */
	l = line("task-clock", "msec", 1234.5678, 2, 100.0);
	l.has_metric = true;
	l.metric = 1.0;
	l.metric_unit = "CPUs utilized";
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "          1,234.57 msec task-clock                       #    1.000 CPUs utilized\n");

	/* multiplexed 5/8 of the time: perf appends "(62.50%)" */
	sbuf_reset(&sb);
	l = line("cycles", "", 800, 0, 62.5);
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "               800      cycles                            (62.50%)\n");

	/* the same with a rate metric: the percentage comes last */
	sbuf_reset(&sb);
	l = line("page-faults", "", 61, 0, 50.0);
	l.has_metric = true;
	l.metric = 112.546;
	l.metric_unit = "K/sec";
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "                61      page-faults                      #  112.546 K/sec           (50.00%)\n");

	sbuf_reset(&sb);
	l = line("cycles", "", 0, 0, NAN);
	l.not_supported = true;
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "   <not supported>      cycles\n");

	sbuf_reset(&sb);
	l = line("cycles", "", NAN, 0, 0.0);
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "     <not counted>      cycles                            (0.00%)\n");

	/* interval mode: the time since the start, then the row */
	sbuf_reset(&sb);
	l = line("context-switches", "", 466, 0, 100.0);
	l.interval = true;
	l.t_ns = 1500000000ull;
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "     1.500000000                466      context-switches\n");

	/* a cgroup follows the event name */
	sbuf_reset(&sb);
	l = line("task-clock", "msec", 2.5, 2, 100.0);
	l.cgroup = "vm1";
	stat_format_line(&sb, &l, 0, true, true);
	CHECK_STR(sbuf_str(&sb), "              2.50 msec task-clock  vm1\n");
	sbuf_release(&sb);
}

TEST(statfmt_csv_rows)
{
	struct sbuf sb = SBUF_INIT;
	struct stat_line l;

	/* perf -x,: "1.27,msec,task-clock,1266214,100.00,0.012,CPUs utilized" */
	l = line("task-clock", "msec", 1.2662, 2, 100.0);
	l.running_ns = 1266214;
	l.has_metric = true;
	l.metric = 0.01234;
	l.metric_unit = "CPUs utilized";
	stat_format_line(&sb, &l, ',', true, false);
	CHECK_STR(sbuf_str(&sb), "1.27,msec,task-clock,1266214,100.00,0.012,CPUs utilized\n");

	/* no thousands separators in CSV; multiplexed percentage in field 5 */
	sbuf_reset(&sb);
	l = line("cycles", "", 123456, 0, 62.5);
	l.running_ns = 5000;
	stat_format_line(&sb, &l, ',', true, false);
	CHECK_STR(sbuf_str(&sb), "123456,,cycles,5000,62.50,,\n");

	/* perf: "<not supported>,,cycles,0,100.00,," */
	sbuf_reset(&sb);
	l = line("cycles", "", 0, 0, NAN);
	l.not_supported = true;
	stat_format_line(&sb, &l, ',', true, false);
	CHECK_STR(sbuf_str(&sb), "<not supported>,,cycles,0,100.00,,\n");

	/* cgroups in use: a cgroup field after the event; another separator */
	sbuf_reset(&sb);
	l = line("page-faults", "", 7, 0, 100.0);
	l.cgroup = "vm1";
	l.running_ns = 9;
	l.interval = true;
	l.t_ns = 200377056;
	stat_format_line(&sb, &l, ';', true, true);
	CHECK_STR(sbuf_str(&sb), "     0.200377056;7;;page-faults;vm1;9;100.00;;\n");
	sbuf_release(&sb);
}

/*
 * perf stat -r: tools/perf/util/stat-display.c prints the spread after the
 * metric as "  ( +-%6.2f%% )" (nothing when it is 0) and in CSV as a
 * "%.2f%%" field between the event (cgroup) and run-ns.
 */
TEST(statfmt_repeat_noise)
{
	struct sbuf sb = SBUF_INIT;
	struct stat_line l;

	l = line("task-clock", "msec", 200.123, 2, 100.0);
	l.has_metric = true;
	l.metric = 0.998;
	l.metric_unit = "CPUs utilized";
	l.noise = true;
	l.noise_pct = 28.867;
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "            200.12 msec task-clock                       #    0.998 CPUs utilized   ( +- 28.87% )\n");

	/* no metric: blank metric column, so the spreads line up */
	sbuf_reset(&sb);
	l = line("cycles", "", 800, 0, 100.0);
	l.noise = true;
	l.noise_pct = 1.5;
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "               800      cycles                                                      ( +-  1.50% )\n");

	/* no spread: perf prints nothing */
	sbuf_reset(&sb);
	l = line("cycles", "", 800, 0, 100.0);
	l.noise = true;
	l.noise_pct = 0;
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "               800      cycles\n");

	/* multiplexed: the spread, then the running share */
	sbuf_reset(&sb);
	l = line("cycles", "", 800, 0, 62.5);
	l.noise = true;
	l.noise_pct = 100;
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "               800      cycles                                                      ( +-100.00% )  (62.50%)\n");

	/* CSV: value,unit,event,noise%,run-ns,pct,metric,metric-unit */
	sbuf_reset(&sb);
	l = line("task-clock", "msec", 1.2662, 2, 100.0);
	l.running_ns = 1266214;
	l.has_metric = true;
	l.metric = 0.01234;
	l.metric_unit = "CPUs utilized";
	l.noise = true;
	l.noise_pct = 2.5;
	stat_format_line(&sb, &l, ',', true, false);
	CHECK_STR(sbuf_str(&sb), "1.27,msec,task-clock,2.50%,1266214,100.00,0.012,CPUs utilized\n");

	/* CSV: the field is there even when the spread is 0 */
	sbuf_reset(&sb);
	l = line("cycles", "", 5, 0, 100.0);
	l.noise = true;
	stat_format_line(&sb, &l, ';', true, false);
	CHECK_STR(sbuf_str(&sb), "5;;cycles;0.00%;0;100.00;;\n");
	sbuf_release(&sb);
}

/* perf stat --per-thread: "%16s-%-7d " (25 columns) before the "%18s" count; CSV "comm-tid," first */
TEST(statfmt_per_thread)
{
	struct sbuf sb = SBUF_INIT;
	struct stat_line l;

	l = line("context-switches", "", 3, 0, 100.0);
	l.comm = "sleep";
	l.tid = 1234;
	stat_format_line(&sb, &l, 0, true, false);
	CHECK_STR(sbuf_str(&sb), "           sleep-1234" "   " " " "                 3" "      context-switches\n");

	sbuf_reset(&sb);
	stat_format_line(&sb, &l, ',', true, false);
	CHECK_STR(sbuf_str(&sb), "sleep-1234,3,,context-switches,0,100.00,,\n");

	/* interval mode: the time, then the thread */
	sbuf_reset(&sb);
	l.interval = true;
	l.t_ns = 1000000000ull;
	stat_format_line(&sb, &l, ',', true, false);
	CHECK_STR(sbuf_str(&sb), "     1.000000000,sleep-1234,3,,context-switches,0,100.00,,\n");
	sbuf_release(&sb);
}
