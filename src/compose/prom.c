/* prom.c - the daemon's live state as Prometheus text exposition format 0.0.4 */
#include "compose/prom.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/json.h"

void prom_escape_label(struct sbuf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			sbuf_addstr(out, "\\\\");
		else if (*s == '"')
			sbuf_addstr(out, "\\\"");
		else if (*s == '\n')
			sbuf_addstr(out, "\\n");
		else
			sbuf_addch(out, *s);
	}
}

/* A label set under construction: `k="v",k="v"` without the braces. */
struct labels {
	struct sbuf sb;
};

static void lbl_add(struct labels *l, const char *k, const char *v)
{
	if (!v || !*v)
		return; /* an empty value is the same as no label to Prometheus */
	if (l->sb.len)
		sbuf_addch(&l->sb, ',');
	sbuf_addf(&l->sb, "%s=\"", k);
	prom_escape_label(&l->sb, v);
	sbuf_addch(&l->sb, '"');
}

static void lbl_addi(struct labels *l, const char *k, int v)
{
	char b[24];

	snprintf(b, sizeof(b), "%d", v);
	lbl_add(l, k, b);
}

static void family(struct sbuf *out, const char *name, const char *type, const char *help)
{
	sbuf_addf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample; NaN writes nothing (see prom.h). */
static void sample(struct sbuf *out, const char *name, const struct labels *l, const char *extra,
		   double v)
{
	if (isnan(v))
		return;
	sbuf_addstr(out, name);
	if (l->sb.len || (extra && *extra)) {
		sbuf_addch(out, '{');
		sbuf_addstr(out, sbuf_str(&l->sb));
		if (extra && *extra) {
			if (l->sb.len)
				sbuf_addch(out, ',');
			sbuf_addstr(out, extra);
		}
		sbuf_addch(out, '}');
	}
	sbuf_addch(out, ' ');
	if (isinf(v))
		sbuf_addstr(out, v > 0 ? "+Inf" : "-Inf");
	else
		vp_fmt_double(out, v);
	sbuf_addch(out, '\n');
}

/* `k="v"` for the extra label of one sample (factor, metric, node). */
static const char *extra_lbl(struct sbuf *sb, const char *k, const char *v)
{
	sbuf_reset(sb);
	sbuf_addf(sb, "%s=\"", k);
	prom_escape_label(sb, v);
	sbuf_addch(sb, '"');
	return sbuf_str(sb);
}

static bool is_leaf(const struct collect_row *r)
{
	return r->kind == ENT_VCPU || r->kind == ENT_THREAD;
}

/* The labels that name a row: level, vm, vcpu, node, pid, state (paused, ended), model, session, host. */
static void row_labels(const struct prom_input *in, const struct prom_view *v,
		       const struct collect_row *r, struct labels *l)
{
	const struct collect_frame *f = v->frame;

	sbuf_reset(&l->sb);
	lbl_add(l, "level", ent_kind_name(r->kind));
	if (is_leaf(r)) {
		lbl_add(l, "vm", r->vm_row < f->n_rows ? f->rows[r->vm_row].name : NULL);
		lbl_addi(l, "vcpu", r->index);
		if (r->node >= 0)
			lbl_addi(l, "node", r->node);
	} else {
		lbl_add(l, "vm", r->name);
	}
	/* the incarnation: a VM restarted under its name is other series */
	if (r->pid > 0)
		lbl_addi(l, "pid", r->pid);
	if (r->state != RS_RUNNING)
		lbl_add(l, "state", row_state_name(r->state));
	lbl_add(l, "model", v->model->name);
	lbl_add(l, "session", v->session);
	lbl_add(l, "host", in->host);
}

/* Labels of a node-level aggregate of one view. */
static void node_labels(const struct prom_input *in, const struct prom_view *v, int node,
			struct labels *l)
{
	sbuf_reset(&l->sb);
	lbl_add(l, "level", "node");
	lbl_addi(l, "node", node);
	lbl_add(l, "model", v->model->name);
	lbl_add(l, "session", v->session);
	lbl_add(l, "host", in->host);
}

static const char *quality(const struct model *m, const struct collect_frame *fr,
			   const struct collect_row *r, int f)
{
	return vp_quality_name(frame_value_quality(m, fr, r, f));
}

static double per_s(double v, double duration)
{
	return duration > 0 ? v / duration : NAN;
}

/* The distinct nodes the view's vCPUs ran on, ascending. */
static size_t view_nodes(const struct collect_frame *f, int **out)
{
	int *n = xcalloc(f->n_rows ? f->n_rows : 1, sizeof(*n));
	size_t k = 0, i, j;

	for (i = 0; i < f->n_rows; i++) {
		int id = f->rows[i].node;

		if (!is_leaf(&f->rows[i]) || id < 0)
			continue;
		for (j = 0; j < k && n[j] != id; j++)
			;
		if (j < k)
			continue;
		for (j = k++; j > 0 && n[j - 1] > id; j--)
			n[j] = n[j - 1];
		n[j] = id;
	}
	*out = n;
	return k;
}

static double node_cycles(const struct collect_frame *fr, int node)
{
	double cyc = 0;
	bool any = false;
	size_t i;

	for (i = 0; i < fr->n_rows; i++) {
		const struct collect_row *r = &fr->rows[i];

		if (is_leaf(r) && r->node == node && isfinite(r->cycles)) {
			cyc += r->cycles;
			any = true;
		}
	}
	return any ? cyc : NAN;
}

/* Why row r's cost of factor f is n/a: static text or the model's own. */
static const char *cost_why(const struct model *m, const struct collect_row *r, int f, bool pct)
{
	const struct model_factor *mf = &m->factors[f];

	if (!isnan(r->fv[f].cost_cycles) && pct)
		return "the entity's cycles are unknown, so no share of them";
	if (!mf->bound)
		return "the model binds no such factor";
	if (mf->quality == VQ_UNAVAILABLE)
		return mf->reason ? mf->reason : "the model declares the factor unavailable";
	if (r->cost.why[f])
		return r->cost.why[f];
	if (r->cost.anchor_why)
		return r->cost.anchor_why;
	return "no cost computed for this entity (no access counts)";
}

/*
 * A cost sample with its quality label, or, when the cost is n/a, a comment
 * line instead (the text format ignores '#' lines other than HELP and
 * TYPE): "# n/a NAME{LABELS,factor="F"}: REASON", the reason on one line.
 */
static void cost_sample(struct sbuf *out, const char *name, const struct labels *l,
			struct sbuf *ex, const char *factor, enum vp_quality q, double v,
			const char *why)
{
	const char *p;

	extra_lbl(ex, "factor", factor);
	if (q != VQ_UNAVAILABLE && isfinite(v)) {
		sbuf_addf(ex, ",quality=\"%s\"", vp_quality_name(q));
		sample(out, name, l, sbuf_str(ex), v);
		return;
	}
	sbuf_addf(out, "# n/a %s{", name);
	if (l->sb.len)
		sbuf_addf(out, "%s,", sbuf_str(&l->sb));
	sbuf_addf(out, "%s}: ", sbuf_str(ex));
	for (p = why; p && *p; p++)
		sbuf_addch(out, *p == '\n' || *p == '\r' ? ' ' : *p);
	sbuf_addch(out, '\n');
}

/*
 * After a node's cost sample whose share leaves threads out (they ran
 * there without this cost): how many and their cycles, as a comment, so
 * the exposition says the share is over the costed threads only.
 */
static void left_out_comment(struct sbuf *out, const char *name, const struct labels *l,
			     const struct sbuf *ex, const struct frame_node_cost *c)
{
	sbuf_addf(out, "# left out %s{", name);
	if (l->sb.len)
		sbuf_addf(out, "%s,", sbuf_str(&l->sb));
	sbuf_addf(out, "%s}: %d thread%s that ran on the node without this cost (%.4g cycles; "
		  "the cost is over the other %d thread%s %.4g cycles)\n", sbuf_str(ex), c->left_out,
		  c->left_out == 1 ? "" : "s", c->left_out_cycles, c->n_threads,
		  c->n_threads == 1 ? "'s" : "s'", isnan(c->cycles) ? 0.0 : c->cycles);
}

/* Why a node's sum of factor f is n/a (pct: when its cost is known, the cycles are not). */
static const char *node_why(const struct model *m, int f, double cost)
{
	const struct model_factor *mf = &m->factors[f];

	if (!isnan(cost))
		return "no vCPU that ran on the node has both this cost and its cycles";
	if (!mf->bound)
		return "the model binds no such factor";
	if (mf->quality == VQ_UNAVAILABLE)
		return mf->reason ? mf->reason : "the model declares the factor unavailable";
	return "no vCPU that ran on the node has this cost";
}

enum fam_kind { F_SCORE, F_PCT, F_CYCLES, F_QUALITY, F_SEVERITY };

static void factor_family(struct sbuf *out, const struct prom_input *in, enum fam_kind k,
			  const char *name)
{
	struct labels l = { SBUF_INIT };
	struct sbuf ex = SBUF_INIT;
	size_t vi, i, n_nodes, ni;
	int *nodes;
	int f;

	for (vi = 0; vi < in->n_views; vi++) {
		const struct prom_view *v = &in->views[vi];
		const struct collect_frame *fr = v->frame;

		if (!fr || !v->model)
			continue;
		for (i = 0; i < fr->n_rows; i++) {
			const struct collect_row *r = &fr->rows[i];

			row_labels(in, v, r, &l);
			for (f = 0; f < FACTOR_N; f++) {
				const char *fn = factor_name((enum factor_id)f);

				switch (k) {
				case F_SCORE:
					sample(out, name, &l, extra_lbl(&ex, "factor", fn), r->fv[f].score);
					break;
				case F_PCT:
					cost_sample(out, name, &l, &ex, fn,
						    frame_cost_quality(v->model, fr, r, f),
						    r->fv[f].cost_pct, cost_why(v->model, r, f, true));
					break;
				case F_CYCLES:
					cost_sample(out, name, &l, &ex, fn,
						    frame_cost_quality(v->model, fr, r, f),
						    per_s(r->fv[f].cost_cycles, fr->duration),
						    cost_why(v->model, r, f, false));
					break;
				case F_SEVERITY:
					sample(out, name, &l, extra_lbl(&ex, "factor", fn),
					       r->fv[f].sev == SEV_NA ? NAN : (double)r->fv[f].sev - SEV_OK);
					break;
				case F_QUALITY:
					extra_lbl(&ex, "factor", fn);
					sbuf_addstr(&ex, ",quality=\"");
					sbuf_addstr(&ex, quality(v->model, fr, r, f));
					sbuf_addch(&ex, '"');
					sample(out, name, &l, sbuf_str(&ex), 1);
					break;
				}
			}
		}
		if (k != F_PCT && k != F_CYCLES)
			continue;
		n_nodes = view_nodes(fr, &nodes);
		for (ni = 0; ni < n_nodes; ni++) {
			struct frame_node_cost nc[FACTOR_N];

			node_labels(in, v, nodes[ni], &l);
			frame_node_cost(v->model, fr, nodes[ni], nc);
			for (f = 0; f < FACTOR_N; f++) {
				const struct frame_node_cost *c = &nc[f];

				cost_sample(out, name, &l, &ex, factor_name((enum factor_id)f), c->q,
					    k == F_PCT ? c->pct : per_s(c->cost_cycles, fr->duration),
					    node_why(v->model, f, c->cost_cycles));
				if (c->left_out && !isnan(c->cost_cycles))
					left_out_comment(out, name, &l, &ex, c);
			}
		}
		free(nodes);
	}
	sbuf_release(&ex);
	sbuf_release(&l.sb);
}

/* Per-row figures that are not factors. */
enum row_kind { R_CYCLES, R_REMOTE, R_METRIC, R_VM_MEM };

static void row_family(struct sbuf *out, const struct prom_input *in, enum row_kind k,
		       const char *name)
{
	struct labels l = { SBUF_INIT };
	struct sbuf ex = SBUF_INIT;
	size_t vi, i, j, n_nodes;
	int *nodes;

	for (vi = 0; vi < in->n_views; vi++) {
		const struct prom_view *v = &in->views[vi];
		const struct collect_frame *fr = v->frame;

		if (!fr || !v->model)
			continue;
		for (i = 0; i < fr->n_rows; i++) {
			const struct collect_row *r = &fr->rows[i];

			row_labels(in, v, r, &l);
			switch (k) {
			case R_CYCLES:
				sample(out, name, &l, r->cycles_proxy ? "quality=\"proxy\"" :
						      "quality=\"measured\"", per_s(r->cycles, fr->duration));
				break;
			case R_REMOTE:
				sbuf_reset(&ex);
				sbuf_addf(&ex, "quality=\"%s\"", vp_quality_name(r->remote.q));
				sample(out, name, &l, sbuf_str(&ex), r->remote.v);
				break;
			case R_METRIC:
				for (j = 0; j < v->model->n_metrics && r->metrics; j++) {
					extra_lbl(&ex, "metric", v->model->metrics[j].name);
					if (frame_metric_apportioned(fr, r, j))
						sbuf_addstr(&ex, ",quality=\"apportioned\"");
					sample(out, name, &l, sbuf_str(&ex), r->metrics[j]);
				}
				break;
			case R_VM_MEM:
				if (is_leaf(r) || !r->mem_node)
					break;
				for (j = 0; j < (size_t)r->n_mem_nodes; j++) {
					char b[24];

					snprintf(b, sizeof(b), "%zu", j);
					sample(out, name, &l, extra_lbl(&ex, "node", b),
					       (double)r->mem_node[j]);
				}
				break;
			}
		}
		/* the node rows: the model on each node's own per-node counts */
		for (i = 0; k == R_METRIC && i < fr->n_nodes; i++) {
			const struct collect_row *r = &fr->nodes[i];

			node_labels(in, v, r->node, &l);
			for (j = 0; j < v->model->n_metrics && r->metrics; j++) {
				if (!fr->metric_node || !fr->metric_node[j])
					continue; /* only what the node's counts give */
				extra_lbl(&ex, "metric", v->model->metrics[j].name);
				sbuf_addstr(&ex, r->apportioned ? ",quality=\"apportioned\""
								: ",quality=\"measured\"");
				sample(out, name, &l, sbuf_str(&ex), r->metrics[j]);
			}
		}
		if (k != R_CYCLES)
			continue;
		n_nodes = view_nodes(fr, &nodes);
		for (j = 0; j < n_nodes; j++) {
			node_labels(in, v, nodes[j], &l);
			sample(out, name, &l, NULL, per_s(node_cycles(fr, nodes[j]), fr->duration));
		}
		free(nodes);
	}
	sbuf_release(&ex);
	sbuf_release(&l.sb);
}

static void view_family(struct sbuf *out, const struct prom_input *in, bool ts, const char *name)
{
	struct labels l = { SBUF_INIT };
	size_t vi;

	for (vi = 0; vi < in->n_views; vi++) {
		const struct prom_view *v = &in->views[vi];

		if (!v->frame || !v->model)
			continue;
		sbuf_reset(&l.sb);
		lbl_add(&l, "model", v->model->name);
		lbl_add(&l, "session", v->session);
		lbl_add(&l, "host", in->host);
		sample(out, name, &l, NULL, ts ? (double)v->frame->t_ns / 1e9 : v->frame->duration);
	}
	sbuf_release(&l.sb);
}

enum node_kind { N_TOTAL, N_USED, N_BUSY };

static void node_family(struct sbuf *out, const struct prom_input *in, enum node_kind k,
			const char *name)
{
	struct labels l = { SBUF_INIT };
	size_t i;

	for (i = 0; i < in->n_nodes; i++) {
		const struct prom_node *n = &in->nodes[i];

		sbuf_reset(&l.sb);
		lbl_addi(&l, "node", n->node);
		lbl_add(&l, "host", in->host);
		sample(out, name, &l, NULL, k == N_TOTAL ? n->mem_total_bytes :
				       k == N_USED ? n->mem_used_bytes : n->cpu_busy_ratio);
	}
	sbuf_release(&l.sb);
}

void prom_render(struct sbuf *out, const struct prom_input *in)
{
	const struct prom_self *s = &in->self;
	struct labels l = { SBUF_INIT };

	family(out, "vmmprof_factor_score", "gauge",
	       "Factor score of the session's last interval (higher is worse; the model's thresholds "
	       "apply), per VM and vCPU");
	factor_family(out, in, F_SCORE, "vmmprof_factor_score");
	family(out, "vmmprof_factor_severity", "gauge",
	       "Factor severity from the model's thresholds: 0 ok, 1 warning, 2 critical");
	factor_family(out, in, F_SEVERITY, "vmmprof_factor_severity");
	family(out, "vmmprof_factor_cost_pct", "gauge",
	       "Stall cost of the factor in percent of the entity's cycles, per VM, vCPU and node (a "
	       "node: its vCPUs' costs over their cycles); label quality: measured (split of counted "
	       "stall cycles), apportioned (node counts shared out), estimate (count x latency, no "
	       "stall count); an n/a cost has no sample, a '# n/a' comment says why");
	factor_family(out, in, F_PCT, "vmmprof_factor_cost_pct");
	family(out, "vmmprof_factor_cost_cycles_per_second", "gauge",
	       "Stall cycles per second the factor costs, per VM, vCPU and node; quality and n/a as "
	       "for vmmprof_factor_cost_pct");
	factor_family(out, in, F_CYCLES, "vmmprof_factor_cost_cycles_per_second");
	family(out, "vmmprof_factor_quality", "gauge",
	       "1 for the factor's quality label (measured, apportioned, proxy, unavailable); an "
	       "unavailable factor has no score or cost sample");
	factor_family(out, in, F_QUALITY, "vmmprof_factor_quality");

	family(out, "vmmprof_cycles_per_second", "gauge",
	       "Cycles per second the entity ran (quality proxy: task-clock times the CPU clock)");
	row_family(out, in, R_CYCLES, "vmmprof_cycles_per_second");
	family(out, "vmmprof_remote_ratio", "gauge",
	       "Share of the entity's memory accesses expected to go to a remote node, 0..1");
	row_family(out, in, R_REMOTE, "vmmprof_remote_ratio");
	family(out, "vmmprof_metric", "gauge",
	       "A metric of the session's model (vmmprof model show MODEL names its unit)");
	row_family(out, in, R_METRIC, "vmmprof_metric");
	family(out, "vmmprof_vm_memory_bytes", "gauge", "Resident memory of the VM on each NUMA node");
	row_family(out, in, R_VM_MEM, "vmmprof_vm_memory_bytes");
	family(out, "vmmprof_frame_duration_seconds", "gauge",
	       "Length of the interval the session's last frame covers");
	view_family(out, in, false, "vmmprof_frame_duration_seconds");
	family(out, "vmmprof_frame_timestamp_seconds", "gauge",
	       "Unix time at the end of the session's last frame");
	view_family(out, in, true, "vmmprof_frame_timestamp_seconds");

	family(out, "vmmprof_node_memory_total_bytes", "gauge", "Memory of the NUMA node");
	node_family(out, in, N_TOTAL, "vmmprof_node_memory_total_bytes");
	family(out, "vmmprof_node_memory_used_bytes", "gauge", "Memory in use on the NUMA node");
	node_family(out, in, N_USED, "vmmprof_node_memory_used_bytes");
	family(out, "vmmprof_node_cpu_busy_ratio", "gauge",
	       "Mean busy share of the node's CPUs over the last interval, 0..1");
	node_family(out, in, N_BUSY, "vmmprof_node_cpu_busy_ratio");

	lbl_add(&l, "host", in->host);
	family(out, "vmmprof_build_info", "gauge", "1, with the vmmprof version as a label");
	{
		struct sbuf ex = SBUF_INIT;

		sample(out, "vmmprof_build_info", &l, extra_lbl(&ex, "version", in->version ? in->version : "unknown"), 1);
		sbuf_release(&ex);
	}
	family(out, "vmmprof_daemon_start_time_seconds", "gauge", "Unix time the daemon started");
	sample(out, "vmmprof_daemon_start_time_seconds", &l, NULL, s->start_time_s);
	family(out, "vmmprof_daemon_sessions", "gauge", "Sessions running");
	sample(out, "vmmprof_daemon_sessions", &l, NULL, (double)s->sessions);
	family(out, "vmmprof_daemon_clients", "gauge", "Streaming (server-sent events) clients connected");
	sample(out, "vmmprof_daemon_clients", &l, NULL, (double)s->clients);
	family(out, "vmmprof_daemon_requests_total", "counter", "HTTP requests served");
	sample(out, "vmmprof_daemon_requests_total", &l, NULL, (double)s->requests_total);
	family(out, "vmmprof_collector_events_open", "gauge",
	       "Distinct counter events open in the shared collector");
	sample(out, "vmmprof_collector_events_open", &l, NULL, (double)s->events_open);
	family(out, "vmmprof_collector_events_failed", "gauge",
	       "Counter events sessions asked for that could not be opened");
	sample(out, "vmmprof_collector_events_failed", &l, NULL, (double)s->events_failed);
	family(out, "vmmprof_collector_targets", "gauge", "Threads (vCPUs) the collector counts");
	sample(out, "vmmprof_collector_targets", &l, NULL, (double)s->targets);
	family(out, "vmmprof_scrape_duration_seconds", "gauge",
	       "Time the previous /metrics rendering took");
	sample(out, "vmmprof_scrape_duration_seconds", &l, NULL, s->scrape_duration_s);
	sbuf_release(&l.sb);
}
