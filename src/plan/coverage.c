/* coverage.c - the factor coverage of a platform, read off the model chosen for it */
#include "plan/coverage.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_json.h"
#include "model/resolve.h"
#include "pmu/event.h"
#include "util/alloc.h"
#include "util/check.h"
#include "util/sbuf.h"

const char *cov_kind_name(enum cov_kind k)
{
	switch (k) {
	case COV_SRC_CORE: return "core";
	case COV_SRC_UNCORE: return "uncore";
	case COV_SRC_RESCTRL: return "resctrl";
	case COV_SRC_SOFTWARE: return "software";
	case COV_SRC_NONE: return "none";
	}
	return "none";
}

const char *cov_anchor_name(enum cov_anchor a)
{
	switch (a) {
	case COV_COST_NONE: return "none";
	case COV_COST_MEASURED: return "measured";
	case COV_COST_ESTIMATED: return "estimated";
	}
	return "none";
}

/*
 * What vmmprof still has for a factor no model can compute here, beyond
 * the software model: its active probes and the scheduler's figures.
 * These name vmmprof's own tools, not events, so they hold on every CPU.
 */
static const char *const no_model_left[FACTOR_N] = {
	[FACTOR_LOCALITY] = "the placement estimate: vCPU residency by node (sched) x guest RAM "
			    "by node (numa_maps)",
	[FACTOR_LLC] = "an active probe (vmmprof probe: a timed pointer chase over LLC-sized "
		       "buffers) can infer lost capacity; the LLC domains are known from the topology",
	[FACTOR_SHARING] = "nothing per VM: which vCPUs share data cannot be seen without counters",
	[FACTOR_IMC] = "an active probe (vmmprof probe: latency under a bandwidth load) shows how "
		       "loaded memory is as this machine sees it, not who loads it",
	[FACTOR_QUEUE] = "task-clock and run-queue delay (schedstat) show a slowdown, not its cause",
};

/* A field of the coverage set from the model's text (names, formulas, descriptions, reasons), whole. */
__attribute__((format(printf, 2, 3)))
static void setf(struct sbuf *dst, const char *fmt, ...)
{
	va_list ap;

	sbuf_reset(dst);
	va_start(ap, fmt);
	sbuf_vaddf(dst, fmt, ap);
	va_end(ap);
}

static void input_release(struct cov_input *ci)
{
	sbuf_release(&ci->name);
	sbuf_release(&ci->spec);
	sbuf_release(&ci->desc);
	sbuf_release(&ci->reason);
}

void coverage_release(struct coverage *c)
{
	int f, i;

	for (f = 0; f < FACTOR_N; f++) {
		struct cov_row *r = &c->rows[f];

		sbuf_release(&r->source);
		sbuf_release(&r->score);
		sbuf_release(&r->desc);
		for (i = 0; i < r->n_inputs; i++)
			input_release(&r->inputs[i]);
		free(r->inputs);
		sbuf_release(&r->note);
		sbuf_release(&r->remains);
	}
	for (i = 0; i < CT_N; i++) {
		sbuf_release(&c->terms[i].term);
		sbuf_release(&c->terms[i].formula);
		sbuf_release(&c->terms[i].reason);
	}
	sbuf_release(&c->model);
	sbuf_release(&c->model_path);
	sbuf_release(&c->model_why);
	sbuf_release(&c->table_from);
	sbuf_release(&c->summary);
	sbuf_release(&c->verdict);
	sbuf_release(&c->cost_note);
	memset(c, 0, sizeof(*c));
}

struct cov_input *cov_row_add_input(struct cov_row *r)
{
	struct cov_input *ci;

	r->inputs = xrealloc(r->inputs, ((size_t)r->n_inputs + 1) * sizeof(*r->inputs));
	ci = &r->inputs[r->n_inputs++];
	memset(ci, 0, sizeof(*ci));
	return ci;
}

/* ---- the inputs a score reads, through the metrics it names ---- */

struct reads {
	const struct model *m;
	char *seen_metric;
	char *seen_input;
	int *order;                  /* input ids in the order the formula reads them (m->n_inputs) */
	int n;
};

static void visit_reads(void *ctx, const struct expr *node)
{
	struct reads *rd = ctx;

	if (node->k == EX_METRIC && node->id >= 0 && (size_t)node->id < rd->m->n_metrics) {
		if (rd->seen_metric[node->id])
			return;
		rd->seen_metric[node->id] = 1;
		expr_visit(rd->m->metrics[node->id].e, visit_reads, rd);
	} else if ((node->k == EX_INPUT || node->k == EX_HAS) && node->id >= 0 &&
		   (size_t)node->id < rd->m->n_inputs && !rd->seen_input[node->id]) {
		rd->seen_input[node->id] = 1;  /* so each input is ordered once: n <= m->n_inputs */
		if (VP_NEVER((size_t)rd->n >= rd->m->n_inputs))
			return;
		rd->order[rd->n++] = node->id;
	}
}

/* The inputs e reads, through the metrics it names, in the order it reads them (reads_release()). */
static void reads_of(struct reads *rd, const struct model *m, const struct expr *e)
{
	memset(rd, 0, sizeof(*rd));
	rd->m = m;
	rd->seen_metric = xcalloc(m->n_metrics + 1, 1);
	rd->seen_input = xcalloc(m->n_inputs + 1, 1);
	rd->order = xcalloc(m->n_inputs + 1, sizeof(int));
	expr_visit(e, visit_reads, rd);
}

static void reads_release(struct reads *rd)
{
	free(rd->seen_metric);
	free(rd->seen_input);
	free(rd->order);
}

/* The PMU family of a PMU instance name: "uncore_imc_3" -> "uncore_imc". */
static void pmu_family(const char *pmu, char *out, size_t size)
{
	size_t len = strlen(pmu), k = len;

	while (k && isdigit((unsigned char)pmu[k - 1]))
		k--;
	if (k && k < len && pmu[k - 1] == '_')
		len = k - 1;
	snprintf(out, size, "%.*s", (int)len, pmu);
}

static void fill_input(struct cov_input *ci, const struct model *m, size_t id,
		       const struct model_avail *av, struct model_machine *mm)
{
	const struct model_input *in = &m->inputs[id];

	setf(&ci->name, "%s", in->name);
	setf(&ci->spec, "%s", in->spec);
	setf(&ci->desc, "%s", in->desc ? in->desc : "");
	ci->source = in->kind == INPUT_SOURCE;
	ci->optional = in->optional;
	ci->per_node = in->per_node || in->home;
	ci->present = av->input_ok[id];
	if (!ci->present) {
		setf(&ci->reason, "%s",
		     av->input_reason[id] ? av->input_reason[id] : "not present");
		return;
	}
	if (in->kind == INPUT_EVENT) {
		/* what the collector would open: the same resolution, kept for its PMU */
		struct evdesc_list l;
		char *reason = NULL;

		evdesc_list_init(&l);
		if (!model_resolve_event(mm, in->spec, 0, &l, &reason) && l.n) {
			pmu_family(l.v[0].pmu, ci->pmu, sizeof(ci->pmu));
			ci->per_node = ci->per_node || l.v[0].uncore;
		}
		free(reason);
		evdesc_list_release(&l);
	}
}

/*
 * The kind of what a computable score reads: per-node counts first (a row
 * that reads one is shared out by residency), then per-thread events, then
 * resctrl, then the other software sources.
 */
static enum cov_kind kind_of(const struct cov_row *r)
{
	bool core = false, node = false, rdt = false;
	int i;

	for (i = 0; i < r->n_inputs; i++) {
		const struct cov_input *ci = &r->inputs[i];

		if (!ci->present)
			continue;
		if (ci->source)
			rdt = rdt || !strncmp(sbuf_str(&ci->spec), "resctrl.", 8);
		else if (ci->per_node)
			node = true;
		else
			core = true;
	}
	return node ? COV_SRC_UNCORE : core ? COV_SRC_CORE : rdt ? COV_SRC_RESCTRL : COV_SRC_SOFTWARE;
}

static void row_from_model(struct cov_row *r, const struct model *m, const struct model_avail *av,
			   struct model_machine *mm)
{
	const struct model_factor *fa = &m->factors[r->factor];
	struct reads rd;
	int i;

	r->label = fa->quality;
	setf(&r->source, "model %s", m->name);
	if (fa->desc)
		setf(&r->desc, "%s", fa->desc);
	if (fa->quality == VQ_UNAVAILABLE || !fa->score) {
		r->label = VQ_UNAVAILABLE;
		r->quality = VQ_UNAVAILABLE;
		r->kind = COV_SRC_NONE;
		setf(&r->note, "model %s: %s", m->name,
		     fa->reason ? fa->reason : av->factor_reason[r->factor] ?
		     av->factor_reason[r->factor] : "not bound");
		return;
	}
	sbuf_reset(&r->score);
	expr_format(fa->score, &r->score);
	reads_of(&rd, m, fa->score);
	for (i = 0; i < rd.n; i++)
		fill_input(cov_row_add_input(r), m, (size_t)rd.order[i], av, mm);
	reads_release(&rd);
	if (av->factor_ok[r->factor]) {
		r->quality = fa->quality;
		r->kind = kind_of(r);
	} else {
		r->quality = VQ_UNAVAILABLE;
		r->kind = COV_SRC_NONE;
		setf(&r->note, "%s", av->factor_reason[r->factor] ?
		     av->factor_reason[r->factor] : "its score cannot be computed here");
	}
}

/* ---- what is left when the chosen model cannot compute a factor ---- */

struct checked {
	const struct model *m;
	struct model_avail av;
	bool ok;
};

static void check_model(struct checked *ck, const struct model *m, const struct platform *p,
			struct pmu_db *db, struct model_machine *mm, struct sbuf *table_from)
{
	struct sbuf from = SBUF_INIT;

	ck->m = m;
	model_machine_setup(mm, p, db, p->root, m, table_from ? table_from : &from);
	sbuf_release(&from);
	model_check_inputs(m, model_machine_check, mm, &ck->av, NULL);
	ck->ok = true;
}

static void set_remains(struct cov_row *r, const struct checked *sw)
{
	const struct model_factor *fa;

	if (sw->ok && sw->av.factor_ok[r->factor]) {
		fa = &sw->m->factors[r->factor];
		setf(&r->remains, "model %s: %s (%s)", sw->m->name,
		     fa->desc ? fa->desc : "its score", vp_quality_name(fa->quality));
		return;
	}
	setf(&r->remains, "%s", no_model_left[r->factor]);
}

__attribute__((format(printf, 2, 3)))
static void note(struct cov_row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->note.len)
		sbuf_addstr(&r->note, "; ");
	va_start(ap, fmt);
	sbuf_vaddf(&r->note, fmt, ap);
	va_end(ap);
}

/*
 * A Xen dom0: perf there counts dom0's own vCPUs, so a factor the chosen
 * model computes from a core or uncore PMU does not measure the other
 * domains (docs/xen.md): it is unavailable, whatever the model says.  Each
 * factor then says what would enable it on Xen (the vPMU mode, PSR, the
 * uncore's reach), and locality what is left: Xen's placement estimate.
 */
static void xen_dom0_rows(const struct platform *p, struct coverage *c, const struct checked *sw)
{
	struct sbuf pmu = SBUF_INIT, why = SBUF_INIT;
	int f;

	platform_xen_pmu_why(p, &pmu);
	for (f = 0; f < FACTOR_N; f++) {
		struct cov_row *r = &c->rows[f];

		if (r->kind == COV_SRC_CORE || r->kind == COV_SRC_UNCORE) {
			/* what dom0's PMUs count is dom0's, not the domains' */
			r->quality = VQ_UNAVAILABLE;
			r->kind = COV_SRC_NONE;
			sbuf_reset(&r->note);
			note(r, "in a Xen dom0 the PMU counts dom0's own vCPUs, not the domains'");
			set_remains(r, sw);
		}
		if (f == FACTOR_LOCALITY) {
			/* whatever the model computes here, per domain it needs counters */
			note(r, "measured remote shares per domain need counters: %s", sbuf_str(&pmu));
			if (!p->topo.from_xen)
				note(r, "dom0 sees one node: the machine's nodes are Xen's (xl info -n: %s)",
				     p->hv.xen_info_reason.len ? sbuf_str(&p->hv.xen_info_reason) : "not read");
			if (r->quality == VQ_UNAVAILABLE)
				setf(&r->remains,
				     "the placement estimate: vCPU run time per pCPU (xl vcpu-list) x "
				     "domain pages per node (Xen's 'u' dump, --xen-numa-dump, or the "
				     "vNUMA config)");
			continue;
		}
		if (r->quality != VQ_UNAVAILABLE)
			continue;
		sbuf_reset(&why);
		if (platform_xen_factor_why(p, f, &why))
			note(r, "%s", sbuf_str(&why));
	}
	sbuf_release(&pmu);
	sbuf_release(&why);
}

/* ---- the summary lines ---- */

/* Append the factors of quality q as "a, b" to buf; returns how many. */
static int list_quality(const struct coverage *c, enum vp_quality q, char *buf, size_t size)
{
	size_t o = strlen(buf);
	int f, n = 0;

	for (f = 0; f < FACTOR_N; f++) {
		if (c->rows[f].quality != q || o >= size)
			continue;
		o += (size_t)snprintf(buf + o, size - o, "%s%s", n++ ? ", " : "",
				      factor_name((enum factor_id)f));
	}
	return n;
}

static void set_verdict(struct coverage *c)
{
	static const char *const qword[VQ_N] = {
		[VQ_MEASURED] = " measured", [VQ_ESTIMATE] = " estimated",
		[VQ_APPORTIONED] = " apportioned", [VQ_PROXY] = " by proxy" };
	char lost[128] = "", remains[192] = "";
	int q, n_lost, parts = 0;

	n_lost = list_quality(c, VQ_UNAVAILABLE, lost, sizeof(lost));
	for (q = VQ_MEASURED; q <= VQ_PROXY; q++) {
		size_t o = strlen(remains);

		if (parts && o + 2 < sizeof(remains)) {
			memcpy(remains + o, "; ", 3);
			o += 2;
		}
		if (list_quality(c, (enum vp_quality)q, remains, sizeof(remains))) {
			o = strlen(remains);
			snprintf(remains + o, sizeof(remains) - o, "%s", qword[q]);
			parts++;
		} else {
			remains[o - (parts ? 2 : 0)] = '\0';
		}
	}
	if (!n_lost)
		setf(&c->verdict, "nothing lost: %s", remains);
	else if (n_lost == FACTOR_N)
		setf(&c->verdict, "lost: all five factors");
	else
		setf(&c->verdict, "lost: %s; remains: %s", lost, remains);
}

/* The model's cost terms here, and whether a stall count anchors its costs. */
static void cost_terms(struct coverage *c, const struct model *m, const struct model_avail *av)
{
	bool stall = false, any = false;
	int t, i;

	for (t = 0; t < CT_N; t++) {
		struct cov_term *ct;
		struct reads rd;

		if (!m->cost_term[t])
			continue;
		ct = &c->terms[c->n_terms++];
		setf(&ct->term, "%s", cost_term_name((enum cost_term)t));
		sbuf_reset(&ct->formula);
		expr_format(m->cost_term[t], &ct->formula);
		reads_of(&rd, m, m->cost_term[t]);
		ct->present = true;
		for (i = 0; i < rd.n && ct->present; i++) {
			const struct model_input *in = &m->inputs[rd.order[i]];

			if (av->input_ok[rd.order[i]])
				continue;
			ct->present = false;
			setf(&ct->reason, "%s '%s' unavailable: %s",
			     in->kind == INPUT_EVENT ? "event" : "source", in->name,
			     av->input_reason[rd.order[i]] ? av->input_reason[rd.order[i]] :
			     "not present");
		}
		reads_release(&rd);
		if (!ct->present)
			continue;
		any = true;
		stall = stall || t == CT_STALL_MEM || t == CT_STALL_L2_MISS || t == CT_STALL_L3_MISS;
	}
	if (stall) {
		c->anchor = COV_COST_MEASURED;
		setf(&c->cost_note, "costs split the measured memory-stall "
		     "cycles");
	} else if (any) {
		c->anchor = COV_COST_ESTIMATED;
		setf(&c->cost_note, "no stall count here (cost stall_mem, "
		     "stall_l2_miss or stall_l3_miss): costs are estimates, count x latency");
	} else {
		c->anchor = COV_COST_NONE;
		setf(&c->cost_note, "%s", c->n_terms ?
		     "none of the model's cost terms can be computed here: scores only, no costs" :
		     "the model binds no cost terms: scores only, no costs");
	}
}

void coverage_compute(const struct platform *p, const struct model_registry *r,
		      struct coverage *c)
{
	const struct model_entry *chosen, *swe;
	struct vp_err err = { 0, "" }, dberr = { 0, "" };
	struct pmu_db *db = NULL;
	struct model_machine mm, swm;
	struct checked ck = { 0 }, sw = { 0 };
	char why[512];  /* model_registry_choose(): a match rule's words and names */
	int counts[VQ_N] = { 0 }, f;

	memset(c, 0, sizeof(*c));
	for (f = 0; f < FACTOR_N; f++) {
		c->rows[f].factor = (enum factor_id)f;
		c->rows[f].quality = c->rows[f].label = VQ_UNAVAILABLE;
		c->rows[f].kind = COV_SRC_NONE;
		setf(&c->rows[f].source, "none");
	}
	why[0] = '\0';
	chosen = model_registry_choose(r, p, why, sizeof(why), &err);
	setf(&c->model_why, "%s", why);
	if (pmu_db_new(&db, p->root, &dberr))
		db = NULL;   /* then every event is absent, "no PMU database" */
	swe = model_registry_find(r, "software");
	if (swe && swe->m && (!chosen || chosen->m != swe->m))
		check_model(&sw, swe->m, p, db, &swm, NULL);
	if (!chosen) {
		setf(&c->model_why, "%s", err.msg);
		setf(&c->cost_note, "no model: no costs");
		for (f = 0; f < FACTOR_N; f++) {
			setf(&c->rows[f].note, "no model matches this machine");
			set_remains(&c->rows[f], &sw);
		}
	} else {
		setf(&c->model, "%s", chosen->name);
		setf(&c->model_path, "%s", chosen->path);
		if (!p->core_pmu && p->core_pmu_reason.len)
			sbuf_addf(&c->model_why, "; no core PMU: %s", sbuf_str(&p->core_pmu_reason));
		check_model(&ck, chosen->m, p, db, &mm, &c->table_from);
		if (!p->core_pmu)
			sbuf_reset(&c->table_from);  /* no core event can count here, whatever table */
		for (f = 0; f < FACTOR_N; f++) {
			row_from_model(&c->rows[f], chosen->m, &ck.av, &mm);
			if (c->rows[f].quality == VQ_UNAVAILABLE)
				set_remains(&c->rows[f], &sw);
		}
		cost_terms(c, chosen->m, &ck.av);
		model_avail_release(chosen->m, &ck.av);
	}
	if (p->hv.xen_dom0)
		xen_dom0_rows(p, c, &sw);
	if (sw.ok)
		model_avail_release(sw.m, &sw.av);
	pmu_db_free(db);
	for (f = 0; f < FACTOR_N; f++) {
		/* a quality indexes counts[]: only vp_quality values are ever set */
		VP_BUG_ON((unsigned)c->rows[f].quality >= VQ_N);
		counts[c->rows[f].quality]++;
	}
	set_verdict(c);
	setf(&c->summary,
	     "%s%s%s: %d measured, %d estimated, %d apportioned, %d by proxy, %d unavailable",
	     c->model.len ? "model '" : "no model", sbuf_str(&c->model), c->model.len ? "'" : "",
	     counts[VQ_MEASURED], counts[VQ_ESTIMATE], counts[VQ_APPORTIONED], counts[VQ_PROXY],
	     counts[VQ_UNAVAILABLE]);
}
