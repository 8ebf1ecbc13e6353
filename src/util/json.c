/* json.c - streaming JSON writer into a string buffer */
#include "util/json.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 10^0 .. 10^20: exact in a long double of 64 bits of mantissa (5^27 < 2^63) */
static const long double p10l[] = {
	1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
	1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
};

/*
 * a (1e-4 <= a < 1e15, not whole) rounded to prec (15 or 17) significant
 * digits, as printf does: *m the digits as an integer (10^(prec-1) <= *m <
 * 10^prec), *k the places after the decimal point (the value is *m / 10^*k).
 * a * 10^k is one long double product (64-bit mantissa: relative error
 * 2^-64, 0.0054 at most in the units of *m); false, and printf decides,
 * when that is within 0.01 of a tie or the rounding reaches the next power
 * of ten.
 */
static bool digits_of(double a, int prec, unsigned long long *m, int *k)
{
	long double p, f;
	int x = 0;

	/* the decade; the doubles nearest 10^-j may put a at 10^-j in the one below,
	 * which the range of p then catches */
	static const double tenth[] = { 1, 1e-1, 1e-2, 1e-3, 1e-4 };

	while (x < 14 && a >= (double)p10l[x + 1])
		x++;
	while (x <= 0 && x > -4 && a < tenth[-x])
		x--;
	*k = prec - 1 - x;
	if (*k < 0 || *k > 20)
		return false;
	p = (long double)a * p10l[*k];
	if (p < p10l[prec - 1] || p >= p10l[prec]) /* x was off by one: let printf say */
		return false;
	*m = (unsigned long long)(long long)p; /* p < 10^17: a signed conversion is enough */
	f = p - (long double)*m;
	if (f > 0.49L && f < 0.51L)
		return false;
	*m += f > 0.5L;
	return *m < (unsigned long long)p10l[prec];
}

/*
 * Whether the decimal m / 10^k reads back (strtod: the nearest double) as a:
 * 1 yes, 0 no, -1 not sure.  q is within 2^-64 of m / 10^k; its nearest
 * double is that of m / 10^k too unless q lies within 2^-9 of a gap of the
 * midpoint to a neighbour (the error is under 2^-11 of a gap).
 */
static int reads_back(double a, unsigned long long m, int k)
{
	long double q = (long double)m / p10l[k], d, gap;
	double n = (double)q;

	d = q - (long double)n;
	gap = d >= 0 ? (long double)nextafter(n, INFINITY) - n : n - (long double)nextafter(n, 0);
	d = d < 0 ? -d : d;
	if (d > gap / 2 - gap / 512)
		return -1;
	return n == a;
}

/* digits m with k places after the point, trailing zeros (and a bare point) left off */
static void add_fixed(struct sbuf *out, bool neg, unsigned long long m, int k)
{
	char buf[48], *e = buf + sizeof(buf), *b = e;
	int i;

	while (k > 0 && m % 10 == 0) {
		m /= 10;
		k--;
	}
	for (i = 0; i < k; i++) {
		*--b = (char)('0' + m % 10);
		m /= 10;
	}
	if (k > 0)
		*--b = '.';
	do {
		*--b = (char)('0' + m % 10);
		m /= 10;
	} while (m);
	if (neg)
		*--b = '-';
	sbuf_add(out, b, (size_t)(e - b));
}

/*
 * Shortest of %.15g / %.17g that reads back as the same double, without
 * printf where it can be done exactly (a daemon writes tens of thousands a
 * second; printf's multi-precision digits and strtod's check were a fifth of
 * its CPU at 1,000 vCPUs): a whole number below 1e15 by its digits, and a
 * number from 1e-4 to 1e15 (which %g writes without an exponent) by one
 * long double product, each case where that could differ from printf left
 * to printf (test json_writer_fast_doubles: byte for byte the same).
 */
void vp_fmt_double(struct sbuf *out, double v)
{
	char buf[40];
	double a = v < 0 ? -v : v;

	if (v > -1e15 && v < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
		unsigned long long u = (unsigned long long)(long long)a;

		add_fixed(out, v < 0, u, 0);
		return;
	}
#if LDBL_MANT_DIG >= 64
	if (a >= 1e-4 && a < 1e15) {
		unsigned long long m;
		int k, back;

		if (digits_of(a, 15, &m, &k) && (back = reads_back(a, m, k)) >= 0) {
			if (back) {
				add_fixed(out, v < 0, m, k);
				return;
			}
			if (digits_of(a, 17, &m, &k)) {
				add_fixed(out, v < 0, m, k);
				return;
			}
		}
	}
#endif
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

void jw_raw(struct jw *w, const char *json, size_t n)
{
	before_value(w);
	sbuf_add(w->out, json, n);
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
