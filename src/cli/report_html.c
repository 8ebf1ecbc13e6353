/* report_html.c - a recording as one self-contained HTML page with charts */
#include "cli/report_html.h"
#include "compose/diag_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strmap.h"
#include "record/downsample.h"

#define CHART_W 720
#define CHART_H 180

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#17becf" };

/* The value a chart plots for a row: cost % when the model gives one, else the score. */
static double plotted(const struct collect_row *r, int f, bool cost)
{
	return cost ? r->fv[f].cost_pct : r->fv[f].score;
}

/*
 * One entity recorded, in any frame: a chart line (VM rows) or a heatmap row
 * (vCPU rows).  Keys carry the pid, so each incarnation of a restarted VM is
 * an entity of its own.
 */
struct series {
	char *key, *name, *vm_key;     /* heap; name: the VM's (vCPU rows: their VM's) */
	enum ent_kind kind;
	int index, pid;
	size_t first, last, frames;    /* frames it was in: first .. last, how many */
	bool vm, vcpu;
	struct ds_mean mean[FACTOR_N]; /* VM rows: the plotted value per bucket */
	struct ds_mode node;           /* vCPU rows: the node per bucket (no frame: absent) */
	struct ds_mean paused;         /* VM rows: the paused share of each bucket's frames */
	size_t paused_frames;          /* frames it was in paused */
	bool ended;                    /* its end was recorded (a row marked ended) */
	bool same_name;                /* another VM entity has its name: label with the pid */
};

struct html_plot {
	size_t max_b, n, fi;          /* bucket limit, frames, frames added (pass 2) */
	struct ds_geom g;
	bool cost[FACTOR_N];          /* some row has a cost for the factor (else: scores) */
	double vmax_cost[FACTOR_N], vmax_score[FACTOR_N]; /* over VM rows, single intervals */
	struct strmap keys;           /* key -> index in s */
	struct series *s;             /* every entity of every frame, first seen first */
	size_t n_s, cap_s;
	bool laid_out;
};

struct html_plot *html_plot_new(size_t max_buckets)
{
	struct html_plot *p = xcalloc(1, sizeof(*p));

	p->max_b = max_buckets ? max_buckets : 1;
	strmap_init(&p->keys);
	return p;
}

size_t html_plot_frames(const struct html_plot *p)
{
	return p->n;
}

static bool is_vm(const struct collect_row *r)
{
	return r->kind == ENT_VM || r->kind == ENT_PROCESS;
}

static bool is_vcpu(const struct collect_row *r)
{
	return r->kind == ENT_VCPU || r->kind == ENT_THREAD;
}

/* The entity of row r of frame f, added the first time its key is seen. */
static struct series *entity(struct html_plot *p, const struct collect_frame *f,
			     const struct collect_row *r)
{
	const struct collect_row *vr = r->vm_row < f->n_rows ? &f->rows[r->vm_row] : r;
	struct series *s;
	size_t k;

	if (!r->key)
		return NULL;
	if (strmap_get(&p->keys, r->key, &k))
		return &p->s[k];
	VP_GROW(p->s, p->cap_s, p->n_s + 1);
	s = &p->s[p->n_s];
	memset(s, 0, sizeof(*s));
	s->key = xstrdup(r->key);
	s->name = xstrdup(vr->name ? vr->name : "?");
	s->vm_key = xstrdup(vr->key ? vr->key : "");
	s->kind = r->kind;
	s->index = r->index;
	s->pid = vr->pid;
	s->vm = is_vm(r);
	s->vcpu = is_vcpu(r);
	s->first = p->n;
	strmap_put(&p->keys, s->key, p->n_s);
	p->n_s++;
	return s;
}

void html_plot_scan(struct html_plot *p, struct collect_frame *f)
{
	size_t k;
	int i;

	for (k = 0; k < f->n_rows; k++) {
		const struct collect_row *r = &f->rows[k];
		struct series *s = entity(p, f, r);

		if (s && (s->frames == 0 || s->last != p->n)) {
			s->last = p->n;
			s->frames++;
			s->paused_frames += r->state == RS_PAUSED;
			s->ended |= r->state == RS_ENDED;
		}
		for (i = 0; i < FACTOR_N; i++) {
			if (isfinite(r->fv[i].cost_pct))
				p->cost[i] = true;
			if (!is_vm(r))
				continue;
			if (isfinite(r->fv[i].cost_pct) && r->fv[i].cost_pct > p->vmax_cost[i])
				p->vmax_cost[i] = r->fv[i].cost_pct;
			if (isfinite(r->fv[i].score) && r->fv[i].score > p->vmax_score[i])
				p->vmax_score[i] = r->fv[i].score;
		}
	}
	collect_frame_release(f);
	p->n++;
}

static void layout(struct html_plot *p)
{
	size_t j, k;
	int i;

	ds_geom_init(&p->g, p->n, p->max_b);
	for (k = 0; k < p->n_s; k++) {
		struct series *s = &p->s[k];

		for (i = 0; s->vm && i < FACTOR_N; i++)
			ds_mean_init(&s->mean[i], &p->g);
		if (s->vm)
			ds_mean_init(&s->paused, &p->g);
		if (s->vcpu)
			ds_mode_init(&s->node, &p->g);
		for (j = 0; s->vm && j < p->n_s; j++)
			if (j != k && p->s[j].vm && !strcmp(p->s[j].name, s->name))
				s->same_name = true;
	}
	p->laid_out = true;
}

void html_plot_add(struct html_plot *p, const struct collect_frame *f)
{
	size_t j, k;
	int i;

	if (!p->laid_out)
		layout(p);
	if (p->fi >= p->n)
		return;
	for (j = 0; j < f->n_rows; j++) {
		const struct collect_row *r = &f->rows[j];
		struct series *s;

		if (!r->key || !strmap_get(&p->keys, r->key, &k))
			continue;
		s = &p->s[k];
		for (i = 0; s->vm && i < FACTOR_N; i++)
			ds_mean_add(&s->mean[i], p->fi, plotted(r, i, p->cost[i]));
		if (s->vm)
			ds_mean_add(&s->paused, p->fi, r->state == RS_PAUSED);
		/* only the frames a vCPU was in: a bucket it was never in stays empty */
		if (s->vcpu)
			ds_mode_add(&s->node, p->fi, r->node);
	}
	p->fi++;
	if (p->fi == p->n)
		for (k = 0; k < p->n_s; k++)
			if (p->s[k].vcpu)
				ds_mode_finish(&p->s[k].node);
}

void html_plot_free(struct html_plot *p)
{
	size_t k;
	int i;

	if (!p)
		return;
	for (k = 0; k < p->n_s; k++) {
		struct series *s = &p->s[k];

		for (i = 0; p->laid_out && s->vm && i < FACTOR_N; i++)
			ds_mean_release(&s->mean[i]);
		if (p->laid_out && s->vm)
			ds_mean_release(&s->paused);
		if (p->laid_out && s->vcpu)
			ds_mode_release(&s->node);
		free(s->key);
		free(s->name);
		free(s->vm_key);
	}
	free(p->s);
	strmap_release(&p->keys);
	free(p);
}

static double x_of(const struct html_plot *p, size_t b)
{
	return 40 + (double)(CHART_W - 50) * (double)b / (double)(p->g.nb > 1 ? p->g.nb - 1 : 1);
}

/* A VM's label: its name, its pid when a restart gave the name to two entities,
 * and the intervals it was in when not the whole run (numbered from 1). */
static void vm_label(const struct html_plot *p, const struct series *s, struct sbuf *out)
{
	html_esc(out, s->name);
	if (s->same_name)
		sbuf_addf(out, " (pid %d)", s->pid);
	if (s->first > 0 || s->last + 1 < p->n) {
		if (s->first == s->last)
			sbuf_addf(out, " [interval %zu]", s->first + 1);
		else
			sbuf_addf(out, " [intervals %zu-%zu]", s->first + 1, s->last + 1);
	}
	if (s->paused_frames)
		sbuf_addf(out, " paused in %zu of %zu", s->paused_frames, s->frames);
	if (s->ended)
		sbuf_addf(out, " ended in interval %zu", s->last + 1);
}

static void chart(const struct recording *rec, const struct html_plot *p, int f, struct sbuf *out)
{
	bool cost = p->cost[f];
	double vmax = cost ? p->vmax_cost[f] : p->vmax_score[f];
	size_t b, k, series = 0;

	sbuf_addf(out, "<h3>%s: %s per VM over time</h3>\n", factor_title((enum factor_id)f),
		  cost ? "cost, % of cycles" : "score");
	if (vmax <= 0)
		vmax = 1;
	sbuf_addf(out, "<svg class=\"chart\" width=\"%d\" height=\"%d\" role=\"img\" "
		       "aria-label=\"%s over time\">\n", CHART_W, CHART_H + 20,
		  factor_name((enum factor_id)f));
	sbuf_addf(out, "<line x1=\"40\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>"
		       "<line x1=\"40\" y1=\"0\" x2=\"40\" y2=\"%d\" class=\"axis\"/>\n",
		  CHART_H, CHART_W, CHART_H, CHART_H);
	sbuf_addf(out, "<text x=\"0\" y=\"12\">%.3g</text><text x=\"0\" y=\"%d\">0</text>\n", vmax,
		  CHART_H);
	/* the x axis: interval numbers, so a reader can tell time runs left to right */
	sbuf_addf(out, "<text x=\"40\" y=\"%d\">1</text>"
		       "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">interval (%.3g s each)</text>"
		       "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%zu</text>\n",
		  CHART_H + 16, CHART_W / 2, CHART_H + 16, rec->interval_s, CHART_W - 10, CHART_H + 16,
		  p->n);
	/*
	 * One path per VM entity recorded, first seen first: a segment per run of
	 * buckets with a value, a gap where the VM did not exist (or had no
	 * value), and a dot for a run of one bucket, so a VM that lived for one
	 * interval of a long recording is still drawn.
	 */
	for (k = 0; k < p->n_s; k++) {
		const struct series *s = &p->s[k];
		const char *colour = palette[series % 8];
		struct sbuf d = SBUF_INIT, dots = SBUF_INIT;
		size_t run = 0;
		double px = 0, py = 0;

		if (!s->vm)
			continue;
		for (b = 0; b <= p->g.nb; b++) {
			double v = b < p->g.nb ? ds_mean_get(&s->mean[f], b) : NAN;

			if (!isfinite(v)) {
				if (run == 1)
					sbuf_addf(&dots, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
						  px, py, colour);
				run = 0;
				continue;
			}
			px = x_of(p, b);
			py = CHART_H - v / vmax * (CHART_H - 10);
			sbuf_addf(&d, "%s%.1f,%.1f ", run ? "L" : "M", px, py);
			run++;
		}
		/* paused: a band in the VM's colour just above the axis (no cost is
		 * rated there); ended: a cross at its last bucket */
		for (b = 0; s->paused_frames && b < p->g.nb; b++) {
			double ps = ds_mean_get(&s->paused, b);
			double half = p->g.nb > 1 ? (x_of(p, 1) - x_of(p, 0)) / 2 : 2;
			double x0 = fmax(x_of(p, 0), x_of(p, b) - half);
			double x1 = fmin(x_of(p, p->g.nb - 1), x_of(p, b) + half);

			if (isfinite(ps) && ps > 0)
				sbuf_addf(&dots, "<rect class=\"paused\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
					  "height=\"4\" fill=\"%s\"><title>paused</title></rect>",
					  x0, CHART_H - 5 - 5 * (int)(series % 4), fmax(x1 - x0, 2.0), colour);
		}
		if (s->ended) {
			double ex = x_of(p, ds_bucket(&p->g, s->last));

			sbuf_addf(&dots, "<path class=\"ended\" stroke=\"%s\" stroke-width=\"2\" "
				  "d=\"M%.1f,%d l8,8 m0,-8 l-8,8\"><title>ended</title></path>",
				  colour, ex - 4, CHART_H - 14 - 5 * (int)(series % 4));
		}
		sbuf_addf(out, "<g class=\"vm\" data-key=\"");
		html_esc(out, s->key);
		sbuf_addf(out, "\"><path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"%s\"/>%s",
			  colour, sbuf_str(&d), sbuf_str(&dots));
		sbuf_addf(out, "<text x=\"%d\" y=\"%zu\" fill=\"%s\">", CHART_W - 200,
			  14 + 14 * series, colour);
		vm_label(p, s, out);
		sbuf_addstr(out, "</text></g>\n");
		series++;
		sbuf_release(&d);
		sbuf_release(&dots);
	}
	sbuf_addstr(out, "</svg>\n");
}

/* Node id's colour: the placement map's (html_node_colour, by position); grey unknown. */
static const char *node_colour(const struct topology *t, int id)
{
	int i;

	for (i = 0; id >= 0 && i < t->n_nodes; i++)
		if (t->nodes[i].id == id)
			return html_node_colour[i % 8];
	return "#ccc";
}

/* One heatmap row: a vCPU's node per bucket; a bucket it was never in is blank. */
static void heat_row(const struct recording *rec, const struct html_plot *p,
		     const struct series *vm, const struct series *s,
		     int cell, struct sbuf *out)
{
	size_t b;

	sbuf_addstr(out, "<tr data-key=\"");
	html_esc(out, s->key);
	sbuf_addstr(out, "\"><th>");
	if (vm)
		vm_label(p, vm, out);
	else
		html_esc(out, s->name);
	sbuf_addf(out, " %s %d</th><td>", s->kind == ENT_THREAD ? "thread" : "vCPU", s->index);
	for (b = 0; b < p->g.nb; b++) {
		size_t first, end, count;
		int node = ds_mode_get(&s->node, b, &count);

		ds_range(&p->g, b, &first, &end);
		if (!count) {
			sbuf_addf(out, "<span class=\"c gone\" style=\"width:%dpx\" ", cell);
			if (end - first <= 1)
				sbuf_addf(out, "title=\"interval %zu: not there\"></span>", first + 1);
			else
				sbuf_addf(out, "title=\"intervals %zu-%zu: not there\"></span>", first + 1, end);
			continue;
		}
		sbuf_addf(out, "<span class=\"c\" style=\"width:%dpx;background:%s\" ",
			  cell, node_colour(&rec->plat.topo, node));
		if (end - first <= 1)
			sbuf_addf(out, "title=\"interval %zu: node %d\"></span>", first + 1, node);
		else
			sbuf_addf(out, "title=\"intervals %zu-%zu: node %d in %zu of %zu\"></span>",
				  first + 1, end, node, count, end - first);
	}
	sbuf_addstr(out, "</td></tr>\n");
}

static void heatmap(const struct recording *rec, const struct html_plot *p, struct sbuf *out)
{
	size_t j, k;
	int cell;

	sbuf_addstr(out, "<h2>vCPU placement over time</h2>\n<p>Each square is one interval, "
			 "coloured by the NUMA node the vCPU ran on (grey: unknown; blank: the vCPU "
			 "did not exist).  Every VM and vCPU recorded has a row, the ones that "
			 "ended or started during the recording too.</p>\n");
	if (p->g.nb < p->n)
		sbuf_addf(out, "<p>Downsampled: %zu intervals in %zu squares of %zu or %zu intervals; "
			       "a square has the node of most of the intervals the vCPU was in, and the "
			       "charts above plot each square's mean over the intervals each VM was "
			       "in, so a VM or vCPU that lived for one interval still shows.</p>\n",
			  p->n, p->g.nb, p->n / p->g.nb, (p->n + p->g.nb - 1) / p->g.nb);
	sbuf_addstr(out, "<table class=\"heat\">\n");
	cell = p->g.nb > 120 ? 4 : 10;
	/* each VM's vCPUs under it, VMs first seen first; then vCPUs whose VM row was never seen */
	for (j = 0; j < p->n_s; j++) {
		if (!p->s[j].vm)
			continue;
		for (k = 0; k < p->n_s; k++)
			if (p->s[k].vcpu && !strcmp(p->s[k].vm_key, p->s[j].key))
				heat_row(rec, p, &p->s[j], &p->s[k], cell, out);
	}
	for (k = 0; k < p->n_s; k++) {
		bool has_vm = false;

		for (j = 0; p->s[k].vcpu && j < p->n_s && !has_vm; j++)
			has_vm = p->s[j].vm && !strcmp(p->s[k].vm_key, p->s[j].key);
		if (p->s[k].vcpu && !has_vm)
			heat_row(rec, p, NULL, &p->s[k], cell, out);
	}
	sbuf_addstr(out, "</table>\n<p>");
	for (k = 0; k < (size_t)(rec->plat.topo.n_nodes > 0 ? rec->plat.topo.n_nodes : 0); k++)
		sbuf_addf(out, "<span class=\"c\" style=\"width:10px;background:%s\"></span> node %d &nbsp; ",
			  html_node_colour[k % 8], rec->plat.topo.nodes[k].id);
	sbuf_addstr(out, "</p>\n");
}

void report_html(const struct recording *rec, const struct model *m, const struct model_avail *av,
		 const struct diag_input *in, const struct diag_result *r,
		 const struct html_plot *p, const struct html_map *map, struct sbuf *out)
{
	size_t i;
	int f;

	sbuf_addstr(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			 "<title>vmmprof report</title>\n<style>\n"
			 "body{font-family:sans-serif;margin:2em;max-width:60em;color:#222}\n"
			 "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left;"
			 "border-bottom:1px solid #ddd;vertical-align:top}\n"
			 ".axis{stroke:#888}.chart text{font-size:11px}\n"
			 ".heat td,.heat th{border:none;padding:1px 4px;white-space:nowrap}\n"
			 ".c{display:inline-block;height:12px;margin-right:1px}.gone{background:#fff;outline:1px dotted #ddd}\n"
			 "pre{background:#f4f4f4;padding:6px}.na{color:#888}\n"
			 ".critical{color:#b00;font-weight:bold}.warning{color:#b60}\n"
			 /* the placement map (report_map.c): n/a grey and dashed, never the colour of ok */
			 ".map-nodes{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-start}"
			 ".snap{margin:1em 0;border-top:1px solid #ddd}figcaption{font-weight:bold;margin:4px 0}\n"
			 ".node-box{fill:#fafbfc;stroke-width:2}.llc-box{fill:#eef2f7;stroke:#b9c3cf}"
			 ".core-box{fill:#fff;stroke:#c9d1db}.cpu-box{fill:#f6f7f9;stroke:#dde2e8}\n"
			 ".map-title{font-weight:bold;font-size:13px}.map-small{font-size:9px;fill:#5f6b7a}"
			 ".map-count{font-size:10px;font-weight:bold;fill:#fff}\n"
			 "rect.sev-ok{fill:#2e8b57}rect.sev-warning{fill:#d98c00}rect.sev-critical{fill:#c0392b}"
			 "rect.sev-na{fill:#c4c9d0}.map-agg rect.sev-na{stroke:#6b7280;stroke-dasharray:2 1}"
			 ".map-agg rect.sev-na+text{fill:#222}\n"
			 "rect.map-mem-seg.remote{stroke:#c0392b;stroke-width:2}\n"
			 ".map-key,.map-sev{display:inline-block;width:.9em;height:.9em;vertical-align:middle;"
			 "margin:0 .2em 0 .5em}.map-key.sev-ok,.map-sev.sev-ok{background:#2e8b57}"
			 ".map-key.sev-warning,.map-sev.sev-warning{background:#d98c00}"
			 ".map-key.sev-critical,.map-sev.sev-critical{background:#c0392b}"
			 ".map-key.sev-na,.map-sev.sev-na{background:#c4c9d0;outline:1px dashed #6b7280}\n"
			 ".map-vm{display:flex;align-items:center;gap:.5em;font-size:.85em}"
			 ".map-vm-name{min-width:8em}.map-vm-words{color:#5f6b7a}\n"
			 "</style></head><body>\n<h1>vmmprof report</h1>\n<p>");
	html_esc(out, rec->path);
	sbuf_addf(out, ": %zu intervals of %.3g s, recorded ", p->n, rec->interval_s);
	html_esc(out, rec->created);
	sbuf_addstr(out, " with model <b>");
	html_esc(out, m->name);
	sbuf_addstr(out, "</b>.<br>Command: <code>");
	html_esc(out, rec->command);
	sbuf_addstr(out, "</code></p>\n");

	sbuf_addstr(out, "<h2>Ranked bottlenecks</h2>\n");
	if (!r->n_b) {
		sbuf_addstr(out, "<p>None among the factors that could be evaluated.</p>\n");
	} else {
		sbuf_addstr(out, "<table><tr><th>#</th><th>where</th><th>factor</th><th>cost</th>"
				 "<th>severity</th><th>quality</th><th>confidence</th><th>evidence</th></tr>\n");
		for (i = 0; i < r->n_b; i++) {
			const struct diag_bottleneck *b = &r->b[i];

			sbuf_addf(out, "<tr><td>%zu</td><td>", i + 1);
			if (b->scope == DIAG_NODE)
				sbuf_addf(out, "node %d", in->nodes[b->entity].id);
			else if (b->scope == DIAG_VM)
				html_esc(out, in->vms[b->entity].name);
			else {
				html_esc(out, in->vms[in->vcpus[b->entity].vm].name);
				sbuf_addf(out, " vCPU %d", in->vcpus[b->entity].index);
			}
			sbuf_addf(out, "</td><td>%s</td><td>", diag_factor_name(b->factor));
			if (isfinite(b->cost_pct))
				sbuf_addf(out, "%.1f%%", b->cost_pct);
			else
				sbuf_addstr(out, "<span class=\"na\">n/a</span>");
			sbuf_addf(out, "</td><td class=\"%s\">%s</td><td>%s</td><td>%s</td><td>",
				  severity_name(b->sev), severity_name(b->sev),
				  vp_quality_name(b->quality), diag_confidence_name(b->confidence));
			html_esc(out, b->evidence);
			sbuf_addstr(out, "</td></tr>\n");
		}
		sbuf_addstr(out, "</table>\n");
	}

	sbuf_addstr(out, "<h2>Advice</h2>\n");
	if (!r->n_a)
		sbuf_addstr(out, "<p>None: no bottleneck that a placement change would relieve.</p>\n");
	for (i = 0; i < r->n_a; i++) {
		const struct diag_advice *a = &r->a[i];

		sbuf_addf(out, "<h3>%zu. ", i + 1);
		html_esc(out, a->action);
		sbuf_addf(out, " <small>[%s]</small></h3>\n<p>Evidence: ", a->rule);
		html_esc(out, a->evidence);
		sbuf_addstr(out, "<br>Expected: ");
		html_esc(out, a->effect);
		if (a->restart) {
			sbuf_addstr(out, "<br>After a restart: ");
			html_esc(out, a->restart);
		}
		if (a->needs) {
			sbuf_addstr(out, "<br>Needs: ");
			html_esc(out, a->needs);
		}
		if (a->conflict) {
			sbuf_addstr(out, "<br><b>Conflict:</b> ");
			html_esc(out, a->conflict_note);
		}
		sbuf_addstr(out, "</p><pre>");
		html_esc(out, a->command);
		sbuf_addstr(out, "</pre>\n");
	}

	sbuf_addstr(out, "<h2>Factors over time</h2>\n");
	for (f = 0; f < FACTOR_N; f++) {
		const char *why = factor_unavailable(m, av, (enum factor_id)f);

		if (why) {
			sbuf_addf(out, "<h3>%s</h3><p class=\"na\">Not measured: ",
				  factor_title((enum factor_id)f));
			html_esc(out, why);
			sbuf_addstr(out, "</p>\n");
			continue;
		}
		chart(rec, p, f, out);
	}
	heatmap(rec, p, out);
	html_map_render(map, rec, out);
	sbuf_addstr(out, "<h2>Node &times; node traffic</h2>\n<p class=\"na\">");
	sbuf_addstr(out, "n/a: the traffic matrix needs per-node local/remote counts (uncore home-agent "
			 "or AMD DF counters, or resctrl MBM); this recording has none.</p>\n");
	sbuf_addstr(out, "<h2>Nodes</h2>\n<ul>\n");
	for (i = 0; i < in->n_nodes; i++) {
		sbuf_addf(out, "<li>node %d (CPUs %s): ", in->nodes[i].id, in->nodes[i].cpus);
		html_esc(out, r->node_notes[i]);
		sbuf_addstr(out, "</li>\n");
	}
	sbuf_addstr(out, "</ul>\n<p><small>Generated by vmmprof. Unknown values are shown as n/a, "
			 "never as 0.</small></p>\n</body></html>\n");
}
