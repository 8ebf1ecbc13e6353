/* generic.c - perf's generic event names: hardware, software and hardware-cache */
#include "pmu/generic.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"

/* Names and meanings as tools/perf/util/parse-events.c spells them. */
static const struct generic_event events[] = {
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "core clock cycles" },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "retired instructions" },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  "cache accesses (Intel: last-level cache; AMD: L2)" },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  "cache misses (Intel: last-level cache; AMD: L2)" },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "retired branch instructions" },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branches" },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus cycles" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles the front end stalled" },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles the back end stalled" },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
	  "reference cycles (constant rate)" },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "CPU clock timer (ns)" },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task clock: CPU time (ns)" },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page faults" },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches" },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
	  "migrations between CPUs" },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  "page faults served without I/O" },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  "page faults that needed I/O" },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS,
	  "alignment faults the kernel fixed" },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS,
	  "instructions the kernel emulated" },
	{ "dummy", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "counts nothing (placeholder)" },
	{ "bpf-output", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, "BPF program output" },
	{ "cgroup-switches", NULL, PERF_TYPE_SOFTWARE, 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, Linux 5.13 */,
	  "context switches to a task of another cgroup" },
};

const struct generic_event *generic_events(size_t *n)
{
	*n = VP_ARRAY_SIZE(events);
	return events;
}

/* perf's hw-cache spellings (tools/perf/util/parse-events.c, evsel.c). */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][5] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data", NULL },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction", NULL },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2", NULL },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB", NULL },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB", NULL },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node", NULL },
};
static const char *const op_names[PERF_COUNT_HW_CACHE_OP_MAX][4] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read", NULL },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write", NULL },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load" },
};
static const char *const result_names[PERF_COUNT_HW_CACHE_RESULT_MAX][4] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss", NULL, NULL },
};
/* Which operations perf lists for each cache (its hw_cache_stat table). */
static const unsigned cache_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = 7, [PERF_COUNT_HW_CACHE_L1I] = 5, [PERF_COUNT_HW_CACHE_LL] = 7,
	[PERF_COUNT_HW_CACHE_DTLB] = 7, [PERF_COUNT_HW_CACHE_ITLB] = 1, [PERF_COUNT_HW_CACHE_BPU] = 1,
	[PERF_COUNT_HW_CACHE_NODE] = 7,
};

/* Match one of names at s (a prefix of len bytes ending at '-' or the end). */
static int match_word(const char *s, size_t len, const char *const *names, int nn, size_t *used)
{
	int i;

	for (i = 0; i < nn; i++) {
		size_t m;

		if (!names[i])
			continue;
		m = strlen(names[i]);
		if (m <= len && !strncasecmp(s, names[i], m) && (m == len || s[m] == '-')) {
			*used = m;
			return i;
		}
	}
	return -1;
}

static bool cache_lookup(const char *s, size_t len, uint64_t *config)
{
	int c, op = -1, res = -1, k;
	size_t used = 0;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		if (match_word(s, len, cache_names[c], 5, &used) >= 0)
			break;
	}
	if (c == PERF_COUNT_HW_CACHE_MAX || used == len)
		return false;
	s += used + 1;
	len -= used + 1;
	for (k = 0; k < PERF_COUNT_HW_CACHE_OP_MAX && op < 0; k++)
		if (match_word(s, len, op_names[k], 4, &used) >= 0)
			op = k;
	if (op < 0) {
		/* cache-result: the operation is a load */
		for (k = 0; k < PERF_COUNT_HW_CACHE_RESULT_MAX && res < 0; k++)
			if (match_word(s, len, result_names[k], 4, &used) >= 0)
				res = k;
		if (res < 0 || used != len)
			return false;
		op = PERF_COUNT_HW_CACHE_OP_READ;
	} else if (used < len) {
		s += used + 1;
		len -= used + 1;
		for (k = 0; k < PERF_COUNT_HW_CACHE_RESULT_MAX && res < 0; k++)
			if (match_word(s, len, result_names[k], 4, &used) >= 0)
				res = k;
		if (res < 0 || used != len)
			return false;
	} else {
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	}
	*config = (uint64_t)c | ((uint64_t)op << 8) | ((uint64_t)res << 16);
	return true;
}

static bool word_eq(const char *a, const char *s, size_t len)
{
	return a && strlen(a) == len && !strncasecmp(a, s, len);
}

bool generic_lookup(const char *name, size_t len, uint32_t *type, uint64_t *config)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(events); i++) {
		if (word_eq(events[i].name, name, len) || word_eq(events[i].alias, name, len)) {
			*type = events[i].type;
			*config = events[i].config;
			return true;
		}
	}
	if (cache_lookup(name, len, config)) {
		*type = PERF_TYPE_HW_CACHE;
		return true;
	}
	return false;
}

bool generic_cache_name(size_t i, char *buf, size_t size, uint64_t *config)
{
	int c, op, res;
	size_t k = 0;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++)
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(cache_ops[c] & (1u << op)))
				continue;
			for (res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++, k++) {
				if (k != i)
					continue;
				if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
					snprintf(buf, size, "%s-%s", cache_names[c][0], op_names[op][1]);
				else
					snprintf(buf, size, "%s-%s-%s", cache_names[c][0], op_names[op][0],
						 result_names[res][0]);
				*config = (uint64_t)c | ((uint64_t)op << 8) | ((uint64_t)res << 16);
				return true;
			}
		}
	return false;
}
