/* schedtrace.c - exact run time of chosen threads per CPU, from the kernel's context-switch records */
#include "source/schedtrace.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"

/* data pages per CPU (a power of two): 8 MiB over all CPUs, 64 KiB to 1 MiB each */
#define RING_TOTAL (8u << 20)
#define RING_MIN_PAGES 16
#define RING_MAX_PAGES 256

struct st_thread {
	int tid;                    /* 0: free slot */
	int watchers;               /* schedtrace_watch() calls not yet undone */
	uint64_t watch_ns;
	bool switched_in;           /* a switch-in was seen (else it ran since watch_ns) */
	uint64_t *in_since;         /* per CPU: switched in at, 0 = not on it */
	uint64_t *run;              /* per CPU: ns ran */
	int last_cpu;               /* where it last ran, in time order; -1 unknown */
	int cur_cpu;                /* the CPU of its latest switch-in read so far, -1 unknown */
	uint64_t cur_ns;            /* that switch-in's time (0: the watch's or last_cpu's) */
	uint64_t node_moves;        /* switch-ins on another node than last_cpu's */
};

/* A watched thread's switch-in, kept until its turn in time order comes. */
struct st_in {
	uint64_t t_ns;
	int tid;
	int cpu;
};

struct st_ring {
	int cpu;
	int fd;
	void *base;                 /* the mmap: control page + data */
	size_t data_size;
};

struct schedtrace {
	int refs;                   /* holders: schedtrace_ref() adds one, schedtrace_free() drops one */
	int max_cpu;                /* per-CPU arrays have max_cpu + 1 entries */
	struct st_thread *th;       /* open addressing on tid, cap a power of two */
	size_t cap, n;
	struct st_ring *rings;
	size_t n_rings;
	uint64_t lost;
	unsigned char *scratch;     /* a record that wraps the ring end */
	size_t scratch_cap;
	size_t page;
	int *node_of;               /* per CPU: its NUMA node, -1 unknown; NULL: no node moves */
	int *pids;                  /* processes whose every thread is watched when first seen */
	size_t n_pids;
	struct st_in *ins;          /* switch-ins not yet taken in time order */
	size_t n_ins, cap_ins;
};

static struct schedtrace *st_new(int max_cpu)
{
	struct schedtrace *st = xcalloc(1, sizeof(*st));

	st->refs = 1;
	st->max_cpu = max_cpu;
	st->cap = 64;
	st->th = xcalloc(st->cap, sizeof(*st->th));
	st->page = (size_t)sysconf(_SC_PAGESIZE);
	return st;
}

struct schedtrace *schedtrace_new_offline(int max_cpu)
{
	return st_new(max_cpu);
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

/* Re-hash the table into ncap slots (a power of two), leaving out the free ones. */
static void rehash(struct schedtrace *st, size_t ncap)
{
	struct st_thread *nt = xcalloc(ncap, sizeof(*nt));
	size_t i;

	for (i = 0; i < st->cap; i++)
		if (st->th[i].tid)
			*slot(nt, ncap, st->th[i].tid) = st->th[i];
	free(st->th);
	st->th = nt;
	st->cap = ncap;
}

void schedtrace_watch(struct schedtrace *st, int tid, uint64_t now_ns, int running_cpu)
{
	struct st_thread *t;

	if (tid <= 0)
		return;
	t = find(st, tid);
	if (t) {
		t->watchers++;
		return;
	}
	if ((st->n + 1) * 2 > st->cap)   /* keep the table at most half full */
		rehash(st, st->cap * 2);
	t = slot(st->th, st->cap, tid);
	t->tid = tid;
	t->watchers = 1;
	t->watch_ns = now_ns;
	t->last_cpu = running_cpu >= 0 && running_cpu <= st->max_cpu ? running_cpu : -1;
	t->cur_cpu = t->last_cpu;
	t->cur_ns = 0;
	t->in_since = xcalloc((size_t)st->max_cpu + 1, sizeof(uint64_t));
	t->run = xcalloc((size_t)st->max_cpu + 1, sizeof(uint64_t));
	if (running_cpu >= 0 && running_cpu <= st->max_cpu) {
		t->in_since[running_cpu] = now_ns;
		t->switched_in = true;
	}
	st->n++;
}

void schedtrace_unwatch(struct schedtrace *st, int tid)
{
	struct st_thread *t = find(st, tid);

	if (!t || --t->watchers > 0)
		return;
	free(t->in_since);
	free(t->run);
	memset(t, 0, sizeof(*t));
	st->n--;
	rehash(st, st->cap); /* open addressing: the probe chains through the slot close up */
}

/* tid left cpu at t_ns */
static void switch_out(struct schedtrace *st, int cpu, uint64_t t_ns, int tid)
{
	struct st_thread *t = find(st, tid);
	uint64_t since;

	if (!t)
		return;
	since = t->in_since[cpu];
	if (since && t_ns >= since)
		t->run[cpu] += t_ns - since;
	else if (since)        /* a poll charged it up to past this switch: take it back */
		t->run[cpu] -= since - t_ns < t->run[cpu] ? since - t_ns : t->run[cpu];
	else if (!t->switched_in && t_ns > t->watch_ns)
		t->run[cpu] += t_ns - t->watch_ns; /* it was running when watched */
	t->in_since[cpu] = 0;
	t->switched_in = true;
}

/* tid came onto cpu at t_ns */
static void switch_in(struct schedtrace *st, int cpu, uint64_t t_ns, int tid)
{
	struct st_thread *t = find(st, tid);

	if (!t)
		return;
	t->in_since[cpu] = t_ns ? t_ns : 1;
	t->switched_in = true;
	/* the rings are read one CPU after another: the latest switch-in by time wins */
	if (t->cur_cpu < 0 || t_ns >= t->cur_ns) {
		t->cur_cpu = cpu;
		t->cur_ns = t_ns;
	}
	if (st->node_of) {
		/*
		 * rings are read one CPU after the other: the moves between
		 * CPUs are counted at the poll, in time order
		 */
		VP_GROW(st->ins, st->cap_ins, st->n_ins + 1);
		st->ins[st->n_ins].t_ns = t_ns;
		st->ins[st->n_ins].tid = tid;
		st->ins[st->n_ins].cpu = cpu;
		st->n_ins++;
	}
}

static int in_cmp(const void *a, const void *b)
{
	const struct st_in *x = a, *y = b;

	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/*
 * Take the switch-ins up to until_ns in time order: a thread that comes
 * onto a CPU of another node than where it last ran moved between nodes.
 * Later ones wait: another CPU's ring may still hold earlier records.
 */
static void count_node_moves(struct schedtrace *st, uint64_t until_ns)
{
	size_t i, k = 0;

	if (!st->n_ins)
		return;  /* ins may be NULL: qsort() must not see it */
	qsort(st->ins, st->n_ins, sizeof(*st->ins), in_cmp);
	for (i = 0; i < st->n_ins && st->ins[i].t_ns <= until_ns; i++) {
		struct st_thread *t = find(st, st->ins[i].tid);
		int cpu = st->ins[i].cpu;

		if (!t)
			continue;
		if (t->last_cpu >= 0 && st->node_of[t->last_cpu] >= 0 && st->node_of[cpu] >= 0 &&
		    st->node_of[t->last_cpu] != st->node_of[cpu])
			t->node_moves++;
		t->last_cpu = cpu;
	}
	for (; i < st->n_ins; i++)
		st->ins[k++] = st->ins[i];
	st->n_ins = k;
}

void schedtrace_set_nodes(struct schedtrace *st, const int *node_of_cpu, size_t n)
{
	int c;

	free(st->node_of);
	st->node_of = xcalloc((size_t)st->max_cpu + 1, sizeof(int));
	for (c = 0; c <= st->max_cpu; c++)
		st->node_of[c] = (size_t)c < n ? node_of_cpu[c] : -1;
}

void schedtrace_watch_process(struct schedtrace *st, int pid)
{
	size_t k;

	for (k = 0; k < st->n_pids; k++)
		if (st->pids[k] == pid)
			return;
	st->pids = xrealloc(st->pids, (st->n_pids + 1) * sizeof(int));
	st->pids[st->n_pids++] = pid;
}

uint64_t schedtrace_node_moves_total(const struct schedtrace *st)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < st->cap; i++)
		if (st->th[i].tid)
			sum += st->th[i].node_moves;
	return sum;
}

void schedtrace_last_cpu(struct schedtrace *st, int tid, int cpu)
{
	struct st_thread *t = find(st, tid);

	if (t && t->last_cpu < 0 && cpu >= 0 && cpu <= st->max_cpu)
		t->last_cpu = cpu;
	if (t && t->cur_cpu < 0 && cpu >= 0 && cpu <= st->max_cpu)
		t->cur_cpu = cpu;
}

int schedtrace_cpu(const struct schedtrace *st, int tid)
{
	const struct st_thread *t = find(st, tid);

	return t && !st->lost ? t->cur_cpu : -1;
}

bool schedtrace_node_moves(const struct schedtrace *st, int tid, uint64_t *moves)
{
	const struct st_thread *t = find(st, tid);

	if (!t || !st->node_of)
		return false;
	*moves = t->node_moves;
	return true;
}

void schedtrace_switch(struct schedtrace *st, int cpu, uint64_t t_ns, int prev_tid, int next_tid)
{
	if (cpu < 0 || cpu > st->max_cpu)
		return;
	switch_out(st, cpu, t_ns, prev_tid);
	switch_in(st, cpu, t_ns, next_tid);
}

/*
 * PERF_RECORD_SWITCH_CPU_WIDE: the other task's pid and tid, then the
 * sample_id of sample_type TID|TIME|CPU (pid, tid, time, cpu, res) naming
 * the task the record is about: the one leaving (misc has
 * PERF_RECORD_MISC_SWITCH_OUT) or the one arriving.  PERF_RECORD_LOST: id
 * and the number of records dropped.
 */
void schedtrace_feed_record(struct schedtrace *st, const void *rec, size_t len)
{
	const unsigned char *p = rec;
	struct perf_event_header h;

	if (len < sizeof(h))
		return;
	memcpy(&h, p, sizeof(h));
	if (h.size > len)
		return;
	if (h.type == PERF_RECORD_SWITCH_CPU_WIDE && h.size >= sizeof(h) + 8 + 8 + 8 + 8) {
		const unsigned char *id = p + sizeof(h) + 8;
		uint32_t tid, cpu;
		uint64_t t;

		memcpy(&tid, id + 4, 4);
		memcpy(&t, id + 8, 8);
		memcpy(&cpu, id + 16, 4);
		if (cpu > (uint32_t)st->max_cpu || (int32_t)tid <= 0)
			return;
		if (st->n_pids && !find(st, (int)tid)) {
			uint32_t pid;
			size_t k;

			memcpy(&pid, id, 4);
			for (k = 0; k < st->n_pids; k++)
				if ((uint32_t)st->pids[k] == pid)
					schedtrace_watch(st, (int)tid, t, -1);
		}
		if (h.misc & PERF_RECORD_MISC_SWITCH_OUT)
			switch_out(st, (int)cpu, t, (int)tid);
		else
			switch_in(st, (int)cpu, t, (int)tid);
	} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
		uint64_t lost;

		memcpy(&lost, p + sizeof(h) + 8, 8);
		st->lost += lost;
	}
}

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int schedtrace_open(struct schedtrace **out, const char *root, const int *cpus, size_t n_cpus,
		    struct vp_err *err)
{
	struct schedtrace *st;
	int max_cpu = 0, ret;
	size_t i, pages;

	*out = NULL;
	if (root && strcmp(root, "/"))
		return vp_err_set(err, VP_EUNSUPP, "exact residency needs the live machine, not the "
				  "tree under '%s'", root);
	for (i = 0; i < n_cpus; i++)
		if (cpus[i] > max_cpu)
			max_cpu = cpus[i];
	st = st_new(max_cpu);
	st->rings = xcalloc(n_cpus + 1, sizeof(*st->rings));
	pages = RING_MAX_PAGES;
	while (pages > RING_MIN_PAGES && pages * st->page * (n_cpus ? n_cpus : 1) > RING_TOTAL)
		pages /= 2;
	for (i = 0; i < n_cpus; i++) {
		struct perf_event_attr attr;
		struct st_ring *r = &st->rings[st->n_rings];

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_DUMMY;
		attr.context_switch = 1;
		attr.sample_id_all = 1;
		attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		attr.use_clockid = 1;
		attr.clockid = CLOCK_MONOTONIC;
		r->cpu = cpus[i];
		r->fd = (int)sys_perf_event_open(&attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			ret = vp_err_errno(err, errno, "cannot record context switches on CPU %d",
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

struct schedtrace *schedtrace_ref(struct schedtrace *st)
{
	if (st)
		st->refs++;
	return st;
}

void schedtrace_free(struct schedtrace *st)
{
	size_t i;

	if (!st || --st->refs > 0)
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
	free(st->node_of);
	free(st->ins);
	free(st->pids);
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

		memcpy(&h, ring_record(st, r, tail, sizeof(h)), sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		schedtrace_feed_record(st, ring_record(st, r, tail, h.size), h.size);
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
	if (st->node_of)
		count_node_moves(st, now_ns);
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
