/* toprender.c - `vmmprof top` rows as --batch text and --json lines, and those lines read back */
#include "top/toprender.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/topviews.h"
#include "util/alloc.h"
#include "util/json.h"
#include "util/table.h"
#include "util/vocab.h"

/* The --resctrl cells: LLC occupancy in MiB, memory traffic in MB/s (10^6 bytes). */
static void rdt_cells(struct table *t, const struct top_rdt *r)
{
	char b[32];

	top_fmt(b, sizeof(b), "%.1f", r->llc_bytes / 1048576.0);
	table_cell(t, "%s", b);
	top_fmt(b, sizeof(b), "%.1f", r->mbm_bps / 1e6);
	table_cell(t, "%s", b);
	top_fmt(b, sizeof(b), "%.1f", r->mbm_local_bps / 1e6);
	table_cell(t, "%s", b);
}

static void rdt_legend(const struct top_state *s, struct sbuf *out)
{
	size_t i;

	sbuf_addstr(out, "resctrl: llc_MiB (occupancy), mbm_MB/s and mbm_local_MB/s (memory traffic, "
			 "of it local) of each VM's monitoring group; a node row sums the VMs' groups "
			 "on the node's L3 domain\n");
	for (i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].rdt.why.len)
			sbuf_addf(out, "resctrl n/a: node %d: %s\n", s->nodes[i].node, sbuf_str(&s->nodes[i].rdt.why));
	/* a VM name is one line of terminal text */
	for (i = 0; i < s->n_vms; i++)
		if (s->vms[i].rdt.why.len) {
			sbuf_addtextf(out, "resctrl n/a: VM '%s': %s", sbuf_str(&s->vms[i].name), sbuf_str(&s->vms[i].rdt.why));
			sbuf_addch(out, '\n');
		}
}

static const char *const vm_titles[] = { "vm", "hv", ">id", ">vcpus", ">cpu%", ">mem_MiB", ">home",
					 ">LOCAL", ">LLC", ">SHARE", ">IMC", ">QUEUE", ">llc_MiB",
					 ">mbm_MB/s", ">mbm_local_MB/s" };

static void text_head(const struct top_state *s, struct sbuf *out)
{
	char b[64];

	sbuf_addf(out, "vmmprof top: sample %lu, interval ", s->samples);
	top_fmt(b, sizeof(b), "%.2f s", s->interval_s);
	sbuf_addf(out, "%s\n\n", b);
}

static void text_nodes(const struct top_state *s, struct sbuf *out)
{
	/* the last three columns only with --resctrl */
	static const char *const nt[] = { ">node", ">mem_used", ">mem_total", ">local/s", ">remote/s",
					  ">miss/s", ">load", ">vcpus", ">llc_MiB", ">mbm_MB/s",
					  ">mbm_local_MB/s" };
	size_t n_rdt = s->rdt_on ? 0 : 3, i;
	struct table t;
	char b[64];

	sbuf_addstr(out, "NODES\n");
	table_init(&t, VP_ARRAY_SIZE(nt) - n_rdt, nt);
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
		if (s->rdt_on)
			rdt_cells(&t, &n->rdt);
	}
	table_render(&t, out, 0, true);
	table_release(&t);
}

static void text_vms(const struct top_state *s, struct sbuf *out)
{
	size_t n_rdt = s->rdt_on ? 0 : 3, i;
	struct table t;
	char b[64];
	int f;

	sbuf_addstr(out, "VMS\n");
	table_init(&t, VP_ARRAY_SIZE(vm_titles) - n_rdt, vm_titles);
	for (i = 0; i < s->n_vms; i++) {
		const struct top_vm *v = &s->vms[i];

		table_row(&t);
		table_cell(&t, "%s", sbuf_str(&v->name));
		table_cell(&t, "%s", v->hypervisor);
		table_cell(&t, "%d", v->id);
		table_cell(&t, "%zu", v->n_vcpus);
		top_fmt(b, sizeof(b), "%.1f", v->cpu_pct);
		table_cell(&t, "%s", b);
		top_fmt(b, sizeof(b), "%.1f", v->mem / 1048576.0);
		table_cell(&t, "%s", b);
		table_cell(&t, v->home >= 0 ? "%d" : "-", v->home);
		for (f = 0; f < TOP_NFACTORS; f++) {
			top_fmt_factor(b, sizeof(b), f, &v->factor[f], true);
			table_cell(&t, "%s", b);
		}
		if (s->rdt_on)
			rdt_cells(&t, &v->rdt);
	}
	if (s->n_vms)
		table_render(&t, out, 0, true);
	else
		sbuf_addstr(out, "no VMs found\n");
	table_release(&t);
}

static void text_vcpus(const struct top_state *s, struct sbuf *out)
{
	static const char *const ct[] = { "vm", ">vcpu", ">tid", ">cpu", ">node", "affinity", ">cpu%",
					  ">LOCAL", ">LLC", ">SHARE", ">IMC", ">QUEUE" };
	struct table t;
	char b[64];
	size_t i;
	int f;

	sbuf_addstr(out, "VCPUS\n");
	table_init(&t, VP_ARRAY_SIZE(ct), ct);
	for (i = 0; i < s->n_vcpus; i++) {
		const struct top_vcpu *c = &s->vcpus[i];

		table_row(&t);
		table_cell(&t, "%s", sbuf_str(&s->vms[c->vm].name));
		table_cell(&t, "%d", c->index);
		table_cell(&t, c->tid > 0 ? "%d" : "-", c->tid);
		table_cell(&t, c->cpu >= 0 ? "%d" : "-", c->cpu);
		table_cell(&t, c->node >= 0 ? "%d" : "-", c->node);
		table_cell(&t, "%s", sbuf_str(&c->affinity));
		top_fmt(b, sizeof(b), "%.1f", c->cpu_pct);
		table_cell(&t, "%s", b);
		for (f = 0; f < TOP_NFACTORS; f++) {
			top_fmt_factor(b, sizeof(b), f, &c->factor[f], true);
			table_cell(&t, "%s", b);
		}
	}
	if (s->n_vcpus)
		table_render(&t, out, 0, true);
	else
		sbuf_addstr(out, "no vCPUs\n");
	table_release(&t);
}

/* The five factor cells of the 80-column views: 8 characters each, as the narrow screen's. */
static void short_factors(struct sbuf *out, const struct top_cell *c)
{
	char b[48];
	int f;

	for (f = 0; f < TOP_NFACTORS; f++) {
		top_fmt_factor_short(b, sizeof(b), f, &c[f], true);
		sbuf_addf(out, " %8.8s", b);
	}
	sbuf_addch(out, '\n');
}

/* The node view: memory, load and vCPUs of each node, and the highest factor cells there. */
static void text_node_view(const struct top_state *s, struct sbuf *out)
{
	char a[24], b[24];
	size_t i;
	int f;

	sbuf_addstr(out, "NODES\nnode  mem_used   load  vcpus");
	for (f = 0; f < TOP_NFACTORS; f++)
		sbuf_addf(out, " %8s", top_factor_title(f));
	sbuf_addch(out, '\n');
	for (i = 0; i < s->n_nodes; i++) {
		const struct top_node *n = &s->nodes[i];
		struct top_cell c[TOP_NFACTORS];

		top_node_factors(s, i, c);
		top_fmt(a, sizeof(a), "%.0fM", n->mem_used / 1048576.0);
		top_fmt(b, sizeof(b), "%.0f%%", 100.0 * n->cpu_load);
		sbuf_addf(out, "%4d %9s %6s %6d", n->node, a, b, n->n_vcpus);
		short_factors(out, c);
	}
	if (!s->n_nodes)
		sbuf_addstr(out, "no nodes\n");
	sbuf_addstr(out, "node factors: the highest of the vCPUs on the node (by cost share, else "
			 "value)\n");
}

/* The process view, numatop's main screen for VMs: a process per VM, its memory away from home. */
static void text_process_view(const struct top_state *s, struct sbuf *out)
{
	char a[24], c[24];
	size_t i;
	int f;

	sbuf_addstr(out, "PROCESSES\n    pid process     cpu% rmem%");
	for (f = 0; f < TOP_NFACTORS; f++)
		sbuf_addf(out, " %8s", top_factor_title(f));
	sbuf_addch(out, '\n');
	for (i = 0; i < s->n_vms; i++) {
		const struct top_vm *v = &s->vms[i];
		struct top_proc p;

		top_proc_row(v, &p);
		top_fmt(a, sizeof(a), "%.1f", v->cpu_pct);
		top_fmt(c, sizeof(c), "%.1f", 100.0 * p.remote_frac);
		sbuf_addf(out, "%7d %-10.10s %5s %5s", v->id, sbuf_str(&v->name), a, c);
		short_factors(out, v->factor);
	}
	if (!s->n_vms)
		sbuf_addstr(out, "no VMs found\n");
	sbuf_addstr(out, "pid: the QEMU pid (Xen: domain id); rmem%: memory on nodes other than "
			 "home\n");
}

/* The --batch footer's width: a terminal's 80 columns (the rows fit them too). */
#define TOP_FOOT_WIDTH 80

/*
 * Append text to out folded at TOP_FOOT_WIDTH columns (bytes: a multi-byte
 * character folds early, never late): each line broken at spaces, its
 * continuations indented by two.  A word longer than a line (a path) is
 * kept whole on a line of its own rather than cut.
 */
static void fold_lines(const char *text, struct sbuf *out)
{
	const char *p = text;

	while (*p) {
		const char *end = strchr(p, '\n');
		size_t col = 0;
		bool first = true;

		if (!end)
			end = p + strlen(p);
		for (; p < end && *p == ' '; p++, col++)
			sbuf_addch(out, ' ');
		while (p < end) {
			const char *w = p, *we;

			while (w < end && *w == ' ')
				w++;
			if (w == end)
				break;
			for (we = w; we < end && *we != ' '; we++)
				;
			if (!first && col + (size_t)(we - p) > TOP_FOOT_WIDTH) {
				sbuf_addstr(out, "\n  ");
				col = 2;
			} else {
				sbuf_add(out, p, (size_t)(w - p));
				col += (size_t)(w - p);
			}
			sbuf_add(out, w, (size_t)(we - w));
			col += (size_t)(we - w);
			first = false;
			p = we;
		}
		sbuf_addch(out, '\n');
		p = *end ? end + 1 : end;
	}
}

/*
 * What follows the rows: ended series, the status and each factor's legend,
 * notes; folded at TOP_FOOT_WIDTH columns.  A reason given for more than one
 * factor is printed once, as a numbered footnote ("LLC n/a: [1]").
 */
static void text_foot(const struct top_state *s, struct sbuf *out)
{
	struct sbuf t = SBUF_INIT;
	int note[TOP_NFACTORS], n_notes = 0, f, g;
	size_t i;

	for (i = 0; i < s->n_ended; i++) {
		sbuf_addtextf(&t, "ended: %s %s (id %d)", s->ended[i].kind, sbuf_str(&s->ended[i].name),
			      s->ended[i].id);
		sbuf_addch(&t, '\n');
	}
	sbuf_addch(&t, '\n');
	if (s->cnt.status.len)
		sbuf_addf(&t, "%s\n", sbuf_str(&s->cnt.status));
	/* footnote numbers: the n/a reasons shared by two factors or more */
	for (f = 0; f < TOP_NFACTORS; f++) {
		note[f] = 0;
		if (s->cnt.state[f] == TOP_F_COUNTED || s->cnt.state[f] == TOP_F_ESTIMATED)
			continue;
		for (g = 0; g < f && !note[f]; g++)
			if (note[g] && !strcmp(sbuf_str(&s->factor_why[g]), sbuf_str(&s->factor_why[f])))
				note[f] = note[g];
		for (g = f + 1; g < TOP_NFACTORS && !note[f]; g++)
			if (s->cnt.state[g] != TOP_F_COUNTED && s->cnt.state[g] != TOP_F_ESTIMATED &&
			    !strcmp(sbuf_str(&s->factor_why[g]), sbuf_str(&s->factor_why[f])))
				note[f] = ++n_notes;
	}
	for (f = 0; f < TOP_NFACTORS; f++) {
		if (s->cnt.state[f] == TOP_F_COUNTED)
			sbuf_addf(&t, "%s counted: %s\n", top_factor_title(f), sbuf_str(&s->factor_why[f]));
		else if (s->cnt.state[f] == TOP_F_ESTIMATED)
			sbuf_addf(&t, "%s: expected remote-memory fraction; e = estimate from placement "
				  "(run time per node x memory on other nodes); %s\n",
				  top_factor_title(f), sbuf_str(&s->factor_why[f]));
		else if (note[f])
			sbuf_addf(&t, "%s n/a: [%d]\n", top_factor_title(f), note[f]);
		else
			sbuf_addf(&t, "%s n/a: %s\n", top_factor_title(f), sbuf_str(&s->factor_why[f]));
	}
	for (g = 1; g <= n_notes; g++)
		for (f = 0; f < TOP_NFACTORS; f++)
			if (note[f] == g) {
				sbuf_addf(&t, "[%d] %s\n", g, sbuf_str(&s->factor_why[f]));
				break;
			}
	for (f = 0; f < TOP_NFACTORS && s->cnt.state[f] != TOP_F_COUNTED; f++)
		;
	if (f < TOP_NFACTORS)
		sbuf_addstr(&t, "counted cells: score sN, /cost as % of cycles when it is known, "
				"each with its quality mark (none measured, " VP_QUALITY_LEGEND
				"), ! warning, !! critical\n");
	if (s->rdt_on)
		rdt_legend(s, &t);
	if (s->notes.len) {
		sbuf_addtextf(&t, "note: %s", sbuf_str(&s->notes));
		sbuf_addch(&t, '\n');
	}
	sbuf_addch(&t, '\n');
	fold_lines(sbuf_str(&t), out);
	sbuf_release(&t);
}

void top_render_text(const struct top_state *s, struct sbuf *out)
{
	size_t from = out->len;

	text_head(s, out);
	text_nodes(s, out);
	sbuf_addch(out, '\n');
	text_vms(s, out);
	sbuf_addch(out, '\n');
	text_vcpus(s, out);
	text_foot(s, out);
	/* names and reasons (from the host or a daemon): no escape sequence reaches a terminal */
	sbuf_sanitize(out, from, true);
}

void top_render_view(const struct top_state *s, enum top_view v, struct sbuf *out)
{
	size_t from = out->len;

	if (v < 0 || v >= TOP_VIEW_N) {
		top_render_text(s, out);
		return;
	}
	text_head(s, out);
	switch (v) {
	case TOP_VIEW_NODE: text_node_view(s, out); break;
	case TOP_VIEW_VM: text_vms(s, out); break;
	case TOP_VIEW_VCPU: text_vcpus(s, out); break;
	default: text_process_view(s, out); break;
	}
	text_foot(s, out);
	sbuf_sanitize(out, from, true);
}

static const char *const src_names[] = { "none", "model", "placement", "resctrl", "xen psr" };

static void json_rdt(struct jw *w, const struct top_rdt *r)
{
	jw_key(w, "resctrl");
	jw_obj_begin(w);
	jw_kdouble(w, "llc_occupancy_bytes", r->llc_bytes);
	jw_kdouble(w, "mbm_total_bytes_per_s", r->mbm_bps);
	jw_kdouble(w, "mbm_local_bytes_per_s", r->mbm_local_bps);
	jw_kstr(w, "why", r->why.len ? sbuf_str(&r->why) : NULL);
	jw_obj_end(w);
}

static void rdt_from_json(const struct jv *o, struct top_rdt *r)
{
	const struct jv *x = jv_get(o, "resctrl");
	const char *why = jv_str(x, "why");

	r->llc_bytes = jv_num(x, "llc_occupancy_bytes");
	r->mbm_bps = jv_num(x, "mbm_total_bytes_per_s");
	r->mbm_local_bps = jv_num(x, "mbm_local_bytes_per_s");
	sbuf_set(&r->why, why ? why : "");
}

static void json_factors(struct jw *w, const struct top_cell *c)
{
	int f;

	jw_key(w, "factors");
	jw_obj_begin(w);
	for (f = 0; f < TOP_NFACTORS; f++) {
		jw_key(w, factor_name(f));
		jw_obj_begin(w);
		jw_kdouble(w, "value", c[f].q.v);
		jw_kstr(w, "quality", vp_quality_name(c[f].q.q));
		jw_kstr(w, "why", c[f].q.why);
		jw_kstr(w, "source", src_names[c[f].src]);
		jw_kdouble(w, "cost_pct", c[f].cost_pct);
		jw_kstr(w, "cost_quality", isnan(c[f].cost_pct) ? NULL : vp_quality_name(c[f].cost_q));
		jw_kstr(w, "severity", severity_name(c[f].sev));
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

/* The process view's rows (topviews.h): each VM's process, its memory away from home. */
static void json_processes(struct jw *w, const struct top_state *s)
{
	size_t i;

	jw_key(w, "processes");
	jw_arr_begin(w);
	for (i = 0; i < s->n_vms; i++) {
		struct top_proc p;

		top_proc_row(&s->vms[i], &p);
		jw_obj_begin(w);
		jw_kint(w, "pid", p.vm->id);
		jw_kstr(w, "name", sbuf_str(&p.vm->name));
		jw_kstr(w, "hypervisor", p.vm->hypervisor);
		jw_kdouble(w, "cpu_pct", p.vm->cpu_pct);
		jw_kdouble(w, "mem_local_bytes", p.mem_local);
		jw_kdouble(w, "mem_remote_bytes", p.mem_remote);
		jw_kdouble(w, "rmem_pct", 100 * p.remote_frac);
		json_factors(w, p.vm->factor);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* Which model top counts with, and each factor's state. */
static void json_counters(struct jw *w, const struct top_counting *c)
{
	int f;

	jw_key(w, "counters");
	jw_obj_begin(w);
	jw_kbool(w, "on", c->on);
	jw_kstr(w, "model", c->model.len ? sbuf_str(&c->model) : NULL);
	jw_kstr(w, "model_why", c->model.len ? sbuf_str(&c->model_why) : NULL);
	jw_kstr(w, "off_why", c->on ? NULL : sbuf_str(&c->off));
	jw_kuint(w, "reopened", c->reopened);
	jw_key(w, "factors");
	jw_obj_begin(w);
	for (f = 0; f < TOP_NFACTORS; f++)
		jw_kstr(w, factor_name(f), top_fstate_name(c->state[f]));
	jw_obj_end(w);
	jw_kstr(w, "status", sbuf_str(&c->status));
	jw_obj_end(w);
}

void top_render_json(const struct top_state *s, uint64_t start_ns, struct sbuf *out)
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
		if (s->rdt_on)
			json_rdt(&w, &nd->rdt);
		{
			/* the node view's cells (topviews.h): the highest of the node's vCPUs */
			struct top_cell nf[TOP_NFACTORS];

			top_node_factors(s, i, nf);
			json_factors(&w, nf);
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	json_processes(&w, s);
	jw_key(&w, "vms");
	jw_arr_begin(&w);
	for (i = 0; i < s->n_vms; i++) {
		const struct top_vm *v = &s->vms[i];

		jw_obj_begin(&w);
		jw_kstr(&w, "name", sbuf_str(&v->name));
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
		if (s->rdt_on)
			json_rdt(&w, &v->rdt);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "vcpus");
	jw_arr_begin(&w);
	for (i = 0; i < s->n_vcpus; i++) {
		const struct top_vcpu *c = &s->vcpus[i];

		jw_obj_begin(&w);
		jw_kstr(&w, "vm", sbuf_str(&s->vms[c->vm].name));
		jw_kint(&w, "vcpu", c->index);
		jw_kint(&w, "tid", c->tid);
		jw_kint(&w, "cpu", c->cpu);
		jw_kint(&w, "node", c->node);
		jw_kstr(&w, "affinity", sbuf_str(&c->affinity));
		jw_kdouble(&w, "cpu_pct", c->cpu_pct);
		if (c->residency[0]) {
			/* exact (xentrace, context switches): measured; sampled: an estimate */
			jw_key(&w, "residency");
			jw_obj_begin(&w);
			jw_kstr(&w, "source", c->residency);
			jw_kstr(&w, "quality", vp_quality_name(strcmp(c->residency, "sampled") ?
							       VQ_MEASURED : VQ_ESTIMATE));
			jw_key(&w, "node_run_s");
			jw_arr_begin(&w);
			/* in the order of the nodes array, by node id */
			for (size_t k = 0; k < s->n_nodes; k++) {
				int id = s->nodes[k].node;

				jw_double(&w, id >= 0 && id < 8 ? c->node_run_s[id] : NAN);
			}
			jw_arr_end(&w);
			jw_obj_end(&w);
		}
		json_factors(&w, c->factor);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "ended");
	jw_arr_begin(&w);
	for (i = 0; i < s->n_ended; i++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "kind", s->ended[i].kind);
		jw_kstr(&w, "name", sbuf_str(&s->ended[i].name));
		jw_kint(&w, "id", s->ended[i].id);
		jw_kdouble(&w, "t_s", (double)(s->ended[i].ended_ns - start_ns) / 1e9);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "factor_why");
	jw_obj_begin(&w);
	for (n = 0; n < TOP_NFACTORS; n++)
		jw_kstr(&w, factor_name(n), sbuf_str(&s->factor_why[n]));
	jw_obj_end(&w);
	json_counters(&w, &s->cnt);
	jw_kbool(&w, "resctrl", s->rdt_on);
	jw_kstr(&w, "notes", sbuf_str(&s->notes));
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}


void top_init_remote(struct top_state *s)
{
	memset(s, 0, sizeof(*s));
	s->interval_s = NAN;
}

static int jint(const struct jv *o, const char *key, int dflt)
{
	const struct jv *v = jv_get(o, key);

	return v && v->type == JV_NUM ? (int)v->num : dflt;
}

static void jcopy(char *dst, size_t size, const struct jv *o, const char *key)
{
	const char *s = jv_str(o, key);

	utf8_copy(dst, size, s ? s : "");
}

/* A string member as the whole text of an sbuf field ("" when absent). */
static void jcopy_text(struct sbuf *dst, const struct jv *o, const char *key)
{
	const char *s = jv_str(o, key);

	sbuf_reset(dst);
	sbuf_addutf8(dst, s ? s : "");
}

/* The quality named name (vp_quality_lookup()); unavailable when absent or unknown. */
static enum vp_quality quality_of(const char *name)
{
	int q = name ? vp_quality_lookup(name) : -1;

	return q < 0 ? VQ_UNAVAILABLE : (enum vp_quality)q;
}

static enum severity severity_of(const char *name)
{
	static const enum severity all[] = { SEV_OK, SEV_WARNING, SEV_CRITICAL };
	size_t i;

	for (i = 0; name && i < VP_ARRAY_SIZE(all); i++)
		if (!strcmp(name, severity_name(all[i])))
			return all[i];
	return SEV_NA;
}

/* Lines from before top counted have no source: the software figures it had then. */
static enum top_src src_of(const char *name, int f, const struct qval *q)
{
	size_t i;

	for (i = 0; name && i < VP_ARRAY_SIZE(src_names); i++)
		if (!strcmp(name, src_names[i]))
			return (enum top_src)i;
	if (isnan(q->v))
		return TOP_SRC_NONE;
	return f == FACTOR_LLC && q->q == VQ_MEASURED ? TOP_SRC_RESCTRL :
	       q->q == VQ_ESTIMATE ? TOP_SRC_PLACEMENT : TOP_SRC_NONE;
}

static void factors_from_json(const struct jv *o, struct top_cell *c)
{
	const struct jv *fs = jv_get(o, "factors");
	int f;

	for (f = 0; f < TOP_NFACTORS; f++) {
		const struct jv *e = jv_get(fs, factor_name(f));

		c[f].q.v = jv_num(e, "value");
		c[f].q.q = quality_of(jv_str(e, "quality"));
		c[f].q.why = jv_str(e, "why");
		c[f].cost_pct = jv_num(e, "cost_pct");
		/* a line without cost_quality (older): the value's */
		c[f].cost_q = jv_str(e, "cost_quality") ? quality_of(jv_str(e, "cost_quality")) : c[f].q.q;
		c[f].sev = severity_of(jv_str(e, "severity"));
		c[f].src = src_of(jv_str(e, "source"), f, &c[f].q);
	}
}

static enum top_fstate fstate_of(const char *name, int f)
{
	static const enum top_fstate all[] = { TOP_F_COUNTED, TOP_F_ESTIMATED, TOP_F_UNAVAILABLE };
	size_t i;

	for (i = 0; name && i < VP_ARRAY_SIZE(all); i++)
		if (!strcmp(name, top_fstate_name(all[i])))
			return all[i];
	return f == FACTOR_LOCALITY ? TOP_F_ESTIMATED : TOP_F_UNAVAILABLE;
}

/* The counters object (absent in lines from before top counted: software only). */
static void counters_from_json(struct top_counting *c, const struct jv *o)
{
	const struct jv *fs = jv_get(o, "factors"), *on = jv_get(o, "on");
	int f;

	c->on = on && on->type == JV_BOOL && on->b;
	jcopy_text(&c->model, o, "model");
	jcopy_text(&c->model_why, o, "model_why");
	jcopy_text(&c->off, o, "off_why");
	jcopy_text(&c->status, o, "status");
	c->reopened = isfinite(jv_num(o, "reopened")) ? (unsigned long)jv_num(o, "reopened") : 0;
	for (f = 0; f < TOP_NFACTORS; f++)
		c->state[f] = fstate_of(jv_str(fs, factor_name(f)), f);
}

int top_from_json(struct top_state *s, const struct jv *v, struct vp_err *err)
{
	const struct jv *nodes = jv_arr(v, "nodes"), *vms = jv_arr(v, "vms"), *vcpus = jv_arr(v, "vcpus");
	const struct jv *ended = jv_arr(v, "ended"), *why = jv_get(v, "factor_why");
	size_t i, k;
	int f, n;

	if (!v || v->type != JV_OBJ || !nodes || !vms || !vcpus || jv_get(v, "sample") == NULL)
		return vp_err_set(err, VP_EFORMAT, "not a 'top --json' sample (no sample, nodes, vms "
				  "and vcpus)");
	/* NULL and 0 until filled: a sample refused half-way (a vCPU of no VM) leaves nothing
	 * that top_release() would free twice (fuzz_top_json found the double free) */
	top_rows_release(s);
	s->samples = (unsigned long)jv_num(v, "sample");
	s->interval_s = jv_num(v, "interval_s");
	s->t_ns = isfinite(jv_num(v, "t_s")) ? (uint64_t)(jv_num(v, "t_s") * 1e9) : 0;
	jcopy_text(&s->notes, v, "notes");
	counters_from_json(&s->cnt, jv_get(v, "counters"));
	s->rdt_on = jv_get(v, "resctrl") && jv_get(v, "resctrl")->type == JV_BOOL &&
		    jv_get(v, "resctrl")->b;
	for (f = 0; f < TOP_NFACTORS; f++)
		jcopy_text(&s->factor_why[f], why, factor_name(f));

	s->n_nodes = nodes->n;
	s->nodes = xcalloc(nodes->n ? nodes->n : 1, sizeof(*s->nodes));
	for (i = 0; i < nodes->n; i++) {
		const struct jv *o = &nodes->items[i];
		struct top_node *r = &s->nodes[i];

		r->node = jint(o, "node", -1);
		r->mem_total = jv_num(o, "mem_total_bytes");
		r->mem_used = jv_num(o, "mem_used_bytes");
		r->local_rate = jv_num(o, "local_pages_per_s");
		r->remote_rate = jv_num(o, "remote_pages_per_s");
		r->miss_rate = jv_num(o, "miss_pages_per_s");
		r->cpu_load = jv_num(o, "cpu_load");
		r->n_vcpus = jint(o, "vcpus", 0);
		rdt_from_json(o, &r->rdt);
	}
	s->n_vms = vms->n;
	s->vms = xcalloc(vms->n ? vms->n : 1, sizeof(*s->vms));
	for (i = 0; i < vms->n; i++) {
		const struct jv *o = &vms->items[i], *mn = jv_arr(o, "mem_node_bytes");
		struct top_vm *r = &s->vms[i];
		const char *hv = jv_str(o, "hypervisor");

		r->ent = (int)i;
		jcopy_text(&r->name, o, "name");
		r->hypervisor = hv ? hv : "?";
		r->id = jint(o, "id", -1);
		r->n_vcpus = (size_t)jint(o, "vcpus", 0);
		r->cpu_pct = jv_num(o, "cpu_pct");
		r->mem = jv_num(o, "mem_bytes");
		for (n = 0; n < 8; n++)
			r->mem_node[n] = mn && (size_t)n < mn->n && mn->items[n].type == JV_NUM ?
					 mn->items[n].num : NAN;
		r->home = jint(o, "home_node", -1);
		factors_from_json(o, r->factor);
		rdt_from_json(o, &r->rdt);
	}
	s->n_vcpus = vcpus->n;
	s->vcpus = xcalloc(vcpus->n ? vcpus->n : 1, sizeof(*s->vcpus));
	for (i = 0; i < vcpus->n; i++) {
		const struct jv *o = &vcpus->items[i];
		struct top_vcpu *r = &s->vcpus[i];
		const char *vm = jv_str(o, "vm");

		/* the VM row of the same name (names are unique within a sample) */
		for (k = 0; k < s->n_vms && (!vm || strcmp(sbuf_str(&s->vms[k].name), vm)); k++)
			;
		if (k == s->n_vms) {
			s->n_vcpus = i;
			return vp_err_set(err, VP_EFORMAT, "vCPU row %zu names VM '%s', which is not in the "
					  "sample", i, vm ? vm : "(none)");
		}
		r->vm = k;
		r->ent = (int)i;
		r->index = jint(o, "vcpu", -1);
		r->tid = jint(o, "tid", -1);
		r->cpu = jint(o, "cpu", -1);
		r->node = jint(o, "node", -1);
		jcopy_text(&r->affinity, o, "affinity");
		r->cpu_pct = jv_num(o, "cpu_pct");
		factors_from_json(o, r->factor);
	}
	s->n_ended = ended ? ended->n : 0;
	s->ended = xcalloc(s->n_ended ? s->n_ended : 1, sizeof(*s->ended));
	for (i = 0; i < s->n_ended; i++) {
		const struct jv *o = &ended->items[i];

		jcopy(s->ended[i].kind, sizeof(s->ended[i].kind), o, "kind");
		jcopy_text(&s->ended[i].name, o, "name");
		s->ended[i].id = jint(o, "id", -1);
	}
	return 0;
}
