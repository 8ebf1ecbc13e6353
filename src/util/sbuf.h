/* sbuf.h - growable NUL-terminated string buffer */
#ifndef VP_SBUF_H
#define VP_SBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Storage owned by the caller: sbuf_init() then sbuf_release(). */
struct sbuf {
	char *buf;  /* always NUL-terminated after init */
	size_t len;
	size_t cap;
};

#define SBUF_INIT { NULL, 0, 0 }

void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
void sbuf_reset(struct sbuf *sb);
void sbuf_add(struct sbuf *sb, const void *data, size_t len);
void sbuf_addstr(struct sbuf *sb, const char *s);
void sbuf_addch(struct sbuf *sb, char c);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap);
/*
 * Text for a terminal, the one escaping of every text output (tables, top, diagnose, report,
 * errors): from byte `from` on, a control character -- C0 (tab and newline too, unless
 * keep_lines: then a renderer's own '\n' and '\t' stay), DEL, C1 (U+0080..U+009F) -- and
 * every byte that is not part of a whole UTF-8 character become '?', in place.  So a VM,
 * process or thread name from /proc, a recording or a daemon, or a sentence holding one,
 * never moves the cursor, clears the screen or starts a line of its own.
 */
void sbuf_sanitize(struct sbuf *sb, size_t from, bool keep_lines);
/*
 * s as one word of a POSIX shell command line (heap): as it is when every
 * byte is one of [A-Za-z0-9_.,:@%+=/-] and always is false, else in single
 * quotes with each quote written '\'' (so a name with a space, a quote or a
 * shell metacharacter stays one word, for sh and for diagnose --apply).
 */
char *shell_word(const char *s, bool always);
/* The length of the whole UTF-8 character at p (n bytes left, n >= 1), 0 when p starts none. */
size_t utf8_char_len(const unsigned char *p, size_t n);
/*
 * src copied into dst (size >= 1 bytes, always terminated) as UTF-8: a byte of
 * no character becomes U+FFFD (ef bf bd), and a character that does not fit
 * whole is left out with all after it.  What it stores is valid UTF-8 that
 * JSON writes unchanged, so a field read, written and read again is the same
 * (a plain snprintf into a fixed field cut a character in two, or kept bytes
 * the writer then grew three-fold).
 */
void utf8_copy(char *dst, size_t size, const char *src);
/*
 * s appended whole as UTF-8: a byte of no character becomes U+FFFD, as
 * utf8_copy() writes it, but nothing is cut (text from outside into an sbuf field).
 */
void sbuf_addutf8(struct sbuf *sb, const char *s);
/* The contents replaced by s (NULL: ""), or by the formatted text. */
void sbuf_set(struct sbuf *sb, const char *s);
void sbuf_setf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* *dst (overwritten, not released: storage the caller owns) initialized to a copy of src. */
void sbuf_copy(struct sbuf *dst, const struct sbuf *src);
/* s appended as one line of terminal text (sbuf_sanitize() without keep_lines). */
void sbuf_addtext(struct sbuf *sb, const char *s);
/* Formatted, then the whole piece made terminal text: put a line's '\n' after it. */
void sbuf_addtextf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the buffer to the caller (free() it); sb is left empty and reusable. */
char *sbuf_detach(struct sbuf *sb);
/* Current contents, "" when empty; valid until the next change. */
const char *sbuf_str(const struct sbuf *sb);

#endif
