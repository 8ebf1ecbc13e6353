/* kv.c - "name value [kB]" lines as in numastat, meminfo, vmstat and status */
#include "source/kv.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static void parse_line(const char *p, const char *end, const char *const *names, size_t n,
		       uint64_t *vals, uint32_t *have)
{
	const char *key, *q;
	unsigned long long v;
	char *vend;
	size_t klen, i;

	p = skip_ws(p);
	if (!strncmp(p, "Node ", 5)) { /* node meminfo: "Node 0 MemTotal: ..." */
		p = skip_ws(p + 5);
		while (p < end && isdigit((unsigned char)*p))
			p++;
		p = skip_ws(p);
	}
	key = p;
	while (p < end && *p != ':' && *p != ' ' && *p != '\t')
		p++;
	klen = (size_t)(p - key);
	if (p < end && *p == ':')
		p++;
	p = skip_ws(p);
	if (!klen || p >= end || !isdigit((unsigned char)*p))
		return;
	errno = 0;
	v = strtoull(p, &vend, 10);
	if (errno)
		return;
	q = skip_ws(vend);
	if (q + 2 <= end && !strncmp(q, "kB", 2))
		v *= 1024;
	else if (q < end)
		return; /* trailing text we do not understand */
	for (i = 0; i < n; i++) {
		if (strlen(names[i]) == klen && !memcmp(names[i], key, klen)) {
			vals[i] = v;
			*have |= 1u << i;
			return;
		}
	}
}

void kv_parse(const char *text, const char *const *names, size_t n, uint64_t *vals,
	      uint32_t *have)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		parse_line(p, nl, names, n, vals, have);
		p = *nl ? nl + 1 : nl;
	}
}

int kv_find_str(const char *text, const char *name, char *buf, size_t size)
{
	size_t nl = strlen(name);
	const char *p = text, *e;

	while (p && *p) {
		if (!strncmp(p, name, nl) && p[nl] == ':') {
			p = skip_ws(p + nl + 1);
			e = strchr(p, '\n');
			if (!e)
				e = p + strlen(p);
			while (e > p && isspace((unsigned char)e[-1]))
				e--;
			if (size) {
				size_t len = (size_t)(e - p) < size - 1 ? (size_t)(e - p) : size - 1;

				memcpy(buf, p, len);
				buf[len] = '\0';
			}
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}
