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

#include "cli/interrupt.h"
#include "cli/pipeline.h"
#include "top/toprender.h"
#include "util/alloc.h"
#include "tui/tui.h"

static int parse_sort(const char *s, enum top_sort *k)
{
	int v = top_sort_lookup(s);

	if (v < 0)
		return -1;
	*k = (enum top_sort)v;
	return 0;
}

/* The screen's samples: this machine's, until SIGTERM or SIGINT (caught with --resctrl). */
static int sample_here(void *ctx, struct top_state *s, bool block, struct vp_err *err)
{
	(void)ctx;
	(void)block;
	if (cli_interrupted())
		return vp_err_set(err, -EINTR, "interrupted");
	return top_sample(s, err);
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
		/* with --resctrl SIGINT and SIGTERM are caught: stop, and the groups go */
		if (i && cli_sleep_ns((uint64_t)(delay * 1e9)))
			break;
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

enum { OPT_NO_COUNTERS = 1100, OPT_XENTRACE };

/*
 * Counters for top: the model given with -m or chosen for the platform,
 * and its collector over every VM.  Off (with the reason top shows) with
 * --no-counters, on a fixture tree, when no model matches this machine, or
 * when no counter can be opened; an error only when the model named cannot
 * be loaded.
 */
static int start_counters(struct top_state *s, struct pipeline *p, bool *have_p,
			  const struct pipe_opts *o, bool no_counters, bool batch)
{
	struct vp_err err = { 0, "" };
	int rc;

	if (no_counters) {
		top_count_off(s, "--no-counters was given");
		return 0;
	}
	if (strcmp(s->root, "/"))
		return 0; /* top_init() said why: a fixture tree's threads are not this machine's */
	*have_p = true; /* pipeline_choose() leaves p ready for pipeline_close() */
	if ((rc = pipeline_choose(p, o, &s->plat)))
		return rc;
	if (!p->model) {
		top_count_off(s, p->why);
		if (batch)
			fprintf(stderr, "vmmprof top: counters off: %s\n", p->why);
		return 0;
	}
	if (top_count_start(s, p->model, p->have_cal ? &p->cal : NULL, p->why, &err) && batch)
		fprintf(stderr, "vmmprof top: counters off: %s\n", s->cnt.off);
	return 0;
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
		{ "model", required_argument, NULL, 'm' },
		{ "model-path", required_argument, NULL, PO_MODEL_PATH },
		{ "calibration", required_argument, NULL, PO_CAL },
		{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
		{ "vm", required_argument, NULL, PO_VM },
		{ "wait", no_argument, NULL, PO_WAIT },
		{ "resctrl", no_argument, NULL, PO_RESCTRL },
		{ "xentrace", no_argument, NULL, OPT_XENTRACE },
		{ "xen-psr", no_argument, NULL, PO_XEN_PSR },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts po = { .root = "/" };
	struct pipeline p;
	struct top_state s;
	struct hv_xen_numa xen_numa = { 0, 0 };
	bool xen_dump = false, xentrace = false;
	struct hv_xen_tracer *tracer = NULL;
	struct hv_xen_psr *psr = NULL;
	bool xen_psr = false;
	double every_s;
	struct vp_err err = { 0, "" };
	const char *root = "/";
	enum top_sort sort = TOP_SORT_NAME;
	bool batch = false, json = false, no_counters = false, have_p = false, inited = false;
	bool resctrl = false;
	long iterations = 0;
	double delay = 2.0;
	char *end;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "bn:d:s:m:j", opts, NULL)) != -1) {
		if (c == 'm' || c == PO_MODEL_PATH || c == PO_CAL || c == PO_VM || c == PO_WAIT) {
			if (pipe_opt(&cmd_top, &po, c, optarg) < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		switch (c) {
		case 'b': batch = true; break;
		case 'j': json = true; break;
		case 'r': root = optarg; break;
		case OPT_NO_COUNTERS: no_counters = true; break;
		case PO_RESCTRL: resctrl = true; break;
		case OPT_XENTRACE: xentrace = true; break;
		case PO_XEN_PSR: xen_psr = true; break;
		case 'n':
			iterations = strtol(optarg, &end, 10);
			if (*end || iterations <= 0) {
				rc = cli_usage_error(&cmd_top, "-n needs a positive count, not '%s'", optarg);
				goto out;
			}
			break;
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay > 0) || delay > 86400) {
				rc = cli_usage_error(&cmd_top, "-d needs seconds > 0, not '%s'", optarg);
				goto out;
			}
			break;
		case 'X':
			if (xen_numa_opt(&cmd_top, optarg, &every_s)) {
				rc = 2;
				goto out;
			}
			xen_numa.every_ns = (uint64_t)(every_s * 1e9);
			xen_dump = true;
			break;
		case 's':
			if (parse_sort(optarg, &sort)) {
				rc = cli_usage_error(&cmd_top, "unknown sort key '%s' (name, cpu, remote, "
						     "memory, llc, sharing, imc, queue)", optarg);
				goto out;
			}
			break;
		default:
			rc = cli_bad_option(&cmd_top, argv, "bn:d:s:m:");
			goto out;
		}
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_top, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (json)
		batch = true;
	if (!batch && !isatty(1)) {
		rc = cli_errorf("standard output is not a terminal: use 'vmmprof top --batch'");
		goto out;
	}
	po.root = root;
	if ((rc = pipe_wait_vms(&po, NULL, false)))
		goto out;
	if (top_init(&s, root, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	inited = true;
	if (resctrl) {
		/* groups are made: every way out must remove them */
		cli_catch_interrupts();
		top_resctrl_start(&s, (int)getpid());
	}
	s.vm_names = po.vms;
	s.n_vm_names = po.n_vms;
	if (xen_psr) {
		/* domains attached for the run: every way out must detach them */
		cli_catch_interrupts();
		psr = hv_xen_psr_new();
		s.xen_psr = psr;
		s.rdt_on = true;
	}
	if ((rc = start_counters(&s, &p, &have_p, &po, no_counters, batch)))
		goto out;
	if (xen_dump)
		s.xen_numa = &xen_numa;
	if (xentrace) {
		/* xentrace turns Xen's tracing off when stopped: every way out must stop it */
		cli_catch_interrupts();
		/* failed: sampled, the notes say why; another xentrace running: refused */
		if (hv_xen_tracer_start(&tracer, root, &err) == -EBUSY) {
			rc = cli_error(&err);
			goto out;
		}
		s.xen_tracer = tracer;
	}
	if (batch)
		rc = run_batch(&s, iterations, delay, json, sort);
	else if (tui_run_source(&s, delay, sort, sample_here, NULL, &err))
		rc = cli_interrupted() ? 0 : cli_error(&err);
out:
	/* the collector reads the model: close it before the model goes */
	if (inited)
		top_release(&s);
	hv_xen_tracer_stop(tracer);
	{
		struct hv_ctx ctx = { root, NULL, NULL, NULL };

		hv_xen_psr_stop(psr, &ctx);
	}
	if (have_p)
		pipeline_close(&p);
	pipe_opts_release(&po);
	return rc;
}

const struct cmd cmd_top = {
	.name = "top",
	.fn = run_top,
	.summary = "live view of nodes, VMs and vCPUs: placement, memory spread, the five factors",
	.synopsis = "top [-d SECS] [--sort KEY] [--vm NAME]... [--wait] [-m NAME|FILE] [--no-counters] [--resctrl] [--xen-numa-dump[=SECS]] [--xentrace] [--xen-psr] [--root DIR]\n"
		    "top --batch [-n N] [-d SECS] [--json] [--sort KEY] [--vm NAME]... [--wait] [-m NAME|FILE] [--no-counters] [--resctrl] [--xen-numa-dump[=SECS]] [--xentrace] [--xen-psr] [--root DIR]",
	.description =
		"A live view in the manner of numatop and htop.  The nodes view shows memory per\n"
		"node, the pages allocated locally and remotely per second (numastat) and CPU load.\n"
		"The VMs view and the vCPUs view show placement, memory per node and the five\n"
		"factor columns LOCAL, LLC, SHARE, IMC and QUEUE.\n"
		"\n"
		"top counts as diagnose does: it takes the model chosen for this machine (or the\n"
		"one given with -m), opens its events on every vCPU thread of every VM it shows,\n"
		"and fills each factor the model computes here with the model's score per vCPU and\n"
		"per VM: the score, a quality letter (none measured, a apportioned, p proxy), the\n"
		"cost as a share of cycles when the model gives one ('/4.5%'), and the severity\n"
		"against the model's thresholds (colour on the screen, '!' warning and '!!'\n"
		"critical in text).  A VM that starts later is counted from the sample after.\n"
		"\n"
		"Where the model cannot compute a factor, top keeps its software figures: LOCAL is\n"
		"then the placement estimate (the share of a vCPU's run time on each node times its\n"
		"VM's memory on the other nodes), marked 'e'; LLC is the resctrl occupancy of a\n"
		"monitoring group named after the VM when there is one.  A factor that cannot be\n"
		"measured prints 'n/a' and the reason is given (the legend under --batch, the '?'\n"
		"screen live); it is never shown as 0.  The status line says which model top uses\n"
		"and which factors are counted, estimated or unavailable.\n"
		"\n"
		"Counters are off with --no-counters, on a fixture tree (--root), and when no event\n"
		"can be opened (kernel.perf_event_paranoid, no permission on the VMs' threads): top\n"
		"then runs on software sources alone and says why.\n"
		"\n"
		"Keys: 1 nodes, 2 VMs, 3 vCPUs, Tab next view, Enter on a VM shows its vCPUs, Esc\n"
		"or Backspace goes back; sort by c CPU, r remote (LOCAL), l LLC, s sharing, i IMC,\n"
		"u queue, m memory, n name, < and > the previous or next key; / filters the VMs\n"
		"and vCPUs by name (Enter applies, empty clears); ? help, q quit.  The screen fits\n"
		"any width from 80 columns: narrower than 130, the factor columns come first and\n"
		"Left/Right pages to the identity and resctrl columns; cells are clipped, never\n"
		"wrapped.  NO_COLOR (any value) turns colours off; severity is then marked ! and !!.\n"
		"\n"
		"--batch prints the same rows as text every interval; --json prints one JSON object\n"
		"per interval (JSON lines), with each factor's value, quality, reason, source,\n"
		"cost share and severity, the counters' model and state, and the VMs and vCPUs\n"
		"whose series ended in that interval.",
	.options = "-b, --batch\tprint text instead of the screen\n"
		   "-n, --iterations N\tstop after N samples (batch; default: until interrupted)\n"
		   "-d, --delay SECS\tinterval between samples (default 2)\n"
		   "-j, --json\tJSON lines (implies --batch)\n"
		   "-s, --sort name|cpu|remote|memory|llc|sharing|imc|queue\tthe order of the rows\n"
		   "\t(a factor: by its cost when known, else its value)\n"
		   "--vm NAME\tonly this VM (repeatable; default: every VM); a name no VM has\n"
		   "\tis an error that lists the VMs there are, unless --wait\n"
		   "--wait\taccept a --vm that is not there yet: it is shown from the sample\n"
		   "\tafter it starts\n"
		   "-m, --model NAME|FILE\tcount with this model instead of the one chosen for the CPU\n"
		   "--model-path DIR\talso look for models in DIR (repeatable)\n"
		   "--calibration FILE\tlatencies and bandwidth of this machine (default\n"
		   "\t~/.config/vmmprof/calibration.json)\n"
		   "--no-counters\topen no counter: software sources and the placement estimate only\n"
		   "--resctrl\teach VM's LLC occupancy and memory traffic (Intel RDT, AMD PQoS), and\n"
		   "\tper node the VMs' values on its L3 domain: makes one resctrl monitoring\n"
		   "\tgroup per VM, moves its threads in, removes it on exit (needs root); with\n"
		   "\t--remote the daemon's groups, shared with its sessions (operator role)\n"
		   XEN_NUMA_HELP
		   XENTRACE_HELP
		   "--root DIR\tread /proc and /sys under DIR (fixture trees; counters are off)",
	.examples = "vmmprof top\tthe live view\n"
		    "vmmprof top --no-counters\twithout perf events (software sources only)\n"
		    "vmmprof top --batch -n 3 -d 1\tthree samples a second apart, as text\n"
		    "vmmprof top --json -n 5 | jq .vms\tthe VMs of five samples",
};
