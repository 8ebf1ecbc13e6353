/* counts.c - `model eval`: counts from elsewhere bound to a model's inputs by encoding and run through the cost stage */
#include "collect/counts.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/collect.h"
#include "model/cost.h"
#include "model/resolve.h"
#include "model/run.h"
#include "util/alloc.h"
#include "util/json.h"

void counts_in_init(struct counts_in *c)
{
	memset(c, 0, sizeof(*c));
	c->duration_s = c->cpu_ghz = c->solo_mpki = NAN;
}

static void set_release(struct count_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].spec);
		free(s->v[i].why);
		free(s->v[i].unit);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void counts_in_release(struct counts_in *c)
{
	set_release(&c->row);
	set_release(&c->node);
	counts_in_init(c);
}

static struct count_item *set_push(struct count_set *s)
{
	struct count_item *it;

	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	it = &s->v[s->n++];
	memset(it, 0, sizeof(*it));
	it->value = NAN;
	return it;
}

/* ---- the JSON file ---- */

static int json_num(const struct jv *doc, const char *key, double *out, const char *name,
		    bool positive, struct vp_err *err)
{
	const struct jv *v = jv_get(doc, key);

	if (!v || v->type == JV_NULL)
		return 0;
	if (v->type != JV_NUM)
		return vp_err_set(err, VP_EFORMAT, "%s:%d:%d: '%s' must be a number, not %s", name,
				  v->line, v->col, key, jv_type_name(v->type));
	if (!isfinite(v->num) || v->num < 0 || (positive && v->num == 0))
		return vp_err_set(err, VP_EFORMAT, "%s:%d:%d: '%s' must be %s", name, v->line, v->col,
				  key, positive ? "above 0" : "0 or more");
	*out = v->num;
	return 0;
}

static int json_counts(struct count_set *s, const struct jv *obj, const char *key, const char *name,
		       struct vp_err *err)
{
	size_t i;

	if (obj->type != JV_OBJ)
		return vp_err_set(err, VP_EFORMAT, "%s:%d:%d: '%s' must be an object of \"EVENT SPEC\": "
				  "count, not %s", name, obj->line, obj->col, key, jv_type_name(obj->type));
	for (i = 0; i < obj->n; i++) {
		const struct jv *v = &obj->items[i];
		struct count_item *it;

		if (!obj->keys[i][0])
			return vp_err_set(err, VP_EFORMAT, "%s:%d:%d: an empty event spec in '%s'", name,
					  v->line, v->col, key);
		if (v->type != JV_NUM && v->type != JV_NULL)
			return vp_err_set(err, VP_EFORMAT, "%s:%d:%d: the count of '%s' must be a number "
					  "or null (not counted), not %s", name, v->line, v->col,
					  obj->keys[i], jv_type_name(v->type));
		if (v->type == JV_NUM && (!isfinite(v->num) || v->num < 0))
			return vp_err_set(err, VP_EFORMAT, "%s:%d:%d: the count of '%s' must be 0 or more",
					  name, v->line, v->col, obj->keys[i]);
		it = set_push(s);
		it->spec = xstrdup(obj->keys[i]);
		snprintf(it->where, sizeof(it->where), "%s:%d:%d", name, v->line, v->col);
		if (v->type == JV_NUM)
			it->value = v->num;
		else
			it->why = xstrdup("not counted (null in the counts file)");
	}
	return 0;
}

int counts_parse_json(struct counts_in *c, const char *text, size_t len, const char *name,
		      struct vp_err *err)
{
	static const char *const known[] = { "duration_s", "cpu_ghz", "counts", "node_counts",
					     "solo_mpki", "llc_alone" };
	struct jv doc;
	const struct jv *v;
	size_t i, k;
	int ret;

	ret = jv_parse(&doc, text, len, name, err);
	if (ret)
		return ret;
	if (doc.type != JV_OBJ) {
		ret = vp_err_set(err, VP_EFORMAT, "%s:%d:%d: expected an object with \"duration_s\" and "
				 "\"counts\", not %s", name, doc.line, doc.col, jv_type_name(doc.type));
		goto out;
	}
	for (i = 0; i < doc.n; i++) {
		for (k = 0; k < VP_ARRAY_SIZE(known) && strcmp(doc.keys[i], known[k]); k++)
			;
		if (k == VP_ARRAY_SIZE(known)) {
			ret = vp_err_set(err, VP_EFORMAT, "%s:%d:%d: unknown member '%s' (duration_s, "
					 "cpu_ghz, counts, node_counts, solo_mpki, llc_alone)", name,
					 doc.items[i].line, doc.items[i].col, doc.keys[i]);
			goto out;
		}
	}
	if ((ret = json_num(&doc, "duration_s", &c->duration_s, name, true, err)) ||
	    (ret = json_num(&doc, "cpu_ghz", &c->cpu_ghz, name, true, err)) ||
	    (ret = json_num(&doc, "solo_mpki", &c->solo_mpki, name, false, err)))
		goto out;
	v = jv_get(&doc, "llc_alone");
	if (v && v->type != JV_NULL) {
		if (v->type != JV_BOOL) {
			ret = vp_err_set(err, VP_EFORMAT, "%s:%d:%d: 'llc_alone' must be true or false",
					 name, v->line, v->col);
			goto out;
		}
		c->llc_alone = v->b ? 1 : -1;
	}
	v = jv_get(&doc, "counts");
	if (!v) {
		ret = vp_err_set(err, VP_EFORMAT, "%s:%d:%d: no \"counts\" object", name, doc.line,
				 doc.col);
		goto out;
	}
	if ((ret = json_counts(&c->row, v, "counts", name, err)))
		goto out;
	v = jv_get(&doc, "node_counts");
	if (v && v->type != JV_NULL) {
		if ((ret = json_counts(&c->node, v, "node_counts", name, err)))
			goto out;
		c->have_node = true;
	}
out:
	jv_release(&doc);
	return ret;
}

/* ---- perf stat -x, ---- */

static bool is_number(const char *s)
{
	char *end;

	if (!*s)
		return false;
	strtod(s, &end);
	return *end == '\0';
}

static bool is_na(const char *s)
{
	return s[0] == '<';
}

/* Split line at commas into at most max fields (in place). */
static size_t split_csv(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

int counts_parse_perf_csv(struct count_set *s, double *duration_s, const char *text, size_t len,
			  const char *name, struct vp_err *err)
{
	char *buf = xstrndup(text, len), *line, *next;
	int lineno = 0, ret = 0;
	size_t start = s->n;

	for (line = buf; line; line = next) {
		char *f[16], *val, *unit, *ev;
		size_t n, i, b = 0;
		struct count_item *it = NULL;
		double v;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		n = strcspn(line, "\r");
		line[n] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		n = split_csv(line, f, VP_ARRAY_SIZE(f));
		/* -I: a timestamp first; -A / --per-*: a CPU, core or socket (and a count) first */
		if (n >= 4 && (is_number(f[0]) || isalpha((unsigned char)f[0][0])) &&
		    (is_number(f[1]) || is_na(f[1])) && !is_number(f[3]) && f[3][0])
			b = 1;
		if (b == 1 && n >= 5 && is_number(f[1]) && (is_number(f[2]) || is_na(f[2])) &&
		    !is_number(f[4]) && f[4][0])
			b = 2;   /* --per-socket: "S0,2,value,unit,event" */
		if (n < b + 3 || !f[b + 2][0]) {
			ret = vp_err_set(err, VP_EPARSE, "%s:%d: not a line of 'perf stat -x,' "
					 "(value,unit,event,...)", name, lineno);
			goto out;
		}
		val = f[b];
		unit = f[b + 1];
		ev = f[b + 2];
		if (!is_number(val) && !is_na(val)) {
			ret = vp_err_set(err, VP_EPARSE, "%s:%d: '%s' is not a count of '%s'", name,
					 lineno, val, ev);
			goto out;
		}
		v = is_na(val) ? NAN : strtod(val, NULL);
		if (is_number(val) && (!isfinite(v) || v < 0)) {
			ret = vp_err_set(err, VP_EPARSE, "%s:%d: '%s' is not a count of '%s'", name,
					 lineno, val, ev);
			goto out;
		}
		if ((!strcmp(ev, "task-clock") || !strcmp(ev, "cpu-clock")) && !strcmp(unit, "msec"))
			v *= 1e6;          /* perf prints ns of CPU time as msec */
		if (!strcmp(ev, "duration_time")) {   /* perf's wall clock: the duration, not a count */
			if (isfinite(v) && isnan(*duration_s))
				*duration_s = v / (strcmp(unit, "ns") && unit[0] ? 1e3 : 1e9);
			continue;
		}
		/* intervals and CPUs of one event add up */
		for (i = start; i < s->n; i++)
			if (!strcmp(s->v[i].spec, ev))
				it = &s->v[i];
		if (!it) {
			it = set_push(s);
			it->spec = xstrdup(ev);
			it->unit = unit[0] ? xstrdup(unit) : NULL;
			snprintf(it->where, sizeof(it->where), "%s:%d", name, lineno);
			it->value = 0;
		}
		if (isnan(v)) {
			if (!it->why)
				it->why = xasprintf("perf: %s", val);
			it->value = NAN;
		} else if (!it->why) {
			it->value += v;
		}
	}
out:
	free(buf);
	return ret;
}

/* ---- binding ---- */

struct enc {
	uint32_t type;
	uint64_t config, config1, config2;
};

/* The x86 core PMU's privilege and enable bits (USR 16, OS 17, INT 20, EN 22)
 * are not part of what an event counts: a raw r5302d3 is r2d3. */
static void enc_of(const struct evdesc *e, struct enc *out)
{
	out->type = e->attr.type;
	out->config = e->attr.config;
	out->config1 = e->attr.config1;
	out->config2 = e->attr.config2;
	if (!strcmp(e->pmu, "cpu") || !strncmp(e->pmu, "cpu_", 4))
		out->config &= ~((1ULL << 16) | (1ULL << 17) | (1ULL << 20) | (1ULL << 22));
}

static bool enc_eq(const struct enc *a, const struct enc *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2;
}

struct resolved {
	struct enc *e;
	char **pmu;        /* instance names */
	double scale;
	char unit[32];
	size_t n;
	char *why;         /* heap: why it did not resolve; NULL when it did */
};

static void resolve_one(struct model_machine *mm, const char *spec, struct resolved *r)
{
	struct evdesc_list l;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->scale = 1;
	evdesc_list_init(&l);
	if (model_resolve_event(mm, spec, 0, &l, &r->why) == 0 && l.n) {
		r->e = xcalloc(l.n, sizeof(*r->e));
		r->pmu = xcalloc(l.n, sizeof(char *));
		for (i = 0; i < l.n; i++) {
			enc_of(&l.v[i], &r->e[i]);
			r->pmu[i] = xstrdup(l.v[i].pmu);
		}
		r->n = l.n;
		r->scale = l.v[0].scale;
		snprintf(r->unit, sizeof(r->unit), "%s", l.v[0].unit);
		free(r->why);
		r->why = NULL;
	} else if (!r->why) {
		r->why = xstrdup("it names no event");
	}
	evdesc_list_release(&l);
}

static void resolved_release(struct resolved *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->pmu[i]);
	free(r->pmu);
	free(r->e);
	free(r->why);
}

struct bound {              /* one input: what bound to it */
	double value;           /* NaN: nothing (yet) */
	struct sbuf from;       /* "SPEC (WHERE)" of each count, "; "-separated */
	const char *how;        /* "encoding", "name", NULL */
	char *why;              /* heap: why it is n/a */
	bool *covered;          /* per instance */
	size_t n_covered;
};

/* Bind one set of counts to the inputs; unused counts are written to w (an array). */
static void bind_set(struct model_machine *mm, const struct model *m, const struct resolved *in_res,
		     const struct count_set *s, struct bound *b, struct jw *w)
{
	size_t c, i, k, j;

	for (c = 0; c < s->n; c++) {
		const struct count_item *it = &s->v[c];
		struct resolved cr;
		bool used = false;
		char *dup = NULL;

		resolve_one(mm, it->spec, &cr);
		for (i = 0; i < m->n_inputs; i++) {
			const struct model_input *in = &m->inputs[i];
			const struct resolved *ir = &in_res[i];
			bool match = false, by_name = false;
			double v = it->value;

			if (cr.n && ir->n) {
				match = true;
				for (k = 0; k < cr.n && match; k++) {
					for (j = 0; j < ir->n && !enc_eq(&cr.e[k], &ir->e[j]); j++)
						;
					match = j < ir->n;
				}
			}
			if (!match && (!cr.n || !ir->n) &&
			    (!strcmp(it->spec, in->spec) || !strcmp(it->spec, in->name)))
				match = by_name = true;
			if (!match)
				continue;
			/* an instance given twice (merged and per instance) is not added twice */
			if (!by_name)
				for (k = 0; k < cr.n && !dup; k++)
					for (j = 0; j < ir->n; j++)
						if (enc_eq(&cr.e[k], &ir->e[j]) && b[i].covered[j])
							dup = xasprintf("it counts %s again, already given for "
									"input '%s'", ir->pmu[j], in->name);
			if (dup)
				continue;
			if (!by_name)
				for (k = 0; k < cr.n; k++)
					for (j = 0; j < ir->n; j++)
						if (enc_eq(&cr.e[k], &ir->e[j]) && !b[i].covered[j]) {
							b[i].covered[j] = true;
							b[i].n_covered++;
						}
			/* perf prints a scaled sysfs event (MiB) in its unit: back to counts */
			if (it->unit && cr.n && cr.scale != 1 && cr.scale > 0 && !strcmp(it->unit, cr.unit))
				v /= cr.scale;
			used = true;
			if (b[i].from.len)
				sbuf_addstr(&b[i].from, "; ");
			sbuf_addf(&b[i].from, "%s (%s)", it->spec, it->where);
			if (!b[i].how || by_name)
				b[i].how = by_name ? "name" : "encoding";
			if (isnan(v)) {
				b[i].value = NAN;
				free(b[i].why);
				b[i].why = xasprintf("'%s' at %s: %s", it->spec, it->where,
						     it->why ? it->why : "not counted");
			} else if (!b[i].why) {
				b[i].value = isnan(b[i].value) ? v : b[i].value + v;
			}
		}
		if (!used) {
			jw_obj_begin(w);
			jw_kstr(w, "spec", it->spec);
			jw_kstr(w, "where", it->where);
			jw_kdouble(w, "value", it->value);
			if (dup)
				jw_kstr(w, "why", dup);
			else if (cr.n)
				jw_kstr(w, "why", "its encoding is none of the model's inputs");
			else {
				char *why = xasprintf("it does not resolve on %s (%s) and is no input's "
						      "spelling", mm->root, cr.why);

				jw_kstr(w, "why", why);
				free(why);
			}
			jw_obj_end(w);
		}
		free(dup);
		resolved_release(&cr);
	}
}

/* ---- evaluation ---- */

static int no_count(void *ctx, const struct model_input *in, char **reason)
{
	const struct model *m = ((const struct model *const *)ctx)[0];
	const struct bound *b = ((const struct bound *const *)ctx)[1];
	size_t i = (size_t)(in - m->inputs);

	if (!isnan(b[i].value))
		return 0;
	*reason = b[i].why ? xstrdup(b[i].why) : xstrdup("no count given for it");
	return VP_EUNSUPP;
}

static void write_node_state(struct jw *w, const struct cost_node *n)
{
	jw_obj_begin(w);
	jw_kdouble(w, "util", n->util);
	jw_kdouble(w, "imc_delay_ns", n->q_ns);
	jw_kdouble(w, "tracker_delay_ns", n->t_ns);
	jw_kdouble(w, "tracker_full", n->tracker_full);
	jw_obj_end(w);
}

static double pct(double v, double of)
{
	return isfinite(v) && of > 0 ? 100 * v / of : NAN;
}

/* Metrics, cost terms and factors of one evaluated row. */
static void write_row(struct jw *w, const struct model *m, const struct model_avail *av,
		      const struct platform *plat, const struct calib *cal, double duration,
		      const struct collect_frame *fr, const struct collect_row *r, bool costs)
{
	struct expr_env env;
	struct sbuf sb = SBUF_INIT;
	size_t i;
	int t, f;

	model_env_fill(&env, plat, cal, duration);
	if (r->kind == ENT_NODE)
		env.consts[EC_ROW_NODES] = 1;
	env.inputs = r->inputs;
	env.n_inputs = m->n_inputs;
	env.metrics = r->metrics;
	jw_key(w, "metrics");
	jw_arr_begin(w);
	for (i = 0; i < m->n_metrics; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "name", m->metrics[i].name);
		jw_kdouble(w, "value", r->metrics[i]);
		jw_kstr(w, "unit", m->metrics[i].unit);
		if (isnan(r->metrics[i])) {
			sbuf_reset(&sb);
			model_nan_reason(m, av, m->metrics[i].e, &env, &sb);
			jw_kstr(w, "why", sb.len ? sbuf_str(&sb) : "n/a");
		}
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_kdouble(w, "cycles", r->cycles);
	jw_kbool(w, "cycles_estimated", r->cycles_proxy);
	jw_key(w, "terms");
	jw_arr_begin(w);
	for (t = 0; t < CT_N; t++) {
		jw_obj_begin(w);
		jw_kstr(w, "term", cost_term_name((enum cost_term)t));
		jw_kbool(w, "bound", m->cost_term[t] != NULL);
		jw_kdouble(w, "value", r->term[t]);
		if (m->cost_term[t] && isnan(r->term[t])) {
			sbuf_reset(&sb);
			model_nan_reason(m, av, m->cost_term[t], &env, &sb);
			jw_kstr(w, "why", sb.len ? sbuf_str(&sb) : "n/a");
		}
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_key(w, "factors");
	jw_arr_begin(w);
	for (f = 0; f < FACTOR_N; f++) {
		const struct model_factor *mf = &m->factors[f];
		enum vp_quality q = mf->bound ? frame_factor_quality(m, fr, r, f) : VQ_UNAVAILABLE;

		jw_obj_begin(w);
		jw_kstr(w, "factor", factor_name((enum factor_id)f));
		jw_kdouble(w, "score", r->fv[f].score);
		jw_kstr(w, "severity", severity_name(r->fv[f].sev));
		if (isnan(r->fv[f].score)) {
			sbuf_reset(&sb);
			if (!mf->bound || mf->quality == VQ_UNAVAILABLE || !mf->score)
				sbuf_addstr(&sb, mf->reason ? mf->reason : "the model binds no score");
			else
				model_nan_reason(m, av, mf->score, &env, &sb);
			jw_kstr(w, "score_why", sb.len ? sbuf_str(&sb) : "n/a");
		}
		if (costs) {
			double c = r->cost.cost[f];

			jw_kdouble(w, "cost_cycles", c);
			jw_kstr(w, "cost_quality", vp_quality_name(frame_cost_quality(m, fr, r, f)));
			jw_kdouble(w, "cost_pct", pct(c, r->cycles));
			if (!isnan(c))
				jw_kstr(w, "cost_why", NULL);
			else
				jw_kstr(w, "cost_why", r->cost.why[f] ? r->cost.why[f] : "n/a");
		}
		jw_kstr(w, "quality", vp_quality_name(q));
		jw_obj_end(w);
	}
	jw_arr_end(w);
	if (costs) {
		jw_key(w, "cost");
		jw_obj_begin(w);
		jw_kstr(w, "anchor", cost_anchor_name(r->cost.anchor));
		jw_kstr(w, "anchor_why", r->cost.anchor_why);
		jw_kbool(w, "suspect", r->cost.suspect);
		jw_kdouble(w, "budget_cycles", r->cost.budget);
		jw_kdouble(w, "budget_pct", pct(r->cost.budget, r->cycles));
		jw_kdouble(w, "remainder_cycles", r->cost.remainder);
		jw_kdouble(w, "remainder_pct", pct(r->cost.remainder, r->cycles));
		jw_kdouble(w, "base_cycles", r->cost.base);
		jw_kdouble(w, "llc_base_cycles", r->cost.llc_base);
		jw_kdouble(w, "mlp", r->cost.mlp);
		jw_kdouble(w, "solo_mpki", r->solo_mpki);
		jw_obj_end(w);
	}
	sbuf_release(&sb);
}

static void row_init(struct collect_row *r, const struct model *m, enum ent_kind kind,
		     const struct bound *b)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->ent = -1;
	r->kind = kind;
	r->vm_row = (size_t)-1;
	r->key = xstrdup(kind == ENT_NODE ? "node:eval:0" : "vcpu:eval:0");
	r->index = 0;
	r->tid = r->pid = r->domid = -1;
	r->cpu = -1;
	r->node = 0;
	r->inputs = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
	for (i = 0; i < m->n_inputs; i++)
		r->inputs[i] = b[i].value;
	r->remote.v = NAN;
}

static void bound_init(struct bound *b, size_t n, const struct resolved *res)
{
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].value = NAN;
		sbuf_init(&b[i].from);
		b[i].covered = xcalloc(res[i].n + 1, sizeof(bool));
	}
}

static void bound_release(struct bound *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		sbuf_release(&b[i].from);
		free(b[i].why);
		free(b[i].covered);
	}
}

static void write_inputs(struct jw *w, const struct model *m, const struct resolved *res,
			 const struct bound *b)
{
	size_t i;

	jw_arr_begin(w);
	for (i = 0; i < m->n_inputs; i++) {
		jw_obj_begin(w);
		jw_kstr(w, "name", m->inputs[i].name);
		jw_kstr(w, "spec", m->inputs[i].spec);
		jw_kdouble(w, "value", b[i].value);
		jw_kstr(w, "bound_by", b[i].how);
		jw_kstr(w, "from", b[i].from.len ? sbuf_str(&b[i].from) : NULL);
		if (res[i].n > 1) {
			jw_kuint(w, "instances", res[i].n);
			jw_kuint(w, "instances_counted", b[i].n_covered);
		}
		if (isnan(b[i].value))
			jw_kstr(w, "why", b[i].why ? b[i].why : "no count given for it");
		else if (res[i].n > 1 && b[i].n_covered && b[i].n_covered < res[i].n)
			jw_kstr(w, "note", "only some of its PMU instances were given: the sum of those");
		if (res[i].why && m->inputs[i].kind == INPUT_EVENT)
			jw_kstr(w, "encoding_why", res[i].why);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

int counts_eval(const struct counts_eval_opts *o, const struct counts_in *c, struct sbuf *out,
		struct vp_err *err)
{
	const struct model *m = o->m;
	struct model_machine mm;
	struct resolved *res;
	struct bound *brow, *bnode;
	struct collect_frame f;
	struct model_avail av_row, av_node;
	const void *ctx_row[2], *ctx_node[2];
	struct cost_calib cc;
	struct cost_node ns;
	struct jw w;
	size_t i;
	bool node_row = o->node_row, have_node = c->have_node || o->node_row;

	if (!(c->duration_s > 0))
		return vp_err_set(err, VP_EINVAL, "the counts give no duration: 'duration_s' (or "
				  "--duration, or perf's duration_time) is needed");
	memset(&mm, 0, sizeof(mm));
	mm.db = o->db;
	mm.root = o->root ? o->root : "/";
	if (o->pfm_table)
		snprintf(mm.pfm_table, sizeof(mm.pfm_table), "%s", o->pfm_table);
	res = xcalloc(m->n_inputs + 1, sizeof(*res));
	for (i = 0; i < m->n_inputs; i++) {
		if (m->inputs[i].kind == INPUT_EVENT)
			resolve_one(&mm, m->inputs[i].spec, &res[i]);
		else
			res[i].scale = 1;
	}
	brow = xcalloc(m->n_inputs + 1, sizeof(*brow));
	bnode = xcalloc(m->n_inputs + 1, sizeof(*bnode));
	bound_init(brow, m->n_inputs, res);
	bound_init(bnode, m->n_inputs, res);

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_kstr(&w, "model", m->name);
	jw_kstr(&w, "row", node_row ? "node" : "vcpu");
	jw_kstr(&w, "root", mm.root);
	jw_kstr(&w, "pfm_table", mm.pfm_table[0] ? mm.pfm_table : NULL);
	jw_kdouble(&w, "duration_s", c->duration_s);
	jw_kdouble(&w, "cpu_ghz", c->cpu_ghz);
	jw_key(&w, "unused");
	jw_arr_begin(&w);
	bind_set(&mm, m, res, &c->row, node_row ? bnode : brow, &w);
	if (c->have_node)
		bind_set(&mm, m, res, &c->node, bnode, &w);
	jw_arr_end(&w);

	/* the frame: one thread row and the node that serves it */
	memset(&f, 0, sizeof(f));
	f.duration = c->duration_s;
	f.cpu_mhz = c->cpu_ghz * 1000;
	if (!node_row) {
		f.rows = xcalloc(1, sizeof(*f.rows));
		f.n_rows = 1;
		row_init(&f.rows[0], m, ENT_VCPU, brow);
	}
	if (have_node) {
		f.nodes = xcalloc(1, sizeof(*f.nodes));
		f.n_nodes = 1;
		row_init(&f.nodes[0], m, ENT_NODE, bnode);
	}
	for (i = 0; i < f.n_rows; i++)
		frame_eval_row(m, o->plat, o->cal, f.cpu_mhz, &f.rows[i], f.duration);
	for (i = 0; i < f.n_nodes; i++)
		frame_eval_row(m, o->plat, o->cal, f.cpu_mhz, &f.nodes[i], f.duration);
	if (f.n_rows) {
		f.rows[0].llc_alone = c->llc_alone;
		f.rows[0].solo_mpki = c->solo_mpki;
	}
	frame_cost(m, o->cal, &f, NULL);

	ctx_row[0] = m;
	ctx_row[1] = brow;
	ctx_node[0] = m;
	ctx_node[1] = bnode;
	cost_calib_init(&cc, o->cal);
	model_check_inputs(m, no_count, ctx_row, &av_row, NULL);
	model_check_inputs(m, no_count, ctx_node, &av_node, NULL);
	jw_key(&w, "inputs");
	write_inputs(&w, m, res, node_row ? bnode : brow);
	if (f.n_rows) {
		jw_key(&w, "vcpu");
		jw_obj_begin(&w);
		write_row(&w, m, &av_row, o->plat, o->cal, f.duration, &f, &f.rows[0], true);
		jw_obj_end(&w);
	}
	if (f.n_nodes) {
		double loc = NAN, rem = NAN, fr = NAN;

		if (f.n_rows) {
			loc = f.rows[0].term[CT_DRAM_LOCAL];
			rem = f.rows[0].term[CT_DRAM_REMOTE];
			if (isfinite(loc) && isfinite(rem) && loc + rem > 0)
				fr = rem / (loc + rem);
			else if (isfinite(loc) && loc > 0)
				fr = 0;
		}
		jw_key(&w, "node");
		jw_obj_begin(&w);
		if (!node_row && c->have_node) {
			jw_key(&w, "inputs");
			write_inputs(&w, m, res, bnode);
		}
		write_row(&w, m, &av_node, o->plat, o->cal, f.duration, &f, &f.nodes[0], false);
		cost_node_from_terms(&cc, f.nodes[0].term, fr, &ns);
		jw_key(&w, "state");
		write_node_state(&w, &ns);
		jw_kstr(&w, "curve_why", cc.n_curve ? NULL : cc.curve_why);
		jw_obj_end(&w);
	}
	jw_obj_end(&w);
	sbuf_addch(out, '\n');

	cost_calib_release(&cc);
	model_avail_release(m, &av_row);
	model_avail_release(m, &av_node);
	collect_frame_release(&f);
	bound_release(brow, m->n_inputs);
	bound_release(bnode, m->n_inputs);
	free(brow);
	free(bnode);
	for (i = 0; i < m->n_inputs; i++)
		resolved_release(&res[i]);
	free(res);
	return 0;
}

/* ---- the text page ---- */

static void fmt_num(struct sbuf *sb, double v)
{
	if (!isfinite(v))
		sbuf_addstr(sb, "n/a");
	else if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
		sbuf_addf(sb, "%.4g", v);
	else
		sbuf_addf(sb, "%.4f", v);
	/* trim trailing zeros of a fixed format */
	if (sb->len && strchr(sbuf_str(sb), '.') && !strchr(sbuf_str(sb), 'e')) {
		while (sb->len && sb->buf[sb->len - 1] == '0')
			sb->buf[--sb->len] = '\0';
		if (sb->len && sb->buf[sb->len - 1] == '.')
			sb->buf[--sb->len] = '\0';
	}
}

static const char *num(double v, char *buf, size_t size)
{
	struct sbuf sb = SBUF_INIT;

	fmt_num(&sb, v);
	snprintf(buf, size, "%s", sbuf_str(&sb));
	sbuf_release(&sb);
	return buf;
}

static void text_row(const struct jv *row, struct sbuf *out)
{
	const struct jv *a, *cost;
	char b1[64], b2[64], b3[64];
	size_t i;

	a = jv_arr(row, "metrics");
	sbuf_addstr(out, "  metrics:\n");
	for (i = 0; a && i < a->n; i++) {
		const struct jv *x = &a->items[i];
		const char *unit = jv_str(x, "unit"), *why = jv_str(x, "why");

		sbuf_addf(out, "    %-22s %12s%s%s", jv_str(x, "name"),
			  num(jv_num(x, "value"), b1, sizeof(b1)), unit ? " " : "", unit ? unit : "");
		if (why)
			sbuf_addf(out, "  (%s)", why);
		sbuf_addch(out, '\n');
	}
	sbuf_addf(out, "  cycles: %s%s\n", num(jv_num(row, "cycles"), b1, sizeof(b1)),
		  jv_get(row, "cycles_estimated") && jv_get(row, "cycles_estimated")->b ?
		  " (estimated from task-clock x clock rate)" : "");
	a = jv_arr(row, "factors");
	cost = jv_get(row, "cost");
	sbuf_addf(out, "  %-9s %10s %-9s %-12s %14s %8s  %-12s %s\n", "factor", "score", "severity",
		  "quality", cost ? "cost cycles" : "", cost ? "cost %" : "", cost ? "cost quality" : "",
		  "n/a because");
	for (i = 0; a && i < a->n; i++) {
		const struct jv *x = &a->items[i];
		const char *sw = jv_str(x, "score_why"), *cw = jv_str(x, "cost_why");
		struct sbuf why = SBUF_INIT;

		if (sw)
			sbuf_addf(&why, "score: %s", sw);
		if (cw)
			sbuf_addf(&why, "%scost: %s", why.len ? "; " : "", cw);
		sbuf_addf(out, "  %-9s %10s %-9s %-12s %14s %8s  %-12s %s\n", jv_str(x, "factor"),
			  num(jv_num(x, "score"), b1, sizeof(b1)), jv_str(x, "severity"),
			  jv_str(x, "quality"), cost ? num(jv_num(x, "cost_cycles"), b2, sizeof(b2)) : "",
			  cost ? num(jv_num(x, "cost_pct"), b3, sizeof(b3)) : "",
			  cost ? jv_str(x, "cost_quality") : "", sbuf_str(&why));
		sbuf_release(&why);
	}
	if (cost) {
		const char *aw = jv_str(cost, "anchor_why");

		sbuf_addf(out, "  %-9s %10s %-9s %-12s %14s %8s  (the factors' interaction)\n", "remainder",
			  "", "", "", num(jv_num(cost, "remainder_cycles"), b2, sizeof(b2)),
			  num(jv_num(cost, "remainder_pct"), b3, sizeof(b3)));
		sbuf_addf(out, "  budget: %s cycles (%s%% of cycles), %s%s%s\n",
			  num(jv_num(cost, "budget_cycles"), b1, sizeof(b1)),
			  num(jv_num(cost, "budget_pct"), b2, sizeof(b2)), jv_str(cost, "anchor"),
			  aw ? ": " : "", aw ? aw : "");
		sbuf_addf(out, "  base cost of reaching memory: %s cycles; LLC misses at the solo rate: "
			  "%s cycles; solo rate %s MPKI; MLP %s\n",
			  num(jv_num(cost, "base_cycles"), b1, sizeof(b1)),
			  num(jv_num(cost, "llc_base_cycles"), b2, sizeof(b2)),
			  num(jv_num(cost, "solo_mpki"), b3, sizeof(b3)),
			  isfinite(jv_num(cost, "mlp")) ? num(jv_num(cost, "mlp"), b1, sizeof(b1)) :
			  jv_str(cost, "anchor") && !strcmp(jv_str(cost, "anchor"), "measured") ?
			  "n/a (anchored)" : "n/a");
	}
}

static void text_inputs(const struct jv *a, bool bound_only, struct sbuf *out)
{
	char b1[64];
	size_t i;

	for (i = 0; a && i < a->n; i++) {
		const struct jv *x = &a->items[i];
		const char *why = jv_str(x, "why"), *from = jv_str(x, "from"), *note = jv_str(x, "note");

		if (bound_only && !from)
			continue;

		sbuf_addf(out, "    %-10s %14s  %s", jv_str(x, "name"), num(jv_num(x, "value"), b1, sizeof(b1)),
			  jv_str(x, "spec"));
		if (from)
			sbuf_addf(out, "  <- %s by %s", from, jv_str(x, "bound_by"));
		if (why)
			sbuf_addf(out, "  (n/a: %s)", why);
		if (note)
			sbuf_addf(out, "  (%s)", note);
		sbuf_addch(out, '\n');
	}
}

int counts_eval_text(const struct jv *doc, struct sbuf *out, struct vp_err *err)
{
	const struct jv *a, *row, *node;
	char b1[64], b2[64];
	size_t i;

	if (doc->type != JV_OBJ || !jv_str(doc, "model") || !jv_arr(doc, "inputs"))
		return vp_err_set(err, VP_EFORMAT, "not a 'model eval' document");
	sbuf_addf(out, "model %s on %s counts, %s s at %s GHz (encodings from %s%s%s)\n",
		  jv_str(doc, "model"), jv_str(doc, "row"), num(jv_num(doc, "duration_s"), b1, sizeof(b1)),
		  num(jv_num(doc, "cpu_ghz"), b2, sizeof(b2)), jv_str(doc, "root"),
		  jv_str(doc, "pfm_table") ? ", libpfm4 table " : "",
		  jv_str(doc, "pfm_table") ? jv_str(doc, "pfm_table") : "");
	sbuf_addstr(out, "inputs:\n");
	text_inputs(jv_arr(doc, "inputs"), false, out);
	a = jv_arr(doc, "unused");
	if (a && a->n) {
		sbuf_addstr(out, "unused counts:\n");
		for (i = 0; i < a->n; i++)
			sbuf_addf(out, "    %s: '%s': %s\n", jv_str(&a->items[i], "where"),
				  jv_str(&a->items[i], "spec"), jv_str(&a->items[i], "why"));
	}
	row = jv_get(doc, "vcpu");
	if (row && row->type == JV_OBJ) {
		sbuf_addstr(out, "vcpu row:\n");
		text_row(row, out);
	}
	node = jv_get(doc, "node");
	if (node && node->type == JV_OBJ) {
		const struct jv *st = jv_get(node, "state");
		const char *cw = jv_str(node, "curve_why");

		if (jv_arr(node, "inputs")) {
			sbuf_addstr(out, "node inputs (those given; the others are n/a):\n");
			text_inputs(jv_arr(node, "inputs"), true, out);
		}
		sbuf_addstr(out, "node row:\n");
		text_row(node, out);
		if (st) {
			char b3[64], b4[64];

			sbuf_addf(out, "  state: utilisation %s, IMC queueing %s ns, tracker delay %s ns, "
				  "trackers full %s%s%s\n", num(jv_num(st, "util"), b1, sizeof(b1)),
				  num(jv_num(st, "imc_delay_ns"), b2, sizeof(b2)),
				  num(jv_num(st, "tracker_delay_ns"), b3, sizeof(b3)),
				  num(jv_num(st, "tracker_full"), b4, sizeof(b4)), cw ? "; " : "",
				  cw ? cw : "");
		}
	}
	return 0;
}
