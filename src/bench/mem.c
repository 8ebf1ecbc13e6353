/* mem.c - benchmark buffers bound to a node, huge pages, where pages landed, thread pinning */
#include "bench/bench.h"

#include <errno.h>
#include <inttypes.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"

int bench_buf_alloc(struct bench_buf *b, size_t len, int node, bool huge, struct vp_err *err)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), i;
	void *p;

	memset(b, 0, sizeof(*b));
	b->node = -1;
	len = (len + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1); /* whole huge pages */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return vp_err_errno(err, errno, "cannot map %zu MiB for a benchmark buffer", len >> 20);
	if (node >= 0) {
		unsigned long mask[16] = { 0 };

		if (node >= (int)(sizeof(mask) * 8)) {
			munmap(p, len);
			return vp_err_set(err, VP_ERANGE, "node %d is beyond what the benchmark binds", node);
		}
		mask[node / (8 * sizeof(long))] |= 1ul << (node % (8 * sizeof(long)));
		if (mbind(p, len, MPOL_BIND, mask, sizeof(mask) * 8, 0)) {
			int e = errno;

			munmap(p, len);
			return vp_err_errno(err, e, "cannot bind memory to node %d (mbind)", node);
		}
		b->node = node;
	}
#ifdef MADV_HUGEPAGE
	if (huge && !madvise(p, len, MADV_HUGEPAGE))
		b->huge_advised = true;
#else
	(void)huge;
#endif
	for (i = 0; i < len; i += pg)   /* fault in now, under the binding */
		((volatile char *)p)[i] = 1;
	b->p = p;
	b->len = len;
	return 0;
}

void bench_buf_free(struct bench_buf *b)
{
	if (b && b->p)
		munmap(b->p, b->len);
	if (b)
		memset(b, 0, sizeof(*b));
}

int bench_buf_where(const struct bench_buf *b, int *per_node, int max_node, int *sampled,
		    struct vp_err *err)
{
	enum { NSAMPLE = 512 };
	void *pages[NSAMPLE];
	int status[NSAMPLE], i, n = 0;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), npages = b->len / pg, step;

	memset(per_node, 0, sizeof(int) * (size_t)(max_node + 1));
	*sampled = 0;
	if (!npages)
		return 0;
	step = npages / NSAMPLE ? npages / NSAMPLE : 1;
	for (i = 0; i < NSAMPLE && (size_t)i * step < npages; i++)
		pages[n++] = (char *)b->p + (size_t)i * step * pg;
	if (move_pages(0, (unsigned long)n, pages, NULL, status, 0))
		return vp_err_errno(err, errno, "cannot ask where the pages are (move_pages)");
	for (i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] <= max_node)
			per_node[status[i]]++;
	*sampled = n;
	return 0;
}

long long bench_buf_huge_bytes(const struct bench_buf *b)
{
	char *text = NULL, *line, *save = NULL;
	long long kb = -1;
	bool in = false;
	uintptr_t start = (uintptr_t)b->p;

	if (vp_read_file("/", "/proc/self/smaps", &text, NULL, NULL))
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uintptr_t lo, hi;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = lo <= start && start < hi;
			continue;
		}
		if (in && !strncmp(line, "AnonHugePages:", 14)) {
			kb = (kb < 0 ? 0 : kb) + atoll(line + 14);
			in = false;
		}
	}
	free(text);
	return kb < 0 ? -1 : kb * 1024;
}

void bench_buf_describe(const struct bench_buf *b, char *out, size_t size)
{
	int per[64], sampled = 0, i, len;
	long long huge = bench_buf_huge_bytes(b);

	len = snprintf(out, size, "%zu MiB ", b->len >> 20);
	if (b->node >= 0)
		len += snprintf(out + len, size - (size_t)len, "bound to node %d (mbind MPOL_BIND)",
				b->node);
	else
		len += snprintf(out + len, size - (size_t)len, "under the default policy");
	if (!bench_buf_where(b, per, 63, &sampled, NULL) && sampled) {
		len += snprintf(out + len, size - (size_t)len, ", sampled pages:");
		for (i = 0; i < 64 && len < (int)size; i++)
			if (per[i])
				len += snprintf(out + len, size - (size_t)len, " %d/%d on node %d",
						per[i], sampled, i);
	}
	if (len < (int)size) {
		if (huge >= 0)
			snprintf(out + len, size - (size_t)len, ", %lld MiB in huge pages%s",
				 huge >> 20, b->huge_advised ? "" : " (not advised)");
		else
			snprintf(out + len, size - (size_t)len, ", huge pages unknown");
	}
}

int bench_bind_self(int cpu, struct vp_err *err)
{
	cpu_set_t set;
	int e;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	e = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (e)
		return vp_err_errno(err, e, "cannot bind a thread to CPU %d", cpu);
	return 0;
}
