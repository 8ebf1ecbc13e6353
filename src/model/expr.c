/* expr.c - formula parser (precedence climbing), resolver, folder and evaluator */
#include "model/expr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/json.h"

#define EXPR_MAX_DEPTH 200 /* nesting limit: keeps hostile input off the C stack */
/*
 * A chain of binary operators (a + b + c ...) is a left-deep tree that
 * every walker (resolve, fold, eval, free) recurses down: its height is
 * bounded too, or a long enough line overflows the stack.
 */
#define EXPR_MAX_CHAIN 1000

static const char *const const_names[EC_N] = {
	"num_cpus", "num_nodes", "num_packages", "smt_on", "row_nodes",
};

const char *expr_const_name(enum expr_const c)
{
	return (unsigned)c < EC_N ? const_names[c] : "?";
}

void expr_env_init(struct expr_env *env)
{
	int i;

	memset(env, 0, sizeof(*env));
	for (i = 0; i < EC_N; i++)
		env->consts[i] = NAN;
	for (i = 0; i < CAL_N; i++)
		env->cal[i] = NAN;
	env->duration = NAN;
}

static struct expr *node(enum expr_kind k, struct src_loc loc)
{
	struct expr *e = xcalloc(1, sizeof(*e));

	e->k = k;
	e->loc = loc;
	e->height = 1;
	return e;
}

static int height_of(const struct expr *a, const struct expr *b, const struct expr *c)
{
	int h = a ? a->height : 0;

	if (b && b->height > h)
		h = b->height;
	if (c && c->height > h)
		h = c->height;
	return h + 1;
}

static struct expr *binary(enum expr_kind k, struct src_loc loc, struct expr *a, struct expr *b)
{
	struct expr *e = node(k, loc);

	e->a = a;
	e->b = b;
	e->height = height_of(a, b, NULL);
	return e;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	expr_free(e->a);
	expr_free(e->b);
	expr_free(e->c);
	free(e->name);
	free(e);
}

/* ---- parser ---- */

struct parser {
	struct lexer *lx;
	int depth;
	bool failed;  /* an error was reported: unwind without more messages */
};

static struct expr *parse_if(struct parser *ps);

static void perror_tok(struct parser *ps, const char *what)
{
	struct lexer *lx = ps->lx;
	char buf[96];

	if (ps->failed)
		return;
	ps->failed = true;
	if (lx->cur.t == T_BAD)
		return; /* the lexer said it already */
	if (lx->cur.t == T_NL || lx->cur.t == T_EOF)
		lex_error(lx, lex_loc(lx), "unterminated expression: expected %s before %s", what,
			  tok_describe(&lx->cur, buf, sizeof(buf)));
	else
		lex_error(lx, lex_loc(lx), "expected %s, found %s", what,
			  tok_describe(&lx->cur, buf, sizeof(buf)));
}

/* a, just built at loc by an operator loop: NULL (reported) when it is too tall */
static struct expr *check_height(struct parser *ps, struct src_loc loc, struct expr *a)
{
	if (a->height - 1 <= EXPR_MAX_CHAIN) /* the operators above a leaf */
		return a;
	if (!ps->failed)
		lex_error(ps->lx, loc, "expression too long (more than %d operators in a chain)",
			  EXPR_MAX_CHAIN);
	ps->failed = true;
	expr_free(a);
	return NULL;
}

static bool is_word(const struct token *t, const char *w)
{
	return t->t == T_IDENT && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}

/* '(' arg {',' arg} ')' with exactly n arguments into out[]. */
static bool parse_args(struct parser *ps, const char *fname, struct src_loc floc,
		       struct expr **out, int n)
{
	struct lexer *lx = ps->lx;
	struct src_loc open = lex_loc(lx);
	int i;

	lex_next(lx); /* '(' */
	for (i = 0; i < n; i++) {
		if (i) {
			if (lx->cur.t != T_COMMA) {
				if (lx->cur.t == T_RP && !ps->failed) {
					ps->failed = true;
					lex_error(lx, floc, "%s() takes %d arguments, found %d",
						  fname, n, i);
				} else {
					perror_tok(ps, "','");
				}
				return false;
			}
			lex_next(lx);
		}
		out[i] = parse_if(ps);
		if (!out[i])
			return false;
	}
	if (lx->cur.t == T_COMMA && !ps->failed) {
		ps->failed = true;
		lex_error(lx, floc, "%s() takes %d arguments, found more", fname, n);
		return false;
	}
	if (lx->cur.t != T_RP) {
		if ((lx->cur.t == T_EOF || lx->cur.line > open.line) && !ps->failed) {
			/* newlines inside parentheses are blanks: a later line means it ran on */
			ps->failed = true;
			lex_error(lx, open, "unterminated expression: '(' is never closed");
			return false;
		}
		perror_tok(ps, "')'");
		return false;
	}
	lex_next(lx);
	return true;
}

static struct expr *parse_call(struct parser *ps)
{
	struct lexer *lx = ps->lx;
	struct src_loc loc = lex_loc(lx);
	char *name = xstrdup(lx->cur.str);
	struct expr *args[2] = { NULL, NULL }, *e = NULL;
	enum expr_kind k;
	int n = 2;

	if (!strcmp(name, "min")) {
		k = EX_MIN;
	} else if (!strcmp(name, "max")) {
		k = EX_MAX;
	} else if (!strcmp(name, "d_ratio")) {
		k = EX_DRATIO;
	} else if (!strcmp(name, "has_event")) {
		k = EX_HAS;
		n = 1;
	} else {
		ps->failed = true;
		lex_error(lx, loc, "unknown function '%s' (known: min, max, d_ratio, has_event)",
			  name);
		goto out;
	}
	lex_next(lx); /* the name */
	if (k == EX_HAS) {
		/* has_event(name): a bare name, not a formula */
		struct src_loc open = lex_loc(lx);

		lex_next(lx);
		if (lx->cur.t != T_IDENT) {
			if (lx->cur.t == T_EOF) {
				ps->failed = true;
				lex_error(lx, open, "unterminated expression: '(' is never closed");
			} else {
				perror_tok(ps, "an event name");
			}
			goto out;
		}
		e = node(EX_HAS, lex_loc(lx));
		e->name = xstrdup(lx->cur.str);
		e->id = -1;
		lex_next(lx);
		if (lx->cur.t != T_RP) {
			perror_tok(ps, "')'");
			expr_free(e);
			e = NULL;
			goto out;
		}
		lex_next(lx);
		goto out;
	}
	if (!parse_args(ps, name, loc, args, n)) {
		expr_free(args[0]);
		expr_free(args[1]);
		goto out;
	}
	e = binary(k, loc, args[0], args[1]);
out:
	free(name);
	return e;
}

static struct expr *parse_primary(struct parser *ps)
{
	struct lexer *lx = ps->lx;
	struct src_loc loc = lex_loc(lx);
	struct expr *e;
	int i;

	switch (lx->cur.t) {
	case T_NUM:
		e = node(EX_NUM, loc);
		e->num = lx->cur.num;
		lex_next(lx);
		return e;
	case T_HASH:
		for (i = 0; i < EC_N; i++)
			if (!strcmp(lx->cur.str, const_names[i]))
				break;
		if (i == EC_N) {
			ps->failed = true;
			lex_error(lx, loc, "unknown constant '#%s' (known: #num_cpus, #num_nodes, "
				  "#num_packages, #smt_on, #row_nodes)", lx->cur.str);
			return NULL;
		}
		e = node(EX_CONST, loc);
		e->id = i;
		lex_next(lx);
		return e;
	case T_LP: {
		lex_next(lx);
		e = parse_if(ps);
		if (!e)
			return NULL;
		if (lx->cur.t != T_RP) {
			if ((lx->cur.t == T_EOF || lx->cur.line > loc.line) && !ps->failed) {
				ps->failed = true;
				lex_error(lx, loc, "unterminated expression: '(' is never closed");
			} else {
				perror_tok(ps, "')'");
			}
			expr_free(e);
			return NULL;
		}
		lex_next(lx);
		return e;
	}
	case T_IDENT:
		break;
	default:
		perror_tok(ps, "a number, name or '('");
		return NULL;
	}
	if (is_word(&lx->cur, "if") || is_word(&lx->cur, "else")) {
		perror_tok(ps, "an operand");
		return NULL;
	}
	/* a function call: name immediately followed by '(' */
	if (lx->p[0] == '(' && !strchr(lx->cur.str, '.'))
		return parse_call(ps);
	if (!strcmp(lx->cur.str, "duration") || !strcmp(lx->cur.str, "duration_time")) {
		e = node(EX_DURATION, loc);
		lex_next(lx);
		return e;
	}
	if (!strncmp(lx->cur.str, "cal.", 4)) {
		i = strncmp(lx->cur.str + 4, "cal.", 4) ? calib_key_lookup(lx->cur.str + 4) : -1;
		if (i < 0) {
			struct sbuf known = SBUF_INIT;

			for (i = 0; i < CAL_N; i++)
				sbuf_addf(&known, "%scal.%s", i ? ", " : "",
					  calib_key_name((enum calib_key)i));
			ps->failed = true;
			lex_error(lx, loc, "unknown calibration value '%s' (known: %s)", lx->cur.str,
				  sbuf_str(&known));
			sbuf_release(&known);
			return NULL;
		}
		e = node(EX_CAL, loc);
		e->id = i;
		lex_next(lx);
		return e;
	}
	e = node(EX_NAME, loc);
	e->name = xstrdup(lx->cur.str);
	e->id = -1;
	lex_next(lx);
	return e;
}

static struct expr *parse_unary(struct parser *ps)
{
	struct lexer *lx = ps->lx;
	struct src_loc loc = lex_loc(lx);
	struct expr *e;

	if (lx->cur.t != T_MINUS && lx->cur.t != T_PLUS)
		return parse_primary(ps);
	if (++ps->depth > EXPR_MAX_DEPTH) {
		ps->failed = true;
		lex_error(lx, loc, "expression nested too deeply (more than %d levels)",
			  EXPR_MAX_DEPTH);
		return NULL;
	}
	if (lx->cur.t == T_PLUS) {
		lex_next(lx);
		e = parse_unary(ps);
	} else {
		lex_next(lx);
		e = parse_unary(ps);
		if (e)
			e = binary(EX_NEG, loc, e, NULL);
	}
	ps->depth--;
	return e;
}

static struct expr *parse_mul(struct parser *ps)
{
	struct lexer *lx = ps->lx;
	struct expr *a = parse_unary(ps), *b;

	while (a && (lx->cur.t == T_STAR || lx->cur.t == T_SLASH)) {
		enum expr_kind k = lx->cur.t == T_STAR ? EX_MUL : EX_DIV;
		struct src_loc loc = lex_loc(lx);

		lex_next(lx);
		b = parse_unary(ps);
		if (!b) {
			expr_free(a);
			return NULL;
		}
		a = check_height(ps, loc, binary(k, loc, a, b));
	}
	return a;
}

static struct expr *parse_add(struct parser *ps)
{
	struct lexer *lx = ps->lx;
	struct expr *a = parse_mul(ps), *b;

	while (a && (lx->cur.t == T_PLUS || lx->cur.t == T_MINUS)) {
		enum expr_kind k = lx->cur.t == T_PLUS ? EX_ADD : EX_SUB;
		struct src_loc loc = lex_loc(lx);

		lex_next(lx);
		b = parse_mul(ps);
		if (!b) {
			expr_free(a);
			return NULL;
		}
		a = check_height(ps, loc, binary(k, loc, a, b));
	}
	return a;
}

static int cmp_kind(enum tok t)
{
	switch (t) {
	case T_LT: return EX_LT;
	case T_LE: return EX_LE;
	case T_GT: return EX_GT;
	case T_GE: return EX_GE;
	case T_EQ: return EX_EQ;
	case T_NE: return EX_NE;
	default: return -1;
	}
}

static struct expr *parse_cmp(struct parser *ps)
{
	struct lexer *lx = ps->lx;
	struct expr *a = parse_add(ps), *b;
	int k;

	while (a && (k = cmp_kind(lx->cur.t)) >= 0) {
		struct src_loc loc = lex_loc(lx);

		lex_next(lx);
		b = parse_add(ps);
		if (!b) {
			expr_free(a);
			return NULL;
		}
		a = check_height(ps, loc, binary((enum expr_kind)k, loc, a, b));
	}
	return a;
}

/* then if cond else other: right-associative, as in Python and perf */
static struct expr *parse_if(struct parser *ps)
{
	struct lexer *lx = ps->lx;
	struct expr *a, *cond, *other, *e;
	struct src_loc loc;

	if (++ps->depth > EXPR_MAX_DEPTH) {
		if (!ps->failed)
			lex_error(lx, lex_loc(lx), "expression nested too deeply (more than %d levels)",
				  EXPR_MAX_DEPTH);
		ps->failed = true;
		return NULL;
	}
	a = parse_cmp(ps);
	if (!a || !is_word(&lx->cur, "if"))
		goto out;
	loc = lex_loc(lx);
	lex_next(lx);
	cond = parse_cmp(ps);
	if (!cond) {
		expr_free(a);
		a = NULL;
		goto out;
	}
	if (!is_word(&lx->cur, "else")) {
		perror_tok(ps, "'else'");
		expr_free(a);
		expr_free(cond);
		a = NULL;
		goto out;
	}
	lex_next(lx);
	other = parse_if(ps);
	if (!other) {
		expr_free(a);
		expr_free(cond);
		a = NULL;
		goto out;
	}
	e = node(EX_IF, loc);
	e->a = a;
	e->b = cond;
	e->c = other;
	e->height = height_of(a, cond, other);
	a = e;
out:
	ps->depth--;
	return a;
}

struct expr *expr_parse(struct lexer *lx)
{
	struct parser ps = { lx, 0, false };

	return parse_if(&ps);
}

struct expr *expr_parse_text(const char *text, const char *file, struct diags *d)
{
	struct lexer lx;
	struct expr *e;
	char buf[96];

	lex_init(&lx, text, file, d);
	lx.formula_only = true;
	lex_next(&lx);
	while (lx.cur.t == T_NL)
		lex_next(&lx);
	e = expr_parse(&lx);
	if (e) {
		while (lx.cur.t == T_NL)
			lex_next(&lx);
		if (lx.cur.t != T_EOF) {
			if (lx.cur.t != T_BAD)
				lex_error(&lx, lex_loc(&lx), "unexpected %s after the formula",
					  tok_describe(&lx.cur, buf, sizeof(buf)));
			expr_free(e);
			e = NULL;
		}
	}
	lex_release(&lx);
	return e;
}

/* ---- resolution and folding ---- */

int expr_resolve(struct expr *e, expr_lookup_fn lookup, void *ctx, struct diags *d,
		 const char *src)
{
	int n = 0, id, k;

	if (!e)
		return 0;
	if (e->k == EX_NAME || e->k == EX_HAS) {
		k = lookup(ctx, e->name, &id);
		if (e->k == EX_HAS && k != EX_INPUT) {
			diags_add(d, false, e->loc, src, "has_event() needs an event or source of "
				  "this model, '%s' is %s", e->name, k == EX_METRIC ? "a metric" :
				  "unknown");
			return 1;
		}
		if (k != EX_INPUT && k != EX_METRIC) {
			diags_add(d, false, e->loc, src, "unknown metric '%s': not an event, source "
				  "or metric of this model", e->name);
			return 1;
		}
		if (e->k == EX_NAME)
			e->k = (enum expr_kind)k;
		e->id = id;
		return 0;
	}
	n += expr_resolve(e->a, lookup, ctx, d, src);
	n += expr_resolve(e->b, lookup, ctx, d, src);
	n += expr_resolve(e->c, lookup, ctx, d, src);
	return n;
}

static bool is_num(const struct expr *e)
{
	return e && e->k == EX_NUM;
}

void expr_fold(struct expr *e)
{
	struct expr_env env;
	double v;

	if (!e)
		return;
	expr_fold(e->a);
	expr_fold(e->b);
	expr_fold(e->c);
	if (e->k == EX_IF && is_num(e->b) && !isnan(e->b->num)) {
		/* a constant condition keeps only the branch it selects */
		struct expr *keep = e->b->num != 0 ? e->a : e->c;

		if (e->b->num != 0)
			e->a = NULL;
		else
			e->c = NULL;
		expr_free(e->a);
		expr_free(e->b);
		expr_free(e->c);
		free(e->name);
		*e = *keep;
		free(keep);
		return;
	}
	if (e->k <= EX_DURATION || !is_num(e->a) || (e->b && !is_num(e->b)) ||
	    (e->c && !is_num(e->c)))
		return;
	expr_env_init(&env);
	v = expr_eval(e, &env);
	expr_free(e->a);
	expr_free(e->b);
	expr_free(e->c);
	e->a = e->b = e->c = NULL;
	e->k = EX_NUM;
	e->num = v;
}

void expr_visit(const struct expr *e, void (*fn)(void *ctx, const struct expr *node), void *ctx)
{
	if (!e)
		return;
	if (e->k == EX_INPUT || e->k == EX_HAS || e->k == EX_METRIC || e->k == EX_CAL)
		fn(ctx, e);
	expr_visit(e->a, fn, ctx);
	expr_visit(e->b, fn, ctx);
	expr_visit(e->c, fn, ctx);
}

/* ---- evaluation ---- */

static double cmp(enum expr_kind k, double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	switch (k) {
	case EX_LT: return a < b;
	case EX_LE: return a <= b;
	case EX_GT: return a > b;
	case EX_GE: return a >= b;
	case EX_EQ: return a == b;
	default: return a != b;
	}
}

double expr_eval(const struct expr *e, const struct expr_env *env)
{
	double a, b;

	switch (e->k) {
	case EX_NUM:
		return e->num;
	case EX_NAME:
		return NAN;
	case EX_INPUT:
		return e->id >= 0 && (size_t)e->id < env->n_inputs ? env->inputs[e->id] : NAN;
	case EX_HAS:
		return e->id >= 0 && (size_t)e->id < env->n_inputs && !isnan(env->inputs[e->id]);
	case EX_METRIC:
		return e->id >= 0 && (size_t)e->id < env->n_metrics ? env->metrics[e->id] : NAN;
	case EX_CONST:
		return env->consts[e->id];
	case EX_CAL:
		return env->cal[e->id];
	case EX_DURATION:
		return env->duration;
	case EX_NEG:
		return -expr_eval(e->a, env);
	case EX_IF:
		a = expr_eval(e->b, env);
		if (isnan(a))
			return NAN;
		return a != 0 ? expr_eval(e->a, env) : expr_eval(e->c, env);
	default:
		break;
	}
	a = expr_eval(e->a, env);
	b = expr_eval(e->b, env);
	if (isnan(a) || isnan(b))
		return NAN;
	switch (e->k) {
	case EX_ADD: return a + b;
	case EX_SUB: return a - b;
	case EX_MUL: return a * b;
	case EX_DIV: return b == 0 ? NAN : a / b;
	case EX_MIN: return a < b ? a : b;
	case EX_MAX: return a > b ? a : b;
	case EX_DRATIO: return b == 0 ? 0 : a / b;
	default: return cmp(e->k, a, b);
	}
}

/* ---- formatting ---- */

static int prec(const struct expr *e)
{
	switch (e->k) {
	case EX_IF: return 1;
	case EX_LT: case EX_LE: case EX_GT: case EX_GE: case EX_EQ: case EX_NE: return 2;
	case EX_ADD: case EX_SUB: return 3;
	case EX_MUL: case EX_DIV: return 4;
	case EX_NEG: return 5;
	default: return 6;
	}
}

static const char *op_text(enum expr_kind k)
{
	switch (k) {
	case EX_ADD: return " + ";
	case EX_SUB: return " - ";
	case EX_MUL: return " * ";
	case EX_DIV: return " / ";
	case EX_LT: return " < ";
	case EX_LE: return " <= ";
	case EX_GT: return " > ";
	case EX_GE: return " >= ";
	case EX_EQ: return " == ";
	case EX_NE: return " != ";
	default: return " ? ";
	}
}

static void fmt_sub(const struct expr *e, int min_prec, struct sbuf *out)
{
	bool paren = prec(e) < min_prec;

	if (paren)
		sbuf_addch(out, '(');
	expr_format(e, out);
	if (paren)
		sbuf_addch(out, ')');
}

void expr_format(const struct expr *e, struct sbuf *out)
{
	switch (e->k) {
	case EX_NUM:
		if (isnan(e->num))
			sbuf_addstr(out, "(0 / 0)");
		else if (e->num < 0)
			sbuf_addch(out, '('), vp_fmt_double(out, e->num), sbuf_addch(out, ')');
		else
			vp_fmt_double(out, e->num);
		return;
	case EX_NAME: case EX_INPUT: case EX_METRIC:
		sbuf_addstr(out, e->name);
		return;
	case EX_HAS:
		sbuf_addf(out, "has_event(%s)", e->name);
		return;
	case EX_CONST:
		sbuf_addf(out, "#%s", const_names[e->id]);
		return;
	case EX_CAL:
		sbuf_addf(out, "cal.%s", calib_key_name((enum calib_key)e->id));
		return;
	case EX_DURATION:
		sbuf_addstr(out, "duration");
		return;
	case EX_NEG:
		sbuf_addch(out, '-');
		fmt_sub(e->a, 5, out);
		return;
	case EX_IF:
		fmt_sub(e->a, 2, out);
		sbuf_addstr(out, " if ");
		fmt_sub(e->b, 2, out);
		sbuf_addstr(out, " else ");
		fmt_sub(e->c, 1, out);
		return;
	case EX_MIN: case EX_MAX: case EX_DRATIO:
		sbuf_addstr(out, e->k == EX_MIN ? "min(" : e->k == EX_MAX ? "max(" : "d_ratio(");
		expr_format(e->a, out);
		sbuf_addstr(out, ", ");
		expr_format(e->b, out);
		sbuf_addch(out, ')');
		return;
	default:
		/* left-associative: the right operand needs parentheses at equal precedence */
		fmt_sub(e->a, prec(e), out);
		sbuf_addstr(out, op_text(e->k));
		fmt_sub(e->b, prec(e) + 1, out);
		return;
	}
}
