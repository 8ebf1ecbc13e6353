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

#include "cli/fronts.h"
#include "cli/interrupt.h"
#include "cli/pipeline.h"
#include "record/record.h"
#include "top/toprender.h"
#include "util/alloc.h"

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
		     enum top_sort sort, int view)
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
			top_render_view(s, (enum top_view)view, &sb);
		rc = cli_write(&sb);
		if (rc || fflush(stdout))
			break;
	}
	sbuf_release(&sb);
	return rc;
}

enum { OPT_NO_COUNTERS = 1100, OPT_XENTRACE, OPT_REPLAY, OPT_VIEW };

/* Which VM names top --replay shows: all when none are given. */
static bool replay_wants(const struct pipe_opts *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->n_vms; i++)
		if (name && !strcmp(o->vms[i], name))
			return true;
	return !o->n_vms;
}

/*
 * top --replay FILE: a recording's frames as samples, in --batch text or
 * --json lines, one per interval (-n: the first N; no waiting between them):
 * the same rows and cells a live top shows, filled by the same code from
 * frames the recorded model evaluates, as report and diagnose read them.
 */
static int run_replay(const char *path, const struct pipe_opts *o, long iterations, bool json,
		      enum top_sort sort, int view)
{
	struct recording rec;
	struct pipeline p;
	struct model_avail av;
	struct top_state s;
	struct collect_frame fr;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT, what = SBUF_INIT;
	const char **reasons = NULL;
	bool have_p = false, have_av = false;
	uint64_t start = 0;
	size_t i, k;
	int rc = 0, more;

	top_init_remote(&s);
	if (rec_open(path, &rec, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_p = true;
	if ((rc = cli_pipeline_model(&p, o, rec.model_name)))
		goto out;
	if (rec_bind_model(&rec, p.model, &av, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_av = true;
	reasons = xcalloc(p.model->n_inputs + 1, sizeof(char *));
	for (i = 0; i < p.model->n_inputs; i++)
		for (k = 0; k < rec.n_inputs; k++)
			if (!strcmp(rec.input_names[k], p.model->inputs[i].name))
				reasons[i] = rec.input_reason[k];
	platform_copy(&s.plat, &rec.plat); /* the recording's topology; top_release() frees it */
	sbuf_addf(&what, "replay of recording '%s' (%s)", path, rec.created ? rec.created : "?");
	top_replay_start(&s, p.model, rec.have_cal ? &rec.cal : NULL, &av, sbuf_str(&what));
	sbuf_setf(&s.notes, "replay of '%s': node memory, page rates and load, "
		 "vCPU CPU%% and affinity are not in a recording (n/a)", path);
	while ((iterations <= 0 || (long)rec.n_read < iterations) &&
	       (more = rec_next_frame(&rec, &fr, &err)) > 0) {
		if (o->n_vms) {
			/* --vm: only those VMs' rows and their vCPUs, moved to the front in
			 * order; the rest are left behind as host rows, which top skips (the
			 * frame frees them all) */
			bool *want = xcalloc(fr.n_rows + 1, sizeof(bool));
			size_t *map = xcalloc(fr.n_rows + 1, sizeof(size_t));
			size_t keep = 0;

			for (i = 0; i < fr.n_rows; i++) {
				const struct collect_row *r = &fr.rows[i];

				want[i] = r->kind == ENT_VM || r->kind == ENT_PROCESS ?
					  replay_wants(o, r->name) : r->vm_row < i && want[r->vm_row];
			}
			for (i = 0; i < fr.n_rows; i++) {
				struct collect_row t;

				if (!want[i]) {
					fr.rows[i].kind = ENT_HOST;
					continue;
				}
				map[i] = keep;
				if (fr.rows[i].kind == ENT_VCPU || fr.rows[i].kind == ENT_THREAD)
					fr.rows[i].vm_row = map[fr.rows[i].vm_row];
				t = fr.rows[keep];
				fr.rows[keep] = fr.rows[i];
				fr.rows[i] = t;
				keep++;
			}
			free(want);
			free(map);
		}
		top_replay_frame(&s, &av, &fr, reasons);
		collect_frame_release(&fr);
		if (rec.n_read == 1)
			start = s.t_ns;
		top_sort(&s, sort);
		sbuf_reset(&sb);
		if (json)
			top_render_json(&s, start, &sb);
		else
			top_render_view(&s, (enum top_view)view, &sb);
		if ((rc = cli_write(&sb)) || fflush(stdout))
			break;
	}
	if (!rc && more < 0)
		rc = cli_error(&err);
out:
	top_release(&s);
	free(reasons);
	if (have_av)
		model_avail_release(p.model, &av);
	if (have_p)
		pipeline_close(&p);
	rec_release(&rec);
	sbuf_release(&sb);
	sbuf_release(&what);
	return rc;
}

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
	/* top_init() said why: a fixture tree's threads are not this machine's (the collector
	 * keeps them off; --xen-imc's channels are the tree's, so those count) */
	if (strcmp(s->root, "/") && !s->xen_imc)
		return 0;
	*have_p = true; /* cli_pipeline_choose() leaves p ready for pipeline_close() */
	if ((rc = cli_pipeline_choose(p, o, &s->plat)))
		return rc;
	if (!p->model) {
		top_count_off(s, p->why);
		if (batch)
			fprintf(stderr, "vmmprof top: counters off: %s\n", p->why);
		return 0;
	}
	if (top_count_start(s, p->model, p->have_cal ? &p->cal : NULL, p->why, &err) && batch)
		fprintf(stderr, "vmmprof top: counters off: %s\n", sbuf_str(&s->cnt.off));
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
		{ "xen-imc", no_argument, NULL, PO_XEN_IMC },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "view", required_argument, NULL, OPT_VIEW },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts po = { .root = "/" };
	struct pipeline p;
	struct top_state s;
	struct hv_xen_numa xen_numa = { 0, 0 };
	bool xen_dump = false, xentrace = false;
	struct hv_xen_tracer *tracer = NULL;
	struct hv_xen_psr *psr = NULL;
	bool xen_psr = false, xen_imc = false;
	double every_s;
	struct vp_err err = { 0, "" };
	const char *root = "/", *replay = NULL;
	enum top_sort sort = TOP_SORT_NAME;
	bool batch = false, json = false, no_counters = false, have_p = false, inited = false;
	bool resctrl = false;
	long iterations = 0;
	double delay = 2.0;
	char *end;
	int c, rc = 0, view = TOP_VIEW_ALL;

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
		case PO_XEN_IMC: xen_imc = true; break;
		case OPT_REPLAY: replay = optarg; break;
		case OPT_VIEW:
			if ((view = top_view_lookup(optarg)) < 0) {
				rc = cli_usage_error(&cmd_top, "--view '%s': one of node, vm, vcpu, "
						     "process", optarg);
				goto out;
			}
			break;
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
	if (view != TOP_VIEW_ALL && json) {
		rc = cli_usage_error(&cmd_top, "--view picks the rows of the --batch text; --json "
				     "lines hold every row (nodes, vms, vcpus)");
		goto out;
	}
	if (json)
		batch = true;
	if (replay) {
		if (!batch) {
			rc = cli_usage_error(&cmd_top, "--replay prints text or JSON lines: add --batch "
					     "or --json");
			goto out;
		}
		if (no_counters || resctrl || xentrace || xen_psr || xen_imc || xen_dump || po.wait_s > 0 ||
		    strcmp(root, "/") || po.model || po.cal_path) {
			rc = cli_usage_error(&cmd_top, "--replay reads a recording with the model and "
					     "calibration it was made with: -m, --calibration, "
					     "--no-counters, --resctrl, --xentrace, --xen-psr, --xen-imc, "
					     "--xen-numa-dump, --wait and --root do not apply");
			goto out;
		}
		rc = run_replay(replay, &po, iterations, json, sort, view);
		goto out;
	}
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
	if (xen_imc && no_counters) {
		rc = cli_usage_error(&cmd_top, "--xen-imc serves the model's memory-controller "
				     "counters: it needs counters, not --no-counters");
		goto out;
	}
	s.xen_imc = xen_imc;
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
		rc = run_batch(&s, iterations, delay, json, sort, view);
	else if (cli_fronts()->screen(&s, delay, sort, view, sample_here, NULL, &err))
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
	.summary = "live view of nodes, VMs, vCPUs and processes: placement, memory spread, the five factors",
	.synopsis = "top [--view KEY] [-d SECS] [--sort KEY] [--vm NAME]... [--wait] [-m NAME|FILE] [--no-counters] [--resctrl] [--xen-numa-dump[=SECS]] [--xentrace] [--xen-psr] [--xen-imc] [--root DIR]\n"
		    "top --batch [--view KEY] [-n N] [-d SECS] [--json] [--sort KEY] [--vm NAME]... [--wait] [-m NAME|FILE] [--no-counters] [--resctrl] [--xen-numa-dump[=SECS]] [--xentrace] [--xen-psr] [--xen-imc] [--root DIR]\n"
		    "top --replay FILE (--batch [--view KEY]|--json) [-n N] [--sort KEY] [--vm NAME]... [--model-path DIR]",
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
		"The node view (key 1, --view node) shows per node its memory, load and vCPUs and\n"
		"the five factors: each the highest cell of the vCPUs that ran on the node in the\n"
		"sample (by cost share, else value).  The process view (key 4, --view process)\n"
		"is numatop's main screen for VMs: per VM process (KVM: the QEMU pid; Xen: the\n"
		"domain id) its CPU%, memory, the share of it on other nodes than its home (rmem%)\n"
		"and the five factors.  Both fit 80 columns.\n"
		"\n"
		"Keys: 1 nodes, 2 VMs, 3 vCPUs, 4 processes, Tab next view, Enter on a VM shows its\n"
		"vCPUs, Esc or Backspace goes back; sort by c CPU, r remote (LOCAL), l LLC, s\n"
		"sharing, i IMC, u queue, m memory, n name, < and > the previous or next key; /\n"
		"filters the VMs and vCPUs by name (Enter applies, empty clears); ? help, q\n"
		"quit.  The screen fits any width from 80 columns: narrower than 130, the factor\n"
		"columns come first and Left/Right pages to the identity and resctrl columns; cells\n"
		"are clipped, never wrapped.  NO_COLOR (any value) turns colours off; severity is\n"
		"then marked ! and !!.\n"
		"\n"
		"--batch prints the same rows as text every interval; --json prints one JSON object\n"
		"per interval (JSON lines), with each factor's value, quality, reason, source,\n"
		"cost share and severity, the counters' model and state, and the VMs and vCPUs\n"
		"whose series ended in that interval.\n"
		"\n"
		"--replay FILE shows a recording (vmmprof record, or a daemon session's) instead\n"
		"of this host: one sample per recorded interval, with no waiting, as --batch text or\n"
		"--json lines.  Its factor cells are the recorded model's, evaluated as report and\n"
		"diagnose evaluate them, in the same words; what a recording does not keep (node\n"
		"memory, page rates, load, CPU%, affinity) is n/a.",
	.options = "-b, --batch\tprint text instead of the screen\n"
		   "--view node|vm|vcpu|process\tthe view the screen starts in (keys 1-4 change it);\n"
		   "\twith --batch the only one printed (default: nodes, VMs and vCPUs)\n"
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
		   XEN_IMC_HELP
		   "--root DIR\tread /proc and /sys under DIR (fixture trees; counters are off,\n"
		   "\tbut for --xen-imc's, read from the tree's PCI config space)\n"
		   "--replay FILE\tthe recording's intervals instead of this host (with --batch\n"
		   "\tor --json; -n: the first N)",
	.examples = "vmmprof top\tthe live view\n"
		    "vmmprof top --no-counters\twithout perf events (software sources only)\n"
		    "vmmprof top --batch -n 3 -d 1\tthree samples a second apart, as text\n"
		    "vmmprof top --json -n 5 | jq .vms\tthe VMs of five samples\n"
		    "vmmprof top --replay vmmprof.vmmdb --batch\ta recording, interval by interval",
};
