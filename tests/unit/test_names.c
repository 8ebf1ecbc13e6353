/* test_names.c - names read from outside are held whole: a PMU directory name of any length sysfs allows */
#include "test.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/platform.h"
#include "pmu/event.h"
#include "util/alloc.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/*
 * A PMU whose directory name is NAME_MAX bytes (the longest a directory
 * entry can be): its name and family are kept whole by the probe and the
 * event database, and an event on it resolves to it by that name (a 64-byte
 * field cut it, and the cut name was then looked up).
 */
TEST(pmu_name_of_name_max_bytes_is_held_whole)
{
	char dir[] = "/tmp/vp-test-names-XXXXXX";
	char name[NAME_MAX + 1], family[NAME_MAX + 1], *pmu, *spec, *p;
	const char *parts[] = { "/sys", "/sys/bus", "/sys/bus/event_source",
				"/sys/bus/event_source/devices" };
	struct platform plat;
	struct pmu_db *db = NULL;
	struct evdesc_list l = { 0 };
	struct vp_err err = { 0, "" };
	size_t i;
	bool seen = false;

	if (!mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	/* "uncore_xxx...x_3": family "uncore_xxx...x", instance 3 */
	memset(name, 'x', NAME_MAX);
	memcpy(name, "uncore_", 7);
	memcpy(name + NAME_MAX - 2, "_3", 2);
	name[NAME_MAX] = '\0';
	snprintf(family, sizeof(family), "%.*s", NAME_MAX - 2, name);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		p = xasprintf("%s%s", dir, parts[i]);
		mkdir(p, 0755);
		free(p);
	}
	pmu = xasprintf("%s/sys/bus/event_source/devices/%s", dir, name);
	CHECK(mkdir(pmu, 0755) == 0);
	p = xasprintf("%s/type", pmu);
	put(p, "42\n");
	free(p);
	p = xasprintf("%s/format", pmu);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/format/event", pmu);
	put(p, "config:0-7\n");
	free(p);

	CHECK_INT(platform_probe(&plat, dir, &err), 0);
	for (i = 0; i < (size_t)plat.n_pmus; i++) {
		if (strcmp(plat.pmus[i].name, name))
			continue;
		seen = true;
		CHECK_INT((int)strlen(plat.pmus[i].name), NAME_MAX);
		CHECK_STR(plat.pmus[i].family, family);
		CHECK_INT(plat.pmus[i].type, 42);
	}
	CHECK(seen);
	platform_release(&plat);

	CHECK_INT(pmu_db_new(&db, dir, &err), 0);
	spec = xasprintf("%s/event=0x5/", name);
	if (db) {
		int rc = event_resolve(db, spec, 0, &l, &err);

		CHECK_AT(__LINE__, rc == 0, "event_resolve: %d %s", rc, err.msg);
		CHECK_INT((int)l.n, 1);
		if (l.n == 1) {
			CHECK_STR(l.v[0].pmu, name);
			CHECK_INT((int)l.v[0].attr.type, 42);
			CHECK_U64(l.v[0].attr.config, 5);
		}
		evdesc_list_release(&l);
		pmu_db_free(db);
	}
	free(spec);
	p = xasprintf("rm -rf '%s'", dir);
	CHECK_INT(system(p), 0);
	free(p);
	free(pmu);
}
