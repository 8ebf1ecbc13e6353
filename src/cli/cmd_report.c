/* cmd_report.c - `vmmprof report`: a recording as text, JSON, CSV or a self-contained HTML page */
#include "cli/commands.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diag_render.h"
#include "cli/pipeline.h"
#include "cli/report_html.h"
#include "record/record.h"
#include "util/alloc.h"
#include "util/json.h"
#include "util/table.h"

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV };

/* A row's label: "web", "web/vCPU 1". */
static void row_label(const struct collect_frame *f, const struct collect_row *r, char *buf,
		      size_t size)
{
	if (r->kind == ENT_VM || r->kind == ENT_PROCESS)
		snprintf(buf, size, "%s", r->name ? r->name : "?");
	else
		snprintf(buf, size, "%s/%s %d", f->rows[r->vm_row].name ? f->rows[r->vm_row].name : "?",
			 r->kind == ENT_THREAD ? "thread" : "vCPU", r->index);
}

static void num(char *buf, size_t size, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, size, fmt, v);
	else
		snprintf(buf, size, "n/a");
}

static void timeline_text(const struct recording *rec, const struct model *m, struct sbuf *out)
{
	const char *cols[4 + FACTOR_N];
	char titles[FACTOR_N][24];
	struct table t;
	size_t f, i;
	int k;

	cols[0] = ">t(s)";
	cols[1] = "entity";
	cols[2] = ">node";
	cols[3] = ">cycles";
	for (k = 0; k < FACTOR_N; k++) {
		snprintf(titles[k], sizeof(titles[k]), ">%s", factor_name((enum factor_id)k));
		cols[4 + k] = titles[k];
	}
	table_init(&t, 4 + FACTOR_N, cols);
	for (f = 0; f < rec->n_frames; f++) {
		const struct collect_frame *fr = &rec->frames[f];
		double t_s = (double)(fr->t_ns - rec->frames[0].t_ns) / 1e9 + rec->frames[0].duration;

		for (i = 0; i < fr->n_rows; i++) {
			const struct collect_row *r = &fr->rows[i];
			char b[96];

			table_row(&t);
			table_cell(&t, "%.1f", t_s);
			row_label(fr, r, b, sizeof(b));
			table_cell(&t, "%s", b);
			if (r->node >= 0)
				table_cell(&t, "%d", r->node);
			else
				table_cell(&t, "-");
			num(b, sizeof(b), r->cycles, "%.3g");
			table_cell(&t, "%s", b);
			for (k = 0; k < FACTOR_N; k++) {
				if (m->factors[k].quality == Q_UNAVAILABLE)
					table_cell(&t, "n/a");
				else if (isfinite(r->fv[k].cost_pct))
					table_cell(&t, "%.1f%%", r->fv[k].cost_pct);
				else if (isfinite(r->fv[k].score))
					table_cell(&t, "s%.3g", r->fv[k].score);
				else
					table_cell(&t, "n/a");
			}
		}
	}
	table_render(&t, out, 2, true);
	table_release(&t);
}

static void timeline_csv(const struct recording *rec, const struct model *m,
			 const struct model_avail *av, struct sbuf *out)
{
	size_t f, i;
	int k;

	sbuf_addstr(out, "interval,t_ns,duration_s,kind,vm,vcpu,tid,cpu,node,cycles,cycles_estimated");
	for (k = 0; k < FACTOR_N; k++)
		sbuf_addf(out, ",%s_score,%s_cost_pct,%s_severity,%s_quality",
			  factor_name((enum factor_id)k), factor_name((enum factor_id)k),
			  factor_name((enum factor_id)k), factor_name((enum factor_id)k));
	sbuf_addch(out, '\n');
	for (f = 0; f < rec->n_frames; f++) {
		const struct collect_frame *fr = &rec->frames[f];

		for (i = 0; i < fr->n_rows; i++) {
			const struct collect_row *r = &fr->rows[i];
			const char *vm = fr->rows[r->vm_row].name;
			char b[64];

			sbuf_addf(out, "%zu,%llu,%.6f,%s,", f, (unsigned long long)fr->t_ns, fr->duration,
				  ent_kind_name(r->kind));
			/* names come from QEMU command lines: quoted as RFC 4180 asks */
			table_csv_field(out, vm ? vm : "", ',');
			if (r->index >= 0)
				sbuf_addf(out, ",%d", r->index);
			else
				sbuf_addstr(out, ",");
			sbuf_addf(out, ",%s", r->tid >= 0 ? (snprintf(b, sizeof(b), "%d", r->tid), b) : "");
			sbuf_addf(out, ",%s", r->cpu >= 0 ? (snprintf(b, sizeof(b), "%d", r->cpu), b) : "");
			sbuf_addf(out, ",%s", r->node >= 0 ? (snprintf(b, sizeof(b), "%d", r->node), b) : "");
			sbuf_addf(out, ",%s", isfinite(r->cycles) ? (snprintf(b, sizeof(b), "%.17g", r->cycles), b) : "");
			sbuf_addf(out, ",%d", r->cycles_proxy ? 1 : 0);
			for (k = 0; k < FACTOR_N; k++) {
				const struct factor_value *v = &r->fv[k];
				enum factor_quality q = factor_unavailable(m, av, (enum factor_id)k) ?
							Q_UNAVAILABLE : m->factors[k].quality;

				sbuf_addf(out, ",%s", isfinite(v->score) ? (snprintf(b, sizeof(b), "%.17g", v->score), b) : "");
				sbuf_addf(out, ",%s", isfinite(v->cost_pct) ? (snprintf(b, sizeof(b), "%.17g", v->cost_pct), b) : "");
				sbuf_addf(out, ",%s,%s", severity_name(v->sev), factor_quality_name(q));
			}
			sbuf_addch(out, '\n');
		}
	}
}

static void timeline_json(const struct recording *rec, const struct model *m, struct sbuf *out)
{
	struct jw w;
	size_t f, i;
	int k;

	jw_init(&w, out, false);
	jw_obj_begin(&w);
	jw_kstr(&w, "recording", rec->path);
	jw_kstr(&w, "created", rec->created);
	jw_kstr(&w, "command", rec->command);
	jw_kstr(&w, "vmmprof_version", rec->vmmprof_version);
	jw_kint(&w, "schema", rec->schema);
	jw_kstr(&w, "model", m->name);
	jw_kdouble(&w, "interval_s", rec->interval_s);
	jw_key(&w, "intervals");
	jw_arr_begin(&w);
	for (f = 0; f < rec->n_frames; f++) {
		const struct collect_frame *fr = &rec->frames[f];

		jw_obj_begin(&w);
		jw_kuint(&w, "t_ns", fr->t_ns);
		jw_kdouble(&w, "duration_s", fr->duration);
		jw_key(&w, "rows");
		jw_arr_begin(&w);
		for (i = 0; i < fr->n_rows; i++) {
			const struct collect_row *r = &fr->rows[i];

			jw_obj_begin(&w);
			jw_kstr(&w, "kind", ent_kind_name(r->kind));
			jw_kstr(&w, "vm", fr->rows[r->vm_row].name);
			if (r->index >= 0)
				jw_kint(&w, "vcpu", r->index);
			if (r->node >= 0)
				jw_kint(&w, "node", r->node);
			jw_kdouble(&w, "cycles", r->cycles);
			jw_key(&w, "factors");
			jw_obj_begin(&w);
			for (k = 0; k < FACTOR_N; k++) {
				jw_key(&w, factor_name((enum factor_id)k));
				jw_obj_begin(&w);
				jw_kdouble(&w, "score", r->fv[k].score);
				jw_kdouble(&w, "cost_pct", r->fv[k].cost_pct);
				jw_kstr(&w, "severity", severity_name(r->fv[k].sev));
				jw_obj_end(&w);
			}
			jw_obj_end(&w);
			jw_obj_end(&w);
		}
		jw_arr_end(&w);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}


static int run_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "html", required_argument, NULL, 'H' },
		{ "model-path", required_argument, NULL, PO_MODEL_PATH },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts o = { .root = "/" };
	enum fmt fmt = FMT_TEXT;
	const char *html = NULL;
	struct recording rec;
	struct pipeline p;
	struct model_avail av;
	bool have_rec = false, have_p = false, have_av = false;
	struct sbuf out = SBUF_INIT;
	struct vp_err err;
	int opt, rc = 0, r;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if ((r = pipe_opt(&cmd_report, &o, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		switch (opt) {
		case 'j': fmt = FMT_JSON; break;
		case 'c': fmt = FMT_CSV; break;
		case 'H': html = optarg; break;
		default:
			rc = cli_usage_error(&cmd_report, "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind + 1 != argc) {
		rc = cli_usage_error(&cmd_report, optind >= argc ? "a RECORDING is required"
								: "one recording at a time");
		goto out;
	}
	have_rec = true;
	if (rec_read(argv[optind], &rec, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_p = true;
	if ((rc = pipeline_model(&p, &o, rec.model_name)))
		goto out;
	if (rec_bind_model(&rec, p.model, &av, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	have_av = true;
	if (html) {
		struct collect_frame total;
		struct diag_input din;
		struct diag_result res;
		struct sbuf page = SBUF_INIT;
		FILE *f;

		rec_total_frame(&rec, p.model, &total);
		frame_diag_input(p.model, av.factor_ok, &rec.plat.topo, rec.have_cal ? &rec.cal : NULL,
				 &total, &din);
		if (diagnose(&din, &res, &err)) {
			rc = cli_error(&err);
		} else {
			report_html(&rec, p.model, &av, &din, &res, &page);
			diag_result_release(&res);
		}
		collect_diag_release(&din);
		collect_frame_release(&total);
		if (rc)
			goto out;
		f = cli_open_output(html, &err);
		if (!f) {
			sbuf_release(&page);
			rc = cli_error(&err);
			goto out;
		}
		fwrite(page.buf ? page.buf : "", 1, page.len, f);
		sbuf_release(&page);
		rc = cli_close_output(f, html);
		if (!rc)
			fprintf(stderr, "vmmprof report: wrote '%s'\n", html);
		goto out;
	}
	switch (fmt) {
	case FMT_CSV:
		timeline_csv(&rec, p.model, &av, &out);
		rc = cli_write(&out);
		break;
	case FMT_JSON:
		timeline_json(&rec, p.model, &out);
		rc = cli_write(&out);
		break;
	case FMT_TEXT:
		sbuf_addf(&out, "recording '%s': %s, %zu intervals of %.3g s, model '%s', vmmprof %s\n"
				"command: %s\n\nTimeline (factor cost in %% of cycles, or its score "
				"sN where the model gives no cost)\n",
			  rec.path, rec.created ? rec.created : "?", rec.n_frames, rec.interval_s,
			  p.model->name, rec.vmmprof_version ? rec.vmmprof_version : "?",
			  rec.command ? rec.command : "?");
		timeline_text(&rec, p.model, &out);
		sbuf_addch(&out, '\n');
		rc = cli_write(&out);
		fflush(stdout);
		if (!rc)
			rc = diagnose_recording(argv[optind], &o, false);
		break;
	}
out:
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
	.fn = run_report,
	.summary = "read a recording back: timeline, diagnosis, CSV, JSON or an HTML page",
	.synopsis = "report RECORDING\n"
		    "report (--json | --csv) RECORDING\n"
		    "report --html OUT.html RECORDING",
	.description =
		"Reads a recording made by 'vmmprof record' through the same analysis as live\n"
		"mode: the model is evaluated again on the recorded inputs, interval by\n"
		"interval.  The text report is the timeline of every VM's and vCPU's factor\n"
		"cost, then the diagnosis of the whole run.  --csv and --json give one row per\n"
		"interval and entity; --html writes a self-contained page with charts.\n"
		"A truncated or damaged file is refused with the reason.",
	.options =
		"--json\tthe timeline as JSON\n"
		"--csv\tthe timeline as CSV (RFC 4180)\n"
		"--html OUT\twrite a self-contained HTML page with charts to OUT\n"
		"--model-path DIR\talso look for the recorded model in DIR",
	.examples =
		"vmmprof report run.vmmdb\ttimeline and diagnosis\n"
		"vmmprof report --csv run.vmmdb > run.csv\tfor a spreadsheet",
};
