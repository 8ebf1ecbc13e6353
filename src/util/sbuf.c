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

size_t utf8_char_len(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t k, len;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	/* no overlong form, no surrogate, nothing above U+10FFFF */
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (k = 2; k < len; k++)
		if (p[k] < 0x80 || p[k] > 0xbf)
			return 0;
	return len;
}

void utf8_copy(char *dst, size_t size, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t left = strlen(src), o = 0;

	while (*p) {
		size_t n = utf8_char_len(p, left);
		const char *put = n ? (const char *)p : "\xef\xbf\xbd";
		size_t put_len = n ? n : 3;

		if (o + put_len >= size)
			break;
		memcpy(dst + o, put, put_len);
		o += put_len;
		p += n ? n : 1;
		left -= n ? n : 1;
	}
	dst[o] = '\0';
}

void sbuf_addutf8(struct sbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);

	while (*p) {
		size_t n = utf8_char_len(p, left);

		if (n)
			sbuf_add(sb, p, n);
		else
			sbuf_add(sb, "\xef\xbf\xbd", 3);
		p += n ? n : 1;
		left -= n ? n : 1;
	}
}

void sbuf_set(struct sbuf *sb, const char *s)
{
	sbuf_reset(sb);
	sbuf_addstr(sb, s ? s : "");
}

void sbuf_setf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	sbuf_reset(sb);
	va_start(ap, fmt);
	sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sbuf_copy(struct sbuf *dst, const struct sbuf *src)
{
	sbuf_init(dst);
	if (src->len)
		sbuf_add(dst, src->buf, src->len);
}

char *shell_word(const char *s, bool always)
{
	struct sbuf sb = SBUF_INIT;
	const char *p;
	bool plain = *s != '\0';

	for (p = s; *p && plain; p++)
		plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr("_.,:@%+=/-", *p);
	if (plain && !always)
		return xstrdup(s);
	sbuf_addch(&sb, '\'');
	for (p = s; *p; p++)
		if (*p == '\'')
			sbuf_addstr(&sb, "'\\''");
		else
			sbuf_addch(&sb, *p);
	sbuf_addch(&sb, '\'');
	return sbuf_detach(&sb);
}

void sbuf_sanitize(struct sbuf *sb, size_t from, bool keep_lines)
{
	unsigned char *p = (unsigned char *)sb->buf;
	size_t i = from, o = from;

	if (!p || from >= sb->len)
		return;
	while (i < sb->len) {
		size_t n = utf8_char_len(p + i, sb->len - i);

		if (n == 1 && ((p[i] >= 0x20 && p[i] != 0x7f) ||
			       (keep_lines && (p[i] == '\n' || p[i] == '\t')))) {
			p[o++] = p[i++];
		} else if (n <= 1 || (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0)) {
			/* a control character, C1 (two bytes, one '?'), a byte of no character */
			p[o++] = '?';
			i += n ? n : 1;
		} else {
			memmove(p + o, p + i, n);
			o += n;
			i += n;
		}
	}
	sb->len = o;
	p[o] = '\0';
}

void sbuf_addtext(struct sbuf *sb, const char *s)
{
	size_t from = sb->len;

	sbuf_addstr(sb, s);
	sbuf_sanitize(sb, from, false);
}

void sbuf_addtextf(struct sbuf *sb, const char *fmt, ...)
{
	size_t from = sb->len;
	va_list ap;

	va_start(ap, fmt);
	sbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	sbuf_sanitize(sb, from, false);
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
