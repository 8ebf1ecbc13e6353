/* diag.h - compiler-style diagnostics (file:line:col, source line, caret) for model files */
#ifndef VP_MODEL_DIAG_H
#define VP_MODEL_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/sbuf.h"

/* A position in a model file; file points into storage the model owns. */
struct src_loc {
	const char *file;
	int line;   /* 1-based */
	int col;    /* 1-based, in bytes */
};

struct diag {
	char *file;
	int line, col;
	bool warning;       /* false: an error */
	char *msg;          /* "unknown metric 'x'" */
	char *src_line;     /* the line of source it points into, NULL if unknown */
};

/* A list of diagnostics; caller-owned, diags_init() ... diags_release(). */
struct diags {
	struct diag *v;
	size_t n;
	size_t cap;
	size_t n_errors;
};

void diags_init(struct diags *d);
void diags_release(struct diags *d);

/*
 * Append a diagnostic at loc.  src is the whole text of loc.file (NULL when
 * not at hand: then no caret line is shown).
 */
void diags_add(struct diags *d, bool warning, struct src_loc loc, const char *src,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void diags_vadd(struct diags *d, bool warning, struct src_loc loc, const char *src,
		const char *fmt, va_list ap);

/*
 * Render one diagnostic as a compiler does:
 *   models/x.model:12:17: error: unknown metric 'remote_fracc'
 *      12 |     score = remote_fracc
 *         |             ^
 */
void diag_format(const struct diag *dg, struct sbuf *out);

/* Fill err (code VP_EPARSE) with the first error, rendered; returns VP_EPARSE. */
int diags_to_err(const struct diags *d, struct vp_err *err);

#endif
