/* cmd_diagnose.c - `vmmprof diagnose`: collect (or read a recording), evaluate each factor's cost, rank, advise */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/cost_ci.h"
#include "compose/diagnosis.h"
#include "cli/diag_apply.h"
#include "cli/interrupt.h"
#include "cli/pipeline.h"
#include "record/record.h"
#include "util/alloc.h"
#include "util/timeutil.h"

/* Collect for duration seconds with progress on stderr; Ctrl-C ends early. */
/*
 * Wait out the run, taking a sample every second: each one tells the cost
 * stage whether a vCPU's LLC had other busy tenants (its solo miss rate,
 * for LLC contention) and gives the costs' spread over the run.
 */
static void wait_collecting(const char *who, struct collector *col, double duration, bool quiet,
			    struct cost_ci_set *iv)
{
	uint64_t t0 = vp_now_ns(), end = t0 + (uint64_t)(duration * 1e9);
	bool progress = !quiet && duration >= 3 && isatty(2), sampling = true;

	while (!cli_interrupted()) {
		uint64_t now = vp_now_ns();

		if (now >= end)
			break;
		if (cli_sleep_ns(end - now > 1000000000ull ? 1000000000ull : end - now))
			break;
		if (sampling && vp_now_ns() < end) {
			struct collect_frame fr;
			struct vp_err err;

			/* a failed sample ends the sampling, not the run: the total says why */
			if (collect_sample(col, &fr, &err)) {
				sampling = false;
			} else {
				cost_ci_add(iv, &fr);
				collect_frame_release(&fr);
			}
		}
		if (progress)
			fprintf(stderr, "\r  %.0f of %.0f s", (double)(vp_now_ns() - t0) / 1e9, duration);
	}
	if (progress)
		fprintf(stderr, "\n");
	if (cli_interrupted())
		fprintf(stderr, "%s: interrupted after %.1f s: diagnosing what was collected\n", who,
			(double)(vp_now_ns() - t0) / 1e9);
}

/* Diagnose frame fr and print it. */
static int show(const struct dview *base, const struct topology *topo, const struct calib *cal,
		const char *head, bool json, bool xen_hard_pin)
{
	struct sbuf out = SBUF_INIT;
	struct vp_err err;
	int rc;

	if (diagnosis_render(base, topo, cal, head, json, xen_hard_pin, &out, &err))
		rc = cli_error(&err);
	else
		rc = cli_write(&out);
	sbuf_release(&out);
	return rc;
}

int diagnose_recorded_total(const struct recording *rec, const struct model *m,
			    const struct model_avail *av, const struct collect_frame *total,
			    size_t intervals, struct cost_ci_set *ci, bool json, bool damaged)
{
	struct sbuf out = SBUF_INIT;
	struct vp_err err;
	int rc;

	if (diagnosis_recorded(rec, m, av, total, intervals, ci, json, damaged, &out, &err))
		rc = cli_error(&err);
	else
		rc = cli_write(&out);
	sbuf_release(&out);
	return rc;
}

/* `diagnose FILE`: the same evaluation over a recording, read one frame at a time. */
int diagnose_recording(const char *path, const struct pipe_opts *o, bool json,
		       const struct host_span *host)
{
	struct recording rec;
	struct pipeline p;
	struct model_avail av;
	struct collect_frame total, fr;
	struct rec_total *acc;
	struct cost_ci_set ci = { 0 };
	struct vp_err err, ferr;
	int rc, more;

	if (rec_open(path, &rec, &err)) {
		rec_release(&rec);
		return cli_error(&err);
	}
	rc = cli_pipeline_model(&p, o, rec.model_name);
	if (rc)
		goto out_pipe; /* what pipeline_model() set up before it failed */
	if (rec_bind_model(&rec, p.model, &av, &err)) {
		rc = cli_error(&err);
		goto out_pipe;
	}
	acc = rec_total_new(&rec, p.model);
	while ((more = rec_next_frame(&rec, &fr, &ferr)) > 0) {
		rec_total_add(acc, &fr);
		cost_ci_add(&ci, &fr);
		collect_frame_release(&fr);
	}
	rec_total_finish(acc, &total);
	if (host && host->have_cs)
		frame_host_cpus(&total, &host->cs[0], &host->cs[1],
				host->have_dl ? &host->dl[0] : NULL,
				host->have_dl ? &host->dl[1] : NULL, host->secs);
	/* a damaged file: the diagnosis of what was read, then the error */
	if (more == 0 || rec.n_read)
		rc = diagnose_recorded_total(&rec, p.model, &av, &total, rec.n_read, &ci, json, more < 0);
	cost_ci_release(&ci);
	if (more < 0) {
		fflush(stdout);
		rc = cli_error(&ferr);
	}
	collect_frame_release(&total);
	model_avail_release(p.model, &av);
out_pipe:
	pipeline_close(&p);
	rec_release(&rec);
	return rc;
}

/* A collecting option as `record` takes it ("--root=DIR"), heap. */
static char *pass_opt(int opt, const char *arg)
{
	static const struct { int opt; const char *name; } names[] = {
		{ PO_ROOT, "root" }, { 'm', "model" }, { PO_MODEL_PATH, "model-path" },
		{ PO_CAL, "calibration" }, { PO_VM, "vm" }, { 'p', "pid" },
		{ PO_RESCTRL, "resctrl" }, { PO_WAIT, "wait" }, { PO_XEN_NUMA, "xen-numa-dump" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].opt == opt)
			return arg ? xasprintf("--%s=%s", names[i].name, arg) :
				     xasprintf("--%s", names[i].name);
	return xstrdup("--");
}

static int run_diagnose(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		PIPE_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "xen-hard-pin", no_argument, NULL, 'H' },
		{ "apply", no_argument, NULL, 'A' },
		{ "dry-run", no_argument, NULL, 'N' },
		{ "yes", no_argument, NULL, 'Y' },
		{ "allow-low-confidence", no_argument, NULL, 'L' },
		{ "balancing-baseline", no_argument, NULL, 'Z' },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts o = { .root = "/" };
	struct diag_apply_opts ao = { .po = &o };
	bool apply = false;
	struct pipeline p;
	struct collect_frame fr = { 0 };
	struct sbuf head = SBUF_INIT;
	struct vp_err err;
	double duration = 5.0;
	bool json = false, opened = false, xen_hard_pin = false;
	const char **reasons = NULL;
	struct cost_ci_set iv = { 0 };
	int opt, rc = 0, r;

	while ((opt = getopt_long(argc, argv, "d:m:p:j", longopts, NULL)) != -1) {
		char *endp;

		if ((r = pipe_opt(&cmd_diagnose, &o, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			/* the same options for the recordings of --apply */
			ao.pass = xrealloc(ao.pass, (ao.n_pass + 1) * sizeof(char *));
			ao.pass[ao.n_pass++] = pass_opt(opt, optarg);
			continue;
		}
		switch (opt) {
		case 'd':
			errno = 0;
			duration = strtod(optarg, &endp);
			if (*endp == 's')
				endp++;
			if (*endp || errno || !(duration > 0) || duration > 86400) {
				rc = cli_usage_error(&cmd_diagnose, "invalid duration '%s' (seconds, > 0)",
						     optarg);
				goto out;
			}
			break;
		case 'j': json = true; break;
		case 'H': xen_hard_pin = true; break;
		case 'A': apply = true; break;
		case 'N': ao.dry_run = true; break;
		case 'Y': ao.yes = true; break;
		case 'L': ao.allow_low = true; break;
		case 'Z': ao.baseline = true; break;
		default:
			rc = cli_bad_option(&cmd_diagnose, argv, "d:m:p:");
			goto out;
		}
	}
	if (optind + 1 < argc) {
		rc = cli_usage_error(&cmd_diagnose, "one recording at a time");
		goto out;
	}
	if (!apply && (ao.dry_run || ao.yes || ao.allow_low || ao.baseline)) {
		rc = cli_usage_error(&cmd_diagnose, "--dry-run, --yes, --allow-low-confidence and "
				     "--balancing-baseline go with --apply");
		goto out;
	}
	if (apply && (optind < argc || json)) {
		rc = cli_usage_error(&cmd_diagnose, "--apply acts on the live machine: not on a "
				     "recording, and not with --json");
		goto out;
	}
	if (apply) {
		ao.duration = duration;
		cli_catch_interrupts();
		rc = diagnose_apply(&ao);
		goto out;
	}
	if (optind < argc) {
		rc = diagnose_recording(argv[optind], &o, json, NULL);
		goto out;
	}
	/* before the (possibly slow) set-up, so an early Ctrl-C is not fatal */
	cli_catch_interrupts();
	opened = true;
	if ((rc = cli_pipeline_open(&p, &o, true)))
		goto out;
	fprintf(stderr, "vmmprof diagnose: collecting for %.3g s with model '%s' on %zu "
			"thread(s) (Ctrl-C ends early)...\n", duration, p.model->name,
		collect_n_targets(p.col));
	wait_collecting("vmmprof diagnose", p.col, duration, json, &iv);
	if (collect_total(p.col, &fr, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	{
		struct dview dv;
		size_t i;

		memset(&dv, 0, sizeof(dv));
		reasons = xcalloc(p.model->n_inputs ? p.model->n_inputs : 1, sizeof(char *));
		for (i = 0; i < p.model->n_inputs; i++)
			reasons[i] = collect_input_reason(p.col, i);
		dv.m = p.model;
		dv.av = collect_avail(p.col);
		dv.input_reason = reasons;
		dv.targets = collect_n_targets(p.col);
		dv.fr = &fr;
		dv.cal_note = sbuf_str(&p.cal_note);
		{
			struct cost_ci_ctx cx;

			cost_ci_ctx_init(&cx, p.model, &fr, p.have_cal);
			cost_ci_finish(&iv, &cx);
			dv.ci = &iv;    /* with fewer than 2 samples the bounds are null */
		}
		sbuf_addf(&head, "vmmprof diagnose: %.1f s, model '%s' (%s)\n", fr.duration,
			  p.model->name, p.why);
		if (!p.plat.core_pmu)
			sbuf_addf(&head, "  no core PMU here (%s): every cost below is a proxy or n/a, "
					 "never a measured zero\n",
				  p.plat.core_pmu_reason.len ? sbuf_str(&p.plat.core_pmu_reason) :
				  "none exposed");
		sbuf_addf(&head, "  %s\n", sbuf_str(&p.cal_note));
		rc = show(&dv, &p.plat.topo, p.have_cal ? &p.cal : NULL, sbuf_str(&head), json,
			  xen_hard_pin);
		if (!rc && !json) {
			struct sbuf tail = SBUF_INIT;

			cost_ci_text(&iv, &tail);
			rc = cli_write(&tail);
			sbuf_release(&tail);
		}
	}
out:
	for (r = 0; r < (int)ao.n_pass; r++)
		free(ao.pass[r]);
	free(ao.pass);
	cost_ci_release(&iv);
	free(reasons);
	collect_frame_release(&fr);
	if (opened)
		pipeline_close(&p);
	sbuf_release(&head);
	pipe_opts_release(&o);
	return rc;
}

const struct cmd cmd_diagnose = {
	.name = "diagnose",
	.args = "@files|",
	.fn = run_diagnose,
	.summary = "find each VM's NUMA bottlenecks, their cost, and what to change",
	.synopsis = "diagnose [--duration SECS] [--vm NAME]... [--wait[=SECS]] [-m NAME|FILE] [--json]\n"
		    "diagnose --apply [--dry-run] [--yes] [--allow-low-confidence]\n"
		    "         [--balancing-baseline] [--duration SECS]\n"
		    "         [--vm NAME]... [-p PID[,PID...]] [-m NAME|FILE]\n"
		    "diagnose -p PID[,PID...] [--duration SECS] [--json]\n"
		    "diagnose [--json] RECORDING",
	.description =
		"Collects for a while (5 s by default) with the model that fits this machine,\n"
		"evaluates the five factors (data locality, LLC contention, sharing, memory-\n"
		"controller contention, queue-tracker contention) for every vCPU and VM, and\n"
		"CPU contention (the time each vCPU waited for a CPU, in % of its run + wait\n"
		"time), ranks the bottlenecks by their cost in % of cycles (or of that time),\n"
		"and prints advice as the exact virsh, taskset, xl or migratepages commands to\n"
		"run, planned over the whole host (every CPU's load, isolcpus=, free memory per\n"
		"node), each saying whether it survives a restart and what would undo it\n"
		"(numad, kernel.numa_balancing).  For QEMU VMs it also checks that the I/O\n"
		"threads (main loop, IOThreads, vhost workers) run on the vCPUs' node and that\n"
		"each virtual NUMA node of the guest is one host node (its memory and its\n"
		"vCPUs): advice without a gain, ranked last.  It runs nothing itself unless\n"
		"--apply.\n"
		"\n"
		"What cannot be measured here is said, with the reason; a proxy is labelled a\n"
		"proxy.  The method is described in docs/method.md.  Ctrl-C ends the\n"
		"collection early and diagnoses what was collected.\n"
		"\n"
		"Given a RECORDING (from 'vmmprof record'), diagnoses the whole recorded run\n"
		"with the same code, without the machine.\n"
		"\n"
		"With --apply (never the default) it closes the loop: records for the\n"
		"duration, diagnoses that recording, and runs each advice's commands one by\n"
		"one, printing each and its result; then records as long again, prints\n"
		"'vmmprof compare' of the two recordings and the commands that undo what\n"
		"was applied.  An advice is applied whole or not at all, and only when each\n"
		"of its commands has an exact undo (migratepages between two nodes, taskset,\n"
		"virsh vcpupin); advice of low confidence, or clashing with a higher-ranked\n"
		"one, is not applied, and each is listed with the reason.  It asks before\n"
		"running anything on a terminal and refuses without one unless --yes;\n"
		"--dry-run prints the plan and the undo and runs nothing.  --balancing-baseline\n"
		"records as long again before applying, with the kernel's automatic NUMA\n"
		"balancing on\n"
		"(put back as it was), and the compare sets the advice against that baseline\n"
		"too: did the advice beat leaving the VMs to the kernel?",
	.options =
		"-d, --duration SECS\thow long to collect (default 5)\n"
		VM_WAIT_HELP
		"-p, --pid PIDS\tdiagnose these processes (native mode) instead of VMs\n"
		"-m, --model NAME|FILE\tuse this model instead of the one chosen for the CPU\n"
		"--model-path DIR\talso look for models in DIR (repeatable)\n"
		"--calibration FILE\tlatencies and bandwidth of this machine (default\n"
		"\t~/.config/vmmprof/calibration.json, written by 'vmmprof calibrate')\n"
		"-j, --json\tprint the diagnosis as JSON (schema in docs/method.md)\n"
		XEN_NUMA_HELP
		"--apply\trun the advice's commands, then record after, compare, and print the\n"
		"\tundo commands\n"
		"--dry-run\twith --apply: print what would be run and its undo, run nothing\n"
		"--yes\twith --apply: do not ask (needed when not on a terminal)\n"
		"--allow-low-confidence\twith --apply: apply advice of low confidence too\n"
		"--balancing-baseline\twith --apply: record a baseline under the kernel's NUMA\n"
		"\tbalancing first and compare the advice with it (needs root to turn it on)\n"
		XENTRACE_HELP
		XEN_IMC_HELP
		"--xen-hard-pin\tXen: advise hard affinity (xl vcpu-pin DOM V CPUS) where the\n"
		"\tadvice otherwise steers vCPUs with soft affinity (xl vcpu-pin DOM V - CPUS)\n"
		"--resctrl\tmeasure each VM's LLC occupancy and memory traffic (Intel RDT,\n"
		"\tAMD PQoS): makes one resctrl monitoring group per VM, moves the VM's\n"
		"\tthreads into it and removes it at the end (docs/vms.md)\n"
		"--root DIR\tread /proc and /sys under DIR (fixture trees: their threads are\n"
		"\tnot this machine's, so per-thread counters are off and say so)",
	.examples =
		"vmmprof diagnose\tevery VM on this host, 5 s\n"
		"vmmprof diagnose --vm web -d 30\tone VM, 30 s\n"
		"vmmprof diagnose -p $(pidof memcached) --json\ta native process, as JSON\n"
		"vmmprof diagnose --vm web --apply --dry-run\twhat --apply would run, and its undo",
};
