/* fuzz_event_spec.c - libFuzzer harness for the event-spec parser, sysfs formats and -e list splitting */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/event.h"
#include "pmu/sysfs_pmu.h"
#include "util/alloc.h"
#include "util/fs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * One database for the whole run, read from a fixture tree with several
 * PMU families, multi-range fields and tracepoints (tests/fuzz/fuzz.sh runs
 * from the repository root).  libpfm4 sees every table, as in the unit tests.
 */
static struct pmu_db *db;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	if (pmu_db_new(&db, "tests/data/root/icx-2s", NULL) || pmu_db_count(db) == 0)
		abort();
	return 0;
}

static void check_resolve(const char *spec)
{
	struct evdesc_list l;
	struct vp_err err = { 0, "" };
	size_t i;
	int ret;

	evdesc_list_init(&l);
	ret = event_resolve(db, spec, 3, &l, &err);
	if (ret) {
		/* a failure appends nothing and always says why */
		if (l.n || ret != err.code || !err.msg[0])
			abort();
	} else {
		if (!l.n)
			abort();
		for (i = 0; i < l.n; i++)
			if (l.v[i].attr.size != sizeof(l.v[i].attr) || l.v[i].spec_index != 3 ||
			    strcmp(l.v[i].spec, spec) || !l.v[i].name || !l.v[i].pmu[0])
				abort();
	}
	evdesc_list_release(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	char **specs = NULL;
	size_t n = 0, i;
	struct pmu_field f;
	struct perf_event_attr a;

	check_resolve(s);
	if (event_split_list(s, &specs, &n, NULL) == 0) {
		for (i = 0; i < n && i < 8; i++)
			check_resolve(specs[i]);
		vp_free_names(specs, n);
	}
	/* a parsed format stores and gives back every value that fits */
	memset(&f, 0, sizeof(f));
	if (pmu_field_parse(&f, s, NULL) == 0) {
		uint64_t v = size >= 8 ? *(const uint64_t *)(const void *)data : 0x5a5a;

		if (f.bits < 64)
			v &= (1ULL << f.bits) - 1;
		memset(&a, 0, sizeof(a));
		if (pmu_field_set(&f, v, &a) || pmu_field_get(&f, &a) != v)
			abort();
	}
	free(s);
	return 0;
}
