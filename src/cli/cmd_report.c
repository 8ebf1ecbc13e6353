/* cmd_report.c - `vmmprof report`: a recording as text, JSON, CSV or a self-contained HTML page */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/cost_ci.h"
#include "compose/diag_render.h"
#include "compose/frame_text.h"
#include "cli/pipeline.h"
#include "cli/report_html.h"
#include "record/record.h"
#include "util/alloc.h"
#include "util/json.h"
#include "util/table.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV };

/* A text report of more intervals than this is a summary unless --timeline. */
#define REPORT_TIMELINE_MAX 120 /* the help and the summary line say 120 */

/* Write out once a chunk has built up: the output streams, memory stays bounded. */
#define FLUSH_AT 65536

static void csv_num(struct sbuf *out, double v)
{
	sbuf_addch(out, ',');
	if (isfinite(v))
		sbuf_addf(out, "%.17g", v);
}

static void csv_int(struct sbuf *out, int v)
{
	sbuf_addch(out, ',');
	if (v >= 0)
		sbuf_addf(out, "%d", v);
}

static void timeline_csv_head(struct sbuf *out)
{
	int k;

	sbuf_addstr(out, "interval,t_ns,duration_s,kind,vm,vcpu,tid,cpu,node,cycles,cycles_estimated");
	for (k = 0; k < FACTOR_N; k++)
		sbuf_addf(out, ",%s_score,%s_cost_pct,%s_severity,%s_quality",
			  factor_name((enum factor_id)k), factor_name((enum factor_id)k),
			  factor_name((enum factor_id)k), factor_name((enum factor_id)k));
	/* the incarnation (pid, start) and its state: last, so older readers keep their columns */
	sbuf_addstr(out, ",pid,started,state\n");
}

/*
 * The quality word of row r's factor k in every form of the report (text
 * marks, CSV, JSON): "unavailable" where the model cannot see it here
 * (quality[k], from the run) or the row has neither score nor cost (as
 * diagnose says of the same VM), else frame_factor_quality() (a measured
 * factor read from a share of per-node counts is apportioned).
 */
static const char *row_quality(const struct model *m, const char *const *quality,
			       const struct collect_frame *fr, const struct collect_row *r, int k)
{
	if (!strcmp(quality[k], vp_quality_name(VQ_UNAVAILABLE)) ||
	    (!isfinite(r->fv[k].score) && !isfinite(r->fv[k].cost_pct)))
		return vp_quality_name(VQ_UNAVAILABLE);
	return vp_quality_name(frame_factor_quality(m, fr, r, k));
}

/* One CSV row of frame f: an entity row (of VM vm) or a node row (vm NULL). */
static void timeline_csv_row(const struct model *m, const struct collect_frame *fr, size_t f,
			     const struct collect_row *r,
			     const char *vm, const char *const *quality, struct sbuf *out)
{
	int k;

	sbuf_addf(out, "%zu,%llu,%.6f,%s,", f, (unsigned long long)fr->t_ns, fr->duration,
		  ent_kind_name(r->kind));
	/* names come from QEMU command lines: quoted as RFC 4180 asks */
	table_csv_field(out, vm ? vm : "", ',');
	csv_int(out, r->index);
	csv_int(out, r->tid);
	csv_int(out, r->cpu);
	csv_int(out, r->node);
	csv_num(out, r->cycles);
	sbuf_addstr(out, r->cycles_proxy ? ",1" : ",0");
	for (k = 0; k < FACTOR_N; k++) {
		const struct factor_value *v = &r->fv[k];
		const char *q = row_quality(m, quality, fr, r, k);

		csv_num(out, v->score);
		csv_num(out, v->cost_pct);
		sbuf_addch(out, ',');
		sbuf_addstr(out, severity_name(v->sev));
		sbuf_addch(out, ',');
		sbuf_addstr(out, q);
	}
	csv_int(out, r->kind == ENT_NODE || r->pid <= 0 ? -1 : r->pid);
	csv_num(out, r->kind != ENT_NODE && r->started > 0 ? r->started : NAN);
	sbuf_addf(out, ",%s\n", r->kind == ENT_NODE ? "" : row_state_name(r->state));
}

/* One frame (number f) of the CSV timeline, then its node rows (kind "node", no vm). */
static void timeline_csv_rows(const struct model *m, const struct collect_frame *fr, size_t f,
			      const char *const *quality, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < fr->n_rows; i++)
		timeline_csv_row(m, fr, f, &fr->rows[i], fr->rows[fr->rows[i].vm_row].name, quality,
				 out);
	for (i = 0; i < fr->n_nodes; i++)
		timeline_csv_row(m, fr, f, &fr->nodes[i], NULL, quality, out);
}

static void timeline_json_head(struct jw *w, const struct recording *rec, const struct model *m)
{
	jw_obj_begin(w);
	jw_kstr(w, "recording", rec->path);
	jw_kstr(w, "created", rec->created);
	jw_kstr(w, "command", rec->command);
	jw_kstr(w, "vmmprof_version", rec->vmmprof_version);
	jw_kint(w, "schema", rec->schema);
	jw_kstr(w, "model", m->name);
	jw_kdouble(w, "interval_s", rec->interval_s);
	jw_key(w, "intervals");
	jw_arr_begin(w);
}

/* A row's factors; a factor scored on per-node counts shared out is labelled apportioned. */
static void timeline_json_factors(struct jw *w, const struct model *m, const char *const *quality,
				  const struct collect_frame *fr, const struct collect_row *r)
{
	int k;

	jw_key(w, "factors");
	jw_obj_begin(w);
	for (k = 0; k < FACTOR_N; k++) {
		jw_key(w, factor_name((enum factor_id)k));
		jw_obj_begin(w);
		jw_kdouble(w, "score", r->fv[k].score);
		jw_kdouble(w, "cost_pct", r->fv[k].cost_pct);
		jw_kstr(w, "severity", severity_name(r->fv[k].sev));
		/* the words of the CSV, diagnose --json and top --json, on every factor */
		jw_kstr(w, "quality", row_quality(m, quality, fr, r, k));
		if (isfinite(r->fv[k].cost_pct))
			jw_kstr(w, "cost_quality", vp_quality_name(frame_cost_quality(m, fr, r, k)));
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

static void timeline_json_frame(struct jw *w, const struct model *m, const char *const *quality,
				const struct collect_frame *fr)
{
	size_t i, j;

	jw_obj_begin(w);
	jw_kuint(w, "t_ns", fr->t_ns);
	jw_kdouble(w, "duration_s", fr->duration);
	jw_key(w, "rows");
	jw_arr_begin(w);
	for (i = 0; i < fr->n_rows; i++) {
		const struct collect_row *r = &fr->rows[i];

		jw_obj_begin(w);
		jw_kstr(w, "kind", ent_kind_name(r->kind));
		jw_kstr(w, "vm", fr->rows[r->vm_row].name);
		/* the incarnation: pid and start (s after boot); running, paused or ended */
		if (r->pid > 0)
			jw_kint(w, "pid", r->pid);
		jw_kdouble(w, "started", r->started > 0 ? r->started : NAN);
		jw_kstr(w, "state", row_state_name(r->state));
		if (r->index >= 0)
			jw_kint(w, "vcpu", r->index);
		if (r->node >= 0)
			jw_kint(w, "node", r->node);
		jw_kdouble(w, "cycles", r->cycles);
		jw_kbool(w, "cycles_estimated", r->cycles_proxy);
		if (r->apportioned && fr->metric_node) {
			jw_key(w, "apportioned"); /* metric: this row's share of per-node counts */
			jw_obj_begin(w);
			for (j = 0; j < m->n_metrics; j++)
				if (frame_metric_apportioned(fr, r, j))
					jw_kdouble(w, m->metrics[j].name, r->metrics[j]);
			jw_obj_end(w);
		}
		timeline_json_factors(w, m, quality, fr, r);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	if (fr->n_nodes) {
		/* each node's own per-node counts, the model's metrics over them */
		jw_key(w, "nodes");
		jw_arr_begin(w);
		for (i = 0; i < fr->n_nodes; i++) {
			const struct collect_row *r = &fr->nodes[i];

			jw_obj_begin(w);
			jw_kint(w, "node", r->node);
			jw_kstr(w, "quality", r->apportioned ? "apportioned" : "measured");
			jw_key(w, "metrics");
			jw_obj_begin(w);
			for (j = 0; j < m->n_metrics; j++)
				if (fr->metric_node && fr->metric_node[j])
					jw_kdouble(w, m->metrics[j].name, r->metrics[j]);
			jw_obj_end(w);
			jw_obj_end(w);
		}
		jw_arr_end(w);
	}
	jw_obj_end(w);
}

/* Write out and empty out when it has grown past FLUSH_AT (always when force). */
static int flush(struct sbuf *out, bool force)
{
	int rc = 0;

	if (force || out->len >= FLUSH_AT) {
		rc = cli_write(out);
		sbuf_reset(out);
	}
	return rc;
}

/*
 * What of the recording to report: the VMs named with --vm (none: every
 * VM), the intervals that overlap [from, to) in seconds from the
 * recording's start (--from, --to; the text timeline's t(s) column is an
 * interval's end on that clock).
 */
struct report_sel {
	const char *const *vms;
	size_t n_vms;
	bool *matched;                  /* per name: some VM row had it */
	double from, to;                /* 0, INFINITY: all */
	int view;                       /* text: 0 by length, 1 --timeline, 2 --summary */
	uint64_t t0;                    /* the first frame's t_ns, less its duration */
	bool have_t0;
};

static bool sel_keep_vm(const struct collect_row *vm, void *ctx)
{
	struct report_sel *sel = ctx;
	bool keep = false;
	size_t i;

	for (i = 0; i < sel->n_vms; i++)
		if (vm->name && !strcmp(vm->name, sel->vms[i]))
			keep = sel->matched[i] = true;
	return keep;
}

/*
 * rec_next_frame() through the selection: frames outside the window are
 * skipped (all are read: the header counts the recording's intervals),
 * rows of VMs not named are dropped, and so is a frame left without rows.  limit > 0: yield no frame past the
 * limit-th of the recording (a second pass that must not reach damage the
 * first one found).  1 a frame, 0 the end, negative an error.
 */
static int sel_next(struct recording *rec, struct report_sel *sel, size_t limit,
		    struct collect_frame *fr, struct vp_err *err)
{
	int more;

	for (;;) {
		double end, start;

		if (limit && rec->n_read >= limit)
			return 0;
		if ((more = rec_next_frame(rec, fr, err)) <= 0)
			return more;
		if (!sel->have_t0) {
			sel->t0 = fr->t_ns - (uint64_t)(fr->duration * 1e9);
			sel->have_t0 = true;
		}
		end = (double)(fr->t_ns - sel->t0) / 1e9;
		start = end - fr->duration;
		if (start < sel->to - 1e-9 && end > sel->from + 1e-9) {
			if (sel->n_vms)
				collect_frame_keep_vms(fr, sel_keep_vm, sel);
			if (!sel->n_vms || fr->n_rows)
				return 1;
		}
		collect_frame_release(fr);
	}
}

/* A --vm name no VM of the recording had: an error that says which there are. */
static int sel_check(const struct report_sel *sel, const struct recording *rec)
{
	size_t i;

	for (i = 0; i < sel->n_vms; i++)
		if (!sel->matched[i]) {
			struct vp_err err;

			vp_err_set(&err, -ENOENT, "no VM named '%s' in '%s'%s (vmmprof report %s "
				   "lists them)", sel->vms[i], rec->path,
				   sel->from > 0 || isfinite(sel->to) ? " between --from and --to" : "",
				   rec->path);
			return cli_error(&err);
		}
	return 0;
}

/*
 * CSV and JSON: one pass, one frame in memory, output written as it goes.
 * Returns the exit code; a damaged file ends the output where the damage
 * starts (the JSON stays well-formed) and gives the error.
 */
static int stream_timeline(struct recording *rec, const struct model *m,
			   const struct model_avail *av, struct report_sel *sel, enum fmt fmt)
{
	const char *quality[FACTOR_N];
	struct collect_frame fr;
	struct sbuf out = SBUF_INIT;
	struct vp_err err;
	struct jw w;
	int k, more, rc = 0;

	for (k = 0; k < FACTOR_N; k++)
		quality[k] = vp_quality_name(factor_unavailable(m, av, (enum factor_id)k) ?
						 VQ_UNAVAILABLE : m->factors[k].quality);
	if (fmt == FMT_CSV) {
		timeline_csv_head(&out);
	} else {
		jw_init(&w, &out, false);
		timeline_json_head(&w, rec, m);
	}
	while (!rc && (more = sel_next(rec, sel, 0, &fr, &err)) > 0) {
		if (fmt == FMT_CSV)
			timeline_csv_rows(m, &fr, rec->n_read - 1, quality, &out);
		else
			timeline_json_frame(&w, m, quality, &fr);
		collect_frame_release(&fr);
		rc = flush(&out, false);
	}
	if (fmt == FMT_JSON) {
		jw_arr_end(&w);
		jw_obj_end(&w);
		sbuf_addch(&out, '\n');
	}
	if (!rc)
		rc = flush(&out, true);
	if (!rc && more < 0) {
		fflush(stdout);
		rc = cli_error(&err);
	}
	if (!rc) {
		fflush(stdout);
		rc = sel_check(sel, rec);
	}
	sbuf_release(&out);
	return rc;
}

/*
 * Text: the timeline is one aligned table, so two passes: the first measures
 * the columns (and counts the frames), the second prints them, frame by
 * frame, and sums the run for the diagnosis.
 */
static int text_report(struct recording *rec, const struct model *m,
		       const struct model_avail *av, struct report_sel *sel)
{
	struct collect_frame fr, total;
	struct rec_total *acc;
	struct cost_ci_set ci = { 0 };
	struct sbuf out = SBUF_INIT;
	struct table t;
	struct vp_err err, ferr;
	uint64_t t0 = 0;
	double d0 = 0;
	size_t *w, n, kept = 0;
	int more, more2 = 0, rc = 0;
	struct frame_summary *sum = NULL;

	frame_text_table(&t);
	w = xcalloc(t.ncols, sizeof(size_t));
	table_widths(&t, w, true);
	while ((more = sel_next(rec, sel, 0, &fr, &ferr)) > 0) {
		if (!kept++) {
			/* t(s): seconds from the recording's start, whatever is selected */
			t0 = sel->t0;
			d0 = 0;
		}
		frame_text_rows(&t, &fr, (double)(fr.t_ns - t0) / 1e9 + d0, m);
		table_widths(&t, w, false);
		table_clear(&t);
		collect_frame_release(&fr);
	}
	if ((rc = sel_check(sel, rec)))
		goto out;
	/* frames up to the damage, if any: the second pass stops before it */
	n = rec->n_read;
	/* what the recording says of itself is terminal text, each a line of its own */
	sbuf_addtextf(&out, "recording '%s': %s, %zu intervals of %.3g s, model '%s', vmmprof %s",
		      rec->path, rec->created ? rec->created : "?", n, rec->interval_s, m->name,
		      rec->vmmprof_version ? rec->vmmprof_version : "?");
	sbuf_addch(&out, '\n');
	sbuf_addtextf(&out, "command: %s", rec->command ? rec->command : "?");
	sbuf_addch(&out, '\n');
	if (sel->n_vms || sel->from > 0 || isfinite(sel->to)) {
		size_t i;

		sbuf_addf(&out, "selected: %zu interval%s", kept, kept == 1 ? "" : "s");
		if (sel->from > 0 || isfinite(sel->to))
			sbuf_addf(&out, " overlapping %.3g s .. %.3g s", sel->from, sel->to);
		for (i = 0; i < sel->n_vms; i++)
			sbuf_addtextf(&out, "%s%s", i ? ", " : "; VMs ", sel->vms[i]);
		sbuf_addstr(&out, " (the diagnosis below is of these only)\n");
	}
	if (sel->view == 2 || (!sel->view && kept > REPORT_TIMELINE_MAX)) {
		sum = frame_summary_new();
		sbuf_addf(&out, "\nSummary of %zu intervals (per entity: the mean per interval of its "
				"cycles and of each factor's cost in %% of cycles, or its score sN where "
				"the model gives no cost, over the intervals it was in; "
				VP_QUALITY_LEGEND "; %s)\n", kept,
			  sel->view == 2 ? "--timeline prints every interval" :
			  "more than 120 intervals: --timeline prints every one");
	} else {
		sbuf_addstr(&out, "\nTimeline (factor cost in % of cycles, or its score sN where the "
				  "model gives no cost; " VP_QUALITY_LEGEND ")\n");
		table_render_widths(&t, &out, 2, w, true);
	}
	acc = rec_total_new(rec, m);
	if (rec_rewind(rec, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	sel->have_t0 = false;
	while (!rc && (more2 = sel_next(rec, sel, n, &fr, &err)) > 0) {
		if (sum) {
			frame_summary_add(sum, m, &fr, (double)(fr.t_ns - t0) / 1e9 + d0);
		} else {
			frame_text_rows(&t, &fr, (double)(fr.t_ns - t0) / 1e9 + d0, m);
			table_render_widths(&t, &out, 2, w, false);
			table_clear(&t);
		}
		rec_total_add(acc, &fr);
		cost_ci_add(&ci, &fr);
		collect_frame_release(&fr);
		rc = flush(&out, false);
	}
	if (sum) {
		struct table st;

		frame_summary_table(sum, m, &st);
		table_render(&st, &out, 2, true);
		table_release(&st);
	}
	if (!rc && more2 < 0)
		rc = cli_error(&err);
	if (!rc) {
		sbuf_addch(&out, '\n');
		rc = flush(&out, true);
		fflush(stdout);
	}
	rec_total_finish(acc, &total);
	if (!rc)
		rc = diagnose_recorded_total(rec, m, av, &total, kept, &ci, false, more < 0);
	collect_frame_release(&total);
	if (!rc && more < 0) {
		fflush(stdout);
		rc = cli_error(&ferr);
	}
out:
	frame_summary_free(sum);
	cost_ci_release(&ci);
	free(w);
	table_release(&t);
	sbuf_release(&out);
	return rc;
}

/*
 * HTML: pass 1 sums the run (for the diagnosis) and scans the series, pass 2
 * fills the charts' buckets; the page is built in memory (bounded by the
 * buckets) and written at the end.  A damaged file is refused.
 */
static int html_report(struct recording *rec, const struct model *m,
		       const struct model_avail *av, struct report_sel *sel, const char *path)
{
	struct html_plot *plot = html_plot_new(HTML_MAX_BUCKETS);
	struct html_map *map = NULL;
	struct rec_total *acc = rec_total_new(rec, m);
	struct collect_frame fr, total;
	struct diag_input din;
	struct diag_result res;
	struct sbuf page = SBUF_INIT;
	struct vp_err err;
	size_t j, n;
	int more, rc = 0;
	FILE *f;

	while ((more = sel_next(rec, sel, 0, &fr, &err)) > 0) {
		rec_total_add(acc, &fr);
		html_plot_scan(plot, &fr);
	}
	rec_total_finish(acc, &total);
	if (more < 0 || rec_rewind(rec, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if ((rc = sel_check(sel, rec)))
		goto out;
	n = html_plot_frames(plot);
	map = html_map_new(m, av, n);
	sel->have_t0 = false;
	for (j = 0; j < n; j++) {
		if (sel_next(rec, sel, 0, &fr, &err) <= 0) {
			rc = cli_error(&err);
			goto out;
		}
		html_plot_add(plot, &fr);
		html_map_add(map, j, &fr);
		collect_frame_release(&fr);
	}
	frame_diag_input(m, av->factor_ok, &rec->plat.topo, rec->have_cal ? &rec->cal : NULL,
			 &total, &din);
	if (diagnose(&din, &res, &err)) {
		rc = cli_error(&err);
	} else {
		report_html(rec, m, av, &din, &res, plot, map, &page);
		diag_result_release(&res);
	}
	collect_diag_release(&din);
	if (rc)
		goto out;
	f = cli_open_output(path, &err);
	if (!f) {
		rc = cli_error(&err);
		goto out;
	}
	fwrite(page.buf ? page.buf : "", 1, page.len, f);
	rc = cli_close_output(f, path);
	if (!rc)
		fprintf(stderr, "vmmprof report: wrote '%s'\n", path);
out:
	sbuf_release(&page);
	collect_frame_release(&total);
	html_plot_free(plot);
	html_map_free(map);
	return rc;
}

static int run_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "html", required_argument, NULL, 'H' },
		{ "model-path", required_argument, NULL, PO_MODEL_PATH },
		{ "vm", required_argument, NULL, PO_VM },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "timeline", no_argument, NULL, 'L' },
		{ "summary", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts o = { .root = "/" };
	struct report_sel sel = { .from = 0, .to = INFINITY };
	char *end;
	enum fmt fmt = FMT_TEXT;
	const char *html = NULL;
	struct recording rec;
	struct pipeline p;
	struct model_avail av;
	bool have_rec = false, have_p = false, have_av = false;
	struct sbuf out = SBUF_INIT;
	struct vp_err err;
	int opt, rc = 0, r;
	unsigned forms = 0;

	while ((opt = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
		if ((r = pipe_opt(&cmd_report, &o, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		switch (opt) {
		case 'j': fmt = FMT_JSON; forms |= 1; break;
		case 'c': fmt = FMT_CSV; forms |= 2; break;
		case 'H': html = optarg; forms |= 4; break;
		case 'L': sel.view = 1; break;
		case 'S': sel.view = 2; break;
		case 'F':
		case 'T': {
			double v = strtod(optarg, &end);

			if (end == optarg || *end || !(v >= 0) || !isfinite(v)) {
				rc = cli_usage_error(&cmd_report, "--%s takes seconds from the "
							"recording's start (>= 0), not '%s'",
						     opt == 'F' ? "from" : "to", optarg);
				goto out;
			}
			*(opt == 'F' ? &sel.from : &sel.to) = v;
			break;
		}
		default:
			rc = cli_bad_option(&cmd_report, argv, "");
			goto out;
		}
	}
	if (forms & (forms - 1)) {
		/* one form per run: the last one given used to win without a word */
		rc = cli_usage_error(&cmd_report, "--json, --csv and --html exclude each other");
		goto out;
	}
	if (optind + 1 != argc) {
		rc = cli_usage_error(&cmd_report, optind >= argc ? "a RECORDING is required"
								: "one recording at a time");
		goto out;
	}
	if (sel.view && (html || fmt != FMT_TEXT)) {
		rc = cli_usage_error(&cmd_report, "--timeline and --summary are views of the text "
						  "report, not of --json, --csv or --html");
		goto out;
	}
	if (sel.to <= sel.from) {
		rc = cli_usage_error(&cmd_report, "--to %g is not after --from %g", sel.to, sel.from);
		goto out;
	}
	sel.vms = o.vms;
	sel.n_vms = o.n_vms;
	sel.matched = xcalloc(o.n_vms ? o.n_vms : 1, sizeof(bool));
	have_rec = true;
	if (rec_open(argv[optind], &rec, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_p = true;
	if ((rc = cli_pipeline_model(&p, &o, rec.model_name)))
		goto out;
	if (rec_bind_model(&rec, p.model, &av, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_av = true;
	if (html)
		rc = html_report(&rec, p.model, &av, &sel, html);
	else if (fmt == FMT_TEXT)
		rc = text_report(&rec, p.model, &av, &sel);
	else
		rc = stream_timeline(&rec, p.model, &av, &sel, fmt);
out:
	free(sel.matched);
	sbuf_release(&out);
	if (have_av)
		model_avail_release(p.model, &av);
	if (have_p)
		pipeline_close(&p);
	if (have_rec)
		rec_release(&rec);
	pipe_opts_release(&o);
	return rc;
}

const struct cmd cmd_report = {
	.name = "report",
	.args = "@files|",
	.fn = run_report,
	.summary = "read a recording back: timeline, diagnosis, CSV, JSON or an HTML page",
	.synopsis = "report [--vm NAME]... [--from SECS] [--to SECS] RECORDING\n"
		    "report (--json | --csv) [--vm NAME]... [--from SECS] [--to SECS] RECORDING\n"
		    "report --html FILE [--vm NAME]... [--from SECS] [--to SECS] RECORDING",
	.description =
		"Reads a recording made by 'vmmprof record' through the same analysis as live\n"
		"mode: the model is evaluated again on the recorded inputs, interval by\n"
		"interval.  The text report is the timeline of every VM's and vCPU's factor\n"
		"cost (and, when the model counts per node, each node's own row), or beyond\n"
		"120 intervals a summary with one row per entity, then the diagnosis of the\n"
		"whole run.  --csv and --json give one row per\n"
		"interval and entity; --html writes a self-contained page with charts, at most\n"
		"1000 points per line: a longer recording is downsampled (a point is the mean\n"
		"of its intervals, a heatmap cell the node of most of them), and a placement\n"
		"map of the host at up to 6 intervals (nodes, caches, cores, each vCPU on its\n"
		"CPU coloured by its factors' severity, each VM's memory by node).  The\n"
		"recording is read one interval at a time, so memory does not grow with its\n"
		"length.\n"
		"A truncated or damaged file is refused with the reason.  --vm and\n"
		"--from/--to select VMs and a time window (seconds from the recording's start,\n"
		"the timeline's t(s) being an interval's end): every form, and the diagnosis,\n"
		"covers only what is selected.",
	.options =
		"-j, --json\tthe timeline as JSON\n"
		"--csv\tthe timeline as CSV (RFC 4180)\n"
		"--html FILE\twrite a self-contained HTML page with charts to FILE\n"
		"--model-path DIR\talso look for the recorded model in DIR\n"
		"--vm NAME\tonly this VM (repeatable; every incarnation of the name); a\n"
		"\tname no VM of the recording has is an error\n"
		"--timeline\tthe text report prints every interval (the default up to 120)\n"
		"--summary\tthe text report prints one row per entity over the run (the\n"
		"\tdefault beyond 120 intervals)\n"
		"--from SECS\tonly the intervals that end after SECS seconds from the start\n"
		"--to SECS\tonly the intervals that start before SECS seconds from the start",
	.examples =
		"vmmprof report run.vmmdb\ttimeline and diagnosis\n"
		"vmmprof report --csv run.vmmdb > run.csv\tfor a spreadsheet\n"
		"vmmprof report --vm web1 --from 600 --to 900 run.vmmdb\tone VM, minutes 10 to 15",
};
