/* strmap.c - a string-keyed hash map of indexes (open addressing) */
#include "util/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

void strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof(*m));
}

void strmap_release(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* FNV-1a, 64 bit */
static uint64_t hash(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The slot holding key, or the empty slot where it would go (cap is a power of 2). */
static size_t slot(char *const *keys, size_t cap, const char *key)
{
	size_t i = (size_t)hash(key) & (cap - 1);

	while (keys[i] && strcmp(keys[i], key))
		i = (i + 1) & (cap - 1);
	return i;
}

bool strmap_get(const struct strmap *m, const char *key, size_t *val)
{
	size_t i;

	if (!key || !m->cap)
		return false;
	i = slot(m->keys, m->cap, key);
	if (!m->keys[i])
		return false;
	*val = m->vals[i];
	return true;
}

static void grow(struct strmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 16, i;
	char **keys = xcalloc(cap, sizeof(char *));
	size_t *vals = xcalloc(cap, sizeof(size_t));

	for (i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->keys[i])
			continue;
		j = slot(keys, cap, m->keys[i]);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
}

void strmap_put(struct strmap *m, const char *key, size_t val)
{
	size_t i;

	if (!key)
		return;
	if (2 * (m->n + 1) > m->cap)
		grow(m);
	i = slot(m->keys, m->cap, key);
	if (!m->keys[i]) {
		m->keys[i] = xstrdup(key);
		m->n++;
	}
	m->vals[i] = val;
}
