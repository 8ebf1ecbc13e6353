/* cmd_top.c - `vmmprof top`: live nodes, VMs and vCPUs (ncurses), or --batch text and --json lines */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/pipeline.h"
#include "tui/toprender.h"
#include "util/alloc.h"
#include "tui/tui.h"

static int parse_sort(const char *s, enum top_sort *k)
{
	static const enum top_sort keys[] = { TOP_SORT_NAME, TOP_SORT_CPU, TOP_SORT_REMOTE, TOP_SORT_MEM };
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(keys); i++) {
		if (!strcmp(s, top_sort_name(keys[i]))) {
			*k = keys[i];
			return 0;
		}
	}
	return -1;
}

static void sleep_s(double secs)
{
	struct timespec ts;

	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int run_batch(struct top_state *s, long iterations, double delay, bool json,
		     enum top_sort sort)
{
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	uint64_t start = 0;
	long i;
	int rc = 0;

	for (i = 0; iterations <= 0 || i < iterations; i++) {
		if (i)
			sleep_s(delay);
		if (top_sample(s, &err)) {
			rc = cli_error(&err);
			break;
		}
		if (!i)
			start = s->t_ns;
		top_sort(s, sort);
		sbuf_reset(&sb);
		if (json)
			top_render_json(s, start, &sb);
		else
			top_render_text(s, &sb);
		rc = cli_write(&sb);
		if (rc || fflush(stdout))
			break;
	}
	sbuf_release(&sb);
	return rc;
}

static int run_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'r' },
		{ "sort", required_argument, NULL, 's' },
		{ "xen-numa-dump", optional_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	struct top_state s;
	struct hv_xen_numa xen_numa = { 0, 0 };
	bool xen_dump = false;
	double every_s;
	struct vp_err err = { 0, "" };
	const char *root = "/";
	enum top_sort sort = TOP_SORT_NAME;
	bool batch = false, json = false;
	long iterations = 0;
	double delay = 2.0;
	char *end;
	int c, rc;

	while ((c = getopt_long(argc, argv, "bn:d:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'b': batch = true; break;
		case 'j': json = true; break;
		case 'r': root = optarg; break;
		case 'n':
			iterations = strtol(optarg, &end, 10);
			if (*end || iterations <= 0)
				return cli_usage_error(&cmd_top, "-n needs a positive count, not '%s'", optarg);
			break;
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay > 0) || delay > 86400)
				return cli_usage_error(&cmd_top, "-d needs seconds > 0, not '%s'", optarg);
			break;
		case 'X':
			if (xen_numa_opt(&cmd_top, optarg, &every_s))
				return 2;
			xen_numa.every_ns = (uint64_t)(every_s * 1e9);
			xen_dump = true;
			break;
		case 's':
			if (parse_sort(optarg, &sort))
				return cli_usage_error(&cmd_top, "unknown sort key '%s' (name, cpu, remote, memory)",
						       optarg);
			break;
		default:
			return cli_usage_error(&cmd_top, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(&cmd_top, "unexpected argument '%s'", argv[optind]);
	if (json)
		batch = true;
	if (!batch && !isatty(1))
		return cli_errorf("standard output is not a terminal: use 'vmmprof top --batch'");
	if (top_init(&s, root, &err))
		return cli_error(&err);
	if (xen_dump)
		s.xen_numa = &xen_numa;
	if (batch)
		rc = run_batch(&s, iterations, delay, json, sort);
	else if (tui_run(&s, delay, sort, &err))
		rc = cli_error(&err);
	else
		rc = 0;
	top_release(&s);
	return rc;
}

const struct cmd cmd_top = {
	.name = "top",
	.fn = run_top,
	.summary = "live view of nodes, VMs and vCPUs: placement, memory spread, the five factors",
	.synopsis = "top [-d SECS] [--sort KEY] [--xen-numa-dump[=SECS]] [--root DIR]\n"
		    "top --batch [-n N] [-d SECS] [--json] [--sort KEY] [--xen-numa-dump[=SECS]] [--root DIR]",
	.description =
		"A live view in the manner of numatop and htop.  The nodes view shows memory per\n"
		"node, the pages allocated locally and remotely per second (numastat) and CPU load.\n"
		"The VMs view and the vCPUs view show placement, memory per node and the five\n"
		"factor columns LOCAL, LLC, SHARE, IMC and QUEUE.\n"
		"\n"
		"top reads software sources only: LOCAL is the placement estimate (the share of a\n"
		"vCPU's run time on each node times its VM's memory on the other nodes), marked 'e';\n"
		"LLC is the resctrl occupancy of a monitoring group named after the VM when there is\n"
		"one.  A factor that cannot be measured prints 'n/a' and the reason is given (the\n"
		"legend under --batch, the '?' screen live); it is never shown as 0.\n"
		"\n"
		"Keys: 1 nodes, 2 VMs, 3 vCPUs, Tab next view, Enter on a VM shows its vCPUs, Esc\n"
		"or Backspace goes back, c/r/m/n sort by CPU, remote, memory, name, ? help, q quit.\n"
		"\n"
		"--batch prints the same rows as text every interval; --json prints one JSON object\n"
		"per interval (JSON lines), with each factor's value, quality and reason, and the\n"
		"VMs and vCPUs whose series ended in that interval.",
	.options = "-b, --batch\tprint text instead of the screen\n"
		   "-n, --iterations N\tstop after N samples (batch; default: until interrupted)\n"
		   "-d, --delay SECS\tinterval between samples (default 2)\n"
		   "--json\tJSON lines (implies --batch)\n"
		   "-s, --sort KEY\tname, cpu, remote or memory\n"
		   XEN_NUMA_HELP
		   "--root DIR\tread /proc and /sys under DIR (fixture trees)",
	.examples = "vmmprof top\tthe live view\n"
		    "vmmprof top --batch -n 3 -d 1\tthree samples a second apart, as text\n"
		    "vmmprof top --json -n 5 | jq .vms\tthe VMs of five samples",
};
