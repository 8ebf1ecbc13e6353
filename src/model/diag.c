/* diag.c - compiler-style diagnostics for model files */
#include "model/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

void diags_init(struct diags *d)
{
	memset(d, 0, sizeof(*d));
}

void diags_release(struct diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].msg);
		free(d->v[i].src_line);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* The text of line number line (1-based) of src, without its newline. */
static char *line_of(const char *src, int line)
{
	const char *p = src, *e;
	int n = 1;

	while (n < line && *p) {
		if (*p++ == '\n')
			n++;
	}
	if (n != line)
		return NULL;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	return xstrndup(p, (size_t)(e - p));
}

void diags_vadd(struct diags *d, bool warning, struct src_loc loc, const char *src,
		const char *fmt, va_list ap)
{
	struct diag *dg;
	struct sbuf sb = SBUF_INIT;

	VP_GROW(d->v, d->cap, d->n + 1);
	dg = &d->v[d->n++];
	sbuf_vaddf(&sb, fmt, ap);
	dg->msg = sbuf_detach(&sb);
	dg->file = xstrdup(loc.file ? loc.file : "<input>");
	dg->line = loc.line;
	dg->col = loc.col;
	dg->warning = warning;
	dg->src_line = src && loc.line > 0 ? line_of(src, loc.line) : NULL;
	if (!warning)
		d->n_errors++;
}

void diags_add(struct diags *d, bool warning, struct src_loc loc, const char *src,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diags_vadd(d, warning, loc, src, fmt, ap);
	va_end(ap);
}

/* The most of a source line an excerpt shows: a longer one is cut around the column. */
#define DIAG_EXCERPT_MAX 100

void diag_format(const struct diag *dg, struct sbuf *out)
{
	const char *s, *line = dg->src_line;
	size_t len, from = 0, n;
	int i;

	sbuf_addf(out, "%s:%d:%d: %s: %s\n", dg->file, dg->line, dg->col,
		  dg->warning ? "warning" : "error", dg->msg);
	if (!line)
		return;
	len = n = strlen(line);
	if (len > DIAG_EXCERPT_MAX) {
		/* a very long line: the part around the column, '...' for what is left out */
		if (dg->col > DIAG_EXCERPT_MAX / 2)
			from = (size_t)dg->col - DIAG_EXCERPT_MAX / 2;
		if (from > len)
			from = len;
		n = len - from < DIAG_EXCERPT_MAX ? len - from : DIAG_EXCERPT_MAX;
	}
	sbuf_addf(out, "%5d | %s%.*s%s\n      | %s", dg->line, from ? "..." : "", (int)n, line + from,
		  from + n < len ? "..." : "", from ? "   " : "");
	/* keep tabs so the caret lines up under the column in any tab width */
	for (i = 1 + (int)from, s = line + from; i < dg->col && *s; i++, s++)
		sbuf_addch(out, *s == '\t' ? '\t' : ' ');
	for (; i < dg->col; i++)
		sbuf_addch(out, ' ');
	sbuf_addstr(out, "^\n");
}

int diags_to_err(const struct diags *d, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (d->v[i].warning)
			continue;
		diag_format(&d->v[i], &sb);
		if (sb.len && sb.buf[sb.len - 1] == '\n')
			sb.buf[--sb.len] = '\0';
		break;
	}
	vp_err_set(err, VP_EPARSE, "%s", sb.len ? sbuf_str(&sb) : "parse error");
	sbuf_release(&sb);
	return VP_EPARSE;
}
