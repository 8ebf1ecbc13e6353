/* sbuf.h - growable NUL-terminated string buffer */
#ifndef VP_SBUF_H
#define VP_SBUF_H

#include <stdarg.h>
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
/* Hand the buffer to the caller (free() it); sb is left empty and reusable. */
char *sbuf_detach(struct sbuf *sb);
/* Current contents, "" when empty; valid until the next change. */
const char *sbuf_str(const struct sbuf *sb);

#endif
