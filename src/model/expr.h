/* expr.h - formulas: parsed once to an AST, resolved, folded, evaluated by id */
#ifndef VP_MODEL_EXPR_H
#define VP_MODEL_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "calib/calib.h"
#include "model/diag.h"
#include "model/lex.h"
#include "util/sbuf.h"

/*
 * The formula language is perf's metric-expression language (tools/perf
 * util/expr.y) with names instead of event strings:
 *   + - * /, unary -, ( ), < <= > >= == !=, a if cond else b,
 *   min(a,b) max(a,b) d_ratio(a,b) has_event(name),
 *   #num_cpus #num_nodes #num_packages #smt_on, duration, cal.NAME,
 *   names of the model's events, sources and metrics.
 * Numbers are doubles.  NaN means "unknown" and propagates through every
 * operator; a / 0 is NaN; d_ratio(a, 0) is 0.  Comparisons give 1 or 0.
 */

enum expr_kind {
	EX_NUM,       /* num */
	EX_NAME,      /* a name not resolved yet */
	EX_INPUT,     /* an event or source of the model: inputs[id] */
	EX_METRIC,    /* another metric: metrics[id] */
	EX_HAS,       /* has_event(name): 1 if inputs[id] is a number, else 0 */
	EX_CONST,     /* #constant: consts[id] */
	EX_CAL,       /* cal.NAME: cal[id], id an enum calib_key */
	EX_DURATION,  /* seconds of the interval */
	EX_NEG,
	EX_ADD, EX_SUB, EX_MUL, EX_DIV,
	EX_LT, EX_LE, EX_GT, EX_GE, EX_EQ, EX_NE,
	EX_IF,        /* a if b else c */
	EX_MIN, EX_MAX, EX_DRATIO,
};

/* #row_nodes: the nodes a row's counts cover (1 on a node row, else #num_nodes) */
enum expr_const { EC_NUM_CPUS, EC_NUM_NODES, EC_NUM_PACKAGES, EC_SMT_ON, EC_ROW_NODES, EC_N };

/*
 * cal.NAME reads the scalars of the machine calibration (enum calib_key
 * of calib/calib.h, named by calib_key_name()).
 */

/* "num_cpus" (without '#'). */
const char *expr_const_name(enum expr_const c);

struct expr {
	enum expr_kind k;
	double num;          /* EX_NUM */
	int id;              /* EX_INPUT, EX_METRIC, EX_HAS, EX_CONST, EX_CAL */
	char *name;          /* EX_NAME, EX_INPUT, EX_METRIC, EX_HAS: the name as written */
	struct src_loc loc;  /* where it starts (operators: the operator) */
	struct expr *a, *b, *c; /* operands; EX_IF: a if b else c */
	int height;          /* levels of the tree below and with this node (a leaf: 1) */
};

/* The values a formula reads when it is evaluated. */
struct expr_env {
	const double *inputs;   /* per event/source id; NaN when unavailable */
	size_t n_inputs;
	const double *metrics;  /* per metric id, already evaluated */
	size_t n_metrics;
	double consts[EC_N];
	double duration;        /* seconds */
	double cal[CAL_N];      /* by enum calib_key; NaN until a calibration exists */
};

/* An env with every value NaN and no inputs. */
void expr_env_init(struct expr_env *env);

/*
 * Parse one formula from the lexer's current token up to the end of the
 * statement (end of line, end of file, or a string that follows it).
 * Returns the AST (expr_free() it) or NULL after reporting to lx->d.
 */
struct expr *expr_parse(struct lexer *lx);

/*
 * Parse text that must be exactly one formula.  file names it in messages.
 * Returns the AST or NULL with diagnostics in d.
 */
struct expr *expr_parse_text(const char *text, const char *file, struct diags *d);

void expr_free(struct expr *e);

/*
 * Resolve EX_NAME nodes.  lookup returns EX_INPUT or EX_METRIC and sets *id,
 * or -1 for an unknown name.  has_event() accepts inputs only.  Errors go to
 * d (src is the file text, for the caret line).  Returns the number of
 * errors.
 */
typedef int (*expr_lookup_fn)(void *ctx, const char *name, int *id);
int expr_resolve(struct expr *e, expr_lookup_fn lookup, void *ctx, struct diags *d,
		 const char *src);

/* Replace every subtree without names or environment values by its value. */
void expr_fold(struct expr *e);

/* Call fn for every EX_INPUT / EX_HAS / EX_METRIC / EX_CAL node. */
void expr_visit(const struct expr *e, void (*fn)(void *ctx, const struct expr *node), void *ctx);

double expr_eval(const struct expr *e, const struct expr_env *env);

/* Append the formula as text, with only the parentheses it needs. */
void expr_format(const struct expr *e, struct sbuf *out);

#endif
