/* diag_render.c - the diagnosis as text and JSON, for `diagnose` and `report` */
#include "analysis/diag_render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/json.h"
#include "util/table.h"

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
const char *factor_unavailable(const struct model *m, const struct model_avail *av,
				      enum factor_id f)
{
	if (m->factors[f].quality == Q_UNAVAILABLE)
		return m->factors[f].reason ? m->factors[f].reason : "the model cannot see it";
	if (!av->factor_ok[f])
		return av->factor_reason[f] ? av->factor_reason[f] : "its inputs are missing here";
	return NULL;
}

void diag_render_text(const struct dview *dv, const char *head, struct sbuf *out)
{
	const struct model *m = dv->m;
	const struct collect_frame *fr = dv->fr;
	const struct diag_input *in = dv->in;
	const struct diag_result *r = dv->r;
	static const char *const bcols[] = { ">#", "where", "factor", ">cost", "severity",
					     "quality", "confidence", "evidence" };
	const struct model_avail *av = dv->av;
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
	jw_key(&w, "inputs_not_counted");
	jw_obj_begin(&w);
	for (i = 0; i < m->n_inputs; i++) {
		const char *why = dv->input_reason[i];

		if (why)
			jw_kstr(&w, m->inputs[i].name, why);
	}
	jw_obj_end(&w);
	jw_kstr(&w, "notes", dv->fr->notes);
	jw_key(&w, "diagnosis");
	diag_result_write(dv->in, dv->r, &w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

