/* model_json.c - `model list|show --json` documents and the machine a model is checked on, shared by the CLI and the daemon */
#include "model/model_json.h"
#include "util/table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resolve.h"
#include "util/json.h"

void model_host_open(struct model_host *mc, const char *root)
{
	struct vp_err err = { 0, "" };

	memset(mc, 0, sizeof(*mc));
	mc->plat_ok = platform_probe(&mc->plat, root, &err) == 0;
	if (pmu_db_new(&mc->db, root, &err)) {
		mc->db = NULL;
		snprintf(mc->db_error, sizeof(mc->db_error), "%s", err.msg);
	}
}

void model_host_close(struct model_host *mc)
{
	if (mc->plat_ok)
		platform_release(&mc->plat);
	pmu_db_free(mc->db);
}

void model_machine_setup(struct model_machine *mm, const struct platform *plat, struct pmu_db *db,
			 const char *root, const struct model *m, struct sbuf *table_from)
{
	const char *t;

	memset(mm, 0, sizeof(*mm));
	sbuf_reset(table_from);
	mm->db = db;
	mm->root = root;
	mm->plat = plat;
	if (plat && plat->cpu.pfm_pmu[0]) {
		snprintf(mm->pfm_table, sizeof(mm->pfm_table), "%s", plat->cpu.pfm_pmu);
		sbuf_addf(table_from, "libpfm4 table '%s' (this machine's CPU)", mm->pfm_table);
	} else if (strcmp(root, "/") && (t = model_pfm_table(m))) {
		snprintf(mm->pfm_table, sizeof(mm->pfm_table), "%s", t);
		sbuf_addf(table_from, "libpfm4 table '%s' (the model's match rule: the root "
			 "names no CPU)", t);
	} else if (plat && plat->cpu.known && plat->cpu.pfm_source.len) {
		/* e.g. "no libpfm4 table for AuthenticAMD family 0x1a model 0x2": the
		 * model must write its core events raw */
		sbuf_addf(table_from, "no libpfm4 core table: %s", sbuf_str(&plat->cpu.pfm_source));
	} else {
		sbuf_addstr(table_from, "no libpfm4 core table (no CPU PMU detected)");
	}
}

int model_host_check(struct model_host *mc, const char *root, const struct model *m,
		     struct model_avail *av, struct diags *d, struct sbuf *table_from)
{
	struct model_machine mm;

	model_machine_setup(&mm, mc->plat_ok ? &mc->plat : NULL, mc->db, root, m, table_from);
	return model_check_inputs(m, model_machine_check, &mm, av, d);
}

/* "cpu intel family 6 model 0x55; pmu skx clx" */
void model_match_summary(const struct model *m, struct sbuf *sb)
{
	size_t i, j;

	for (i = 0; i < m->n_matches; i++) {
		const struct model_match *mt = &m->matches[i];

		if (i)
			sbuf_addstr(sb, "; ");
		switch (mt->kind) {
		case MATCH_CPU:
			sbuf_addf(sb, "cpu %s", mt->vendor);
			if (mt->family >= 0)
				sbuf_addf(sb, " family 0x%x", (unsigned)mt->family);
			for (j = 0; j < mt->n_models; j++) {
				sbuf_addstr(sb, j ? "," : " model ");
				if (mt->models[j][0] == mt->models[j][1])
					sbuf_addf(sb, "0x%x", (unsigned)mt->models[j][0]);
				else
					sbuf_addf(sb, "0x%x-0x%x", (unsigned)mt->models[j][0],
						  (unsigned)mt->models[j][1]);
			}
			break;
		case MATCH_PMU:
			sbuf_addstr(sb, "pmu");
			for (j = 0; j < mt->n_pmus; j++)
				sbuf_addf(sb, " %s", mt->pmus[j]);
			break;
		case MATCH_VPMU:
			sbuf_addf(sb, "vpmu%s%s", mt->vendor[0] ? " " : "", mt->vendor);
			break;
		case MATCH_SOFTWARE:
			sbuf_addstr(sb, "software");
			break;
		}
	}
}


void model_show_json(const struct model *m, const struct model_avail *av, const char *where,
		     bool matches, const char *match_note, const char *table_from, struct sbuf *sb)
{
	struct jw w;
	struct sbuf tmp = SBUF_INIT;
	size_t i;
	int f;

	jw_init(&w, sb, true);
	jw_obj_begin(&w);
	jw_kstr(&w, "name", m->name);
	jw_kstr(&w, "path", m->path);
	jw_kstr(&w, "description", m->desc);
	model_match_summary(m, &tmp);
	jw_kstr(&w, "match", sbuf_str(&tmp));
	jw_kstr(&w, "machine", where);
	jw_kbool(&w, "matches_machine", matches);
	jw_kstr(&w, "match_note", match_note);
	jw_key(&w, "includes");
	jw_arr_begin(&w);
	for (i = 0; i < m->n_includes; i++)
		jw_str(&w, m->includes[i]);
	jw_arr_end(&w);
	jw_kstr(&w, "events_checked_with", table_from);
	jw_key(&w, "inputs");
	jw_arr_begin(&w);
	for (i = 0; i < m->n_inputs; i++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "name", m->inputs[i].name);
		jw_kstr(&w, "kind", m->inputs[i].kind == INPUT_EVENT ? "event" : "source");
		jw_kstr(&w, "spec", m->inputs[i].spec);
		jw_kbool(&w, "optional", m->inputs[i].optional);
		jw_kbool(&w, "node", m->inputs[i].per_node);
		jw_kbool(&w, "home", m->inputs[i].home);
		jw_kstr(&w, "description", m->inputs[i].desc);
		jw_kbool(&w, "available", av->input_ok[i]);
		jw_kstr(&w, "reason", av->input_reason[i]);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "metrics");
	jw_arr_begin(&w);
	for (i = 0; i < m->n_metrics; i++) {
		sbuf_reset(&tmp);
		expr_format(m->metrics[i].e, &tmp);
		jw_obj_begin(&w);
		jw_kstr(&w, "name", m->metrics[i].name);
		jw_kstr(&w, "unit", m->metrics[i].unit);
		jw_kstr(&w, "formula", sbuf_str(&tmp));
		jw_kstr(&w, "description", m->metrics[i].desc);
		jw_kbool(&w, "available", av->metric_ok[i]);
		jw_kstr(&w, "reason", av->metric_reason[i]);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "factors");
	jw_arr_begin(&w);
	for (f = 0; f < FACTOR_N; f++) {
		const struct model_factor *fa = &m->factors[f];

		jw_obj_begin(&w);
		jw_kstr(&w, "factor", factor_name((enum factor_id)f));
		jw_kstr(&w, "quality", vp_quality_name(fa->quality));
		sbuf_reset(&tmp);
		if (fa->score)
			expr_format(fa->score, &tmp);
		jw_kstr(&w, "score", fa->score ? sbuf_str(&tmp) : NULL);
		jw_kdouble(&w, "warning", fa->quality == VQ_UNAVAILABLE ? NAN : fa->warning);
		jw_kdouble(&w, "critical", fa->quality == VQ_UNAVAILABLE ? NAN : fa->critical);
		jw_kstr(&w, "description", fa->desc);
		jw_kbool(&w, "available", av->factor_ok[f]);
		jw_kstr(&w, "reason", av->factor_reason[f]);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_key(&w, "cost_terms");
	jw_arr_begin(&w);
	for (f = 0; f < CT_N; f++) {
		if (!m->cost_term[f])
			continue;
		jw_obj_begin(&w);
		jw_kstr(&w, "term", cost_term_name((enum cost_term)f));
		sbuf_reset(&tmp);
		expr_format(m->cost_term[f], &tmp);
		jw_kstr(&w, "formula", sbuf_str(&tmp));
		jw_kstr(&w, "description", cost_term_desc((enum cost_term)f));
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(sb, '\n');
	sbuf_release(&tmp);
}

void model_list_json(const struct model_registry *r, const struct model_entry *chosen,
		     const char *why, struct sbuf *sb)
{
	struct jw w;
	size_t i;

	jw_init(&w, sb, true);
	jw_obj_begin(&w);
	jw_key(&w, "path");
	jw_arr_begin(&w);
	for (i = 0; i < r->n_dirs; i++)
		jw_str(&w, r->dirs[i]);
	jw_arr_end(&w);
	jw_kstr(&w, "chosen", chosen ? chosen->name : NULL);
	jw_kstr(&w, "chosen_because", why);
	jw_key(&w, "models");
	jw_arr_begin(&w);
	for (i = 0; i < r->n; i++) {
		const struct model_entry *e = &r->v[i];
		struct sbuf ms = SBUF_INIT;

		jw_obj_begin(&w);
		jw_kstr(&w, "name", e->name);
		jw_kstr(&w, "path", e->path);
		jw_kbool(&w, "shadowed", e->shadowed);
		jw_kbool(&w, "chosen", e == chosen);
		if (e->m) {
			model_match_summary(e->m, &ms);
			jw_kstr(&w, "description", e->m->desc);
			jw_kstr(&w, "match", sbuf_str(&ms));
		}
		jw_kstr(&w, "error", e->error);
		jw_obj_end(&w);
		sbuf_release(&ms);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(sb, '\n');
}

bool model_show_note(struct model_registry *r, const struct model *m, const struct model_host *mc,
		     char *note, size_t size)
{
	char why[256] = "";
	bool matches = false;

	if (mc->plat_ok) {
		const struct model_entry *ch = model_registry_choose(r, &mc->plat, NULL, 0, NULL);

		matches = model_match_score(m, &mc->plat, why, sizeof(why)) > 0;
		snprintf(note, size, "%s%s%s%s", matches ? "matches, by " : "does not match",
			 matches ? why : "",
			 ch ? (ch->m && !strcmp(ch->name, m->name) ? " (the model chosen here)" :
			       " (chosen here: ") : "",
			 ch && !(ch->m && !strcmp(ch->name, m->name)) ? ch->name : "");
		if (ch && !(ch->m && !strcmp(ch->name, m->name)))
			strncat(note, ")", size - strlen(note) - 1);
	} else {
		snprintf(note, size, "the platform could not be probed");
	}
	return matches;
}

int model_list_text(const struct jv *doc, const char *where, struct sbuf *out, struct vp_err *err)
{
	static const char *const titles[] = { "", "NAME", "MATCH", "DESCRIPTION" };
	const struct jv *models = jv_arr(doc, "models"), *path = jv_arr(doc, "path");
	const char *chosen = jv_str(doc, "chosen"), *why = jv_str(doc, "chosen_because");
	struct table t;
	size_t i;

	if (!models || !path)
		return vp_err_set(err, VP_EFORMAT, "not a 'model list --json' document (no models, path)");
	table_init(&t, 4, titles);
	for (i = 0; i < models->n; i++) {
		const struct jv *e = &models->items[i], *sh = jv_get(e, "shadowed");
		const struct jv *ch = jv_get(e, "chosen");
		const char *name = jv_str(e, "name") ? jv_str(e, "name") : "?";
		const char *error = jv_str(e, "error");

		table_row(&t);
		table_cell(&t, "%s", ch && ch->type == JV_BOOL && ch->b ? "*" : "");
		table_cell(&t, "%s", name);
		if (sh && sh->type == JV_BOOL && sh->b) {
			table_cell(&t, "-");
			table_cell(&t, "(shadowed by an earlier '%s' in the path: %s)", name,
				   jv_str(e, "path") ? jv_str(e, "path") : "?");
		} else if (error) {
			const char *nl = strchr(error, '\n');

			table_cell(&t, "-");
			table_cell(&t, "error: %.*s", nl ? (int)(nl - error) : (int)strlen(error), error);
		} else {
			table_cell(&t, "%s", jv_str(e, "match") ? jv_str(e, "match") : "");
			table_cell(&t, "%s", jv_str(e, "description") ? jv_str(e, "description") : "");
		}
	}
	table_render(&t, out, 0, true);
	table_release(&t);
	if (!models->n)
		sbuf_addstr(out, "no models found\n");
	sbuf_addstr(out, "\nsearch path:\n");
	for (i = 0; i < path->n; i++)
		if (path->items[i].type == JV_STR)
			sbuf_addf(out, "  %s\n", path->items[i].str);
	if (chosen)
		sbuf_addf(out, "\n* chosen for %s: %s, by %s\n", where, chosen, why ? why : "?");
	else
		sbuf_addf(out, "\nno model chosen for %s: %s\n", where, why ? why : "?");
	return 0;
}

/*
 * "yes", or "n/a [k]" with the reason as footnote k; a reason that ends in
 * one already noted (a metric's "event 'x' unavailable: " + the event's own)
 * keeps its head: "n/a: event 'x' unavailable [k]".  The same reason 25 times
 * in a 330-column table was unreadable (issue 23).
 */
static const char *avail_text(const struct jv *o, struct table_notes *fn, char *buf, size_t size)
{
	const struct jv *ok = jv_get(o, "available");
	const char *reason = jv_str(o, "reason");
	size_t i, rl, best = 0, best_len = 0;

	if (ok && ok->type == JV_BOOL && ok->b)
		return "yes";
	if (!reason)
		return "n/a: unknown";
	rl = strlen(reason);
	for (i = 0; i < fn->n; i++) {
		size_t l = strlen(fn->v[i]);

		if (l + 2 < rl && l > best_len && !strcmp(reason + rl - l, fn->v[i]) &&
		    !strncmp(reason + rl - l - 2, ": ", 2)) {
			best = i + 1;
			best_len = l;
		}
	}
	if (best)
		snprintf(buf, size, "n/a: %.*s [%zu]", (int)(rl - best_len - 2), reason, best);
	else
		snprintf(buf, size, "n/a [%zu]", table_note(fn, reason));
	return buf;
}

static const char *str_or(const struct jv *o, const char *key, const char *dflt)
{
	return jv_str(o, key) ? jv_str(o, key) : dflt;
}

int model_show_text(const struct jv *doc, const char *where, struct sbuf *sb, struct vp_err *err)
{
	static const char *const ev_titles[] = { "NAME", "KIND", "SPEC", "AVAILABLE" };
	static const char *const me_titles[] = { "NAME", "UNIT", "FORMULA", "AVAILABLE" };
	static const char *const fa_titles[] = { "FACTOR", "QUALITY", "SCORE", ">WARN", ">CRIT",
						 "AVAILABLE" };
	static const char *const ct_titles[] = { "COST TERM", "FORMULA" };
	const struct jv *inputs = jv_arr(doc, "inputs"), *metrics = jv_arr(doc, "metrics");
	const struct jv *factors = jv_arr(doc, "factors"), *inc = jv_arr(doc, "includes");
	struct table t;
	struct table_notes fn = { NULL, 0, 0, 0 };
	char buf[1200];
	size_t i;

	if (!jv_str(doc, "name") || !inputs || !metrics || !factors)
		return vp_err_set(err, VP_EFORMAT, "not a 'model show --json' document (no name, inputs, "
				  "metrics, factors)");
	sbuf_addf(sb, "model %s (%s)\n", jv_str(doc, "name"), str_or(doc, "path", "?"));
	if (jv_str(doc, "description"))
		sbuf_addf(sb, "  %s\n", jv_str(doc, "description"));
	sbuf_addf(sb, "  match:    %s\n", str_or(doc, "match", ""));
	if (inc && inc->n) {
		sbuf_addstr(sb, "  includes:");
		for (i = 0; i < inc->n; i++)
			if (inc->items[i].type == JV_STR)
				sbuf_addf(sb, " %s", inc->items[i].str);
		sbuf_addch(sb, '\n');
	}
	sbuf_addf(sb, "  on %s: %s\n", where ? where : str_or(doc, "machine", "?"),
		  str_or(doc, "match_note", ""));
	sbuf_addf(sb, "  core events checked with %s\n", str_or(doc, "events_checked_with", "?"));

	sbuf_addf(sb, "\nevents and sources (%zu):\n", inputs->n);
	table_init(&t, 4, ev_titles);
	for (i = 0; i < inputs->n; i++) {
		const struct jv *in = &inputs->items[i];
		const struct jv *opt = jv_get(in, "optional"), *node = jv_get(in, "node");
		const struct jv *home = jv_get(in, "home");
		bool o = opt && opt->type == JV_BOOL && opt->b;
		bool h = home && home->type == JV_BOOL && home->b;
		bool n = !h && node && node->type == JV_BOOL && node->b;

		/* "event (optional, home)": the keywords the model gave */
		table_row(&t);
		table_cell(&t, "%s", str_or(in, "name", "?"));
		table_cell(&t, "%s%s%s%s%s%s", str_or(in, "kind", "?"), o || n || h ? " (" : "",
			   o ? "optional" : "", o && (n || h) ? ", " : "", h ? "home" : n ? "node" : "",
			   o || n || h ? ")" : "");
		table_cell(&t, "%s", str_or(in, "spec", ""));
		table_cell(&t, "%s", avail_text(in, &fn, buf, sizeof(buf)));
	}
	table_render(&t, sb, 2, true);
	table_release(&t);

	sbuf_addf(sb, "\nmetrics (%zu):\n", metrics->n);
	table_init(&t, 4, me_titles);
	for (i = 0; i < metrics->n; i++) {
		const struct jv *mt = &metrics->items[i];

		table_row(&t);
		table_cell(&t, "%s", str_or(mt, "name", "?"));
		table_cell(&t, "%s", str_or(mt, "unit", ""));
		table_cell(&t, "%s", str_or(mt, "formula", ""));
		table_cell(&t, "%s", avail_text(mt, &fn, buf, sizeof(buf)));
	}
	table_render(&t, sb, 2, true);
	table_release(&t);

	sbuf_addstr(sb, "\nfactors:\n");
	table_init(&t, 6, fa_titles);
	for (i = 0; i < factors->n; i++) {
		const struct jv *fa = &factors->items[i];
		const char *q = str_or(fa, "quality", "?");

		table_row(&t);
		table_cell(&t, "%s", str_or(fa, "factor", "?"));
		table_cell(&t, "%s", q);
		table_cell(&t, "%s", str_or(fa, "score", "-"));
		if (!strcmp(q, vp_quality_name(VQ_UNAVAILABLE))) {
			table_cell(&t, "-");
			table_cell(&t, "-");
		} else {
			table_cell(&t, "%g", jv_num(fa, "warning"));
			table_cell(&t, "%g", jv_num(fa, "critical"));
		}
		table_cell(&t, "%s", avail_text(fa, &fn, buf, sizeof(buf)));
	}
	table_render(&t, sb, 2, true);
	table_release(&t);
	if (fn.n) {
		sbuf_addstr(sb, "\nwhy n/a:\n");
		for (i = 0; i < fn.n; i++)
			sbuf_addf(sb, "  [%zu] %s\n", i + 1, fn.v[i]);
	}
	table_notes_release(&fn);
	{
		const struct jv *ct = jv_arr(doc, "cost_terms");

		if (!ct || !ct->n) {
			sbuf_addstr(sb, "\ncosts: none (the model binds no cost terms)\n");
			return 0;
		}
		sbuf_addstr(sb, "\ncost terms (the cost stage splits each row's stall by these; "
			    "docs/method.md):\n");
		table_init(&t, 2, ct_titles);
		for (i = 0; i < ct->n; i++) {
			table_row(&t);
			table_cell(&t, "%s", str_or(&ct->items[i], "term", "?"));
			table_cell(&t, "%s", str_or(&ct->items[i], "formula", "?"));
		}
		table_render(&t, sb, 2, true);
		table_release(&t);
	}
	return 0;
}
