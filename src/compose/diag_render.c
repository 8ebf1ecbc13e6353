/* diag_render.c - the diagnosis as text and JSON (diagnose, report, the daemon), and its JSON read back (the remote client) */
#include "compose/diag_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/vms_view.h"
#include "util/alloc.h"
#include "util/json.h"
#include "util/table.h"


/* s, or "" for NULL (a text the diagnosis did not fill). */
static const char *str_or(const char *s)
{
	return s ? s : "";
}

/* v in fmt, "n/a" when NaN. */
static const char *fmt_num(char *buf, size_t size, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, size, fmt, v);
	else
		snprintf(buf, size, "n/a");
	return buf;
}

static const char *fmt_pct(char *buf, size_t size, double v)
{
	return fmt_num(buf, size, "%.1f%%", v);
}

/* Name of a bottleneck's entity, whole: "web vCPU 0", "VM web", "node 1". */
/* " [pid P]" when another VM of the run has the same name (a VM restarted under its name). */
static void incarnation(const struct diag_input *in, size_t vi, struct sbuf *out)
{
	const struct diag_vm *vm = &in->vms[vi];
	size_t i;

	for (i = 0; vm->name && vm->pid > 0 && i < in->n_vms; i++)
		if (i != vi && in->vms[i].name && !strcmp(in->vms[i].name, vm->name)) {
			sbuf_addf(out, " [pid %d]", vm->pid);
			return;
		}
}

/* A table's VM cell: its name, and its pid when a restart gave the name to two VMs. */
static void vm_cell(struct table *t, const struct diag_input *in, size_t vi)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addstr(&sb, in->vms[vi].name);
	incarnation(in, vi, &sb);
	table_cell(t, "%s", sbuf_str(&sb));
	sbuf_release(&sb);
}

static void entity_name(const struct diag_input *in, const struct diag_bottleneck *b,
			struct sbuf *out)
{
	switch (b->scope) {
	case DIAG_VCPU: {
		const struct diag_vcpu *v = &in->vcpus[b->entity];
		const struct diag_vm *vm = &in->vms[v->vm];

		sbuf_addstr(out, vm->name);
		incarnation(in, v->vm, out);
		sbuf_addf(out, " %s %d", vm->adapter == HVA_NATIVE ? "thread" : "vCPU", v->index);
		break;
	}
	case DIAG_VM:
		sbuf_addf(out, "%s %s", in->vms[b->entity].adapter == HVA_NATIVE ? "process" : "VM",
			  in->vms[b->entity].name);
		incarnation(in, b->entity, out);
		break;
	case DIAG_NODE:
		sbuf_addf(out, "node %d", in->nodes[b->entity].id);
		break;
	}
}

/* Why factor f cannot be evaluated with this model here; NULL when it can. */
const char *factor_unavailable(const struct model *m, const struct model_avail *av,
				      enum factor_id f)
{
	/* av's reason first: the collector adds what would enable it here (Xen) */
	if (m->factors[f].quality == VQ_UNAVAILABLE)
		return av->factor_reason[f] ? av->factor_reason[f] : m->factors[f].reason ?
		       m->factors[f].reason : "the model cannot see it";
	if (!av->factor_ok[f])
		return av->factor_reason[f] ? av->factor_reason[f] : "its inputs are missing here";
	return NULL;
}

/* --resctrl: the VMs' groups on the node's L3 domain. */
static void rdt_text(const struct diag_node *n, struct sbuf *out)
{
	char a[32], b[32], c[32];

	fmt_num(a, sizeof(a), "%.1f MiB", n->rdt_llc_bytes / 1048576.0);
	fmt_num(b, sizeof(b), "%.3g GB/s", n->rdt_mbm_gbs);
	fmt_num(c, sizeof(c), "%.3g GB/s", n->rdt_mbm_local_gbs);
	sbuf_addf(out, "    resctrl, the VMs' groups on its L3: LLC occupancy %s, memory traffic %s "
		       "(local %s)", a, b, c);
	if (n->rdt_why && n->rdt_why[0])
		sbuf_addtextf(out, "; n/a: %s", n->rdt_why);
	sbuf_addch(out, '\n');
}

/* Each VM's memory per node, which the placement estimate of locality weighs. */
static void mem_text(const struct diag_input *in, struct sbuf *out)
{
	static const char *const cols[] = { "vm", "memory per node" };
	struct table t;
	size_t i;

	sbuf_addstr(out, "\nMemory per node (what the placement estimate of locality weighs)\n");
	table_init(&t, VP_ARRAY_SIZE(cols), cols);
	for (i = 0; i < in->n_vms; i++) {
		struct sbuf sb = SBUF_INIT;

		vms_mem_node_text(in->vms[i].mem_node, in->vms[i].n_mem_nodes, in->vms[i].mem_reason,
				  &sb);
		table_row(&t);
		vm_cell(&t, in, i);
		table_cell(&t, "%s", sbuf_str(&sb));
		sbuf_release(&sb);
	}
	table_render(&t, out, 2, true);
	table_release(&t);
}

/*
 * Each node's five factor costs (the threads that ran there, % of their
 * cycles) with each one's 95 % interval over the run's samples.
 */
static void node_costs_text(const struct dview *dv, struct sbuf *out)
{
	const struct diag_input *in = dv->in;
	const char *cols[1 + FACTOR_N];
	char titles[FACTOR_N][24];
	struct table t;
	size_t i;
	int f;
	bool any = false;

	for (i = 0; i < in->n_nodes; i++)
		for (f = 0; f < FACTOR_N; f++)
			any |= isfinite(in->nodes[i].cost_pct[f]);
	if (!any)
		return;
	cols[0] = "node";
	for (f = 0; f < FACTOR_N; f++) {
		snprintf(titles[f], sizeof(titles[f]), ">%s", factor_name((enum factor_id)f));
		cols[1 + f] = titles[f];
	}
	sbuf_addstr(out, "\nFactor cost per node (% of the cycles of the threads that ran there "
			 "and have the cost, "
			 "[its 95% interval over the samples]; n/a: not measurable or no thread "
			 "ran there)\n");
	table_init(&t, 1 + FACTOR_N, cols);
	for (i = 0; i < in->n_nodes; i++) {
		const struct diag_node *nd = &in->nodes[i];

		table_row(&t);
		table_cell(&t, "%d", nd->id);
		for (f = 0; f < FACTOR_N; f++) {
			const struct cost_ci *c = cost_ci_find_node(dv->ci, nd->id, f);

			if (factor_unavailable(dv->m, dv->av, (enum factor_id)f) ||
			    !isfinite(nd->cost_pct[f]))
				table_cell(&t, "n/a");
			else if (c && isfinite(c->lo) && isfinite(c->hi))
				table_cell(&t, "%.1f%% [%.1f, %.1f]", nd->cost_pct[f], c->lo, c->hi);
			else
				table_cell(&t, "%.1f%%", nd->cost_pct[f]);
		}
	}
	table_render(&t, out, 2, true);
	table_release(&t);
	/* a share over some of the node's threads says which it leaves out */
	for (i = 0; i < in->n_nodes; i++)
		for (f = 0; f < FACTOR_N; f++) {
			const struct diag_node *nd = &in->nodes[i];

			if (!isfinite(nd->cost_pct[f]) || nd->cost_left_out[f] <= 0 ||
			    factor_unavailable(dv->m, dv->av, (enum factor_id)f))
				continue;
			sbuf_addf(out, "  node %d %s: over the threads that have the cost; %d thread%s "
				  "without it left out", nd->id, factor_name((enum factor_id)f),
				  nd->cost_left_out[f], nd->cost_left_out[f] == 1 ? "" : "s");
			if (isfinite(nd->cost_left_out_share[f]))
				sbuf_addf(out, " (%.0f%% of the node's cycles)",
					  100 * nd->cost_left_out_share[f]);
			sbuf_addstr(out, "\n");
		}
}

void diag_render_text(const struct dview *dv, const char *head, struct sbuf *out)
{
	const struct model *m = dv->m;
	const struct collect_frame *fr = dv->fr;
	const struct diag_input *in = dv->in;
	const struct diag_result *r = dv->r;
	static const char *const bcols[] = { ">#", "where", "factor", ">cost", "95% interval",
					     "severity", "quality", "confidence", "evidence" };
	const struct model_avail *av = dv->av;
	struct table t;
	struct sbuf name = SBUF_INIT;
	char buf2[64];
	size_t i, from = out->len;
	int f;

	sbuf_addstr(out, head);
	sbuf_addstr(out, "\nBottlenecks, ranked by cost (% of the entity's cycles; factor cpu: "
		    "time waiting for a CPU, % of its run + wait time)\n");
	if (!r->n_b) {
		sbuf_addstr(out, "  none among the factors that could be evaluated here\n");
	} else {
		table_init(&t, VP_ARRAY_SIZE(bcols), bcols);
		for (i = 0; i < r->n_b; i++) {
			const struct diag_bottleneck *b = &r->b[i];

			sbuf_reset(&name);
			entity_name(in, b, &name);
			table_row(&t);
			table_cell(&t, "%zu", i + 1);
			table_cell(&t, "%s", sbuf_str(&name));
			table_cell(&t, "%s", diag_factor_name(b->factor));
			table_cell(&t, "%s", fmt_pct(buf2, sizeof(buf2), b->cost_pct));
			if (isfinite(b->ci_lo) && isfinite(b->ci_hi))
				table_cell(&t, "[%.1f, %.1f]", b->ci_lo, b->ci_hi);
			else
				table_cell(&t, "n/a");
			table_cell(&t, "%s", severity_name(b->sev));
			table_cell(&t, "%s", vp_quality_name(b->quality));
			table_cell(&t, "%s", diag_confidence_name(b->confidence));
			if (isfinite(b->ci_lo) && b->ci_holds_zero)
				table_cell(&t, "%s; its 95%% interval [%.1f, %.1f] holds 0: not "
					   "distinguishable from no cost", str_or(b->evidence), b->ci_lo,
					   b->ci_hi);
			else
				table_cell(&t, "%s", str_or(b->evidence));
		}
		table_render(&t, out, 2, true);
		table_release(&t);
	}

	if (in->n_vms) {
		const char *cols[2 + FACTOR_N + 2];
		char titles[FACTOR_N][24];

		cols[0] = in->vms[0].adapter == HVA_NATIVE ? "process" : "vm";
		cols[1] = ">vcpus";
		for (f = 0; f < FACTOR_N; f++) {
			snprintf(titles[f], sizeof(titles[f]), ">%s", factor_name((enum factor_id)f));
			cols[2 + f] = titles[f];
		}
		cols[2 + FACTOR_N] = ">interaction";
		cols[3 + FACTOR_N] = ">memory stall";
		sbuf_addstr(out, "\nFactor cost per VM (% of cycles: what removing that factor alone "
				 "would save; " VP_QUALITY_LEGEND "; a score is shown as 'sN' where "
				 "no cost is known; "
				 "interaction: what no single factor owns; docs/method.md)\n");
		table_init(&t, 4 + FACTOR_N, cols);
		for (i = 0; i < in->n_vms; i++) {
			size_t nv = 0, v;
			char cell[48];

			for (v = 0; v < in->n_vcpus; v++)
				nv += in->vcpus[v].vm == i;
			table_row(&t);
			vm_cell(&t, in, i);
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
				else
					table_cell(&t, "%s", vp_factor_cell(cell, sizeof(cell),
						   r->vm[i].cost_pct[f], r->vm[i].quality[f],
						   row ? row->fv[f].score : NAN,
						   row ? frame_factor_quality(m, fr, row, f) :
						   VQ_UNAVAILABLE));
			}
			if (isfinite(r->vm[i].remainder_pct))
				table_cell(&t, "%.1f%%", r->vm[i].remainder_pct);
			else
				table_cell(&t, "n/a");
			if (isfinite(r->vm[i].stall_pct))
				table_cell(&t, "%.0f%% %s", r->vm[i].stall_pct,
					   r->vm[i].memory_bound ? "bound" : "ok");
			else
				table_cell(&t, "n/a");
		}
		table_render(&t, out, 2, true);
		table_release(&t);
		/* a share over some of the VM's vCPUs says which it leaves out */
		for (i = 0; i < in->n_vms; i++)
			for (f = 0; f < FACTOR_N; f++) {
				const struct diag_vm_summary *s = &r->vm[i];

				if (!isfinite(s->cost_pct[f]) || s->cost_left_out[f] <= 0 ||
				    factor_unavailable(m, av, (enum factor_id)f))
					continue;
				sbuf_addf(out, "  %s %s: over the vCPUs that have the cost; %d vCPU%s "
					  "without it left out", in->vms[i].name,
					  factor_name((enum factor_id)f), s->cost_left_out[f],
					  s->cost_left_out[f] == 1 ? "" : "s");
				if (isfinite(s->cost_left_out_share[f]))
					sbuf_addf(out, " (%.0f%% of the VM's cycles)",
						  100 * s->cost_left_out_share[f]);
				sbuf_addstr(out, "\n");
			}
		mem_text(in, out);
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
			sbuf_addtextf(out, "  %-9s %s", factor_name((enum factor_id)f), why);
			sbuf_addch(out, '\n');
		}
		if (!any)
			sbuf_addstr(out, "  every factor has a source in this model\n");
	}

	sbuf_addstr(out, "\nNodes\n");
	for (i = 0; i < in->n_nodes; i++) {
		sbuf_addtextf(out, "  node %d (CPUs %s): %s", in->nodes[i].id, in->nodes[i].cpus,
			      r->node_notes[i]);
		sbuf_addch(out, '\n');
		if (in->nodes[i].rdt)
			rdt_text(&in->nodes[i], out);
	}
	node_costs_text(dv, out);
	if (isfinite(r->imbalance))
		sbuf_addf(out, "  imbalance (sigma/mu of node bandwidth): %.0f%%\n", 100 * r->imbalance);

	sbuf_addstr(out, "\nAdvice\n");
	if (!r->n_a)
		sbuf_addstr(out, "  none: no bottleneck that a placement change would relieve\n");
	for (i = 0; i < r->n_a; i++) {
		const struct diag_advice *a = &r->a[i];
		const char *p, *nl;

		/* each sentence one line: a newline in a VM name inside it is '?' */
		sbuf_addtextf(out, "  %zu. %s  [%s]", i + 1, str_or(a->action), a->rule);
		sbuf_addch(out, '\n');
		sbuf_addtextf(out, "     evidence: %s", str_or(a->evidence));
		sbuf_addch(out, '\n');
		sbuf_addtextf(out, "     expected: %s", str_or(a->effect));
		sbuf_addch(out, '\n');
		if (a->conflict) {
			sbuf_addtextf(out, "     CONFLICT: %s", str_or(a->conflict_note));
			sbuf_addch(out, '\n');
		}
		if (a->restart) {
			sbuf_addtextf(out, "     after a restart: %s", a->restart);
			sbuf_addch(out, '\n');
		}
		if (a->needs) {
			sbuf_addtextf(out, "     needs: %s", a->needs);
			sbuf_addch(out, '\n');
		}
		if (a->warning) {
			sbuf_addtextf(out, "     WARNING: %s", a->warning);
			sbuf_addch(out, '\n');
		}
		sbuf_addstr(out, "     commands:\n");
		for (p = str_or(a->command); *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p) - 1;
			sbuf_addtextf(out, "       %.*s", (int)(nl - p + (*nl != '\n')), p);
			sbuf_addch(out, '\n');
		}
	}
	if (fr->notes.len) {
		sbuf_addch(out, '\n');
		sbuf_addtextf(out, "Notes: %s", sbuf_str(&fr->notes));
		sbuf_addch(out, '\n');
	}
	/* the head, names and reasons: no escape sequence reaches a terminal */
	sbuf_sanitize(out, from, true);
	sbuf_release(&name);
}

void diag_render_json(const struct dview *dv, struct sbuf *out)
{
	const struct model *m = dv->m;
	const struct model_avail *av = dv->av;
	struct jw w;
	size_t i;
	int f;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_kstr(&w, "model", m->name);
	jw_kdouble(&w, "duration_s", dv->fr->duration);
	jw_kuint(&w, "targets", dv->targets);
	jw_kstr(&w, "calibration", dv->cal_note);
	if (dv->recording)
		jw_kstr(&w, "recording", dv->recording);
	jw_key(&w, "unavailable");
	jw_obj_begin(&w);
	for (f = 0; f < FACTOR_N; f++) {
		const char *why = factor_unavailable(m, av, (enum factor_id)f);

		if (why)
			jw_kstr(&w, factor_name((enum factor_id)f), why);
	}
	jw_obj_end(&w);
	/* the model's quality of each factor it can give here: one it cannot is
	 * unavailable (with its reason above), not the quality it would have */
	jw_key(&w, "factor_quality");
	jw_obj_begin(&w);
	for (f = 0; f < FACTOR_N; f++)
		jw_kstr(&w, factor_name((enum factor_id)f),
			vp_quality_name(factor_unavailable(m, av, (enum factor_id)f) ?
					VQ_UNAVAILABLE : m->factors[f].quality));
	jw_obj_end(&w);
	jw_key(&w, "inputs_not_counted");
	jw_obj_begin(&w);
	for (i = 0; i < m->n_inputs; i++) {
		const char *why = dv->input_reason[i];

		if (why)
			jw_kstr(&w, m->inputs[i].name, why);
	}
	jw_obj_end(&w);
	jw_kstr(&w, "notes", sbuf_str(&dv->fr->notes));
	if (dv->ci) {
		jw_key(&w, "cost_intervals");
		cost_ci_json(dv->ci, &w);
	}
	jw_key(&w, "diagnosis");
	diag_result_write(dv->in, dv->r, &w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}


/* ---- reading diagnose --json back ---- */

/* The enum value whose name(i) is s, for i in [0, n); -1 when none. */
static const char *n_factor(int i) { return diag_factor_name((enum factor_id)i); }
static const char *n_sev(int i) { return severity_name((enum severity)i); }
static const char *n_quality(int i) { return vp_quality_name((enum vp_quality)i); }
static const char *n_conf(int i) { return diag_confidence_name((enum diag_confidence)i); }
static const char *n_scope(int i) { return diag_scope_name((enum diag_scope)i); }

static size_t vm_index(const struct diag_input *in, const char *name)
{
	size_t i;

	for (i = 0; name && i < in->n_vms; i++)
		if (!strcmp(in->vms[i].name, name))
			return i;
	return (size_t)-1;
}

/* Index of the vCPU numbered index of VM vm, or (size_t)-1. */
static size_t vcpu_index(const struct diag_input *in, size_t vm, int index)
{
	size_t i;

	for (i = 0; i < in->n_vcpus; i++)
		if (in->vcpus[i].vm == vm && in->vcpus[i].index == index)
			return i;
	return (size_t)-1;
}

static int bad(struct vp_err *err, const char *what)
{
	return vp_err_set(err, VP_EFORMAT, "not a 'diagnose --json' document: %s", what);
}

int dview_from_json(struct dview_json *dj, const struct jv *doc, struct vp_err *err)
{
	const struct jv *d = jv_get(doc, "diagnosis"), *una = jv_get(doc, "unavailable");
	const struct jv *fq = jv_get(doc, "factor_quality");
	const struct jv *vms = jv_arr(d, "vms"), *nodes = jv_arr(d, "nodes");
	const struct jv *bs = jv_arr(d, "bottlenecks"), *adv = jv_arr(d, "advice");
	struct diag_input *in = &dj->in;
	struct diag_result *r = &dj->r;
	size_t i, k, n_vcpus = 0;
	int f;

	memset(dj, 0, sizeof(*dj));
	if (!d || !vms || !nodes || !bs || !adv || !jv_str(doc, "model"))
		return bad(err, "no model, or diagnosis without vms, nodes, bottlenecks and advice");
	dj->m.name = (char *)jv_str(doc, "model");
	for (f = 0; f < FACTOR_N; f++) {
		const char *why = jv_str(una, factor_name((enum factor_id)f));
		int q = jv_enum(jv_str(fq, factor_name((enum factor_id)f)), VQ_UNAVAILABLE + 1, n_quality);

		dj->m.factors[f].quality = why ? VQ_UNAVAILABLE : q >= 0 ? (enum vp_quality)q : VQ_PROXY;
		dj->m.factors[f].reason = (char *)why;
		dj->av.factor_ok[f] = true;
	}

	/* VMs, their vCPUs and one frame row per VM (its scores) */
	for (i = 0; i < vms->n; i++) {
		const struct jv *v = jv_arr(&vms->items[i], "vcpus");

		n_vcpus += v ? v->n : 0;
	}
	in->n_vms = r->n_vms = vms->n;
	in->vms = xcalloc(vms->n ? vms->n : 1, sizeof(*in->vms));
	r->vm = xcalloc(vms->n ? vms->n : 1, sizeof(*r->vm));
	in->vcpus = xcalloc(n_vcpus ? n_vcpus : 1, sizeof(*in->vcpus));
	dj->fr.rows = xcalloc(vms->n ? vms->n : 1, sizeof(*dj->fr.rows));
	dj->fr.n_rows = vms->n;
	for (i = 0; i < vms->n; i++) {
		const struct jv *o = &vms->items[i], *v = jv_arr(o, "vcpus"), *fs = jv_get(o, "factors");
		const char *kind = jv_str(o, "kind");
		const struct jv *mb = jv_get(o, "memory_bound");
		struct collect_row *row = &dj->fr.rows[i];

		if (!jv_str(o, "vm") || !v || !kind)
			return bad(err, "a VM without vm, kind or vcpus");
		in->vms[i].name = jv_str(o, "vm");
		in->vms[i].adapter = !strcmp(kind, "process") ? HVA_NATIVE : HVA_KVM;
		for (k = 0; k < v->n; k++) {
			in->vcpus[in->n_vcpus].vm = i;
			in->vcpus[in->n_vcpus++].index = v->items[k].type == JV_NUM ? (int)v->items[k].num : -1;
		}
		row->kind = in->vms[i].adapter == HVA_NATIVE ? ENT_PROCESS : ENT_VM;
		r->vm[i].memory_bound = mb && mb->type == JV_BOOL && mb->b;
		r->vm[i].memory_bound_known = mb && mb->type == JV_BOOL;
		r->vm[i].stall_pct = jv_num(o, "memory_stall_pct");
		r->vm[i].remainder_pct = jv_num(o, "interaction_pct");
		in->vms[i].mem_node = vms_mem_node_from_json(jv_get(o, "mem_node_bytes"),
							     &in->vms[i].n_mem_nodes);
		in->vms[i].mem_reason = jv_str(o, "mem_reason");
		for (f = 0; f < FACTOR_N; f++) {
			const struct jv *e = jv_get(fs, factor_name((enum factor_id)f));
			int q = jv_enum(jv_str(e, "quality"), VQ_UNAVAILABLE + 1, n_quality);
			double lo = jv_num(e, "cost_left_out");

			r->vm[i].cost_pct[f] = jv_num(e, "cost_pct");
			/* a daemon before cost_left_out: none said */
			r->vm[i].cost_left_out[f] = isfinite(lo) && lo > 0 ? (int)lo : 0;
			r->vm[i].cost_left_out_share[f] = jv_num(e, "cost_left_out_share");
			r->vm[i].quality[f] = q >= 0 ? (enum vp_quality)q : VQ_UNAVAILABLE;
			row->fv[f].score = jv_num(e, "score");
		}
	}
	r->n_vcpus = in->n_vcpus;

	in->n_nodes = r->n_nodes = nodes->n;
	in->nodes = xcalloc(nodes->n ? nodes->n : 1, sizeof(*in->nodes));
	r->node_notes = xcalloc(nodes->n ? nodes->n : 1, sizeof(*r->node_notes));
	for (i = 0; i < nodes->n; i++) {
		const struct jv *o = &nodes->items[i];

		diag_node_init(&in->nodes[i], (int)jv_num(o, "node"),
			       jv_str(o, "cpus") ? jv_str(o, "cpus") : "?", 0);
		for (f = 0; f < FACTOR_N; f++) {
			const char *fn = factor_name((enum factor_id)f);
			double lo = jv_num(jv_get(o, "cost_left_out"), fn);

			in->nodes[i].cost_pct[f] = jv_num(jv_get(o, "cost_pct"), fn);
			/* a daemon before cost_left_out: none said */
			in->nodes[i].cost_left_out[f] = isfinite(lo) && lo > 0 ? (int)lo : 0;
			in->nodes[i].cost_left_out_share[f] =
				jv_num(jv_get(o, "cost_left_out_share"), fn);
		}
		r->node_notes[i] = (char *)(jv_str(o, "note") ? jv_str(o, "note") : "");
		if (jv_get(o, "resctrl") && jv_get(o, "resctrl")->type == JV_OBJ) {
			const struct jv *x = jv_get(o, "resctrl");

			in->nodes[i].rdt = true;
			in->nodes[i].rdt_llc_bytes = jv_num(x, "llc_occupancy_bytes");
			in->nodes[i].rdt_mbm_gbs = jv_num(x, "mbm_total_gbs");
			in->nodes[i].rdt_mbm_local_gbs = jv_num(x, "mbm_local_gbs");
			in->nodes[i].rdt_why = jv_str(x, "why");
		}
	}
	r->imbalance = jv_num(d, "imbalance");

	r->n_b = bs->n;
	r->b = xcalloc(bs->n ? bs->n : 1, sizeof(*r->b));
	for (i = 0; i < bs->n; i++) {
		const struct jv *o = &bs->items[i];
		struct diag_bottleneck *b = &r->b[i];
		int scope = jv_enum(jv_str(o, "scope"), DIAG_NODE + 1, n_scope);
		int fac = jv_enum(jv_str(o, "factor"), FACTOR_N + 1, n_factor); /* and "cpu" */
		size_t vm = vm_index(in, jv_str(o, "vm"));

		if (scope < 0 || fac < 0)
			return bad(err, "a bottleneck without scope or factor");
		b->scope = (enum diag_scope)scope;
		b->factor = (enum factor_id)fac;
		if (b->scope == DIAG_VM)
			b->entity = vm;
		else if (b->scope == DIAG_VCPU)
			b->entity = vm == (size_t)-1 ? vm : vcpu_index(in, vm, (int)jv_num(o, "vcpu"));
		else
			for (b->entity = (size_t)-1, k = 0; k < in->n_nodes; k++)
				if (in->nodes[k].id == (int)jv_num(o, "node"))
					b->entity = k;
		if (b->entity == (size_t)-1)
			return bad(err, "a bottleneck names an entity the document does not list");
		b->cost_pct = jv_num(o, "cost_pct");
		b->cost_cycles = jv_num(o, "cost_cycles");
		f = jv_enum(jv_str(o, "severity"), SEV_CRITICAL + 1, n_sev);
		b->sev = f >= 0 ? (enum severity)f : SEV_NA;
		f = jv_enum(jv_str(o, "quality"), VQ_UNAVAILABLE + 1, n_quality);
		b->quality = f >= 0 ? (enum vp_quality)f : VQ_UNAVAILABLE;
		f = jv_enum(jv_str(o, "confidence"), CONF_HIGH + 1, n_conf);
		b->confidence = f >= 0 ? (enum diag_confidence)f : CONF_LOW;
		b->evidence = xstrdup(jv_str(o, "evidence") ? jv_str(o, "evidence") : "");
		{
			const struct jv *ci = jv_get(o, "cost_interval");

			b->ci_lo = ci && ci->type == JV_OBJ ? jv_num(ci, "lo") : NAN;
			b->ci_hi = ci && ci->type == JV_OBJ ? jv_num(ci, "hi") : NAN;
			b->ci_holds_zero = ci && ci->type == JV_OBJ && jv_get(ci, "holds_zero") &&
					   jv_get(ci, "holds_zero")->b;
		}
	}

	r->n_a = adv->n;
	r->a = xcalloc(adv->n ? adv->n : 1, sizeof(*r->a));
	for (i = 0; i < adv->n; i++) {
		const struct jv *o = &adv->items[i], *c = jv_get(o, "conflict");
		struct diag_advice *a = &r->a[i];

		a->rule = jv_str(o, "rule") ? jv_str(o, "rule") : "?";
		a->vm = vm_index(in, jv_str(o, "vm"));
		a->vcpu = isfinite(jv_num(o, "vcpu")) ? (int)jv_num(o, "vcpu") : -1;
		a->to_node = -1;
		a->gain_pct = jv_num(o, "gain_pct");
		a->action = xstrdup(jv_str(o, "action") ? jv_str(o, "action") : "");
		a->evidence = xstrdup(jv_str(o, "evidence") ? jv_str(o, "evidence") : "");
		a->effect = xstrdup(jv_str(o, "effect") ? jv_str(o, "effect") : "");
		a->command = xstrdup(jv_str(o, "command") ? jv_str(o, "command") : "");
		a->conflict = c && c->type == JV_BOOL && c->b;
		a->conflict_note = jv_str(o, "conflict_note") ? xstrdup(jv_str(o, "conflict_note")) : NULL;
		a->restart = jv_str(o, "survives_restart") ? xstrdup(jv_str(o, "survives_restart")) : NULL;
		a->needs = jv_str(o, "needs") ? xstrdup(jv_str(o, "needs")) : NULL;
		a->warning = jv_str(o, "warning") ? xstrdup(jv_str(o, "warning")) : NULL;
	}

	dj->fr.duration = jv_num(doc, "duration_s");
	sbuf_set(&dj->fr.notes, jv_str(doc, "notes") ? jv_str(doc, "notes") : "");
	dj->dv.m = &dj->m;
	dj->dv.av = &dj->av;
	dj->dv.input_reason = dj->no_reason;
	dj->dv.targets = (size_t)jv_num(doc, "targets");
	dj->dv.fr = &dj->fr;
	dj->dv.in = in;
	dj->dv.r = r;
	dj->dv.cal_note = jv_str(doc, "calibration") ? jv_str(doc, "calibration") : "";
	/* the cost intervals where the producer computed them (the holds-0 notes too) */
	if (!cost_ci_from_json(&dj->ci, jv_get(doc, "cost_intervals")))
		dj->dv.ci = &dj->ci;
	return 0;
}

void dview_json_release(struct dview_json *dj)
{
	size_t i;

	for (i = 0; i < dj->in.n_vms; i++)
		free((uint64_t *)dj->in.vms[i].mem_node);
	free(dj->in.vms);
	free(dj->in.vcpus);
	free(dj->in.nodes);
	free(dj->r.vm);
	free(dj->r.node_notes);
	for (i = 0; dj->r.b && i < dj->r.n_b; i++)
		free(dj->r.b[i].evidence);
	for (i = 0; dj->r.a && i < dj->r.n_a; i++)
		diag_advice_release(&dj->r.a[i]);
	free(dj->r.b);
	free(dj->r.a);
	free(dj->fr.rows);
	sbuf_release(&dj->fr.notes);
	cost_ci_release(&dj->ci);
	memset(dj, 0, sizeof(*dj));
}
