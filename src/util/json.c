/* json.c - streaming JSON writer into a string buffer */
#include "util/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest of %.15g / %.17g that reads back as the same double. */
void vp_fmt_double(struct sbuf *out, double v)
{
	char buf[40];

	/* a whole number below 1e15 (counts, cycles: most of a frame's values) is what
	 * %.15g prints, its digits, written without printf (a daemon writes thousands a
	 * second); -0 and the rest through printf */
	if (v > -1e15 && v < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
		long long n = (long long)v;
		unsigned long long u = n < 0 ? 0ull - (unsigned long long)n : (unsigned long long)n;
		char *e = buf + sizeof(buf), *b = e;

		do {
			*--b = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (n < 0)
			*--b = '-';
		sbuf_add(out, b, (size_t)(e - b));
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	sbuf_addstr(out, buf);
}

void jw_init(struct jw *w, struct sbuf *out, bool pretty)
{
	w->out = out;
	w->pretty = pretty;
	w->depth = 0;
	w->first[0] = true;
	w->after_key = false;
}

static void indent(struct jw *w)
{
	int i;

	if (!w->pretty)
		return;
	sbuf_addch(w->out, '\n');
	for (i = 0; i < w->depth; i++)
		sbuf_addstr(w->out, "  ");
}

/* Separator before a value or key at the current depth. */
static void before_value(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (!w->first[w->depth])
			sbuf_addch(w->out, ',');
		indent(w);
	}
	w->first[w->depth] = false;
}

static void open_container(struct jw *w, char c)
{
	before_value(w);
	sbuf_addch(w->out, c);
	if (w->depth < JW_MAX_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = true;
}

static void close_container(struct jw *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		indent(w);
	sbuf_addch(w->out, c);
}

void jw_obj_begin(struct jw *w) { open_container(w, '{'); }
void jw_obj_end(struct jw *w) { close_container(w, '}'); }
void jw_arr_begin(struct jw *w) { open_container(w, '['); }
void jw_arr_end(struct jw *w) { close_container(w, ']'); }

/*
 * JSON text is UTF-8 (RFC 8259 section 8.1): a byte of no UTF-8 character (a
 * process or VM name is any bytes) is written U+FFFD, the replacement
 * character, never raw; whole characters pass as they are.  U+FFFD goes out
 * as its own UTF-8 bytes (ef bf bd), not as the escape \ufffd: a reader gives
 * back that same character, so text read and written again is byte for byte
 * what was written the first time (a calibration or recording rewritten
 * stays identical; fuzz_calib found the escape form was not).
 */
void jw_escape(struct sbuf *out, const char *s)
{
	const unsigned char *p;
	size_t left = strlen(s);

	sbuf_addch(out, '"');
	for (p = (const unsigned char *)s; *p; p++, left--) {
		const unsigned char *q = p;

		/* a run of characters that stand for themselves, added at once */
		while (*q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
			q++;
		if (q > p) {
			sbuf_add(out, (const char *)p, (size_t)(q - p));
			left -= (size_t)(q - p);
			p = q;
			if (!*p)
				break;
		}
		if (*p >= 0x80) {
			size_t n = utf8_char_len(p, left);

			if (!n) {
				sbuf_addstr(out, "\xef\xbf\xbd");
				continue;
			}
			sbuf_add(out, (const char *)p, n);
			p += n - 1;
			left -= n - 1;
			continue;
		}
		switch (*p) {
		case '"': sbuf_addstr(out, "\\\""); break;
		case '\\': sbuf_addstr(out, "\\\\"); break;
		case '\n': sbuf_addstr(out, "\\n"); break;
		case '\r': sbuf_addstr(out, "\\r"); break;
		case '\t': sbuf_addstr(out, "\\t"); break;
		default:
			if (*p < 0x20)
				sbuf_addf(out, "\\u%04x", *p);
			else
				sbuf_addch(out, (char)*p);
		}
	}
	sbuf_addch(out, '"');
}

void jw_key(struct jw *w, const char *key)
{
	before_value(w);
	jw_escape(w->out, key);
	sbuf_addstr(w->out, w->pretty ? ": " : ":");
	w->after_key = true;
}

void jw_str(struct jw *w, const char *s)
{
	before_value(w);
	if (s)
		jw_escape(w->out, s);
	else
		sbuf_addstr(w->out, "null");
}

void jw_int(struct jw *w, int64_t v)
{
	before_value(w);
	sbuf_addf(w->out, "%" PRId64, v);
}

void jw_uint(struct jw *w, uint64_t v)
{
	before_value(w);
	sbuf_addf(w->out, "%" PRIu64, v);
}

void jw_double(struct jw *w, double v)
{
	before_value(w);
	if (!isfinite(v))
		sbuf_addstr(w->out, "null");
	else
		vp_fmt_double(w->out, v);
}

void jw_bool(struct jw *w, bool v)
{
	before_value(w);
	sbuf_addstr(w->out, v ? "true" : "false");
}

void jw_null(struct jw *w)
{
	before_value(w);
	sbuf_addstr(w->out, "null");
}

void jw_kstr(struct jw *w, const char *key, const char *s) { jw_key(w, key); jw_str(w, s); }
void jw_kint(struct jw *w, const char *key, int64_t v) { jw_key(w, key); jw_int(w, v); }
void jw_kuint(struct jw *w, const char *key, uint64_t v) { jw_key(w, key); jw_uint(w, v); }
void jw_kdouble(struct jw *w, const char *key, double v) { jw_key(w, key); jw_double(w, v); }
void jw_kbool(struct jw *w, const char *key, bool v) { jw_key(w, key); jw_bool(w, v); }

void jw_kmatrix(struct jw *w, const char *key, const double *m, int rows, int cols)
{
	int i, j;

	jw_key(w, key);
	jw_arr_begin(w);
	for (i = 0; i < rows; i++) {
		jw_arr_begin(w);
		for (j = 0; j < cols; j++)
			jw_double(w, m[i * cols + j]);
		jw_arr_end(w);
	}
	jw_arr_end(w);
}

void jw_kint_or_null(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	if (v >= 0)
		jw_int(w, v);
	else
		jw_null(w);
}
