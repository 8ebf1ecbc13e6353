/* lex.h - the tokenizer shared by formulas and model files */
#ifndef VP_MODEL_LEX_H
#define VP_MODEL_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "model/diag.h"

enum tok {
	T_EOF,
	T_NL,       /* end of a statement (newlines inside parentheses are skipped) */
	T_NUM,
	T_IDENT,    /* letters, digits, '_' and inner '.': remote_dram, cal.lat_local_ns */
	T_HASH,     /* #num_cpus (text without the '#') */
	T_STR,      /* "text" (decoded into str) */
	T_UNIT,     /* [GB/s] (text between the brackets) */
	T_LP, T_RP, T_COMMA,
	T_PLUS, T_MINUS, T_STAR, T_SLASH,
	T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE,
	T_ASSIGN,   /* = */
	T_BAD,      /* a malformed token, already reported */
};

struct token {
	enum tok t;
	const char *s;   /* into the source */
	size_t len;
	double num;      /* T_NUM */
	char *str;       /* T_STR/T_UNIT/T_IDENT/T_HASH: heap copy of the text */
	int line, col;
};

/* Scans src (NUL-terminated, owned by the caller) and reports errors to d. */
struct lexer {
	const char *src;
	const char *file;
	const char *p;
	int line;
	const char *line_start;
	int depth;          /* open parentheses: newlines inside are white space */
	bool line_begun;    /* a token was produced on this line */
	bool formula_only;  /* a lone formula: '#' and a letter is always a constant */
	struct diags *d;
	struct token cur;   /* the current token (lookahead) */
};

void lex_init(struct lexer *lx, const char *src, const char *file, struct diags *d);
void lex_release(struct lexer *lx);
/* Move to the next token (into lx->cur). */
void lex_next(struct lexer *lx);
/*
 * Read the rest of the statement's next word raw (an event spec such as
 * "uncore_imc/event=0x04,umask=0x03/"): a run of non-blank characters, or
 * a "quoted" string.  Replaces lx->cur with a T_STR token (T_NL/T_EOF when
 * the line has nothing more).  Only valid right after lex_next() produced
 * the token before it, i.e. call it instead of lex_next().
 */
void lex_raw_word(struct lexer *lx);
/* Skip to the end of the current statement (error recovery). */
void lex_skip_line(struct lexer *lx);
/* Location of the current token. */
struct src_loc lex_loc(const struct lexer *lx);
/* Report an error at loc. */
void lex_error(struct lexer *lx, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "'+'", "end of line", "number '12'" - what a token is, for messages; static or lx-owned buffer */
const char *tok_describe(const struct token *t, char *buf, size_t size);

/*
 * Parse a number as formulas write it: decimal (12, 1.5, 2e9, .5) or
 * hexadecimal (0x1f, at most 2^53 so it is exact as a double).  Returns 0,
 * or -1 with why ("bad number", "number out of range") in *why.
 */
int lex_number(const char *s, size_t len, double *val, const char **why);

#endif
