/* model.c - the model file language: parser, includes, name resolution, checks, evaluation */
#include "model/model.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

#define INCLUDE_MAX_DEPTH 16

const char *severity_name(enum severity s)
{
	switch (s) {
	case SEV_OK: return "ok";
	case SEV_WARNING: return "warning";
	case SEV_CRITICAL: return "critical";
	default: return "n/a";
	}
}

const char *model_vendor_id(const char *word)
{
	if (!strcasecmp(word, "intel") || !strcmp(word, "GenuineIntel"))
		return "GenuineIntel";
	if (!strcasecmp(word, "amd") || !strcmp(word, "AuthenticAMD"))
		return "AuthenticAMD";
	if (!strcasecmp(word, "arm"))
		return "ARM";
	return NULL;
}

/* ---- loading ---- */

struct loader {
	struct model *m;
	const char *const *dirs;
	size_t n_dirs;
	struct diags *d;
	char *stack[INCLUDE_MAX_DEPTH]; /* files being read, outermost first (canonical paths) */
	int depth;
	char **seen;                    /* canonical paths already read (read each once) */
	size_t n_seen, cap_seen;
	size_t cap_inputs, cap_metrics, cap_matches, cap_files;
	char read_error[VP_ERR_MSG_MAX]; /* why the top file could not be read */
};

/* Text of the file a location points into, for caret lines. */
static const char *text_of(const struct model *m, const char *file)
{
	size_t i;

	for (i = 0; i < m->n_files; i++)
		if (m->files[i] == file)
			return m->texts[i];
	return NULL;
}

static void error_at(struct loader *ld, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void error_at(struct loader *ld, struct src_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diags_vadd(ld->d, false, loc, text_of(ld->m, loc.file), fmt, ap);
	va_end(ap);
}

static const char *add_file(struct loader *ld, const char *path, char *text)
{
	struct model *m = ld->m;

	if (m->n_files + 1 > ld->cap_files) {
		size_t cap = ld->cap_files;

		VP_GROW(m->files, cap, m->n_files + 1);
		m->texts = xrealloc(m->texts, cap * sizeof(*m->texts));
		ld->cap_files = cap;
	}
	m->files[m->n_files] = xstrdup(path);
	m->texts[m->n_files] = text;
	return m->files[m->n_files++];
}

bool model_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

static const char *const reserved[] = {
	"if", "else", "duration", "duration_time", "min", "max", "d_ratio", "has_event",
};

/* Where a name is already used in the model, or NULL. */
static const struct src_loc *name_defined(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n_inputs; i++)
		if (!strcmp(m->inputs[i].name, name))
			return &m->inputs[i].loc;
	for (i = 0; i < m->n_metrics; i++)
		if (!strcmp(m->metrics[i].name, name))
			return &m->metrics[i].loc;
	return NULL;
}

/* Current token must be a new, valid local name; reports and returns false if not. */
static bool take_name(struct loader *ld, struct lexer *lx, const char *what, char **name,
		      struct src_loc *loc)
{
	const struct src_loc *prev;
	char buf[96];
	size_t i;

	*loc = lex_loc(lx);
	if (lx->cur.t != T_IDENT) {
		if (lx->cur.t != T_BAD)
			error_at(ld, *loc, "expected the %s's name, found %s", what,
				 tok_describe(&lx->cur, buf, sizeof(buf)));
		return false;
	}
	if (strchr(lx->cur.str, '.')) {
		error_at(ld, *loc, "bad name '%s': names are letters, digits and '_'", lx->cur.str);
		return false;
	}
	for (i = 0; i < VP_ARRAY_SIZE(reserved); i++)
		if (!strcmp(lx->cur.str, reserved[i])) {
			error_at(ld, *loc, "'%s' is a reserved word, not a %s name", lx->cur.str, what);
			return false;
		}
	prev = name_defined(ld->m, lx->cur.str);
	if (prev) {
		error_at(ld, *loc, "duplicate name '%s' (first defined at %s:%d:%d)", lx->cur.str,
			 prev->file, prev->line, prev->col);
		return false;
	}
	*name = xstrdup(lx->cur.str);
	lex_next(lx);
	return true;
}

static bool expect(struct loader *ld, struct lexer *lx, enum tok t, const char *what)
{
	char buf[96];

	if (lx->cur.t == t)
		return true;
	if (lx->cur.t != T_BAD)
		error_at(ld, lex_loc(lx), "expected %s, found %s", what,
			 tok_describe(&lx->cur, buf, sizeof(buf)));
	return false;
}

/* The statement must end here. */
static bool end_stmt(struct loader *ld, struct lexer *lx)
{
	char buf[96];

	if (lx->cur.t == T_NL || lx->cur.t == T_EOF)
		return true;
	if (lx->cur.t != T_BAD)
		error_at(ld, lex_loc(lx), "unexpected %s at the end of the statement",
			 tok_describe(&lx->cur, buf, sizeof(buf)));
	return false;
}

/* Optional trailing "description": takes it into *desc. */
static void take_desc(struct lexer *lx, char **desc)
{
	if (lx->cur.t == T_STR) {
		free(*desc);
		*desc = xstrdup(lx->cur.str);
		lex_next(lx);
	}
}

static bool parse_int(struct loader *ld, struct lexer *lx, int *v)
{
	if (!expect(ld, lx, T_NUM, "a number"))
		return false;
	if (lx->cur.num != floor(lx->cur.num) || lx->cur.num > INT_MAX || lx->cur.num < 0) {
		error_at(ld, lex_loc(lx), "bad number '%.*s': expected a whole number",
			 (int)lx->cur.len, lx->cur.s);
		return false;
	}
	*v = (int)lx->cur.num;
	lex_next(lx);
	return true;
}

/* match cpu VENDOR [family N] [model LIST] | pmu NAME... | vpmu [VENDOR] | software */
static bool parse_match(struct loader *ld, struct lexer *lx, bool top)
{
	struct model_match mt;
	struct src_loc loc = lex_loc(lx);
	const char *vendor;
	size_t cap = 0;
	bool ok = false;

	memset(&mt, 0, sizeof(mt));
	mt.family = -1;
	mt.loc = loc;
	if (!expect(ld, lx, T_IDENT, "'cpu', 'pmu', 'vpmu' or 'software'"))
		return false;
	if (!strcmp(lx->cur.str, "cpu") || !strcmp(lx->cur.str, "vpmu")) {
		mt.kind = lx->cur.str[0] == 'c' ? MATCH_CPU : MATCH_VPMU;
		lex_next(lx);
		if (lx->cur.t == T_IDENT) {
			vendor = model_vendor_id(lx->cur.str);
			if (!vendor) {
				error_at(ld, lex_loc(lx), "unknown CPU vendor '%s' (known: intel, amd, arm)",
					 lx->cur.str);
				goto out;
			}
			snprintf(mt.vendor, sizeof(mt.vendor), "%s", vendor);
			lex_next(lx);
		} else if (mt.kind == MATCH_CPU) {
			expect(ld, lx, T_IDENT, "a CPU vendor (intel, amd, arm)");
			goto out;
		}
		while (mt.kind == MATCH_CPU && lx->cur.t == T_IDENT) {
			if (!strcmp(lx->cur.str, "family")) {
				lex_next(lx);
				if (!parse_int(ld, lx, &mt.family))
					goto out;
			} else if (!strcmp(lx->cur.str, "model")) {
				lex_next(lx);
				do {
					int lo, hi;

					if (lx->cur.t == T_COMMA)
						lex_next(lx);
					if (!parse_int(ld, lx, &lo))
						goto out;
					hi = lo;
					if (lx->cur.t == T_MINUS) {
						lex_next(lx);
						if (!parse_int(ld, lx, &hi))
							goto out;
					}
					VP_GROW(mt.models, cap, mt.n_models + 1);
					mt.models[mt.n_models][0] = lo;
					mt.models[mt.n_models][1] = hi;
					mt.n_models++;
				} while (lx->cur.t == T_NUM || lx->cur.t == T_COMMA);
			} else {
				error_at(ld, lex_loc(lx), "expected 'family' or 'model', found '%s'",
					 lx->cur.str);
				goto out;
			}
		}
	} else if (!strcmp(lx->cur.str, "pmu")) {
		mt.kind = MATCH_PMU;
		lex_next(lx);
		if (!expect(ld, lx, T_IDENT, "a libpfm4 PMU name"))
			goto out;
		while (lx->cur.t == T_IDENT || lx->cur.t == T_COMMA) {
			if (lx->cur.t == T_IDENT) {
				VP_GROW(mt.pmus, cap, mt.n_pmus + 1);
				mt.pmus[mt.n_pmus++] = xstrdup(lx->cur.str);
			}
			lex_next(lx);
		}
	} else if (!strcmp(lx->cur.str, "software")) {
		mt.kind = MATCH_SOFTWARE;
		lex_next(lx);
	} else {
		error_at(ld, lex_loc(lx), "unknown match rule '%s' (known: cpu, pmu, vpmu, software)",
			 lx->cur.str);
		goto out;
	}
	if (!end_stmt(ld, lx))
		goto out;
	ok = true;
	if (top) {
		struct model *m = ld->m;

		VP_GROW(m->matches, ld->cap_matches, m->n_matches + 1);
		m->matches[m->n_matches++] = mt;
		return true;
	}
out:
	free(mt.models);
	while (mt.n_pmus)
		free(mt.pmus[--mt.n_pmus]);
	free(mt.pmus);
	return ok;
}

/* event NAME = SPEC [optional] [node] ["desc"]   /   source NAME = PROVIDER.COUNTER [optional] ["desc"] */
static bool parse_input(struct loader *ld, struct lexer *lx, enum input_kind kind)
{
	struct model_input in;
	struct model *m = ld->m;
	const char *what = kind == INPUT_EVENT ? "event" : "source";

	memset(&in, 0, sizeof(in));
	in.kind = kind;
	if (!take_name(ld, lx, what, &in.name, &in.loc))
		return false;
	if (!expect(ld, lx, T_ASSIGN, "'='"))
		goto bad;
	lex_raw_word(lx);
	in.spec_loc = lex_loc(lx);
	if (lx->cur.t != T_STR || !lx->cur.str[0]) {
		if (lx->cur.t != T_BAD)
			error_at(ld, in.spec_loc, kind == INPUT_EVENT ?
				 "expected an event spec after '='" :
				 "expected a source name (such as numastat.other_node) after '='");
		goto bad;
	}
	in.spec = xstrdup(lx->cur.str);
	if (kind == INPUT_SOURCE) {
		const char *p = in.spec, *dot = strchr(p, '.');
		bool good = dot && dot != p && dot[1];

		for (; good && *p; p++)
			if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
			      (*p >= '0' && *p <= '9')))
				good = false;
		if (!good) {
			error_at(ld, in.spec_loc, "bad source name '%s': expected provider.counter "
				 "in lower case (such as numastat.other_node)", in.spec);
			goto bad;
		}
	}
	lex_next(lx);
	while (lx->cur.t == T_IDENT && (!strcmp(lx->cur.str, "optional") ||
					 (kind == INPUT_EVENT && (!strcmp(lx->cur.str, "node") ||
								  !strcmp(lx->cur.str, "home"))))) {
		if (!strcmp(lx->cur.str, "optional"))
			in.optional = true;
		else
			in.per_node = true;
		if (!strcmp(lx->cur.str, "home"))
			in.home = true;
		lex_next(lx);
	}
	take_desc(lx, &in.desc);
	if (!end_stmt(ld, lx))
		goto bad;
	VP_GROW(m->inputs, ld->cap_inputs, m->n_inputs + 1);
	m->inputs[m->n_inputs++] = in;
	return true;
bad:
	free(in.name);
	free(in.spec);
	free(in.desc);
	return false;
}

/* metric NAME [UNIT] = FORMULA ["desc"] */
static bool parse_metric(struct loader *ld, struct lexer *lx)
{
	struct model_metric mt;
	struct model *m = ld->m;

	memset(&mt, 0, sizeof(mt));
	if (!take_name(ld, lx, "metric", &mt.name, &mt.loc))
		return false;
	if (lx->cur.t == T_UNIT) {
		mt.unit = xstrdup(lx->cur.str);
		lex_next(lx);
	}
	if (!expect(ld, lx, T_ASSIGN, "'='"))
		goto bad;
	lex_next(lx);
	mt.e = expr_parse(lx);
	if (!mt.e)
		goto bad;
	take_desc(lx, &mt.desc);
	if (!end_stmt(ld, lx))
		goto bad;
	VP_GROW(m->metrics, ld->cap_metrics, m->n_metrics + 1);
	m->metrics[m->n_metrics++] = mt;
	return true;
bad:
	free(mt.name);
	free(mt.unit);
	free(mt.desc);
	expr_free(mt.e);
	return false;
}

static void factor_clear(struct model_factor *f)
{
	expr_free(f->score);
	free(f->reason);
	free(f->desc);
	memset(f, 0, sizeof(*f));
	f->warning = NAN;
	f->critical = NAN;
}

/*
 * factor NAME            (then score/cost/warning/critical/quality lines)
 * factor NAME unavailable "reason"
 * Returns the factor's index when a section opens, -1 otherwise.
 */
static int parse_factor(struct loader *ld, struct lexer *lx, const char *file)
{
	struct model_factor *f;
	struct src_loc loc = lex_loc(lx);
	int i;

	if (!expect(ld, lx, T_IDENT, "a factor name"))
		return -1;
	for (i = 0; i < FACTOR_N; i++)
		if (!strcmp(lx->cur.str, factor_name((enum factor_id)i)))
			break;
	if (i == FACTOR_N) {
		error_at(ld, loc, "unknown factor '%s' (the factors are locality, llc, sharing, "
			 "imc, queue)", lx->cur.str);
		return -1;
	}
	f = &ld->m->factors[i];
	if (f->bound && f->loc.file == file) {
		error_at(ld, loc, "duplicate binding of factor '%s' (first bound at %s:%d:%d)",
			 factor_name((enum factor_id)i), f->loc.file, f->loc.line, f->loc.col);
		return -1;
	}
	/* a binding in an including file replaces the included one */
	factor_clear(f);
	f->loc = loc;
	lex_next(lx);
	if (lx->cur.t == T_IDENT && !strcmp(lx->cur.str, "unavailable")) {
		lex_next(lx);
		if (!expect(ld, lx, T_STR, "the reason as a \"string\""))
			return -1;
		f->bound = true;
		f->quality = VQ_UNAVAILABLE;
		f->reason = xstrdup(lx->cur.str);
		lex_next(lx);
		end_stmt(ld, lx);
		return -1;
	}
	if (!end_stmt(ld, lx))
		return -1;
	f->bound = true;
	f->quality = VQ_MEASURED;
	f->reason = NULL;
	f->desc = NULL;
	/* quality must be given: remember that it was not, with a sentinel */
	f->quality = (enum vp_quality)-1;
	return i;
}

static bool parse_threshold(struct loader *ld, struct lexer *lx, double *v)
{
	bool neg = false;

	lex_next(lx);
	if (lx->cur.t == T_MINUS) {
		neg = true;
		lex_next(lx);
	}
	if (!expect(ld, lx, T_NUM, "a number"))
		return false;
	*v = neg ? -lx->cur.num : lx->cur.num;
	lex_next(lx);
	return end_stmt(ld, lx);
}

/* One line of a factor section; false when the statement was bad. */
static bool parse_factor_attr(struct loader *ld, struct lexer *lx, struct model_factor *f,
			      const char *kw)
{
	struct expr **dst = NULL;

	if (!strcmp(kw, "description")) {
		lex_next(lx);
		if (!expect(ld, lx, T_STR, "a \"string\""))
			return false;
		free(f->desc);
		f->desc = xstrdup(lx->cur.str);
		lex_next(lx);
		return end_stmt(ld, lx);
	}
	lex_next(lx);
	if (!expect(ld, lx, T_ASSIGN, "'='"))
		return false;
	if (!strcmp(kw, "score")) {
		dst = &f->score;
		if (*dst) {
			error_at(ld, lex_loc(lx), "factor has two '%s' lines", kw);
			return false;
		}
		lex_next(lx);
		*dst = expr_parse(lx);
		return *dst && end_stmt(ld, lx);
	}
	if (!strcmp(kw, "warning"))
		return parse_threshold(ld, lx, &f->warning);
	if (!strcmp(kw, "critical"))
		return parse_threshold(ld, lx, &f->critical);
	/* quality */
	lex_next(lx);
	if (!expect(ld, lx, T_IDENT, "measured, apportioned or proxy"))
		return false;
	if (!strcmp(lx->cur.str, "measured"))
		f->quality = VQ_MEASURED;
	else if (!strcmp(lx->cur.str, "apportioned"))
		f->quality = VQ_APPORTIONED;
	else if (!strcmp(lx->cur.str, "proxy"))
		f->quality = VQ_PROXY;
	else {
		error_at(ld, lex_loc(lx), "unknown quality '%s' (measured, apportioned or proxy; "
			 "write 'factor NAME unavailable \"reason\"' for none)", lx->cur.str);
		return false;
	}
	lex_next(lx);
	return end_stmt(ld, lx);
}

/* A factor section is complete: score, thresholds and quality given. */
static void factor_finish(struct loader *ld, int fi)
{
	struct model_factor *f;

	if (fi < 0)
		return;
	f = &ld->m->factors[fi];
	if (f->quality == VQ_UNAVAILABLE)
		return;
	if (!f->score)
		error_at(ld, f->loc, "factor '%s' has no 'score = FORMULA' line", factor_name((enum factor_id)fi));
	if (isnan(f->warning) || isnan(f->critical))
		error_at(ld, f->loc, "factor '%s' needs both 'warning = N' and 'critical = N'",
			 factor_name((enum factor_id)fi));
	else if (f->critical < f->warning)
		error_at(ld, f->loc, "factor '%s': critical threshold %g is below warning %g "
			 "(scores grow with the problem)", factor_name((enum factor_id)fi), f->critical, f->warning);
	if ((int)f->quality == -1) {
		error_at(ld, f->loc, "factor '%s' has no 'quality = measured|apportioned|proxy' line",
			 factor_name((enum factor_id)fi));
		f->quality = VQ_MEASURED;
	}
}

static int load_file(struct loader *ld, const char *path, const char *text_in,
		     struct src_loc from, bool top);

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
}

/* include NAME | include "path" */
static void parse_include(struct loader *ld, struct lexer *lx, const char *file)
{
	struct src_loc loc;
	char *dir = NULL, *cand = NULL, *arg;
	bool quoted = lx->cur.t == T_STR && lx->cur.s[0] == '"';
	size_t i;

	loc = lex_loc(lx);
	if (lx->cur.t != T_STR || !lx->cur.str[0]) {
		expect(ld, lx, T_IDENT, "a model name or a \"path\"");
		return;
	}
	arg = xstrdup(lx->cur.str);
	lex_next(lx);
	if (!end_stmt(ld, lx))
		goto out;
	if (ld->depth == 1) {
		struct model *m = ld->m;

		m->includes = xrealloc(m->includes, (m->n_includes + 1) * sizeof(*m->includes));
		m->includes[m->n_includes++] = xstrdup(arg);
	}
	dir = dir_of(file);
	if (quoted || strchr(arg, '/')) {
		cand = arg[0] == '/' ? xstrdup(arg) : xasprintf("%s/%s", dir, arg);
		if (vp_exists(NULL, cand)) {
			error_at(ld, loc, "include not found: '%s'", cand);
			goto out;
		}
	} else {
		cand = xasprintf("%s/%s.model", dir, arg);
		for (i = 0; vp_exists(NULL, cand) && i < ld->n_dirs; i++) {
			free(cand);
			cand = xasprintf("%s/%s.model", ld->dirs[i], arg);
		}
		if (vp_exists(NULL, cand)) {
			error_at(ld, loc, "include not found: model '%s' (no %s.model next to '%s'%s)",
				 arg, arg, file, ld->n_dirs ? " nor in the model path" : "");
			goto out;
		}
	}
	load_file(ld, cand, NULL, loc, false);
out:
	free(arg);
	free(dir);
	free(cand);
}

/*
 * cost TERM = FORMULA: one input of the cost stage (src/model/cost.h).  A
 * binding in an including file replaces the included one, as for cycles.
 */
static bool parse_cost_term(struct loader *ld, struct lexer *lx)
{
	struct src_loc loc = lex_loc(lx);
	struct expr *e;
	int t;

	if (!expect(ld, lx, T_IDENT, "a cost term name"))
		return false;
	t = cost_term_lookup(lx->cur.str);
	if (t < 0) {
		struct sbuf sb = SBUF_INIT;
		int k;

		for (k = 0; k < CT_N; k++)
			sbuf_addf(&sb, "%s%s", k ? ", " : "", cost_term_name((enum cost_term)k));
		error_at(ld, loc, "unknown cost term '%s' (the terms are %s)", lx->cur.str,
			 sbuf_str(&sb));
		sbuf_release(&sb);
		return false;
	}
	if (ld->m->cost_term[t] && ld->m->cost_term_loc[t].file == loc.file) {
		error_at(ld, loc, "duplicate cost term '%s' (first bound at %s:%d:%d)",
			 cost_term_name((enum cost_term)t), ld->m->cost_term_loc[t].file,
			 ld->m->cost_term_loc[t].line, ld->m->cost_term_loc[t].col);
		return false;
	}
	lex_next(lx);
	if (!expect(ld, lx, T_ASSIGN, "'='"))
		return false;
	lex_next(lx);
	e = expr_parse(lx);
	if (!e || !end_stmt(ld, lx)) {
		expr_free(e);
		return false;
	}
	expr_free(ld->m->cost_term[t]);
	ld->m->cost_term[t] = e;
	ld->m->cost_term_loc[t] = loc;
	return true;
}

static int parse_text(struct loader *ld, const char *file, const char *text, bool top)
{
	struct lexer lx;
	int fi = -1;          /* open factor section */
	bool have_model = false;
	char buf[96];

	lex_init(&lx, text, file, ld->d);
	for (;;) {
		const char *kw;
		bool ok = true;

		lex_next(&lx);
		if (lx.cur.t == T_NL)
			continue;
		if (lx.cur.t == T_EOF)
			break;
		if (lx.cur.t != T_IDENT) {
			if (lx.cur.t != T_BAD)
				error_at(ld, lex_loc(&lx), "expected a statement, found %s",
					 tok_describe(&lx.cur, buf, sizeof(buf)));
			lex_skip_line(&lx);
			continue;
		}
		kw = lx.cur.str;
		if (!strcmp(kw, "cost")) {
			struct src_loc at = lex_loc(&lx);

			lex_next(&lx);
			if (lx.cur.t == T_ASSIGN) {
				error_at(ld, at, "'cost = FORMULA' is no longer a factor line: costs come "
					 "from the cost stage, which splits a row's stall by the model's "
					 "cost terms ('cost dram_remote = EVENT' and the like at the top "
					 "level; docs/models.md \"Cost terms\")");
				lex_skip_line(&lx);
			} else {
				factor_finish(ld, fi);
				fi = -1;
				if (!parse_cost_term(ld, &lx))
					lex_skip_line(&lx);
			}
			if (lx.cur.t == T_EOF)
				break;
			continue;
		}
		if (fi >= 0 && (!strcmp(kw, "score") ||
				!strcmp(kw, "warning") || !strcmp(kw, "critical") ||
				!strcmp(kw, "quality") || !strcmp(kw, "description"))) {
			char *k = xstrdup(kw);

			ok = parse_factor_attr(ld, &lx, &ld->m->factors[fi], k);
			free(k);
			if (!ok)
				lex_skip_line(&lx);
			continue;
		}
		if (fi >= 0 && strcmp(kw, "score") &&
		    strcmp(kw, "warning") && strcmp(kw, "critical") && strcmp(kw, "quality")) {
			factor_finish(ld, fi);
			fi = -1;
		}
		if (!strcmp(kw, "model")) {
			struct src_loc loc = lex_loc(&lx);

			lex_raw_word(&lx);
			if (have_model) {
				error_at(ld, loc, "a second 'model' statement in one file");
				ok = false;
			} else if (lx.cur.t == T_STR && lx.cur.s[0] != '"' && model_name_ok(lx.cur.str)) {
				have_model = true;
				if (top) {
					ld->m->name = xstrdup(lx.cur.str);
					ld->m->loc = lex_loc(&lx);
				}
				lex_next(&lx);
				ok = end_stmt(ld, &lx);
			} else {
				if (lx.cur.t == T_STR)
					error_at(ld, lex_loc(&lx), "bad model name '%s': letters, digits, "
						 "'_', '-' and '.'", lx.cur.str);
				else
					expect(ld, &lx, T_IDENT, "the model's name");
				ok = false;
			}
		} else if (!strcmp(kw, "description")) {
			lex_next(&lx);
			ok = expect(ld, &lx, T_STR, "a \"string\"");
			if (ok && top) {
				free(ld->m->desc);
				ld->m->desc = xstrdup(lx.cur.str);
			}
			if (ok) {
				lex_next(&lx);
				ok = end_stmt(ld, &lx);
			}
		} else if (!strcmp(kw, "include")) {
			lex_raw_word(&lx);
			parse_include(ld, &lx, file);
		} else if (!strcmp(kw, "match")) {
			lex_next(&lx);
			ok = parse_match(ld, &lx, top);
		} else if (!strcmp(kw, "event") || !strcmp(kw, "source")) {
			enum input_kind k = kw[0] == 'e' ? INPUT_EVENT : INPUT_SOURCE;

			lex_next(&lx);
			ok = parse_input(ld, &lx, k);
		} else if (!strcmp(kw, "metric")) {
			lex_next(&lx);
			ok = parse_metric(ld, &lx);
		} else if (!strcmp(kw, "cycles")) {
			lex_next(&lx);
			ok = expect(ld, &lx, T_ASSIGN, "'='");
			if (ok) {
				struct expr *e;

				lex_next(&lx);
				e = expr_parse(&lx);
				ok = e && end_stmt(ld, &lx);
				if (ok) {
					/* the including file's binding wins, as for factors */
					expr_free(ld->m->cycles);
					ld->m->cycles = e;
				} else {
					expr_free(e);
				}
			}
		} else if (!strcmp(kw, "factor")) {
			lex_next(&lx);
			fi = parse_factor(ld, &lx, file);
			ok = lx.cur.t == T_NL || lx.cur.t == T_EOF;
		} else if (!strcmp(kw, "score") || !strcmp(kw, "warning") ||
			   !strcmp(kw, "critical") || !strcmp(kw, "quality")) {
			error_at(ld, lex_loc(&lx), "'%s' outside a factor section (write 'factor NAME' "
				 "first)", kw);
			ok = false;
		} else {
			error_at(ld, lex_loc(&lx), "unknown statement '%s' (model, description, include, "
				 "match, event, source, metric, cycles, cost, factor)", kw);
			ok = false;
		}
		if (!ok)
			lex_skip_line(&lx);
		if (lx.cur.t == T_EOF)
			break;
	}
	factor_finish(ld, fi);
	if (!have_model) {
		struct src_loc l = { file, 1, 1 };

		error_at(ld, l, "missing 'model NAME' statement");
	}
	lex_release(&lx);
	return 0;
}

#define MODEL_MAX_BYTES ((size_t)4 << 20) /* a model is text a person writes */

/* Models are regular files of sane size (vp_read_regular): not /dev/zero, not a FIFO. */

static int load_file(struct loader *ld, const char *path, const char *text_in,
		     struct src_loc from, bool top)
{
	char *text = NULL, *canon;
	const char *file;
	struct vp_err err;
	int i, ret = 0;
	size_t k, len = 0;

	canon = text_in ? xstrdup(path) : realpath(path, NULL);
	if (!canon)
		canon = xstrdup(path);
	for (i = 0; i < ld->depth; i++)
		if (!strcmp(ld->stack[i], canon)) {
			struct sbuf sb = SBUF_INIT;
			int j;

			for (j = i; j < ld->depth; j++)
				sbuf_addf(&sb, "%s -> ", ld->stack[j]);
			sbuf_addstr(&sb, canon);
			error_at(ld, from, "include cycle: %s", sbuf_str(&sb));
			sbuf_release(&sb);
			free(canon);
			return VP_EPARSE;
		}
	for (k = 0; k < ld->n_seen; k++)
		if (!strcmp(ld->seen[k], canon)) {
			free(canon); /* included twice (a diamond): once is enough */
			return 0;
		}
	if (ld->depth >= INCLUDE_MAX_DEPTH) {
		error_at(ld, from, "includes nested too deeply (more than %d)", INCLUDE_MAX_DEPTH);
		free(canon);
		return VP_EPARSE;
	}
	if (text_in) {
		text = xstrdup(text_in);
	} else if ((ret = vp_read_regular(path, MODEL_MAX_BYTES, &text, &len, &err))) {
		if (from.file)
			error_at(ld, from, "%s", err.msg);
		else
			snprintf(ld->read_error, sizeof(ld->read_error), "%s", err.msg);
		free(canon);
		return ret;
	} else if (strlen(text) != len) {
		/* the parser stops at a NUL: say so instead of ignoring the rest */
		struct src_loc at = { NULL, 0, 0 };

		file = add_file(ld, path, text);
		at.file = file;
		at.line = 1;
		at.col = 1;
		error_at(ld, at, "the file contains a NUL byte: not a model file");
		free(canon);
		return 0;
	}
	VP_GROW(ld->seen, ld->cap_seen, ld->n_seen + 1);
	ld->seen[ld->n_seen++] = xstrdup(canon);
	ld->stack[ld->depth++] = canon;
	file = add_file(ld, path, text);
	parse_text(ld, file, text, top);
	ld->depth--;
	free(canon);
	return 0;
}

/* ---- after parsing: names, metric order, bindings ---- */

static int lookup_name(void *ctx, const char *name, int *id)
{
	const struct model *m = ctx;
	int i;

	if ((i = model_find_input(m, name)) >= 0) {
		*id = i;
		return EX_INPUT;
	}
	if ((i = model_find_metric(m, name)) >= 0) {
		*id = i;
		return EX_METRIC;
	}
	return -1;
}

int model_find_metric(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n_metrics; i++)
		if (!strcmp(m->metrics[i].name, name))
			return (int)i;
	return -1;
}

int model_find_input(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n_inputs; i++)
		if (!strcmp(m->inputs[i].name, name))
			return (int)i;
	return -1;
}

static void resolve(struct loader *ld, struct expr *e)
{
	if (!e)
		return;
	/* each node carries its own file: resolve with that file's text for carets */
	expr_resolve(e, lookup_name, ld->m, ld->d, text_of(ld->m, e->loc.file));
	expr_fold(e);
}

struct order_state {
	struct loader *ld;
	int *mark;      /* 0 new, 1 on the path, 2 done */
	int *path;      /* metric indices on the current path */
	int depth;
	size_t n_order;
	bool cycle;
};

static void visit_metric(struct order_state *st, int mi);

static void visit_ref(void *ctx, const struct expr *node)
{
	struct order_state *st = ctx;
	struct model *m = st->ld->m;

	if (node->k != EX_METRIC || st->cycle)
		return;
	if (st->mark[node->id] == 1) {
		struct sbuf sb = SBUF_INIT;
		int i;

		for (i = 0; i < st->depth && st->path[i] != node->id; i++)
			;
		for (; i < st->depth; i++)
			sbuf_addf(&sb, "%s -> ", m->metrics[st->path[i]].name);
		sbuf_addstr(&sb, node->name);
		error_at(st->ld, node->loc, "cycle in metric references: %s", sbuf_str(&sb));
		sbuf_release(&sb);
		st->cycle = true;
		return;
	}
	visit_metric(st, node->id);
}

static void visit_metric(struct order_state *st, int mi)
{
	struct model *m = st->ld->m;

	if (st->mark[mi] == 2 || st->cycle)
		return;
	st->mark[mi] = 1;
	st->path[st->depth++] = mi;
	expr_visit(m->metrics[mi].e, visit_ref, st);
	st->depth--;
	st->mark[mi] = 2;
	if (!st->cycle)
		m->order[st->n_order++] = (size_t)mi;
}

static void finish_model(struct loader *ld)
{
	struct model *m = ld->m;
	struct order_state st;
	size_t i;
	int f;

	for (i = 0; i < m->n_metrics; i++)
		resolve(ld, m->metrics[i].e);
	for (f = 0; f < FACTOR_N; f++) {
		resolve(ld, m->factors[f].score);
	}
	resolve(ld, m->cycles);
	for (f = 0; f < CT_N; f++)
		resolve(ld, m->cost_term[f]);
	if (ld->d->n_errors)
		return;
	m->order = xcalloc(m->n_metrics + 1, sizeof(*m->order));
	memset(&st, 0, sizeof(st));
	st.ld = ld;
	st.mark = xcalloc(m->n_metrics + 1, sizeof(int));
	st.path = xcalloc(m->n_metrics + 1, sizeof(int));
	for (i = 0; i < m->n_metrics && !st.cycle; i++)
		visit_metric(&st, (int)i);
	free(st.mark);
	free(st.path);
	for (f = 0; f < FACTOR_N; f++)
		if (!m->factors[f].bound)
			error_at(ld, m->loc.file ? m->loc : (struct src_loc){ m->files[0], 1, 1 },
				 "model '%s' does not bind factor '%s' (bind it in a 'factor %s' "
				 "section or write 'factor %s unavailable \"reason\"')",
				 m->name ? m->name : "?", factor_name((enum factor_id)f), factor_name((enum factor_id)f),
				 factor_name((enum factor_id)f));
}

static int load(struct model **out, const char *path, const char *text,
		const char *const *dirs, size_t n_dirs, struct diags *d, struct vp_err *err)
{
	struct loader ld;
	struct src_loc none = { NULL, 0, 0 };
	size_t errs0 = d->n_errors, i;
	int ret, f;

	memset(&ld, 0, sizeof(ld));
	ld.m = xcalloc(1, sizeof(*ld.m));
	for (f = 0; f < FACTOR_N; f++)
		factor_clear(&ld.m->factors[f]);
	ld.dirs = dirs;
	ld.n_dirs = n_dirs;
	ld.d = d;
	ld.m->path = xstrdup(path);
	ret = load_file(&ld, path, text, none, true);
	if (!ret && d->n_errors == errs0)
		finish_model(&ld);
	for (i = 0; i < ld.n_seen; i++)
		free(ld.seen[i]);
	free(ld.seen);
	if (ret) {
		/* the reason without the path the message already names */
		const char *why = strstr(ld.read_error, "': ");

		vp_err_set(err, ret, "cannot read model '%s': %s", path,
			   ret > -4096 && ret < 0 ? vp_strerror(ret) : why ? why + 3 : ld.read_error);
		if (ret == -ENOENT)
			ret = VP_ENOTFOUND;
		if (err)
			err->code = ret;
		model_free(ld.m);
		return ret;
	}
	if (d->n_errors > errs0) {
		model_free(ld.m);
		return diags_to_err(d, err);
	}
	*out = ld.m;
	return 0;
}

int model_load(struct model **out, const char *path, const char *const *dirs, size_t n_dirs,
	       struct diags *d, struct vp_err *err)
{
	return load(out, path, NULL, dirs, n_dirs, d, err);
}

int model_load_text(struct model **out, const char *text, const char *file,
		    const char *const *dirs, size_t n_dirs, struct diags *d, struct vp_err *err)
{
	return load(out, file, text, dirs, n_dirs, d, err);
}

void model_free(struct model *m)
{
	size_t i, j;
	int f;

	if (!m)
		return;
	free(m->name);
	free(m->desc);
	free(m->path);
	for (i = 0; i < m->n_matches; i++) {
		free(m->matches[i].models);
		for (j = 0; j < m->matches[i].n_pmus; j++)
			free(m->matches[i].pmus[j]);
		free(m->matches[i].pmus);
	}
	free(m->matches);
	for (i = 0; i < m->n_inputs; i++) {
		free(m->inputs[i].name);
		free(m->inputs[i].spec);
		free(m->inputs[i].desc);
	}
	free(m->inputs);
	for (i = 0; i < m->n_metrics; i++) {
		free(m->metrics[i].name);
		free(m->metrics[i].unit);
		free(m->metrics[i].desc);
		expr_free(m->metrics[i].e);
	}
	free(m->metrics);
	free(m->order);
	for (f = 0; f < FACTOR_N; f++)
		factor_clear(&m->factors[f]);
	expr_free(m->cycles);
	for (f = 0; f < CT_N; f++)
		expr_free(m->cost_term[f]);
	for (i = 0; i < m->n_includes; i++)
		free(m->includes[i]);
	free(m->includes);
	for (i = 0; i < m->n_files; i++) {
		free(m->files[i]);
		free(m->texts[i]);
	}
	free(m->files);
	free(m->texts);
	free(m);
}

/* ---- availability ---- */

/* A value per input that makes no formula divide by zero by accident. */
static double probe_value(size_t i)
{
	return 1.37 + 0.731 * (double)i;
}

static void probe_env(const struct model *m, const bool *ok, struct expr_env *env,
		      double *inputs, double *metrics)
{
	size_t i;
	int c;

	expr_env_init(env);
	for (i = 0; i < m->n_inputs; i++)
		inputs[i] = ok[i] ? probe_value(i) : NAN;
	for (c = 0; c < EC_N; c++)
		env->consts[c] = 2;
	for (c = 0; c < CAL_N; c++)
		env->cal[c] = 100 + c;
	env->duration = 1;
	env->inputs = inputs;
	env->n_inputs = m->n_inputs;
	env->metrics = metrics;
	env->n_metrics = m->n_metrics;
}

struct missing_ctx {
	const struct model *m;
	const struct model_avail *av;
	const struct expr_env *env;
	int input;        /* first missing input found, -1 */
	int cal;          /* first NaN calibration value found, -1 */
	char *seen;       /* metrics visited */
};

static void find_missing(void *ctx, const struct expr *node)
{
	struct missing_ctx *mc = ctx;

	if ((node->k == EX_INPUT) && mc->input < 0 && mc->av &&
	    !mc->av->input_ok[node->id])
		mc->input = node->id;
	else if (node->k == EX_CAL && mc->cal < 0 && mc->env && isnan(mc->env->cal[node->id]))
		mc->cal = node->id;
	else if (node->k == EX_METRIC && !mc->seen[node->id]) {
		mc->seen[node->id] = 1;
		expr_visit(mc->m->metrics[node->id].e, find_missing, mc);
	}
}

static void missing_reason(const struct model *m, const struct model_avail *av,
			   const struct expr *e, const struct expr_env *env, struct sbuf *out)
{
	struct missing_ctx mc = { m, av, env, -1, -1, NULL };

	mc.seen = xcalloc(m->n_metrics + 1, 1);
	expr_visit(e, find_missing, &mc);
	if (mc.input >= 0)
		sbuf_addf(out, "%s '%s' unavailable: %s",
			  m->inputs[mc.input].kind == INPUT_EVENT ? "event" : "source",
			  m->inputs[mc.input].name,
			  av->input_reason[mc.input] ? av->input_reason[mc.input] : "not present");
	else if (mc.cal >= 0)
		sbuf_addf(out, "needs calibration value cal.%s (run 'vmmprof calibrate')",
			  calib_key_name((enum calib_key)mc.cal));
	else
		sbuf_addstr(out, "division by zero (nothing counted in the interval)");
	free(mc.seen);
}

void model_nan_reason(const struct model *m, const struct model_avail *av,
		      const struct expr *e, const struct expr_env *env, struct sbuf *out)
{
	missing_reason(m, av, e, env, out);
}

/*
 * Point into the spec when the reason names a column of it, as the event
 * parser's messages do ("... at column 12"): the caret then sits on the
 * offending term, not on the start of the spec.
 */
static struct src_loc spec_loc_of(const struct model *m, const struct model_input *in,
				  const char *reason)
{
	struct src_loc loc = in->spec_loc;
	const char *text = text_of(m, loc.file), *at = strstr(reason, " at column ");
	int col;

	if (!at || sscanf(at, " at column %d", &col) != 1 || col < 1 ||
	    (size_t)col > strlen(in->spec))
		return loc;
	if (text) {
		/* a quoted spec starts one column after its quote */
		const char *p = text;
		int line = 1;

		while (line < loc.line && *p)
			if (*p++ == '\n')
				line++;
		if ((int)strlen(p) >= loc.col && p[loc.col - 1] == '"')
			loc.col++;
	}
	loc.col += col - 1;
	return loc;
}

int model_check_inputs(const struct model *m, model_input_check_fn fn, void *ctx,
		       struct model_avail *av, struct diags *d)
{
	struct expr_env env;
	double *inputs = xcalloc(m->n_inputs + 1, sizeof(double));
	double *metrics = xcalloc(m->n_metrics + 1, sizeof(double));
	struct factor_value fv[FACTOR_N];
	size_t i, errs0 = d ? d->n_errors : 0;
	int f;

	memset(av, 0, sizeof(*av));
	av->input_ok = xcalloc(m->n_inputs + 1, sizeof(bool));
	av->input_reason = xcalloc(m->n_inputs + 1, sizeof(char *));
	av->metric_ok = xcalloc(m->n_metrics + 1, sizeof(bool));
	av->metric_reason = xcalloc(m->n_metrics + 1, sizeof(char *));
	for (i = 0; i < m->n_inputs; i++) {
		const struct model_input *in = &m->inputs[i];
		char *reason = NULL;
		int ret = fn ? fn(ctx, in, &reason) : 0;

		av->input_ok[i] = ret == 0;
		if (ret == 0) {
			free(reason);
			continue;
		}
		if (!reason)
			reason = xstrdup(vp_strerror(ret));
		if (d && (ret != VP_EUNSUPP || !in->optional))
			diags_add(d, false, spec_loc_of(m, in, reason), text_of(m, in->spec_loc.file),
				  "%s%s '%s': %s", ret == VP_EUNSUPP ? "required " : "",
				  in->kind == INPUT_EVENT ? "event" : "source", in->name, reason);
		else if (d)
			diags_add(d, true, in->spec_loc, text_of(m, in->spec_loc.file),
				  "optional %s '%s' is not available: %s",
				  in->kind == INPUT_EVENT ? "event" : "source", in->name, reason);
		av->input_reason[i] = reason;
	}
	probe_env(m, av->input_ok, &env, inputs, metrics);
	model_eval(m, &env, metrics, fv);
	for (i = 0; i < m->n_metrics; i++) {
		struct sbuf sb = SBUF_INIT;

		av->metric_ok[i] = !isnan(metrics[i]);
		if (av->metric_ok[i])
			continue;
		missing_reason(m, av, m->metrics[i].e, &env, &sb);
		av->metric_reason[i] = sbuf_detach(&sb);
	}
	for (f = 0; f < FACTOR_N; f++) {
		const struct model_factor *fa = &m->factors[f];
		struct sbuf sb = SBUF_INIT;

		if (fa->quality == VQ_UNAVAILABLE) {
			av->factor_reason[f] = xstrdup(fa->reason ? fa->reason : "not measurable");
			continue;
		}
		if (!fa->score) {
			av->factor_reason[f] = xstrdup("not bound");
			continue;
		}
		av->factor_ok[f] = !isnan(fv[f].score);
		if (av->factor_ok[f])
			continue;
		missing_reason(m, av, fa->score, &env, &sb);
		av->factor_reason[f] = sbuf_detach(&sb);
	}
	free(inputs);
	free(metrics);
	return d ? (int)(d->n_errors - errs0) : 0;
}

void model_avail_release(const struct model *m, struct model_avail *av)
{
	size_t i;
	int f;

	for (i = 0; av->input_reason && i < m->n_inputs; i++)
		free(av->input_reason[i]);
	for (i = 0; av->metric_reason && i < m->n_metrics; i++)
		free(av->metric_reason[i]);
	for (f = 0; f < FACTOR_N; f++)
		free(av->factor_reason[f]);
	free(av->input_ok);
	free(av->input_reason);
	free(av->metric_ok);
	free(av->metric_reason);
	memset(av, 0, sizeof(*av));
}

/* ---- evaluation ---- */

void model_eval(const struct model *m, struct expr_env *env, double *metrics,
		struct factor_value *fv)
{
	size_t i;
	int f;

	env->metrics = metrics;
	env->n_metrics = m->n_metrics;
	for (i = 0; i < m->n_metrics; i++)
		metrics[i] = NAN;
	for (i = 0; m->order && i < m->n_metrics; i++) {
		double v = expr_eval(m->metrics[m->order[i]].e, env);

		/* an overflow to infinity is as unknown as NaN, and prints as n/a */
		metrics[m->order[i]] = isfinite(v) ? v : NAN;
	}
	for (f = 0; f < FACTOR_N; f++) {
		const struct model_factor *fa = &m->factors[f];
		struct factor_value *v = &fv[f];

		v->score = v->cost_cycles = v->cost_pct = NAN;
		v->sev = SEV_NA;
		if (fa->quality == VQ_UNAVAILABLE || !fa->score)
			continue;
		v->score = expr_eval(fa->score, env);
		if (!isfinite(v->score))
			v->score = NAN;
		if (isnan(v->score))
			v->sev = SEV_NA;
		else if (v->score >= fa->critical)
			v->sev = SEV_CRITICAL;
		else if (v->score >= fa->warning)
			v->sev = SEV_WARNING;
		else
			v->sev = SEV_OK;
	}
}
