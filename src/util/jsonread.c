/* jsonread.c - a small JSON reader into a tree, with file:line:col errors */
#include "util/jsonread.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/sbuf.h"

#define JV_MAX_DEPTH 64

struct jp {
	const char *s, *end;
	const char *name;
	int line;
	const char *line_start;
	struct vp_err *err;
};

static int jp_col(const struct jp *p, const char *at)
{
	return (int)(at - p->line_start) + 1;
}

static int jp_fail(struct jp *p, const char *what)
{
	if (p->s >= p->end)
		return vp_err_set(p->err, VP_EPARSE, "%s:%d:%d: unexpected end of input (%s)",
				  p->name, p->line, jp_col(p, p->s), what);
	return vp_err_set(p->err, VP_EPARSE, "%s:%d:%d: %s", p->name, p->line,
			  jp_col(p, p->s), what);
}

static void jp_ws(struct jp *p)
{
	while (p->s < p->end) {
		char c = *p->s;

		if (c == '\n') {
			p->line++;
			p->line_start = p->s + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			break;
		}
		p->s++;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void put_utf8(struct sbuf *sb, unsigned cp)
{
	char b[4];

	if (cp < 0x80) {
		b[0] = (char)cp;
		sbuf_add(sb, b, 1);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(sb, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(sb, b, 3);
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		sbuf_add(sb, b, 4);
	}
}

static int jp_hex4(struct jp *p, unsigned *cp)
{
	int i, h;

	*cp = 0;
	for (i = 0; i < 4; i++) {
		if (p->s >= p->end || (h = hexval(*p->s)) < 0)
			return jp_fail(p, "bad \\u escape");
		*cp = *cp * 16 + (unsigned)h;
		p->s++;
	}
	return 0;
}

/* At the opening quote; leaves p->s after the closing one. */
static int jp_string(struct jp *p, char **out)
{
	struct sbuf sb = SBUF_INIT;
	int ret = 0;

	p->s++;
	for (;;) {
		unsigned char c;

		if (p->s >= p->end) {
			ret = jp_fail(p, "unterminated string");
			goto out;
		}
		c = (unsigned char)*p->s;
		if (c == '"') {
			p->s++;
			break;
		}
		if (c < 0x20) {
			ret = jp_fail(p, "control character in string");
			goto out;
		}
		if (c != '\\') {
			sbuf_add(&sb, p->s, 1);
			p->s++;
			continue;
		}
		p->s++;
		if (p->s >= p->end) {
			ret = jp_fail(p, "unterminated string");
			goto out;
		}
		c = (unsigned char)*p->s++;
		switch (c) {
		case '"': case '\\': case '/':
			sbuf_addch(&sb, (char)c);
			break;
		case 'b': sbuf_addch(&sb, '\b'); break;
		case 'f': sbuf_addch(&sb, '\f'); break;
		case 'n': sbuf_addch(&sb, '\n'); break;
		case 'r': sbuf_addch(&sb, '\r'); break;
		case 't': sbuf_addch(&sb, '\t'); break;
		case 'u': {
			unsigned cp, lo;

			if ((ret = jp_hex4(p, &cp)))
				goto out;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (p->end - p->s < 2 || p->s[0] != '\\' || p->s[1] != 'u') {
					ret = jp_fail(p, "unpaired surrogate in \\u escape");
					goto out;
				}
				p->s += 2;
				if ((ret = jp_hex4(p, &lo)))
					goto out;
				if (lo < 0xdc00 || lo > 0xdfff) {
					ret = jp_fail(p, "unpaired surrogate in \\u escape");
					goto out;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				ret = jp_fail(p, "unpaired surrogate in \\u escape");
				goto out;
			}
			if (cp == 0) {
				ret = jp_fail(p, "NUL character in string");
				goto out;
			}
			put_utf8(&sb, cp);
			break;
		}
		default:
			p->s--;
			ret = jp_fail(p, "bad escape in string");
			goto out;
		}
	}
	*out = sbuf_detach(&sb);
out:
	sbuf_release(&sb);
	return ret;
}

static int jp_number(struct jp *p, double *v)
{
	const char *q = p->s;
	char buf[64];
	size_t n;

	if (q < p->end && *q == '-')
		q++;
	if (q >= p->end || *q < '0' || *q > '9')
		return jp_fail(p, "expected a value");
	if (*q == '0')
		q++;
	else
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	if (q < p->end && *q == '.') {
		q++;
		if (q >= p->end || *q < '0' || *q > '9')
			return jp_fail(p, "bad number");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < p->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < p->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= p->end || *q < '0' || *q > '9')
			return jp_fail(p, "bad number");
		while (q < p->end && *q >= '0' && *q <= '9')
			q++;
	}
	n = (size_t)(q - p->s);
	if (n >= sizeof(buf))
		return jp_fail(p, "number too long");
	memcpy(buf, p->s, n);
	buf[n] = 0;
	*v = strtod(buf, NULL);
	p->s = q;
	return 0;
}

static int jp_word(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, w, n))
		return jp_fail(p, "expected a value");
	p->s += n;
	return 0;
}

/* After an array element or object member: 1 at ',' (more follow), 0 at close, or the error. */
static int jp_after_item(struct jp *p, char close)
{
	char what[] = "expected ',' or ' '";

	jp_ws(p);
	if (p->s < p->end && *p->s == ',') {
		p->s++;
		return 1;
	}
	if (p->s < p->end && *p->s == close) {
		p->s++;
		return 0;
	}
	what[sizeof(what) - 3] = close;
	return jp_fail(p, what);
}

static int jp_value(struct jp *p, struct jv *v, int depth)
{
	int ret = 0;
	size_t cap = 0;

	memset(v, 0, sizeof(*v));
	jp_ws(p);
	v->line = p->line;
	v->col = jp_col(p, p->s);
	if (p->s >= p->end)
		return jp_fail(p, "expected a value");
	if (depth > JV_MAX_DEPTH)
		return jp_fail(p, "nesting too deep");
	switch (*p->s) {
	case '{':
		v->type = JV_OBJ;
		p->s++;
		jp_ws(p);
		if (p->s < p->end && *p->s == '}') {
			p->s++;
			return 0;
		}
		for (;;) {
			char *key = NULL;

			jp_ws(p);
			if (p->s >= p->end || *p->s != '"') {
				ret = jp_fail(p, "expected a member name in quotes");
				goto fail;
			}
			if ((ret = jp_string(p, &key)))
				goto fail;
			jp_ws(p);
			if (p->s >= p->end || *p->s != ':') {
				free(key);
				ret = jp_fail(p, "expected ':'");
				goto fail;
			}
			p->s++;
			if (v->n == cap) {
				size_t kc = cap;

				VP_GROW(v->items, cap, v->n + 1);
				VP_GROW(v->keys, kc, v->n + 1);
			}
			v->keys[v->n] = key;
			ret = jp_value(p, &v->items[v->n], depth + 1);
			v->n++;
			if (ret)
				goto fail;
			ret = jp_after_item(p, '}');
			if (ret > 0)
				continue;
			if (ret)
				goto fail;
			return 0;
		}
	case '[':
		v->type = JV_ARR;
		p->s++;
		jp_ws(p);
		if (p->s < p->end && *p->s == ']') {
			p->s++;
			return 0;
		}
		for (;;) {
			VP_GROW(v->items, cap, v->n + 1);
			ret = jp_value(p, &v->items[v->n], depth + 1);
			v->n++;
			if (ret)
				goto fail;
			ret = jp_after_item(p, ']');
			if (ret > 0)
				continue;
			if (ret)
				goto fail;
			return 0;
		}
	case '"':
		v->type = JV_STR;
		return jp_string(p, &v->str);
	case 't':
		v->type = JV_BOOL;
		v->b = true;
		return jp_word(p, "true");
	case 'f':
		v->type = JV_BOOL;
		return jp_word(p, "false");
	case 'n':
		v->type = JV_NULL;
		return jp_word(p, "null");
	default:
		v->type = JV_NUM;
		return jp_number(p, &v->num);
	}
fail:
	jv_release(v);
	return ret;
}

int jv_parse(struct jv *out, const char *text, size_t len, const char *name,
	     struct vp_err *err)
{
	struct jp p = { text, text + len, name ? name : "<input>", 1, text, err };
	int ret;

	if (memchr(text, 0, len))
		return vp_err_set(err, VP_EPARSE, "%s: NUL byte in JSON text", p.name);
	ret = jp_value(&p, out, 0);
	if (ret)
		return ret;
	jp_ws(&p);
	if (p.s < p.end) {
		jv_release(out);
		return jp_fail(&p, "unexpected text after the value");
	}
	return 0;
}

void jv_release(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		jv_release(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

const struct jv *jv_get(const struct jv *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JV_OBJ)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const char *jv_str(const struct jv *obj, const char *key)
{
	const struct jv *v = jv_get(obj, key);

	return v && v->type == JV_STR ? v->str : NULL;
}

double jv_num(const struct jv *obj, const char *key)
{
	const struct jv *v = jv_get(obj, key);

	return v && v->type == JV_NUM ? v->num : NAN;
}

const struct jv *jv_arr(const struct jv *obj, const char *key)
{
	const struct jv *v = jv_get(obj, key);

	return v && v->type == JV_ARR ? v : NULL;
}

int jv_enum(const char *s, int n, const char *(*name)(int i))
{
	int i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, name(i)))
			return i;
	return -1;
}

const char *jv_type_name(enum jv_type t)
{
	static const char *const names[] = { "null", "boolean", "number", "string",
					     "array", "object" };

	return (unsigned)t < VP_ARRAY_SIZE(names) ? names[t] : "?";
}
