/* cmd_verify.c - `vmmprof verify`: provoke each factor beside a control, count it, judge it */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "analysis/verify.h"
#include "bench/provoke.h"
#include "cli/bench_tracker.h"
#include "cli/pipeline.h"
#include "cli/verify_count.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/jsonread.h"
#include "version.h"

#define MAX_CHECKS 32

static void machine_of(struct verify_machine *m, const struct platform *p,
		       const struct bench_topo *t, const char *model)
{
	struct utsname u;
	struct tm tm;
	time_t now = time(NULL);

	memset(m, 0, sizeof(*m));
	if (gethostname(m->host, sizeof(m->host) - 1))
		snprintf(m->host, sizeof(m->host), "unknown");
	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%.64s", u.release);
		snprintf(m->arch, sizeof(m->arch), "%.31s", u.machine);
	}
	snprintf(m->cpu, sizeof(m->cpu), "%.31s family %d model %d (%.90s)", t->machine.vendor,
		 t->machine.family, t->machine.model, t->machine.model_name);
	m->n_cpus = t->machine.n_cpus;
	m->n_nodes = t->n_nodes;
	m->n_packages = t->n_pkgs;
	snprintf(m->hypervisor, sizeof(m->hypervisor), "%s%s%s%s", hv_kind_name(p->hv.kind),
		 p->hv.signature[0] ? " (" : "", p->hv.signature, p->hv.signature[0] ? ")" : "");
	if (p->core_pmu)
		snprintf(m->core_pmu, sizeof(m->core_pmu), "%s", p->core_pmu_name);
	else
		snprintf(m->core_pmu, sizeof(m->core_pmu), "none%s%.100s",
			 p->core_pmu_reason.len ? ": " : "", sbuf_str(&p->core_pmu_reason));
	snprintf(m->model, sizeof(m->model), "%s", model);
	gmtime_r(&now, &tm);
	strftime(m->when, sizeof(m->when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(m->version, sizeof(m->version), "%s", VMMPROF_VERSION);
}

static int save(const char *path, const struct sbuf *doc)
{
	struct vp_err err = { 0, "" };
	FILE *f = cli_open_output(path, &err);

	if (!f)
		return cli_error(&err);
	fwrite(doc->buf, 1, doc->len, f);
	return cli_close_output(f, path);
}

/* `verify --load FILE`: a saved result's table (or JSON), judged again from its runs. */
static int load(const char *path, bool json)
{
	struct vp_err err = { 0, "" };
	struct verify_machine m;
	struct verify_check *c = xcalloc(MAX_CHECKS, sizeof(*c));
	struct sbuf out = SBUF_INIT;
	struct jv doc;
	char *text = NULL;
	size_t len = 0, n = 0;
	bool parsed = false;
	int rc = 0, pass, fail, skp;

	if (vp_read_regular(path, VP_DOC_MAX_BYTES, &text, &len, &err) ||
	    jv_parse(&doc, text, len, path, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	parsed = true;
	if (verify_from_json(&doc, &m, c, MAX_CHECKS, &n, &err)) {
		rc = cli_errorf("'%s': %s", path, err.msg);
		goto out;
	}
	if (json)
		verify_json(&m, c, n, &out);
	else
		verify_text(&m, c, n, &out);
	rc = cli_write(&out);
	verify_tally(c, n, &pass, &fail, &skp);
	if (!rc && fail)
		rc = 1;
out:
	if (parsed)
		jv_release(&doc);
	free(text);
	free(c);
	sbuf_release(&out);
	return rc;
}

static int run_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "save", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'r' },
		{ "model", required_argument, NULL, 'm' },
		{ "load", required_argument, NULL, 'l' },
		{ "bench", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts po = { .root = "/" };
	struct pipeline pl;
	struct platform plat;
	struct bench_topo t;
	struct pmu_db *db = NULL;
	struct verify_check *c = NULL;
	struct verify_machine m;
	struct provoke_env e;
	struct bench_tracker *tc = NULL;
	struct verify_count *vc = NULL;
	struct bench_tracker_hook hook = { bench_tracker_start, bench_tracker_stop, NULL };
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT, doc = SBUF_INIT;
	const char *save_path = NULL, *load_path = NULL;
	bool runs_set = false, bench = false;
	bool json = false, have_plat = false, have_topo = false, have_pl = false;
	int opt, rc = 0, runs = 3, pass, fail, skp;
	size_t n, i;
	char *end;

	while ((opt = getopt_long(argc, argv, "m:j", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 's':
			save_path = optarg;
			break;
		case 'r':
			runs = (int)strtol(optarg, &end, 10);
			if (*end || runs < 2 || runs > VERIFY_MAX_RUNS)
				return cli_usage_error(&cmd_verify,
						       "--runs wants 2..%d (a margin needs a spread), not '%s'",
						       VERIFY_MAX_RUNS, optarg);
			runs_set = true;
			break;
		case 'l':
			load_path = optarg;
			break;
		case 'b':
			bench = true;
			break;
		case 'm':
			po.model = optarg;
			break;
		default:
			return cli_bad_option(&cmd_verify, argv, "m:");
		}
	}
	if (optind < argc)
		return cli_usage_error(&cmd_verify, "unexpected argument '%s'", argv[optind]);
	if (load_path && (save_path || runs_set || po.model || bench))
		return cli_usage_error(&cmd_verify, "--load reads a saved result: no --save, --runs, "
				       "--bench or --model with it");
	if (load_path)
		return load(load_path, json);
	if (platform_probe(&plat, "/", &err))
		return cli_error(&err);
	have_plat = true;
	if ((rc = cli_pipeline_choose(&pl, &po, &plat)))
		goto out;
	have_pl = true;
	if (bench_topo_probe(&t, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_topo = true;
	if (pmu_db_new(&db, "/", &err)) {
		rc = cli_error(&err);
		goto out;
	}
	machine_of(&m, &plat, &t, pl.model ? pl.model->name : "none");
	memset(&e, 0, sizeof(e));
	e.t = &t;
	e.db = db;
	e.core_pmu = plat.core_pmu;
	e.core_pmu_why = sbuf_str(&plat.core_pmu_reason);
	e.runs = runs;
	e.bench_refs = bench;
	/*
	 * the queue check counts the trackers with the model chosen here, where a
	 * PMU can; its counters are taken when that check runs, last (the exact
	 * counting checks first need the PMU to themselves)
	 */
	if (plat.core_pmu && t.n_cpus > 0) {
		tc = xcalloc(1, sizeof(*tc));
		if (!bench_tracker_open(tc, t.cpu_node[0]))
			e.tracker = &hook;
		e.tracker_why = tc->why;
	}
	hook.ctx = tc;
	/* the factor scenarios are counted with the model chosen here (or -m) */
	vc = xcalloc(1, sizeof(*vc));
	if (!verify_count_open(vc, &pl, &plat))
		e.counter = &vc->hook;
	e.counter_why = vc->why;
	c = calloc(MAX_CHECKS, sizeof(*c));
	if (!c) {
		rc = cli_errorf("out of memory");
		goto out;
	}
	n = provoke_checks(&e, c, MAX_CHECKS);
	for (i = 0; i < n; i++)
		verify_judge(&c[i]);
	verify_json(&m, c, n, &doc);
	if (save_path && (rc = save(save_path, &doc)))
		goto out;
	if (json)
		sbuf_add(&out, doc.buf, doc.len);
	else
		verify_text(&m, c, n, &out);
	rc = cli_write(&out);
	verify_tally(c, n, &pass, &fail, &skp);
	if (!rc && fail)
		rc = 1;
out:
	if (vc) {
		verify_count_close(vc);
		free(vc);
	}
	if (tc) {
		bench_tracker_close(tc);
		free(tc);
	}
	free(c);
	pmu_db_free(db);
	if (have_topo)
		bench_topo_release(&t);
	if (have_pl)
		pipeline_close(&pl);
	if (have_plat)
		platform_release(&plat);
	sbuf_release(&out);
	sbuf_release(&doc);
	return rc;
}

const struct cmd cmd_verify = {
	.name = "verify",
	.fn = run_verify,
	.summary = "prove each factor on this machine: provoke it, count it, judge it",
	.synopsis = "verify [--json] [--save FILE] [--runs N] [--bench] [-m NAME|FILE]\n"
		    "verify --load FILE [--json]",
	.description =
		"Provokes each factor with the benchmark's scenario beside a control run that\n"
		"lacks it, counts both with the chosen model (-m, else the one for this machine)\n"
		"on this process, and judges whether the factor's metric and cost moved the\n"
		"way the physics says.  Each margin comes from the spread of the runs\n"
		"(--runs of each side) and is printed beside the verdict; measuring and\n"
		"judging are separate, the judge a pure function of the counts.\n"
		"\n"
		"A check is hardware (a core or uncore PMU counts it), software (the\n"
		"kernel's software events) or placement (where the kernel put the pages).\n"
		"A check this machine cannot run is skipped with the reason (no core PMU,\n"
		"one NUMA node, no second package, a missing scenario), never passed; a\n"
		"hardware count of 0 beside work that must make it non-zero is a suspect\n"
		"zero of an emulated PMU and skipped too.  The exit status is 1 when a\n"
		"check failed.  docs/verification.md explains how to read a result.\n"
		"\n"
		"--bench adds the benchmark's own figures against references (factor\n"
		"'benchmark', about a minute): the DRAM latency of `bench latency` against a\n"
		"plain pointer chase, and the copy, read and triad kernels of `bench\n"
		"bandwidth` against mbw, sysbench and stress-ng run beside them (each\n"
		"skipped when the tool is not installed; Debian packages of those names).\n"
		"A ratio must be at least 1 within the runs' spread: the kernels are\n"
		"meant to reach what the machine's memory can give.\n"
		"\n"
		"--load prints a result saved with --save (on this machine or another), each\n"
		"check judged again from its saved runs.",
	.options = "-j, --json\tprint the result as JSON (the document --save writes)\n"
		   "--save FILE\tkeep the result with this machine's identity, to share it\n"
		   "--runs N\tcontrol and treatment runs of each check, 2..16 (default 3)\n"
		   "--load FILE\tprint a saved result instead of running the checks\n"
		   "--bench\talso check the benchmark's figures against a plain chase and\n"
		   "\tpeer tools (mbw, sysbench, stress-ng)\n"
		   "-m, --model NAME|FILE\tthe model the hardware checks count with (default: the\n"
		   "\tone chosen for this machine)",
	.examples = "vmmprof verify\tthe table and the verdict\n"
		    "vmmprof verify --save verify-$(hostname).json\tkeep the result to share it\n"
		    "vmmprof verify --bench\talso the benchmark's figures against references\n"
		    "vmmprof verify --load verify-host1.json\tread a result shared from host1",
};
