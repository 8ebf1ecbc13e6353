/* alloc.h - allocation wrappers that abort on out-of-memory */
#ifndef VP_ALLOC_H
#define VP_ALLOC_H

#include <stddef.h>

/*
 * These never return NULL: on failure they print one line to stderr and
 * abort, so callers carry no dead NULL checks.  Free with free().
 */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A copy of size bytes at p (size > 0). */
void *xmemdup(const void *p, size_t size);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *ptr (of *cap elements of elem bytes) so that it holds at least need. */
void vp_grow(void **ptr, size_t *cap, size_t need, size_t elem);

#define VP_GROW(ptr, cap, need) \
	vp_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

#define VP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
