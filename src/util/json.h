/* json.h - streaming JSON writer into a string buffer */
#ifndef VP_JSON_H
#define VP_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "util/sbuf.h"

#define JW_MAX_DEPTH 64

/*
 * A writer appends to out (owned by the caller).  Commas and, when pretty
 * is set, indentation are inserted automatically.  Non-finite doubles are
 * written as null: JSON has no NaN, and we never turn "unknown" into 0.
 */
struct jw {
	struct sbuf *out;
	bool pretty;
	int depth;
	bool first[JW_MAX_DEPTH]; /* no element written yet at this depth */
	bool after_key;
};

void jw_init(struct jw *w, struct sbuf *out, bool pretty);
void jw_obj_begin(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w);
void jw_arr_end(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *s);       /* NULL writes null */
void jw_int(struct jw *w, int64_t v);
void jw_uint(struct jw *w, uint64_t v);
void jw_double(struct jw *w, double v);          /* NaN/inf write null */
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* A value already written as JSON (by another writer): n bytes added as they are. */
void jw_raw(struct jw *w, const char *json, size_t n);
/* Append s as a JSON string literal (with quotes and escapes). */
void jw_escape(struct sbuf *out, const char *s);

/* Append a finite double in its shortest round-trip form. */
void vp_fmt_double(struct sbuf *out, double v);

/* Shorthands for "key": value inside an object. */
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_kint(struct jw *w, const char *key, int64_t v);
/* key: v, or null when v < 0 (an id, CPU or node not known) */
void jw_kint_or_null(struct jw *w, const char *key, int64_t v);
void jw_kuint(struct jw *w, const char *key, uint64_t v);
void jw_kdouble(struct jw *w, const char *key, double v);
void jw_kbool(struct jw *w, const char *key, bool v);
/* "key": [[row 0], [row 1], ...] of a rows x cols row-major matrix (NaN as null). */
void jw_kmatrix(struct jw *w, const char *key, const double *m, int rows, int cols);

#endif
