/* table.h - aligned text tables and CSV from the same rows */
#ifndef VP_TABLE_H
#define VP_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/sbuf.h"

/* Owned by the caller: table_init() ... table_release(). */
struct table {
	size_t ncols;
	char **head;       /* ncols column titles */
	bool *right;       /* right-align column (numbers) */
	char ***rows;      /* nrows x ncols heap strings */
	size_t nrows;
	size_t cap;
};

/* Columns are given as titles; a title starting with '>' is right-aligned. */
void table_init(struct table *t, size_t ncols, const char *const *titles);
void table_release(struct table *t);
/* Start a new row; the next table_cell() calls fill it left to right. */
void table_row(struct table *t);
/* A cell is terminal text (sbuf_sanitize()): control characters (C0 with tab and newline,
 * DEL, C1) and bytes of no UTF-8 character become '?', so process, VM and thread names from
 * /proc or a recording never reach a terminal raw. */
void table_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Render with two spaces between columns and an optional indent. */
void table_render(const struct table *t, struct sbuf *out, int indent, bool header);
/*
 * For a table too long to hold: fill some rows, widen w (ncols entries,
 * zero at first; header: the titles count too) with table_widths(), drop
 * them with table_clear(), and so on; then render row by row with those
 * widths.  Gives what table_render() gives for all the rows at once.
 */
void table_widths(const struct table *t, size_t *w, bool header);
void table_render_widths(const struct table *t, struct sbuf *out, int indent, const size_t *w,
			 bool header);
/* Drop the rows, keep the columns. */
void table_clear(struct table *t);
/* Append one RFC 4180 field (quoted when it holds sep, a quote or a newline). */
void table_csv_field(struct sbuf *out, const char *s, char sep);
/* RFC 4180 CSV with sep as separator (',' normally). */
void table_render_csv(const struct table *t, struct sbuf *out, char sep);

/*
 * The numbered notes under a table: each text kept once, a cell giving its
 * number "[k]" instead of repeating it (model show's n/a reasons, stat -m -I).
 * printed: how many the caller has printed so far.
 */
struct table_notes {
	char **v;
	size_t n, cap, printed;
};
/* The number (from 1) of text among tn's notes, added (copied) when new. */
size_t table_note(struct table_notes *tn, const char *text);
void table_notes_release(struct table_notes *tn);

#endif
