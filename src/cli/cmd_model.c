/* cmd_model.c - `vmmprof model list|show|check|eval|test`: the profile models, what they need, and what they say on given counts */
#include "cli/commands.h"
#include "cli/list.h"
#include "model/dirs.h"
#include "cli/model_eval.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/model_json.h"
#include "model/registry.h"
#include "model/resolve.h"
#include "platform/platform.h"
#include "pmu/event.h"
#include "util/alloc.h"
#include "util/json.h"
#include "util/table.h"

struct model_opts {
	const char *root;
	bool root_given;
	bool json;
	bool raw;            /* list --raw-dump */
	bool parse_only;
	bool verbose;
	char **paths;        /* --model-path arguments */
	size_t n_paths;
	struct model_eval_opts ev; /* eval and test */
};

static int parse_pos(const char *opt, const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v <= 0)
		return cli_usage_error(&cmd_model, "%s takes a number above 0, not '%s'", opt, arg);
	*out = v;
	return -1;
}

/* Options common to the three subcommands; returns -1 to go on, else an exit code. */
static int parse_opts(int argc, char **argv, struct model_opts *o)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "model-path", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'j' },
		{ "raw-dump", no_argument, NULL, 'D' },
		{ "parse-only", no_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "counts", required_argument, NULL, 'c' },
		{ "perf-csv", required_argument, NULL, 'p' },
		{ "calibration", required_argument, NULL, 'C' },
		{ "set", required_argument, NULL, 's' },
		{ "row", required_argument, NULL, 'r' },
		{ "duration", required_argument, NULL, 'd' },
		{ "ghz", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat st;
	int c;

	memset(o, 0, sizeof(*o));
	o->root = "/";
	o->paths = xcalloc((size_t)argc + 1, sizeof(char *));
	o->ev.sets = xcalloc((size_t)argc + 1, sizeof(char *));
	o->ev.duration_s = o->ev.ghz = NAN;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":vj", opts, NULL)) != -1) {
		switch (c) {
		case 'R':
			o->root = optarg;
			o->root_given = true;
			break;
		case 'M':
			o->paths[o->n_paths++] = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'D':
			o->raw = true;
			break;
		case 'P':
			o->parse_only = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'c':
			o->ev.counts = optarg;
			break;
		case 'p':
			o->ev.perf_csv = optarg;
			break;
		case 'C':
			o->ev.calib = optarg;
			break;
		case 's':
			o->ev.sets[o->ev.n_sets++] = optarg;
			break;
		case 'r':
			o->ev.row = optarg;
			break;
		case 'd':
			if ((c = parse_pos("--duration", optarg, &o->ev.duration_s)) >= 0)
				return c;
			break;
		case 'g':
			if ((c = parse_pos("--ghz", optarg, &o->ev.ghz)) >= 0)
				return c;
			break;
		case ':':
			return cli_usage_error(&cmd_model, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_bad_option(&cmd_model, argv, ":v");
		}
	}
	if (!*o->root)
		return cli_usage_error(&cmd_model, "--root needs a directory");
	if (stat(o->root, &st) || !S_ISDIR(st.st_mode)) {
		cli_errorf("root directory '%s' %s", o->root,
			   errno == ENOENT ? "does not exist" : "is not a usable directory");
		return 2;
	}
	o->ev.root = o->root;
	o->ev.root_given = o->root_given;
	o->ev.json = o->json;
	o->ev.verbose = o->verbose;
	return -1;
}

/* ---- the machine a model is checked against ---- */

/*
 * A fixture root has no CPU for libpfm4 to detect: let it encode the tables
 * of CPUs it does not see, so that core event names can be checked as
 * "table::NAME".  (libpfm4 reads this when it initializes.)
 */
static void machine_open(struct model_host *mc, const char *root)
{
	if (strcmp(root, "/"))
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	model_host_open(mc, root);
}

static struct model_registry *open_registry(const struct model_opts *o, struct model_dirs *dirs)
{
	struct model_registry *r = xcalloc(1, sizeof(*r));

	model_dirs_build(dirs, o->paths, o->n_paths, cli_dirs());
	model_registry_init(r, (const char *const *)dirs->v, dirs->n);
	return r;
}

/* Errors always; warnings (optional inputs absent here) only when asked for. */
static void print_diags(const struct diags *d, bool warnings)
{
	struct sbuf sb = SBUF_INIT;
	size_t i;

	for (i = 0; i < d->n; i++)
		if (warnings || !d->v[i].warning)
			diag_format(&d->v[i], &sb);
	fflush(stdout); /* keep the summary lines and the diagnostics in order */
	fputs(sbuf_str(&sb), stderr);
	sbuf_release(&sb);
}

/* ---- list ---- */

static int model_list(struct model_opts *o, int argc, char **argv)
{
	struct model_dirs dirs;
	struct model_registry *r;
	struct model_host mc;
	const struct model_entry *chosen;
	char why[256] = "";
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	int rc;

	if (optind < argc)
		return cli_usage_error(&cmd_model, "unexpected argument '%s'", argv[optind]);
	if (o->raw && o->json)
		return cli_usage_error(&cmd_model, "--raw-dump and --json are two different outputs: choose one");
	r = open_registry(o, &dirs);
	if (o->raw) {   /* the names 'model show' and '-m' take: the first of each name */
		size_t i;

		for (i = 0; i < r->n; i++)
			if (!r->v[i].shadowed)
				list_raw_word(&sb, r->v[i].name, strlen(r->v[i].name));
		if (sb.len)
			sbuf_addch(&sb, '\n');
		rc = cli_write(&sb);
		sbuf_release(&sb);
		goto out_registry;
	}
	memset(&mc, 0, sizeof(mc));
	mc.plat_ok = platform_probe(&mc.plat, o->root, &err) == 0;
	chosen = mc.plat_ok ? model_registry_choose(r, &mc.plat, why, sizeof(why), &err) : NULL;
	model_list_json(r, chosen, chosen ? why : err.msg, &sb);
	if (!o->json) {
		/* the text is rendered from the JSON document, as the remote client does */
		struct sbuf text = SBUF_INIT;
		struct jv doc;
		int ret = jv_parse(&doc, sb.buf, sb.len, "model list", &err);

		if (!ret) {
			ret = model_list_text(&doc, o->root_given ? o->root : "this machine", &text, &err);
			jv_release(&doc);
		}
		sbuf_release(&sb);
		if (ret) {
			sbuf_release(&text);
			rc = cli_error(&err);
			goto out;
		}
		sb = text;
	}
	rc = cli_write(&sb);
	sbuf_release(&sb);
out:
	if (mc.plat_ok)
		platform_release(&mc.plat);
out_registry:
	model_registry_release(r);
	free(r);
	model_dirs_release(&dirs);
	return rc;
}

/* ---- show ---- */

static int model_show(struct model_opts *o, int argc, char **argv)
{
	struct model_dirs dirs;
	struct model_registry *r;
	struct model_host mc;
	struct model *m = NULL;
	struct model_avail av;
	struct diags d, cd;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	struct sbuf table_from = SBUF_INIT;
	char note[600];
	const char *where = o->root_given ? o->root : "this machine";
	bool matches = false;
	int rc = 0;

	if (optind >= argc)
		return cli_usage_error(&cmd_model, "'model show' needs a model name or file");
	if (optind + 1 < argc)
		return cli_usage_error(&cmd_model, "unexpected argument '%s'", argv[optind + 1]);
	r = open_registry(o, &dirs);
	diags_init(&d);
	diags_init(&cd);
	if (model_registry_open(r, argv[optind], &m, &d, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	machine_open(&mc, o->root);
	matches = model_show_note(r, m, &mc, note, sizeof(note));
	model_host_check(&mc, o->root, m, &av, &cd, &table_from);
	model_show_json(m, &av, where, matches, note, sbuf_str(&table_from), &sb);
	sbuf_release(&table_from);
	if (!o->json) {
		/* the text is rendered from the JSON document, as the remote client does */
		struct sbuf text = SBUF_INIT;
		struct jv doc;

		if (!jv_parse(&doc, sb.buf, sb.len, "model show", &err)) {
			rc = model_show_text(&doc, NULL, &text, &err);
			jv_release(&doc);
		} else {
			rc = -1;
		}
		sbuf_release(&sb);
		sb = text;
	}
	rc = rc ? cli_error(&err) : cli_write(&sb);
	model_avail_release(m, &av);
	model_host_close(&mc);
out:
	sbuf_release(&sb);
	diags_release(&d);
	diags_release(&cd);
	model_free(m);
	model_registry_release(r);
	free(r);
	model_dirs_release(&dirs);
	return rc;
}

/* ---- check ---- */

/* What the cost stage can make of m's cost terms (docs/method.md "Costs"). */
static void costs_note(const char *name, const struct model *m)
{
	bool any = false;
	int t;

	for (t = 0; t < CT_N; t++)
		any |= m->cost_term[t] != NULL;
	if (!any)
		printf("%s: note: no cost terms: this model gives scores, never costs\n", name);
	else if (!m->cost_term[CT_STALL_MEM] && !m->cost_term[CT_STALL_L2_MISS] &&
		 !m->cost_term[CT_STALL_L3_MISS])
		printf("%s: warning: its costs are estimates: it binds no stall count to anchor "
		       "them ('cost stall_mem = EVENT'; docs/method.md \"Costs\")\n", name);
}

static int model_check(struct model_opts *o, int argc, char **argv)
{
	struct model_dirs dirs;
	struct model_registry *r;
	struct model_host mc;
	int i, bad = 0;

	if (optind >= argc)
		return cli_usage_error(&cmd_model, "'model check' needs at least one model file or name");
	r = open_registry(o, &dirs);
	if (!o->parse_only)
		machine_open(&mc, o->root);
	for (i = optind; i < argc; i++) {
		struct model *m = NULL;
		struct model_avail av;
		struct diags d;
		struct vp_err err = { 0, "" };
		struct sbuf table_from = SBUF_INIT;
		size_t k, absent = 0, m_na = 0, f_na = 0;
		int f;

		diags_init(&d);
		if (model_registry_open(r, argv[i], &m, &d, &err)) {
			if (d.n)
				print_diags(&d, true);
			else
				cli_error(&err);
			printf("%s: FAILED: %zu error%s\n", argv[i], d.n_errors ? d.n_errors : 1,
			       d.n_errors > 1 ? "s" : "");
			bad++;
			diags_release(&d);
			continue;
		}
		costs_note(argv[i], m);
		if (o->parse_only) {
			printf("%s: ok (parsed only): model %s, %zu events and sources, %zu metrics\n",
			       argv[i], m->name, m->n_inputs, m->n_metrics);
			model_free(m);
			diags_release(&d);
			continue;
		}
		model_host_check(&mc, o->root, m, &av, &d, &table_from);
		print_diags(&d, o->verbose);
		for (k = 0; k < m->n_inputs; k++)
			absent += !av.input_ok[k];
		for (k = 0; k < m->n_metrics; k++)
			m_na += !av.metric_ok[k];
		for (f = 0; f < FACTOR_N; f++)
			f_na += !av.factor_ok[f];
		if (d.n_errors) {
			printf("%s: FAILED: %zu error%s against %s\n", argv[i], d.n_errors,
			       d.n_errors > 1 ? "s" : "", o->root_given ? o->root : "this machine");
			bad++;
		} else {
			printf("%s: ok: model %s against %s; %zu events and sources (%zu optional "
			       "absent%s), %zu metrics (%zu n/a), %d of %d factors available; %s\n",
			       argv[i], m->name, o->root_given ? o->root : "this machine", m->n_inputs,
			       absent, absent && !o->verbose ? ": -v lists them" : "", m->n_metrics, m_na, FACTOR_N - (int)f_na, FACTOR_N, sbuf_str(&table_from));
		}
		sbuf_release(&table_from);
		model_avail_release(m, &av);
		model_free(m);
		diags_release(&d);
	}
	if (!o->parse_only)
		model_host_close(&mc);
	model_registry_release(r);
	free(r);
	model_dirs_release(&dirs);
	if (fflush(stdout))
		return cli_errorf("write failure on standard output: %s", strerror(errno));
	return bad ? 1 : 0;
}

/* ---- eval, test ---- */

static int model_eval_cmd(struct model_opts *o, const char *sub, int argc, char **argv)
{
	struct model_dirs dirs;
	struct model_registry *r;
	int rc;

	if (!strcmp(sub, "eval")) {
		if (optind >= argc)
			return cli_usage_error(&cmd_model, "'model eval' needs a model name or file");
		if (optind + 1 < argc)
			return cli_usage_error(&cmd_model, "unexpected argument '%s'", argv[optind + 1]);
	} else if (o->ev.counts || o->ev.perf_csv || o->ev.row || o->ev.calib || o->ev.n_sets ||
		   isfinite(o->ev.duration_s) || isfinite(o->ev.ghz)) {
		return cli_usage_error(&cmd_model, "'model test' takes its counts, calibration and rows "
				       "from the cases file");
	}
	r = open_registry(o, &dirs);
	if (!strcmp(sub, "eval"))
		rc = model_eval_run(r, &o->ev, argv[optind]);
	else
		rc = model_test_run(r, &o->ev, argv + optind, (size_t)(argc - optind));
	model_registry_release(r);
	free(r);
	model_dirs_release(&dirs);
	return rc;
}

static int run_model(int argc, char **argv)
{
	struct model_opts o;
	const char *sub;
	int rc;

	if (argc < 2 || argv[1][0] == '-')
		return cli_usage_error(&cmd_model, "'model' needs a subcommand: list, show, check, eval "
				       "or test");
	sub = argv[1];
	rc = parse_opts(argc - 1, argv + 1, &o);
	if (rc < 0) {
		if (!strcmp(sub, "list"))
			rc = model_list(&o, argc - 1, argv + 1);
		else if (!strcmp(sub, "show"))
			rc = model_show(&o, argc - 1, argv + 1);
		else if (!strcmp(sub, "check"))
			rc = model_check(&o, argc - 1, argv + 1);
		else if (!strcmp(sub, "eval") || !strcmp(sub, "test"))
			rc = model_eval_cmd(&o, sub, argc - 1, argv + 1);
		else
			rc = cli_usage_error(&cmd_model, "unknown subcommand '%s' (list, show, check, eval, "
					     "test)", sub);
	}
	free(o.paths);
	free(o.ev.sets);
	return rc;
}

const struct cmd cmd_model = {
	.name = "model",
	.args = "list show check eval test|@models @files",
	.fn = run_model,
	.summary = "list, show, check, evaluate and test the profile models that turn events into the five factors",
	.synopsis = "model list [--json|--raw-dump] [--root DIR] [--model-path DIR]...\n"
		    "model show [--json] [--root DIR] [--model-path DIR]... NAME|FILE\n"
		    "model check [-v] [--root DIR] [--parse-only] [--model-path DIR]... NAME|FILE...\n"
		    "model eval NAME|FILE --counts FILE|--perf-csv FILE [--root DIR] [--calibration FILE] [--set cal.NAME=VALUE|#CONST=VALUE]... [--row vcpu|node] [--json]\n"
		    "model test [-v] [--root DIR] [--model-path DIR]... CASES...",
	.description =
		"A model (docs/models.md) names the events and software sources of a\n"
		"platform, turns them into metrics with formulas, and binds metrics to the\n"
		"five factors: locality, llc, sharing, imc, queue.\n"
		"\n"
		"'list' shows every model in the search path and marks with '*' the one\n"
		"chosen automatically for this machine (or for the fixture tree of --root):\n"
		"the model whose most specific match rule fits (CPU model, then libpfm4\n"
		"table, then any core PMU, then software only).\n"
		"\n"
		"'show' prints a model's events, metrics and factor bindings, and which of\n"
		"them are available here: an absent event makes the metrics that need it\n"
		"n/a, with the reason.\n"
		"\n"
		"'check' parses each model and resolves every event against this machine\n"
		"or --root DIR; errors are printed as FILE:LINE:COL with the line and a\n"
		"caret.  A required event that does not resolve is an error, an optional\n"
		"one a warning.  Exit status 1 when any model has an error.\n"
		"\n"
		"'eval' evaluates a model on counts from anywhere (docs/models.md, `model\n"
		"eval`; the --json document in docs/model-eval.md): each event spec of the\n"
		"counts is resolved as 'stat -e' resolves it (on --root DIR's tables) and\n"
		"bound to the model input that opens the same encoding (type, config,\n"
		"config1, config2), so a libpfm4 name, a raw rNNNN code and the model's own\n"
		"spelling bind the same input.  Counts that match no input are listed as\n"
		"unused; inputs without a count are n/a, never 0.  The row's counts and the\n"
		"serving node's (node_counts) go through the cost stage: every metric, each\n"
		"factor's score, severity, cost in cycles and in % of cycles with its\n"
		"quality, the interaction remainder, the memory-stall budget and its anchor\n"
		"(measured or estimated), and why anything is n/a.\n"
		"\n"
		"'test' runs scenario files (tests/models/*.cases): counts of physically\n"
		"described situations with the expected ranking and bounds of the costs,\n"
		"worked out by hand; every case is also checked for no negative cost, costs\n"
		"and remainder within the budget, the budget within the cycles.  Exit status\n"
		"1 when a case fails.\n"
		"\n"
		"The search path is: each --model-path DIR (also DIR:DIR...), then\n"
		"~/.config/vmmprof/models ($XDG_CONFIG_HOME/vmmprof/models), then the\n"
		"built-in models next to the binary (../share/vmmprof/models, or the\n"
		"source tree's models/).  A name found twice is taken from the first.",
	.options = "--root DIR\tresolve against the /sys and /proc tree under DIR (a fixture) instead of /\n"
		   "--model-path DIR\tlook for models in DIR first (repeatable; DIR:DIR also works)\n"
		   "-j, --json\tlist and show: print JSON\n"
		   "--raw-dump\tlist: the names only, space-separated on one line (for shell completion)\n"
		   "--parse-only\tcheck: parse and check names only, resolve no event\n"
		   "-v, --verbose\tcheck: also warn about each optional event or source absent here; test: print each case's evaluation\n"
		   "--counts FILE\teval: the JSON counts file {\"duration_s\", \"cpu_ghz\", \"counts\", \"node_counts\", \"solo_mpki\"}\n"
		   "--perf-csv FILE\teval: counts from 'perf stat -x,' output (with --counts: added to its counts)\n"
		   "--calibration FILE\teval: the calibration (cal.* values and the loaded-latency curve); none: every cal.* is n/a\n"
		   "--set NAME=VALUE\teval: a calibration value (cal.lat_local_ns=89, cal.loaded=GBS:NS,...) or a constant (#num_nodes=2); repeatable\n"
		   "--row vcpu|node\teval: whose counts they are: a thread's (vcpu, the default) or a node's\n"
		   "--duration SECS\teval: seconds the counts cover (overrides the file's)\n"
		   "--ghz GHZ\teval: the core clock in GHz while they were counted (overrides the file's)",
	.examples = "vmmprof model list\tthe models, and the one chosen for this machine\n"
		    "vmmprof model show skx --root tests/data/root/skx-2s\twhat the Skylake-SP model measures on a captured host\n"
		    "vmmprof model check my.model\tcheck a model of your own on this machine\n"
		    "vmmprof model check --root tests/data/root/icx-2s models/icx.model\tcheck a built-in model against a fixture\n"
		    "vmmprof model eval skx --root tests/data/root/skx-2s --counts c.json --set cal.lat_local_ns=89\tthe Skylake-SP model's costs on counts of your own\n"
		    "vmmprof model test tests/models/skx.cases\tthe Skylake-SP model's scenarios",
};
