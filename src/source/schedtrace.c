/* schedtrace.c - exact run time of chosen threads per CPU, from the sched:sched_switch tracepoint */
#include "source/schedtrace.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"

/* data pages per CPU (a power of two): 8 MiB over all CPUs, 64 KiB to 1 MiB each */
#define RING_TOTAL (8u << 20)
#define RING_MIN_PAGES 16
#define RING_MAX_PAGES 256

struct st_thread {
	int tid;                    /* 0: free slot */
	uint64_t watch_ns;
	bool switched_in;           /* a switch-in was seen (else it ran since watch_ns) */
	uint64_t *in_since;         /* per CPU: switched in at, 0 = not on it */
	uint64_t *run;              /* per CPU: ns ran */
};

struct st_ring {
	int cpu;
	int fd;
	void *base;                 /* the mmap: control page + data */
	size_t data_size;
};

struct schedtrace {
	int prev_off, next_off;
	int max_cpu;                /* per-CPU arrays have max_cpu + 1 entries */
	struct st_thread *th;       /* open addressing on tid, cap a power of two */
	size_t cap, n;
	struct st_ring *rings;
	size_t n_rings;
	uint64_t lost;
	unsigned char *scratch;     /* a record that wraps the ring end */
	size_t scratch_cap;
	size_t page;
};

static int field_offset(const char *text, const char *field)
{
	const char *p = text;
	size_t fl = strlen(field);

	while ((p = strstr(p, "field:")) != NULL) {
		const char *semi = strchr(p, ';'), *off;

		if (!semi)
			return -1;
		/* "field:pid_t prev_pid;" : the name ends right before ';' */
		if ((size_t)(semi - p) > fl && !strncmp(semi - fl, field, fl) &&
		    (semi[-(long)fl - 1] == ' ' || semi[-(long)fl - 1] == '\t') &&
		    (off = strstr(semi, "offset:")) != NULL)
			return atoi(off + 7);
		p = semi;
	}
	return -1;
}

int schedtrace_parse_format(const char *text, int *prev_pid_off, int *next_pid_off,
			    struct vp_err *err)
{
	*prev_pid_off = field_offset(text, "prev_pid");
	*next_pid_off = field_offset(text, "next_pid");
	if (*prev_pid_off < 0 || *next_pid_off < 0)
		return vp_err_set(err, VP_EPARSE, "sched_switch format: no '%s' field",
				  *prev_pid_off < 0 ? "prev_pid" : "next_pid");
	return 0;
}

static struct schedtrace *st_new(int prev_off, int next_off, int max_cpu)
{
	struct schedtrace *st = xcalloc(1, sizeof(*st));

	st->prev_off = prev_off;
	st->next_off = next_off;
	st->max_cpu = max_cpu;
	st->cap = 64;
	st->th = xcalloc(st->cap, sizeof(*st->th));
	st->page = (size_t)sysconf(_SC_PAGESIZE);
	return st;
}

struct schedtrace *schedtrace_new_offline(int prev_pid_off, int next_pid_off, int max_cpu)
{
	return st_new(prev_pid_off, next_pid_off, max_cpu);
}

static struct st_thread *slot(struct st_thread *th, size_t cap, int tid)
{
	size_t i = ((unsigned)tid * 2654435761u) & (cap - 1);

	while (th[i].tid && th[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &th[i];
}

static struct st_thread *find(const struct schedtrace *st, int tid)
{
	struct st_thread *t;

	if (tid <= 0)
		return NULL;
	t = slot(st->th, st->cap, tid);
	return t->tid ? t : NULL;
}

void schedtrace_watch(struct schedtrace *st, int tid, uint64_t now_ns, int running_cpu)
{
	struct st_thread *t;
	size_t i;

	if (tid <= 0 || find(st, tid))
		return;
	if ((st->n + 1) * 2 > st->cap) {   /* keep the table at most half full */
		size_t ncap = st->cap * 2;
		struct st_thread *nt = xcalloc(ncap, sizeof(*nt));

		for (i = 0; i < st->cap; i++)
			if (st->th[i].tid)
				*slot(nt, ncap, st->th[i].tid) = st->th[i];
		free(st->th);
		st->th = nt;
		st->cap = ncap;
	}
	t = slot(st->th, st->cap, tid);
	t->tid = tid;
	t->watch_ns = now_ns;
	t->in_since = xcalloc((size_t)st->max_cpu + 1, sizeof(uint64_t));
	t->run = xcalloc((size_t)st->max_cpu + 1, sizeof(uint64_t));
	if (running_cpu >= 0 && running_cpu <= st->max_cpu) {
		t->in_since[running_cpu] = now_ns;
		t->switched_in = true;
	}
	st->n++;
}

static int32_t raw_pid(const unsigned char *raw, size_t len, int off)
{
	int32_t v;

	if (off < 0 || (size_t)off + sizeof(v) > len)
		return -1;
	memcpy(&v, raw + off, sizeof(v));
	return v;
}

void schedtrace_feed(struct schedtrace *st, int cpu, uint64_t t_ns, const void *raw, size_t len)
{
	int prev = raw_pid(raw, len, st->prev_off), next = raw_pid(raw, len, st->next_off);
	struct st_thread *t;

	if (cpu < 0 || cpu > st->max_cpu)
		return;
	if ((t = find(st, prev)) != NULL) {
		uint64_t since = t->in_since[cpu];

		if (since && t_ns >= since)
			t->run[cpu] += t_ns - since;
		else if (since)        /* a poll charged it up to past this switch: take it back */
			t->run[cpu] -= since - t_ns < t->run[cpu] ? since - t_ns : t->run[cpu];
		else if (!t->switched_in && t_ns > t->watch_ns)
			t->run[cpu] += t_ns - t->watch_ns; /* it was running when watched */
		t->in_since[cpu] = 0;
		t->switched_in = true;
	}
	if ((t = find(st, next)) != NULL) {
		t->in_since[cpu] = t_ns ? t_ns : 1;
		t->switched_in = true;
	}
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int read_id(const char *root, int *id, int *prev_off, int *next_off, struct vp_err *err)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *idp = xasprintf("%s/events/sched/sched_switch/id", dirs[i]);
		char *fmtp = xasprintf("%s/events/sched/sched_switch/format", dirs[i]);
		char *text = NULL;
		int ret = vp_read_file(root, idp, &text, NULL, NULL);

		if (!ret) {
			*id = atoi(text);
			free(text);
			ret = vp_read_file(root, fmtp, &text, NULL, err);
			if (!ret) {
				ret = schedtrace_parse_format(text, prev_off, next_off, err);
				free(text);
			}
		}
		free(idp);
		free(fmtp);
		if (ret != -ENOENT)
			return ret;
	}
	return vp_err_set(err, VP_EUNSUPP, "no tracepoint sched:sched_switch (tracefs is not "
			  "mounted at /sys/kernel/tracing)");
}

int schedtrace_open(struct schedtrace **out, const char *root, const int *cpus, size_t n_cpus,
		    struct vp_err *err)
{
	struct schedtrace *st;
	int id = 0, prev_off = 0, next_off = 0, max_cpu = 0, ret;
	size_t i, pages;

	*out = NULL;
	if ((ret = read_id(root, &id, &prev_off, &next_off, err)))
		return ret;
	for (i = 0; i < n_cpus; i++)
		if (cpus[i] > max_cpu)
			max_cpu = cpus[i];
	st = st_new(prev_off, next_off, max_cpu);
	st->rings = xcalloc(n_cpus + 1, sizeof(*st->rings));
	pages = RING_MAX_PAGES;
	while (pages > RING_MIN_PAGES && pages * st->page * (n_cpus ? n_cpus : 1) > RING_TOTAL)
		pages /= 2;
	for (i = 0; i < n_cpus; i++) {
		struct perf_event_attr attr;
		struct st_ring *r = &st->rings[st->n_rings];

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = (uint64_t)id;
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				   PERF_SAMPLE_RAW;
		attr.use_clockid = 1;
		attr.clockid = CLOCK_MONOTONIC;
		attr.wakeup_events = 1;
		r->cpu = cpus[i];
		r->fd = (int)sys_perf_event_open(&attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			ret = vp_err_errno(err, errno, "cannot trace sched:sched_switch on CPU %d",
					   cpus[i]);
			goto fail;
		}
		r->data_size = pages * st->page;
		r->base = mmap(NULL, st->page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			       r->fd, 0);
		if (r->base == MAP_FAILED) {
			ret = vp_err_errno(err, errno, "cannot map the trace buffer of CPU %d",
					   cpus[i]);
			close(r->fd);
			goto fail;
		}
		st->n_rings++;
	}
	*out = st;
	return 0;
fail:
	schedtrace_free(st);
	return ret;
}

void schedtrace_free(struct schedtrace *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->n_rings; i++) {
		munmap(st->rings[i].base, st->page + st->rings[i].data_size);
		close(st->rings[i].fd);
	}
	for (i = 0; i < st->cap; i++) {
		free(st->th[i].in_since);
		free(st->th[i].run);
	}
	free(st->th);
	free(st->rings);
	free(st->scratch);
	free(st);
}

/* One record of the ring, copied out when it wraps the end. */
static const unsigned char *ring_record(struct schedtrace *st, const struct st_ring *r,
					uint64_t pos, size_t size)
{
	const unsigned char *data = (const unsigned char *)r->base + st->page;
	size_t off = (size_t)(pos & (r->data_size - 1)), first;

	if (off + size <= r->data_size)
		return data + off;
	if (size > st->scratch_cap) {
		st->scratch = xrealloc(st->scratch, size);
		st->scratch_cap = size;
	}
	first = r->data_size - off;
	memcpy(st->scratch, data + off, first);
	memcpy(st->scratch + first, data, size - first);
	return st->scratch;
}

static void drain(struct schedtrace *st, struct st_ring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		const unsigned char *rec;

		memcpy(&h, ring_record(st, r, tail, sizeof(h)), sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		rec = ring_record(st, r, tail, h.size);
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 8 + 8 + 8 + 4) {
			/* TID: pid, tid (u32 each); TIME: u64; CPU: cpu, res (u32 each); RAW: u32 size, data */
			const unsigned char *p = rec + sizeof(h);
			uint64_t t;
			uint32_t cpu, rsize;

			memcpy(&t, p + 8, 8);
			memcpy(&cpu, p + 16, 4);
			memcpy(&rsize, p + 24, 4);
			if (28 + sizeof(h) + rsize <= h.size)
				schedtrace_feed(st, (int)cpu, t, p + 28, rsize);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t lost;

			memcpy(&lost, rec + sizeof(h) + 8, 8);
			st->lost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

int schedtrace_poll(struct schedtrace *st, uint64_t now_ns, struct vp_err *err)
{
	size_t i;
	int c;

	(void)err;
	for (i = 0; i < st->n_rings; i++)
		drain(st, &st->rings[i]);
	for (i = 0; i < st->cap; i++) {
		struct st_thread *t = &st->th[i];

		if (!t->tid)
			continue;
		for (c = 0; c <= st->max_cpu; c++)
			if (t->in_since[c] && now_ns > t->in_since[c]) {
				t->run[c] += now_ns - t->in_since[c];
				t->in_since[c] = now_ns;
			}
	}
	return 0;
}

bool schedtrace_run_ns(const struct schedtrace *st, int tid, const uint64_t **per_cpu, size_t *n)
{
	const struct st_thread *t = find(st, tid);

	if (!t)
		return false;
	*per_cpu = t->run;
	*n = (size_t)st->max_cpu + 1;
	return true;
}

uint64_t schedtrace_lost(const struct schedtrace *st)
{
	return st->lost;
}
