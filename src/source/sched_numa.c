/* sched_numa.c - a thread's NUMA hinting faults per node, from /proc/PID/task/TID/sched */
#include "source/sched_numa.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MAX_NUMNODES is at most 1 << CONFIG_NODES_SHIFT = 1024 */
#define SCHED_NUMA_MAX_NODES 1024

void sched_numa_release(struct sched_numa *s)
{
	free(s->faults);
	s->faults = NULL;
	s->n_nodes = 0;
}

/* "key=<unsigned decimal>" at *p: the value, and *p past it; false when it is not. */
static bool key_num(const char **p, const char *key, unsigned long long *val)
{
	size_t k = strlen(key);
	char *end;

	if (strncmp(*p, key, k) || (*p)[k] != '=' || !isdigit((unsigned char)(*p)[k + 1]))
		return false;
	errno = 0;
	*val = strtoull(*p + k + 1, &end, 10);
	if (errno || (*end && !isspace((unsigned char)*end)))
		return false;
	*p = end;
	return true;
}

/* One "numa_faults node=N task_private=A task_shared=B ..." line (without its newline). */
static int parse_faults(const char *line, struct sched_numa *out, bool *seen)
{
	const char *p = line + strlen("numa_faults");
	unsigned long long node = 0, priv = 0, shared = 0, v;
	bool have_node = false, have_priv = false, have_shared = false;

	while (*p && *p != '\n') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		if (key_num(&p, "node", &v)) {
			have_node = true;
			node = v;
		} else if (key_num(&p, "task_private", &v)) {
			have_priv = true;
			priv = v;
		} else if (key_num(&p, "task_shared", &v)) {
			have_shared = true;
			shared = v;
		} else {
			/* group_* and whatever a later kernel adds; but "key=" with no number is malformed */
			const char *eq = NULL;

			while (*p && !isspace((unsigned char)*p)) {
				if (*p == '=' && !eq)
					eq = p;
				p++;
			}
			if (!eq || eq[1] == '\0' || isspace((unsigned char)eq[1]))
				return -1;
		}
	}
	if (!have_node || !have_priv || !have_shared || node >= SCHED_NUMA_MAX_NODES)
		return -1;
	if (seen[node])
		return -2;
	seen[node] = true;
	if ((int)node >= out->n_nodes) {
		out->faults = xrealloc(out->faults, (node + 1) * sizeof(*out->faults));
		memset(out->faults + out->n_nodes, 0,
		       (node + 1 - (size_t)out->n_nodes) * sizeof(*out->faults));
		out->n_nodes = (int)node + 1;
	}
	out->faults[node] = (double)priv + (double)shared;
	out->total += out->faults[node];
	return 0;
}

int sched_numa_parse(const char *text, struct sched_numa *out, struct vp_err *err)
{
	bool *seen = xcalloc(SCHED_NUMA_MAX_NODES, sizeof(*seen));
	const char *line = text;
	int lineno = 0, ret = 0;

	memset(out, 0, sizeof(*out));
	out->current_node = -1;
	out->preferred_nid = -1;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		int r, a;

		lineno++;
		if (!strncmp(line, "numa_faults ", 12)) {
			r = parse_faults(line, out, seen);
			if (r) {
				ret = vp_err_set(err, VP_EPARSE, "sched line %d: %s '%.*s'", lineno,
						 r == -2 ? "second line for the node" : "cannot parse",
						 len > 120 ? 120 : len, line);
				goto out;
			}
		} else if (!strncmp(line, "numa_preferred_nid", 18) &&
			   (line[18] == ' ' || line[18] == '\t' || line[18] == ':')) {
			const char *c = memchr(line, ':', (size_t)len);

			if (c && sscanf(c + 1, "%d", &a) == 1 && a >= 0)
				out->preferred_nid = a;
		} else if (!strncmp(line, "current_node=", 13)) {
			if (sscanf(line + 13, "%d", &a) == 1 && a >= 0)
				out->current_node = a;
		}
		line = nl ? nl + 1 : NULL;
	}
out:
	free(seen);
	return ret;
}

/* Why a thread has no hinting faults: the sysctl says whether balancing runs at all. */
static int why_none(const char *root, const struct sched_numa *s, struct vp_err *err)
{
	int on;
	struct vp_err e;

	if (vp_exists(root, "/proc/sys/kernel/numa_balancing"))
		return vp_err_set(err, VP_EUNSUPP,
				  "the kernel has no NUMA balancing (no /proc/sys/kernel/numa_balancing)");
	if (!vp_read_int(root, "/proc/sys/kernel/numa_balancing", &on, &e) && on == 0)
		return vp_err_set(err, VP_EUNSUPP,
				  "NUMA balancing is off (kernel.numa_balancing = 0)");
	if (!s->n_nodes)
		return vp_err_set(err, VP_EUNSUPP,
				  "no numa_faults lines in sched (kernel without CONFIG_NUMA_BALANCING)");
	return vp_err_set(err, VP_EUNSUPP, "not scanned by NUMA balancing yet (no hinting faults)");
}

int sched_numa_read(const char *root, int pid, int tid, struct sched_numa *out,
		    struct vp_err *err)
{
	char path[96], *text = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	out->current_node = -1;
	out->preferred_nid = -1;
	if (tid > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	ret = vp_read_file(root, path, &text, NULL, err);
	if (ret == -ENOENT || ret == -ESRCH)
		vp_err_set(err, ret,
			   "no '%s' (the thread is gone, or a kernel without CONFIG_SCHED_DEBUG)", path);
	if (ret)
		goto out;
	ret = sched_numa_parse(text, out, err);
	if (ret) {
		vp_err_prefix(err, "'%s'", path);
		goto out;
	}
	if (!(out->total > 0))
		ret = why_none(root, out, err);
out:
	free(text);
	return ret;
}
