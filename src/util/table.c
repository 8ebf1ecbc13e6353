/* table.c - aligned text tables and CSV from the same rows */
#include "util/table.h"
#include "util/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void table_init(struct table *t, size_t ncols, const char *const *titles)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->head = xcalloc(ncols, sizeof(char *));
	t->right = xcalloc(ncols, sizeof(bool));
	for (i = 0; i < ncols; i++) {
		const char *s = titles[i];

		if (*s == '>') {
			t->right[i] = true;
			s++;
		}
		t->head[i] = xstrdup(s);
	}
}

size_t table_note(struct table_notes *tn, const char *text)
{
	size_t i;

	for (i = 0; i < tn->n; i++)
		if (!strcmp(tn->v[i], text))
			return i + 1;
	VP_GROW(tn->v, tn->cap, tn->n + 1);
	tn->v[tn->n++] = xstrdup(text);
	return tn->n;
}

void table_notes_release(struct table_notes *tn)
{
	size_t i;

	for (i = 0; i < tn->n; i++)
		free(tn->v[i]);
	free(tn->v);
	memset(tn, 0, sizeof(*tn));
}

void table_release(struct table *t)
{
	size_t j;

	table_clear(t);
	for (j = 0; j < t->ncols; j++)
		free(t->head[j]);
	free(t->rows);
	free(t->head);
	free(t->right);
	memset(t, 0, sizeof(*t));
}

void table_row(struct table *t)
{
	VP_GROW(t->rows, t->cap, t->nrows + 1);
	t->rows[t->nrows++] = xcalloc(t->ncols, sizeof(char *));
}

void table_cell(struct table *t, const char *fmt, ...)
{
	char **row;
	size_t j;
	va_list ap;
	struct sbuf sb = SBUF_INIT;

	if (!t->nrows)
		table_row(t);
	row = t->rows[t->nrows - 1];
	for (j = 0; j < t->ncols && row[j]; j++)
		;
	va_start(ap, fmt);
	sbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	sbuf_sanitize(&sb, 0, false);
	if (j == t->ncols) {
		sbuf_release(&sb);
		return;
	}
	row[j] = sbuf_detach(&sb);
}

static const char *cell(const struct table *t, size_t i, size_t j)
{
	return t->rows[i][j] ? t->rows[i][j] : "";
}

/* Display width of a UTF-8 string (counts code points). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void pad(struct sbuf *out, size_t n)
{
	while (n--)
		sbuf_addch(out, ' ');
}

static void render_line(const struct table *t, struct sbuf *out, int indent,
			const size_t *w, char *const *vals)
{
	size_t j, last = t->ncols;
	size_t start = out->len;

	pad(out, (size_t)indent);
	for (j = 0; j < last; j++) {
		const char *s = vals[j] ? vals[j] : "";
		size_t sw = width(s);

		if (j)
			sbuf_addstr(out, "  ");
		if (t->right[j])
			pad(out, w[j] - sw);
		sbuf_addstr(out, s);
		if (!t->right[j] && j + 1 < last)
			pad(out, w[j] - sw);
	}
	while (out->len > start && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
	sbuf_addch(out, '\n');
}

void table_widths(const struct table *t, size_t *w, bool header)
{
	size_t i, j;

	for (j = 0; j < t->ncols; j++) {
		if (header && width(t->head[j]) > w[j])
			w[j] = width(t->head[j]);
		for (i = 0; i < t->nrows; i++) {
			size_t cw = width(cell(t, i, j));

			if (cw > w[j])
				w[j] = cw;
		}
	}
}

void table_render_widths(const struct table *t, struct sbuf *out, int indent, const size_t *w,
			 bool header)
{
	size_t i;

	if (header)
		render_line(t, out, indent, w, t->head);
	for (i = 0; i < t->nrows; i++)
		render_line(t, out, indent, w, t->rows[i]);
}

void table_clear(struct table *t)
{
	size_t i, j;

	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->ncols; j++)
			free(t->rows[i][j]);
		free(t->rows[i]);
	}
	t->nrows = 0;
}

void table_render(const struct table *t, struct sbuf *out, int indent, bool header)
{
	size_t *w = xcalloc(t->ncols, sizeof(size_t));

	table_widths(t, w, header);
	table_render_widths(t, out, indent, w, header);
	free(w);
}

void table_csv_field(struct sbuf *out, const char *s, char sep)
{
	const char *p;

	if (!strchr(s, sep) && !strchr(s, '"') && !strchr(s, '\n')) {
		sbuf_addstr(out, s);
		return;
	}
	sbuf_addch(out, '"');
	for (p = s; *p; p++) {
		if (*p == '"')
			sbuf_addch(out, '"');
		sbuf_addch(out, *p);
	}
	sbuf_addch(out, '"');
}

void table_render_csv(const struct table *t, struct sbuf *out, char sep)
{
	size_t i, j;

	for (j = 0; j < t->ncols; j++) {
		if (j)
			sbuf_addch(out, sep);
		table_csv_field(out, t->head[j], sep);
	}
	sbuf_addch(out, '\n');
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->ncols; j++) {
			if (j)
				sbuf_addch(out, sep);
			table_csv_field(out, cell(t, i, j), sep);
		}
		sbuf_addch(out, '\n');
	}
}
