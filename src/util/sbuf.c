/* sbuf.c - growable NUL-terminated string buffer */
#include "util/sbuf.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbuf_init(struct sbuf *sb)
{
	sb->buf = NULL;
	sb->len = 0;
	sb->cap = 0;
}

void sbuf_release(struct sbuf *sb)
{
	free(sb->buf);
	sbuf_init(sb);
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sbuf_add(struct sbuf *sb, const void *data, size_t len)
{
	VP_GROW(sb->buf, sb->cap, sb->len + len + 1);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sbuf_addstr(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addch(struct sbuf *sb, char c)
{
	sbuf_add(sb, &c, 1);
}

void sbuf_vaddf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	size_t room;
	int n;

	/* format once into the room there is; again only when it did not fit */
	if (sb->cap < sb->len + 64)
		VP_GROW(sb->buf, sb->cap, sb->len + 64);
	room = sb->cap - sb->len;
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, room, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		VP_GROW(sb->buf, sb->cap, sb->len + (size_t)n + 1);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	}
	sb->len += (size_t)n;
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *sbuf_detach(struct sbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");

	sbuf_init(sb);
	return p;
}

const char *sbuf_str(const struct sbuf *sb)
{
	return sb->buf ? sb->buf : "";
}
