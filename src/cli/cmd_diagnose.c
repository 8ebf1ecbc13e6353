/* cmd_diagnose.c - `vmmprof diagnose`: collect, evaluate each factor's cost, rank bottlenecks, advise */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/diagnose.h"
#include "bench/calib.h"
#include "cli/interrupt.h"
#include "cli/model_path.h"
#include "collect/collect.h"
#include "model/registry.h"
#include "platform/platform.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/table.h"
#include "util/timeutil.h"

struct dopts {
	double duration;          /* seconds */
	const char *root;
	const char *model;
	const char *cal_path;
	char **model_paths;
	size_t n_model_paths;
	const char **vms;
	size_t n_vms;
	int *pids;
	size_t n_pids;
	bool json;
};

static int parse_pids(const char *s, struct dopts *o)
{
	char *copy = xstrdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (*end || v <= 0 || v > 4194304) {
			free(copy);
			return -1;
		}
		o->pids = xrealloc(o->pids, (o->n_pids + 1) * sizeof(int));
		o->pids[o->n_pids++] = (int)v;
	}
	free(copy);
	return 0;
}

/* The calibration: --calibration FILE, else the default file when it exists. */
static int load_calibration(const struct dopts *o, const struct platform *plat, struct calib *cal,
			    bool *have, struct sbuf *note)
{
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	char *path = NULL;
	struct vp_err err;
	int ret = 0;

	*have = false;
	calib_init(cal);
	if (o->cal_path)
		path = xstrdup(o->cal_path);
	else if (xdg && *xdg)
		path = xasprintf("%s/vmmprof/calibration.json", xdg);
	else if (home && *home)
		path = xasprintf("%s/.config/vmmprof/calibration.json", home);
	if (!path) {
		sbuf_addstr(note, "no calibration (no home directory)");
		return 0;
	}
	if (!o->cal_path && vp_exists(NULL, path)) {
		sbuf_addf(note, "no calibration at '%s': latency-based costs are n/a "
				"(run 'vmmprof calibrate')", path);
		goto out;
	}
	ret = calib_load(cal, path, &err);
	if (ret) {
		if (!o->cal_path) {
			sbuf_addf(note, "calibration not used: %s", err.msg);
			ret = 0;
		} else {
			cli_error(&err);
		}
		goto out;
	}
	(void)plat;
	*have = true;
	sbuf_addf(note, "calibration '%s'", path);
out:
	free(path);
	return ret;
}

static const char *fmt_pct(char *buf, size_t size, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%.1f%%", v);
	else
		snprintf(buf, size, "n/a");
	return buf;
}

static char qual_letter(enum factor_quality q)
{
	switch (q) {
	case Q_MEASURED: return ' ';
	case Q_APPORTIONED: return 'a';
	case Q_PROXY: return 'p';
	case Q_UNAVAILABLE: return ' ';
	}
	return ' ';
}

/* Name of a bottleneck's entity: "web vCPU 0", "VM web", "node 1". */
static void entity_name(const struct diag_input *in, const struct diag_bottleneck *b,
			char *buf, size_t size)
{
	switch (b->scope) {
	case DIAG_VCPU: {
		const struct diag_vcpu *v = &in->vcpus[b->entity];
		const struct diag_vm *vm = &in->vms[v->vm];

		snprintf(buf, size, "%s %s %d", vm->name,
			 vm->adapter == HVA_NATIVE ? "thread" : "vCPU", v->index);
		break;
	}
	case DIAG_VM:
		snprintf(buf, size, "%s %s", in->vms[b->entity].adapter == HVA_NATIVE ? "process" : "VM",
			 in->vms[b->entity].name);
		break;
	case DIAG_NODE:
		snprintf(buf, size, "node %d", in->nodes[b->entity].id);
		break;
	}
}

/* Why factor f cannot be evaluated with this model here; NULL when it can. */
static const char *factor_unavailable(const struct model *m, const struct model_avail *av,
				      enum factor_id f)
{
	if (m->factors[f].quality == Q_UNAVAILABLE)
		return m->factors[f].reason ? m->factors[f].reason : "the model cannot see it";
	if (!av->factor_ok[f])
		return av->factor_reason[f] ? av->factor_reason[f] : "its inputs are missing here";
	return NULL;
}

static void render_text(const struct model *m, const struct collector *c,
			const struct collect_frame *fr, const struct diag_input *in,
			const struct diag_result *r, const char *head, struct sbuf *out)
{
	static const char *const bcols[] = { ">#", "where", "factor", ">cost", "severity",
					     "quality", "confidence", "evidence" };
	const struct model_avail *av = collect_avail(c);
	struct table t;
	char buf[64], buf2[64];
	size_t i;
	int f;

	sbuf_addstr(out, head);
	sbuf_addstr(out, "\nBottlenecks, ranked by cost (% of the entity's cycles)\n");
	if (!r->n_b) {
		sbuf_addstr(out, "  none among the factors that could be evaluated here\n");
	} else {
		table_init(&t, VP_ARRAY_SIZE(bcols), bcols);
		for (i = 0; i < r->n_b; i++) {
			const struct diag_bottleneck *b = &r->b[i];

			entity_name(in, b, buf, sizeof(buf));
			table_row(&t);
			table_cell(&t, "%zu", i + 1);
			table_cell(&t, "%s", buf);
			table_cell(&t, "%s", factor_name(b->factor));
			table_cell(&t, "%s", fmt_pct(buf2, sizeof(buf2), b->cost_pct));
			table_cell(&t, "%s", severity_name(b->sev));
			table_cell(&t, "%s", factor_quality_name(b->quality));
			table_cell(&t, "%s", diag_confidence_name(b->confidence));
			table_cell(&t, "%s", b->evidence);
		}
		table_render(&t, out, 2, true);
		table_release(&t);
	}

	if (in->n_vms) {
		const char *cols[2 + FACTOR_N + 1];
		char titles[FACTOR_N][24];

		cols[0] = in->vms[0].adapter == HVA_NATIVE ? "process" : "vm";
		cols[1] = ">vcpus";
		for (f = 0; f < FACTOR_N; f++) {
			snprintf(titles[f], sizeof(titles[f]), ">%s", factor_name((enum factor_id)f));
			cols[2 + f] = titles[f];
		}
		cols[2 + FACTOR_N] = "memory-bound";
		sbuf_addstr(out, "\nFactor cost per VM (% of cycles; a = apportioned, p = proxy; "
				 "a score is shown as 'sN' where the model gives no cost)\n");
		table_init(&t, 3 + FACTOR_N, cols);
		for (i = 0; i < in->n_vms; i++) {
			size_t nv = 0, v;

			for (v = 0; v < in->n_vcpus; v++)
				nv += in->vcpus[v].vm == i;
			table_row(&t);
			table_cell(&t, "%s", in->vms[i].name);
			table_cell(&t, "%zu", nv);
			for (f = 0; f < FACTOR_N; f++) {
				const struct collect_row *row = NULL;
				size_t k, seen = 0;

				/* the VM's own row holds its score */
				for (k = 0; k < fr->n_rows; k++)
					if (fr->rows[k].kind == ENT_VM || fr->rows[k].kind == ENT_PROCESS) {
						if (seen++ == i) {
							row = &fr->rows[k];
							break;
						}
					}
				if (factor_unavailable(m, av, (enum factor_id)f))
					table_cell(&t, "n/a");
				else if (isfinite(r->vm[i].cost_pct[f]))
					table_cell(&t, "%.1f%%%c", r->vm[i].cost_pct[f],
						   qual_letter(r->vm[i].quality[f]));
				else if (row && isfinite(row->fv[f].score))
					table_cell(&t, "s%.3g%c", row->fv[f].score,
						   qual_letter(m->factors[f].quality));
				else
					table_cell(&t, "n/a");
			}
			table_cell(&t, "%s", r->vm[i].memory_bound ? "yes" : "no");
		}
		table_render(&t, out, 2, true);
		table_release(&t);
	} else {
		sbuf_addstr(out, "\nNo VM found to diagnose (name processes with -p PID)\n");
	}

	sbuf_addstr(out, "\nNot measurable here\n");
	{
		bool any = false;

		for (f = 0; f < FACTOR_N; f++) {
			const char *why = factor_unavailable(m, av, (enum factor_id)f);

			if (!why)
				continue;
			any = true;
			sbuf_addf(out, "  %-9s %s\n", factor_name((enum factor_id)f), why);
		}
		if (!any)
			sbuf_addstr(out, "  every factor has a source in this model\n");
	}

	sbuf_addstr(out, "\nNodes\n");
	for (i = 0; i < in->n_nodes; i++)
		sbuf_addf(out, "  node %d (CPUs %s): %s\n", in->nodes[i].id, in->nodes[i].cpus,
			  r->node_notes[i]);
	if (isfinite(r->imbalance))
		sbuf_addf(out, "  imbalance (sigma/mu of node bandwidth): %.0f%%\n", 100 * r->imbalance);

	sbuf_addstr(out, "\nAdvice\n");
	if (!r->n_a)
		sbuf_addstr(out, "  none: no bottleneck that a placement change would relieve\n");
	for (i = 0; i < r->n_a; i++) {
		const struct diag_advice *a = &r->a[i];
		const char *p, *nl;

		sbuf_addf(out, "  %zu. %s  [%s]\n", i + 1, a->action, a->rule);
		sbuf_addf(out, "     evidence: %s\n", a->evidence);
		sbuf_addf(out, "     expected: %s\n", a->effect);
		if (a->conflict)
			sbuf_addf(out, "     CONFLICT: %s\n", a->conflict_note);
		sbuf_addstr(out, "     commands:\n");
		for (p = a->command; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p) - 1;
			sbuf_addf(out, "       %.*s\n", (int)(nl - p + (*nl != '\n')), p);
		}
	}
	if (fr->notes[0])
		sbuf_addf(out, "\nNotes: %s\n", fr->notes);
}

static void render_json(const struct model *m, const struct collector *c,
			const struct collect_frame *fr, const struct diag_input *in,
			const struct diag_result *r, const char *cal_note, struct sbuf *out)
{
	const struct model_avail *av = collect_avail(c);
	struct jw w;
	size_t i;
	int f;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_kstr(&w, "model", m->name);
	jw_kdouble(&w, "duration_s", fr->duration);
	jw_kuint(&w, "targets", collect_n_targets(c));
	jw_kstr(&w, "calibration", cal_note);
	jw_key(&w, "unavailable");
	jw_obj_begin(&w);
	for (f = 0; f < FACTOR_N; f++) {
		const char *why = factor_unavailable(m, av, (enum factor_id)f);

		if (why)
			jw_kstr(&w, factor_name((enum factor_id)f), why);
	}
	jw_obj_end(&w);
	jw_key(&w, "inputs_not_counted");
	jw_obj_begin(&w);
	for (i = 0; i < m->n_inputs; i++) {
		const char *why = collect_input_reason(c, i);

		if (why)
			jw_kstr(&w, m->inputs[i].name, why);
	}
	jw_obj_end(&w);
	jw_kstr(&w, "notes", fr->notes);
	jw_key(&w, "diagnosis");
	diag_result_write(in, r, &w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

static int run_diagnose(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "root", required_argument, NULL, 'R' },
		{ "model", required_argument, NULL, 'm' },
		{ "model-path", required_argument, NULL, 'M' },
		{ "calibration", required_argument, NULL, 'c' },
		{ "vm", required_argument, NULL, 'V' },
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct dopts o = { .duration = 5.0, .root = "/" };
	struct platform plat;
	struct model_dirs dirs = { NULL, 0, 0 };
	struct model_registry reg;
	struct model *model = NULL;
	struct calib cal;
	bool have_cal = false, have_plat = false, have_reg = false;
	struct collector *c = NULL;
	struct collect_frame fr = { 0 };
	struct diag_input din = { 0 };
	struct diag_result res = { 0 };
	struct sbuf out = SBUF_INIT, head = SBUF_INIT, cal_note = SBUF_INIT;
	struct vp_err err;
	char why[256] = "";
	int opt, rc = 0;
	uint64_t t0, end;

	calib_init(&cal);
	while ((opt = getopt_long(argc, argv, "d:m:p:", longopts, NULL)) != -1) {
		char *endp;

		switch (opt) {
		case 'd':
			errno = 0;
			o.duration = strtod(optarg, &endp);
			if (*endp == 's')
				endp++;
			if (*endp || errno || !(o.duration > 0) || o.duration > 86400) {
				rc = cli_usage_error(&cmd_diagnose, "invalid duration '%s' (seconds, > 0)",
						     optarg);
				goto out;
			}
			break;
		case 'R': o.root = optarg; break;
		case 'm': o.model = optarg; break;
		case 'M':
			o.model_paths = xrealloc(o.model_paths, (o.n_model_paths + 1) * sizeof(char *));
			o.model_paths[o.n_model_paths++] = optarg;
			break;
		case 'c': o.cal_path = optarg; break;
		case 'V':
			o.vms = xrealloc(o.vms, (o.n_vms + 1) * sizeof(char *));
			o.vms[o.n_vms++] = optarg;
			break;
		case 'p':
			if (parse_pids(optarg, &o)) {
				rc = cli_usage_error(&cmd_diagnose, "invalid process list '%s'", optarg);
				goto out;
			}
			break;
		case 'j': o.json = true; break;
		default:
			rc = cli_usage_error(&cmd_diagnose, "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_diagnose, "reading a recording ('%s') is not supported yet",
				     argv[optind]);
		goto out;
	}
	if (vp_exists(NULL, o.root)) {
		rc = cli_usage_error(&cmd_diagnose, "root directory '%s' does not exist", o.root);
		goto out;
	}
	if (platform_probe(&plat, o.root, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_plat = true;

	model_dirs_build(&dirs, o.model_paths, o.n_model_paths);
	model_registry_init(&reg, (const char *const *)dirs.v, dirs.n);
	have_reg = true;
	if (o.model) {
		struct diags d;

		diags_init(&d);
		if (model_registry_open(&reg, o.model, &model, &d, &err)) {
			diags_release(&d);
			rc = cli_error(&err);
			goto out;
		}
		diags_release(&d);
		snprintf(why, sizeof(why), "chosen with -m");
	} else {
		const struct model_entry *me = model_registry_choose(&reg, &plat, why, sizeof(why), &err);
		struct diags d;

		if (!me) {
			rc = cli_error(&err);
			goto out;
		}
		diags_init(&d);
		if (model_registry_open(&reg, me->path, &model, &d, &err)) {
			diags_release(&d);
			rc = cli_error(&err);
			goto out;
		}
		diags_release(&d);
	}
	if (load_calibration(&o, &plat, &cal, &have_cal, &cal_note)) {
		rc = 1;
		goto out;
	}

	{
		struct collect_opts co = {
			.root = o.root, .plat = &plat, .model = model,
			.cal = have_cal ? &cal : NULL,
			.pids = o.pids, .n_pids = o.n_pids,
			.vm_names = o.vms, .n_vm_names = o.n_vms,
		};

		if (collect_new(&c, &co, &err)) {
			rc = cli_error(&err);
			goto out;
		}
	}
	cli_catch_interrupts();
	fprintf(stderr, "vmmprof diagnose: collecting for %.3g s with model '%s' on %zu "
			"thread(s) (Ctrl-C ends early)...\n", o.duration, model->name,
		collect_n_targets(c));
	t0 = vp_now_ns();
	end = t0 + (uint64_t)(o.duration * 1e9);
	while (!cli_interrupted()) {
		uint64_t now = vp_now_ns();

		if (now >= end)
			break;
		if (cli_sleep_ns(end - now > 1000000000ull ? 1000000000ull : end - now))
			break;
		if (!o.json && o.duration >= 3 && isatty(2))
			fprintf(stderr, "\r  %.0f of %.0f s", (double)(vp_now_ns() - t0) / 1e9, o.duration);
	}
	if (!o.json && o.duration >= 3 && isatty(2))
		fprintf(stderr, "\n");
	if (cli_interrupted())
		fprintf(stderr, "vmmprof diagnose: interrupted after %.1f s: diagnosing what was "
				"collected\n", (double)(vp_now_ns() - t0) / 1e9);
	if (collect_total(c, &fr, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	collect_diag_input(c, &fr, &din);
	if (diagnose(&din, &res, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if (o.json) {
		render_json(model, c, &fr, &din, &res, sbuf_str(&cal_note), &out);
	} else {
		sbuf_addf(&head, "vmmprof diagnose: %.1f s, %zu %s, model '%s' (%s)\n",
			  fr.duration, din.n_vms,
			  o.n_pids ? "process(es)" : "VM(s)", model->name, why);
		if (!plat.core_pmu)
			sbuf_addf(&head, "  no core PMU here (%s): every cost below is a proxy or n/a, "
					 "never a measured zero\n",
				  plat.core_pmu_reason[0] ? plat.core_pmu_reason : "none exposed");
		sbuf_addf(&head, "  %s\n", sbuf_str(&cal_note));
		render_text(model, c, &fr, &din, &res, sbuf_str(&head), &out);
	}
	rc = cli_write(&out);
out:
	diag_result_release(&res);
	collect_diag_release(&din);
	collect_frame_release(&fr);
	collect_free(c);
	model_free(model);
	if (have_reg)
		model_registry_release(&reg);
	model_dirs_release(&dirs);
	calib_release(&cal);
	if (have_plat)
		platform_release(&plat);
	sbuf_release(&out);
	sbuf_release(&head);
	sbuf_release(&cal_note);
	free(o.model_paths);
	free(o.vms);
	free(o.pids);
	return rc;
}

const struct cmd cmd_diagnose = {
	.name = "diagnose",
	.fn = run_diagnose,
	.summary = "find each VM's NUMA bottlenecks, their cost, and what to change",
	.synopsis = "diagnose [--duration SECS] [--vm NAME]... [-m MODEL] [--json]\n"
		    "diagnose -p PID[,PID...] [--duration SECS] [--json]",
	.description =
		"Collects for a while (5 s by default) with the model that fits this machine,\n"
		"evaluates the five factors (data locality, LLC contention, sharing, memory-\n"
		"controller contention, queue-tracker contention) for every vCPU and VM, ranks\n"
		"the bottlenecks by their cost in % of cycles, and prints advice as the exact\n"
		"virsh, taskset, xl or migratepages commands to run.  It runs nothing itself.\n"
		"\n"
		"What cannot be measured here is said, with the reason; a proxy is labelled a\n"
		"proxy.  The method is described in docs/method.md.  Ctrl-C ends the\n"
		"collection early and diagnoses what was collected.",
	.options =
		"-d, --duration SECS\thow long to collect (default 5)\n"
		"--vm NAME\tonly this VM (repeatable)\n"
		"-p, --pid PIDS\tdiagnose these processes (native mode) instead of VMs\n"
		"-m, --model NAME|FILE\tuse this model instead of the one chosen for the CPU\n"
		"--model-path DIR\talso look for models in DIR (repeatable)\n"
		"--calibration FILE\tlatencies and bandwidth of this machine (default\n"
		"\t~/.config/vmmprof/calibration.json, written by 'vmmprof calibrate')\n"
		"--json\tprint the diagnosis as JSON (schema in docs/method.md)\n"
		"--root DIR\tread /proc and /sys under DIR (fixture trees)",
	.examples =
		"vmmprof diagnose\tevery VM on this host, 5 s\n"
		"vmmprof diagnose --vm web -d 30\tone VM, 30 s\n"
		"vmmprof diagnose -p $(pidof memcached) --json\ta native process, as JSON",
};
