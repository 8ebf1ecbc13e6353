/* strmap.h - a string-keyed hash map of indexes (open addressing) */
#ifndef VP_STRMAP_H
#define VP_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Maps NUL-terminated keys (copied) to size_t values, for matching rows
 * across frames by identity in O(1) instead of a scan.  Owned by the
 * caller: strmap_init() ... strmap_release().
 */
struct strmap {
	char **keys;       /* cap slots, NULL empty */
	size_t *vals;
	size_t cap, n;
};

void strmap_init(struct strmap *m);
void strmap_release(struct strmap *m);
/* The value of key, or false when key is absent (or NULL). */
bool strmap_get(const struct strmap *m, const char *key, size_t *val);
/* Set key to val (a copy of key is kept); replaces an existing value. */
void strmap_put(struct strmap *m, const char *key, size_t val);

#endif
