/* numa_maps.c - /proc/PID/numa_maps: resident pages per node for each mapping */
#include "source/numa_maps.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_MAX 4096

void numa_maps_release(struct numa_maps *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->maps[i].file);
		free(m->maps[i].node_pages);
	}
	free(m->maps);
	memset(m, 0, sizeof(*m));
}

/* The kernel escapes white space and '=' in paths as \ooo. */
static char *decode_path(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len &&
		    isdigit((unsigned char)s[i + 1]) && isdigit((unsigned char)s[i + 2]) &&
		    isdigit((unsigned char)s[i + 3])) {
			*o++ = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0'));
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

static int parse_u64(const char *s, size_t len, uint64_t *v)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return (*end || errno) ? -1 : 0;
}

static void set_node(struct numa_map *m, int node, uint64_t pages)
{
	if (node >= m->n_nodes) {
		m->node_pages = xrealloc(m->node_pages, (size_t)(node + 1) * sizeof(uint64_t));
		memset(m->node_pages + m->n_nodes, 0,
		       (size_t)(node + 1 - m->n_nodes) * sizeof(uint64_t));
		m->n_nodes = node + 1;
	}
	m->node_pages[node] = pages;
}

/* One line: "ADDR POLICY [file=PATH] [heap|stack|huge] [key=value ...]". */
static int parse_line(const char *line, size_t len, struct numa_map *m, int lineno,
		      struct vp_err *err)
{
	const char *p = line, *end = line + len, *tok, *eq;
	char buf[32];
	size_t tl;
	int field = 0;

	memset(m, 0, sizeof(*m));
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		tok = p;
		while (p < end && *p != ' ')
			p++;
		tl = (size_t)(p - tok);
		if (field == 0) {
			char *e;

			if (tl >= sizeof(buf))
				goto bad;
			memcpy(buf, tok, tl);
			buf[tl] = '\0';
			errno = 0;
			m->start = strtoull(buf, &e, 16);
			if (*e || errno || e == buf)
				goto bad;
		} else if (field == 1) {
			snprintf(m->policy, sizeof(m->policy), "%.*s", (int)tl, tok);
		} else if (tl == 4 && !memcmp(tok, "heap", 4)) {
			m->heap = true;
		} else if (tl == 5 && !memcmp(tok, "stack", 5)) {
			m->stack = true;
		} else if (tl == 4 && !memcmp(tok, "huge", 4)) {
			m->huge = true;
		} else if ((eq = memchr(tok, '=', tl))) {
			size_t kl = (size_t)(eq - tok), vl = tl - kl - 1;
			uint64_t v;

			if (kl == 4 && !memcmp(tok, "file", 4)) {
				free(m->file);
				m->file = decode_path(eq + 1, vl);
			} else if (tok[0] == 'N' && kl > 1 && isdigit((unsigned char)tok[1])) {
				int node = 0;
				size_t i;

				for (i = 1; i < kl; i++) {
					if (!isdigit((unsigned char)tok[i]) || node > NODE_MAX)
						goto bad;
					node = node * 10 + (tok[i] - '0');
				}
				if (node >= NODE_MAX || parse_u64(eq + 1, vl, &v))
					goto bad;
				set_node(m, node, v);
			} else if (!parse_u64(eq + 1, vl, &v)) {
				if (kl == 4 && !memcmp(tok, "anon", 4))
					m->anon = v;
				else if (kl == 5 && !memcmp(tok, "dirty", 5))
					m->dirty = v;
				else if (kl == 6 && !memcmp(tok, "mapped", 6))
					m->mapped = v;
				else if (kl == 17 && !memcmp(tok, "kernelpagesize_kB", 17))
					m->page_size = v * 1024;
			} /* other keys (mapmax, active, swapcache, writeback...) are not used */
		} /* unknown bare words are new kernel markers: ignored */
		field++;
	}
	if (field < 2)
		goto bad;
	return 0;
bad:
	free(m->file);
	free(m->node_pages);
	memset(m, 0, sizeof(*m));
	return vp_err_set(err, VP_EPARSE, "numa_maps line %d: cannot parse '%.*s'", lineno,
			  (int)(len > 80 ? 80 : len), line);
}

int numa_maps_parse(const char *text, struct numa_maps *out, struct vp_err *err)
{
	const char *p = text, *nl;
	int lineno = 0, ret = 0;

	memset(out, 0, sizeof(*out));
	while (*p) {
		size_t len;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (len) {
			VP_GROW(out->maps, out->cap, out->n + 1);
			ret = parse_line(p, len, &out->maps[out->n], lineno, err);
			if (ret) {
				numa_maps_release(out);
				return ret;
			}
			if (out->maps[out->n].n_nodes > out->n_nodes)
				out->n_nodes = out->maps[out->n].n_nodes;
			out->n++;
		}
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

void numa_maps_join_ranges(struct numa_maps *m, const char *maps_text)
{
	const char *p = maps_text;
	size_t i = 0;

	/* both files list the same mappings in ascending order */
	while (p && *p) {
		unsigned long long s, e;
		char perms[5] = "";

		/* a range that ends where or before it starts is not a mapping: its
		 * length would wrap to the size of the address space (fuzz_numa_maps) */
		if (sscanf(p, "%llx-%llx %4s", &s, &e, perms) == 3 && e > s) {
			while (i < m->n && m->maps[i].start < s)
				i++;
			if (i < m->n && m->maps[i].start == s) {
				m->maps[i].end = e;
				memcpy(m->maps[i].perms, perms, sizeof(perms));
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

int numa_maps_read(const char *root, int pid, struct numa_maps *out, struct vp_err *err)
{
	char path[64], *text = NULL;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/numa_maps", pid);
	ret = vp_read_file(root, path, &text, NULL, err);
	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	ret = numa_maps_parse(text, out, err);
	free(text);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!vp_read_file(root, path, &text, NULL, NULL)) {
		numa_maps_join_ranges(out, text);
		free(text);
	}
	return 0;
}

uint64_t numa_map_node_bytes(const struct numa_map *m, int node)
{
	if (node < 0 || node >= m->n_nodes)
		return 0;
	return m->node_pages[node] * (m->page_size ? m->page_size : 4096);
}

static bool is_backend_file(const char *f)
{
	return !strncmp(f, "/memfd:", 7) || !strncmp(f, "/dev/shm/", 9) ||
	       !strncmp(f, "/dev/hugepages", 14) || !strncmp(f, "/hugetlbfs", 10) ||
	       !strncmp(f, "/SYSV", 5) || strstr(f, "/qemu_back_mem") != NULL;
}

bool numa_map_is_guest_ram(const struct numa_map *m, uint64_t min_bytes)
{
	if (!m->end || m->end - m->start < min_bytes)
		return false;
	if (m->perms[0] != 'r' || m->perms[1] != 'w' || m->perms[2] == 'x')
		return false;
	if (m->heap || m->stack)
		return false;
	return !m->file || m->huge || is_backend_file(m->file);
}
