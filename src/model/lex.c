/* lex.c - the tokenizer shared by formulas and model files */
#include "model/lex.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

void lex_init(struct lexer *lx, const char *src, const char *file, struct diags *d)
{
	memset(lx, 0, sizeof(*lx));
	lx->src = src;
	lx->file = file;
	lx->p = src;
	lx->line = 1;
	lx->line_start = src;
	lx->d = d;
	lx->cur.t = T_NL; /* as if a statement had just ended */
}

void lex_release(struct lexer *lx)
{
	free(lx->cur.str);
	lx->cur.str = NULL;
}

struct src_loc lex_loc(const struct lexer *lx)
{
	struct src_loc l = { lx->file, lx->cur.line, lx->cur.col };

	return l;
}

void lex_error(struct lexer *lx, struct src_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diags_vadd(lx->d, false, loc, lx->src, fmt, ap);
	va_end(ap);
}

static int col_of(const struct lexer *lx, const char *p)
{
	return (int)(p - lx->line_start) + 1;
}

static void newline(struct lexer *lx)
{
	lx->p++;
	lx->line++;
	lx->line_start = lx->p;
	lx->line_begun = false;
}

int lex_number(const char *s, size_t len, double *val, const char **why)
{
	char buf[128];
	char *end;
	size_t i;

	if (len >= sizeof(buf)) {
		*why = "number out of range";
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (len > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		uint64_t v = 0;

		for (i = 2; i < len; i++) {
			int c = tolower((unsigned char)buf[i]), dv;

			if (!isxdigit(c)) {
				*why = "bad number";
				return -1;
			}
			dv = isdigit(c) ? c - '0' : c - 'a' + 10;
			if (v > ((UINT64_C(1) << 53) - (uint64_t)dv) / 16) {
				*why = "number out of range";
				return -1;
			}
			v = v * 16 + (uint64_t)dv;
		}
		*val = (double)v;
		return 0;
	}
	for (i = 0; i < len; i++) {
		/* strtod would also take "inf", "nan" and hex floats: not ours */
		if (!isdigit((unsigned char)buf[i]) && buf[i] != '.' && buf[i] != 'e' &&
		    buf[i] != 'E' && !((buf[i] == '+' || buf[i] == '-') && i &&
				       (buf[i - 1] == 'e' || buf[i - 1] == 'E'))) {
			*why = "bad number";
			return -1;
		}
	}
	errno = 0;
	*val = strtod(buf, &end);
	if (end != buf + len || end == buf) {
		*why = "bad number";
		return -1;
	}
	if (errno == ERANGE || !isfinite(*val)) {
		*why = "number out of range";
		return -1;
	}
	return 0;
}

static bool ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

static void set_tok(struct lexer *lx, enum tok t, const char *s, size_t len)
{
	free(lx->cur.str);
	lx->cur.str = NULL;
	lx->cur.t = t;
	lx->cur.s = s;
	lx->cur.len = len;
	lx->cur.num = 0;
	lx->cur.line = lx->line;
	lx->cur.col = col_of(lx, s);
	lx->line_begun = true;
}

/* A "string" with \" \\ \n \t escapes, starting at lx->p. */
static void lex_string(struct lexer *lx)
{
	const char *s = lx->p;
	struct sbuf sb = SBUF_INIT;
	const char *p = s + 1;

	while (*p && *p != '"' && *p != '\n') {
		if (*p == '\\' && p[1] && p[1] != '\n') {
			p++;
			sbuf_addch(&sb, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
		} else {
			sbuf_addch(&sb, *p);
		}
		p++;
	}
	set_tok(lx, T_STR, s, (size_t)(p - s));
	if (*p != '"') {
		lex_error(lx, lex_loc(lx), "unterminated string");
		lx->cur.t = T_BAD;
		lx->p = p;
		sbuf_release(&sb);
		return;
	}
	lx->cur.len++;
	lx->p = p + 1;
	lx->cur.str = sbuf_detach(&sb);
}

void lex_next(struct lexer *lx)
{
	const char *p;
	int c;

	/* white space, comments, newlines (the latter only inside parentheses) */
	for (;;) {
		c = (unsigned char)*lx->p;
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			lx->p++;
		} else if (c == '\\' && (lx->p[1] == '\n' ||
					 (lx->p[1] == '\r' && lx->p[2] == '\n'))) {
			/* a backslash at the end of a line continues the statement */
			lx->p += lx->p[1] == '\r' ? 2 : 1;
			newline(lx);
			lx->line_begun = true;
		} else if (c == '#' && (!isalpha((unsigned char)lx->p[1]) ||
				       (!lx->line_begun && lx->depth == 0 && !lx->formula_only))) {
			/* a comment: '#' then a non-letter, or '#' opening a line */
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		} else if (c == '\n' && lx->depth > 0) {
			newline(lx);
			lx->line_begun = true;
		} else {
			break;
		}
	}
	p = lx->p;
	c = (unsigned char)*p;
	if (!c) {
		set_tok(lx, T_EOF, p, 0);
		return;
	}
	if (c == '\n') {
		set_tok(lx, T_NL, p, 1);
		newline(lx);
		return;
	}
	if (isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]))) {
		const char *why;

		while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
		       ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E') &&
			!(lx->p[0] == '0' && (lx->p[1] == 'x' || lx->p[1] == 'X'))))
			p++;
		set_tok(lx, T_NUM, lx->p, (size_t)(p - lx->p));
		lx->p = p;
		if (lex_number(lx->cur.s, lx->cur.len, &lx->cur.num, &why)) {
			lex_error(lx, lex_loc(lx), "%s '%.*s'", why, (int)lx->cur.len, lx->cur.s);
			lx->cur.t = T_BAD;
		}
		return;
	}
	if (ident_start(c) || (c == '#' && ident_start((unsigned char)p[1]))) {
		enum tok t = c == '#' ? T_HASH : T_IDENT;
		const char *s = p;

		if (c == '#')
			p++;
		while (ident_char((unsigned char)*p))
			p++;
		/* "cal." then end: the dot belongs to nothing, keep it in the word */
		set_tok(lx, t, s, (size_t)(p - s));
		lx->cur.str = t == T_HASH ? xstrndup(s + 1, (size_t)(p - s - 1))
					  : xstrndup(s, (size_t)(p - s));
		lx->p = p;
		return;
	}
	switch (c) {
	case '"':
		lex_string(lx);
		return;
	case '[': {
		const char *e = p + 1;

		while (*e && *e != ']' && *e != '\n')
			e++;
		set_tok(lx, T_UNIT, p, (size_t)(e - p));
		if (*e != ']') {
			lex_error(lx, lex_loc(lx), "unterminated unit: '[' without ']'");
			lx->cur.t = T_BAD;
			lx->p = e;
			return;
		}
		lx->cur.len++;
		lx->cur.str = xstrndup(p + 1, (size_t)(e - p - 1));
		lx->p = e + 1;
		return;
	}
	case '(':
		set_tok(lx, T_LP, p, 1);
		lx->depth++;
		break;
	case ')':
		set_tok(lx, T_RP, p, 1);
		if (lx->depth > 0)
			lx->depth--;
		break;
	case ',': set_tok(lx, T_COMMA, p, 1); break;
	case '+': set_tok(lx, T_PLUS, p, 1); break;
	case '-': set_tok(lx, T_MINUS, p, 1); break;
	case '*': set_tok(lx, T_STAR, p, 1); break;
	case '/': set_tok(lx, T_SLASH, p, 1); break;
	case '<':
		if (p[1] == '=')
			set_tok(lx, T_LE, p, 2);
		else
			set_tok(lx, T_LT, p, 1);
		break;
	case '>':
		if (p[1] == '=')
			set_tok(lx, T_GE, p, 2);
		else
			set_tok(lx, T_GT, p, 1);
		break;
	case '=':
		if (p[1] == '=')
			set_tok(lx, T_EQ, p, 2);
		else
			set_tok(lx, T_ASSIGN, p, 1);
		break;
	case '!':
		if (p[1] == '=') {
			set_tok(lx, T_NE, p, 2);
			break;
		}
		/* fall through */
	default:
		set_tok(lx, T_BAD, p, 1);
		if (c >= 0x20 && c < 0x7f)
			lex_error(lx, lex_loc(lx), "unexpected character '%c'", c);
		else
			lex_error(lx, lex_loc(lx), "unexpected byte 0x%02x", c);
		lx->p = p + 1;
		return;
	}
	lx->p = p + lx->cur.len;
}

void lex_raw_word(struct lexer *lx)
{
	const char *p;

	while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r')
		lx->p++;
	p = lx->p;
	if (*p == '"') {
		lex_string(lx);
		return;
	}
	if (!*p || *p == '\n' || (*p == '#' && (p[1] == ' ' || p[1] == '\t' || !p[1] ||
						  p[1] == '\n'))) {
		lex_next(lx);
		return;
	}
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
		p++;
	set_tok(lx, T_STR, lx->p, (size_t)(p - lx->p));
	lx->cur.str = xstrndup(lx->p, (size_t)(p - lx->p));
	lx->p = p;
}

void lex_skip_line(struct lexer *lx)
{
	while (lx->cur.t != T_NL && lx->cur.t != T_EOF) {
		/* a broken statement must not swallow the following lines */
		lx->depth = 0;
		lex_next(lx);
	}
}

const char *tok_describe(const struct token *t, char *buf, size_t size)
{
	switch (t->t) {
	case T_EOF: return "end of file";
	case T_NL: return "end of line";
	case T_STR: snprintf(buf, size, "\"%.40s\"", t->str ? t->str : ""); break;
	case T_NUM: snprintf(buf, size, "number '%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s); break;
	case T_IDENT: snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s); break;
	default: snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s); break;
	}
	return buf;
}
