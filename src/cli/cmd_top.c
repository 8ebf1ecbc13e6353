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

#include "tui/topdata.h"
#include "util/alloc.h"
#include "tui/tui.h"
#include "util/json.h"
#include "util/table.h"

static void text_sample(const struct top_state *s, struct sbuf *out)
{
	static const char *const nt[] = { ">node", ">mem_used", ">mem_total", ">local/s", ">remote/s",
					  ">miss/s", ">load", ">vcpus" };
	static const char *const vt[] = { "vm", "hv", ">id", ">vcpus", ">cpu%", ">mem_MiB", ">home",
					  ">LOCAL", ">LLC", ">SHARE", ">IMC", ">QUEUE" };
	static const char *const ct[] = { "vm", ">vcpu", ">tid", ">cpu", ">node", "affinity", ">cpu%",
					  ">LOCAL", ">LLC", ">SHARE", ">IMC", ">QUEUE" };
	struct table t;
	char b[64];
	size_t i;
	int f;

	sbuf_addf(out, "vmmprof top: sample %lu, interval ", s->samples);
	top_fmt(b, sizeof(b), "%.2f s", s->interval_s);
	sbuf_addf(out, "%s\n\nNODES\n", b);
	table_init(&t, VP_ARRAY_SIZE(nt), nt);
	for (i = 0; i < s->n_nodes; i++) {
		const struct top_node *n = &s->nodes[i];

		table_row(&t);
		table_cell(&t, "%d", n->node);
		top_fmt(b, sizeof(b), "%.0fM", n->mem_used / 1048576.0);
		table_cell(&t, "%s", b);
		top_fmt(b, sizeof(b), "%.0fM", n->mem_total / 1048576.0);
		table_cell(&t, "%s", b);
		top_fmt(b, sizeof(b), "%.0f", n->local_rate);
		table_cell(&t, "%s", b);
		top_fmt(b, sizeof(b), "%.0f", n->remote_rate);
		table_cell(&t, "%s", b);
		top_fmt(b, sizeof(b), "%.0f", n->miss_rate);
		table_cell(&t, "%s", b);
		top_fmt(b, sizeof(b), "%.0f%%", 100.0 * n->cpu_load);
		table_cell(&t, "%s", b);
		table_cell(&t, "%d", n->n_vcpus);
	}
	table_render(&t, out, 0, true);
	table_release(&t);

	sbuf_addstr(out, "\nVMS\n");
	table_init(&t, VP_ARRAY_SIZE(vt), vt);
	for (i = 0; i < s->n_vms; i++) {
		const struct top_vm *v = &s->vms[i];

		table_row(&t);
		table_cell(&t, "%s", v->name);
		table_cell(&t, "%s", v->hypervisor);
		table_cell(&t, "%d", v->id);
		table_cell(&t, "%zu", v->n_vcpus);
		top_fmt(b, sizeof(b), "%.1f", v->cpu_pct);
		table_cell(&t, "%s", b);
		top_fmt(b, sizeof(b), "%.1f", v->mem / 1048576.0);
		table_cell(&t, "%s", b);
		table_cell(&t, v->home >= 0 ? "%d" : "-", v->home);
		for (f = 0; f < TOP_NFACTORS; f++) {
			top_fmt_factor(b, sizeof(b), f, v->factor[f]);
			table_cell(&t, "%s", b);
		}
	}
	if (s->n_vms)
		table_render(&t, out, 0, true);
	else
		sbuf_addstr(out, "no VMs found\n");
	table_release(&t);

	sbuf_addstr(out, "\nVCPUS\n");
	table_init(&t, VP_ARRAY_SIZE(ct), ct);
	for (i = 0; i < s->n_vcpus; i++) {
		const struct top_vcpu *c = &s->vcpus[i];

		table_row(&t);
		table_cell(&t, "%s", s->vms[c->vm].name);
		table_cell(&t, "%d", c->index);
		table_cell(&t, c->tid > 0 ? "%d" : "-", c->tid);
		table_cell(&t, c->cpu >= 0 ? "%d" : "-", c->cpu);
		table_cell(&t, c->node >= 0 ? "%d" : "-", c->node);
		table_cell(&t, "%s", c->affinity);
		top_fmt(b, sizeof(b), "%.1f", c->cpu_pct);
		table_cell(&t, "%s", b);
		for (f = 0; f < TOP_NFACTORS; f++) {
			top_fmt_factor(b, sizeof(b), f, c->factor[f]);
			table_cell(&t, "%s", b);
		}
	}
	if (s->n_vcpus)
		table_render(&t, out, 0, true);
	else
		sbuf_addstr(out, "no vCPUs\n");
	table_release(&t);

	for (i = 0; i < s->n_ended; i++)
		sbuf_addf(out, "ended: %s %s (id %d)\n", s->ended[i].kind, s->ended[i].name,
			  s->ended[i].id);
	sbuf_addstr(out, "\nLOCAL: expected remote-memory fraction; e = estimate from placement "
			 "(run time per node x memory on other nodes)\n");
	for (f = 0; f < TOP_NFACTORS; f++)
		if (f != COV_LOCALITY)
			sbuf_addf(out, "%s n/a: %s\n", top_factor_title(f), s->factor_why[f]);
	if (s->notes[0])
		sbuf_addf(out, "note: %s\n", s->notes);
	sbuf_addch(out, '\n');
}

static void json_factors(struct jw *w, const struct qval *q)
{
	int f;

	jw_key(w, "factors");
	jw_obj_begin(w);
	for (f = 0; f < TOP_NFACTORS; f++) {
		jw_key(w, cov_factor_name(f));
		jw_obj_begin(w);
		jw_kdouble(w, "value", q[f].v);
		jw_kstr(w, "quality", vp_quality_name(q[f].q));
		jw_kstr(w, "why", q[f].why);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void json_sample(const struct top_state *s, uint64_t start_ns, struct sbuf *out)
{
	struct jw w;
	size_t i;
	int n;

	jw_init(&w, out, false);
	jw_obj_begin(&w);
	jw_kuint(&w, "sample", s->samples);
	jw_kdouble(&w, "t_s", (double)(s->t_ns - start_ns) / 1e9);
	jw_kdouble(&w, "interval_s", s->interval_s);
	jw_key(&w, "nodes");
	jw_arr_begin(&w);
	for (i = 0; i < s->n_nodes; i++) {
		const struct top_node *nd = &s->nodes[i];

		jw_obj_begin(&w);
		jw_kint(&w, "node", nd->node);
		jw_kdouble(&w, "mem_total_bytes", nd->mem_total);
		jw_kdouble(&w, "mem_used_bytes", nd->mem_used);
		jw_kdouble(&w, "local_pages_per_s", nd->local_rate);
		jw_kdouble(&w, "remote_pages_per_s", nd->remote_rate);
		jw_kdouble(&w, "miss_pages_per_s", nd->miss_rate);
		jw_kdouble(&w, "cpu_load", nd->cpu_load);
		jw_kint(&w, "vcpus", nd->n_vcpus);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "vms");
	jw_arr_begin(&w);
	for (i = 0; i < s->n_vms; i++) {
		const struct top_vm *v = &s->vms[i];

		jw_obj_begin(&w);
		jw_kstr(&w, "name", v->name);
		jw_kstr(&w, "hypervisor", v->hypervisor);
		jw_kint(&w, "id", v->id);
		jw_kuint(&w, "vcpus", v->n_vcpus);
		jw_kdouble(&w, "cpu_pct", v->cpu_pct);
		jw_kdouble(&w, "mem_bytes", v->mem);
		jw_key(&w, "mem_node_bytes");
		jw_arr_begin(&w);
		for (n = 0; n < 8 && n < (int)s->n_nodes; n++)
			jw_double(&w, v->mem_node[n]);
		jw_arr_end(&w);
		jw_kint(&w, "home_node", v->home);
		json_factors(&w, v->factor);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "vcpus");
	jw_arr_begin(&w);
	for (i = 0; i < s->n_vcpus; i++) {
		const struct top_vcpu *c = &s->vcpus[i];

		jw_obj_begin(&w);
		jw_kstr(&w, "vm", s->vms[c->vm].name);
		jw_kint(&w, "vcpu", c->index);
		jw_kint(&w, "tid", c->tid);
		jw_kint(&w, "cpu", c->cpu);
		jw_kint(&w, "node", c->node);
		jw_kstr(&w, "affinity", c->affinity);
		jw_kdouble(&w, "cpu_pct", c->cpu_pct);
		json_factors(&w, c->factor);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "ended");
	jw_arr_begin(&w);
	for (i = 0; i < s->n_ended; i++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "kind", s->ended[i].kind);
		jw_kstr(&w, "name", s->ended[i].name);
		jw_kint(&w, "id", s->ended[i].id);
		jw_kdouble(&w, "t_s", (double)(s->ended[i].ended_ns - start_ns) / 1e9);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

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
			json_sample(s, start, &sb);
		else
			text_sample(s, &sb);
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
		{ NULL, 0, NULL, 0 },
	};
	struct top_state s;
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
	.synopsis = "top [-d SECS] [--sort KEY] [--root DIR]\n"
		    "top --batch [-n N] [-d SECS] [--json] [--sort KEY] [--root DIR]",
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
		   "--root DIR\tread /proc and /sys under DIR (fixture trees)",
	.examples = "vmmprof top\tthe live view\n"
		    "vmmprof top --batch -n 3 -d 1\tthree samples a second apart, as text\n"
		    "vmmprof top --json -n 5 | jq .vms\tthe VMs of five samples",
};
