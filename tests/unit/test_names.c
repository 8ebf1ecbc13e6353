/* test_names.c - names read from outside are held whole: a PMU directory name of any length sysfs allows */
#include "test.h"

#include <errno.h>
#include <perfmon/pfmlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/coverage.h"
#include "platform/platform.h"
#include "platform/probe.h"
#include "pmu/event.h"
#include "pmu/libpfm.h"
#include "util/alloc.h"
#include "util/sbuf.h"

/* dir/rel made: a file holding text, or a directory when text is NULL. */
static void at(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel);
	FILE *f;

	if (!text) {
		mkdir(path, 0755);
	} else if ((f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

/* Does s hold n whole copies of the two-byte character ch and nothing else? */
static bool repeated(const char *s, const char *ch, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return false;
	for (i = 0; i < n; i++)
		if (memcmp(s + 2 * i, ch, 2))
			return false;
	return true;
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
	const char *parts[] = { "sys", "sys/bus", "sys/bus/event_source",
				"sys/bus/event_source/devices" };
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
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		at(dir, parts[i], NULL);
	pmu = xasprintf("%s/sys/bus/event_source/devices/%s", dir, name);
	CHECK(mkdir(pmu, 0755) == 0);
	at(pmu, "type", "42\n");
	at(pmu, "format", NULL);
	at(pmu, "format/event", "config:0-7\n");
	/* an alias whose unit (20 "é", 40 bytes) is longer than its 32-byte field */
	at(pmu, "events", NULL);
	at(pmu, "events/ev", "event=0x6\n");
	at(pmu, "events/ev.unit", "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	       "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n");

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
		/* the unit is cut before the character that does not fit: 15 of 20 */
		free(spec);
		spec = xasprintf("%s/ev/", name);
		rc = event_resolve(db, spec, 0, &l, &err);
		CHECK_AT(__LINE__, rc == 0, "event_resolve: %d %s", rc, err.msg);
		if (rc == 0 && l.n == 1) {
			CHECK_U64(l.v[0].attr.config, 6);
			CHECK_INT((int)sizeof(l.v[0].unit), 32);
			CHECK_AT(__LINE__, repeated(l.v[0].unit, "\xc3\xa9", 15), "unit '%s' (%zu bytes)",
				 l.v[0].unit, strlen(l.v[0].unit));
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

/*
 * Text the probe reads that is longer than its old field (a CPU model name
 * in /proc/cpuinfo, a DMI product name) is kept whole: 100 "é" (200 bytes),
 * where a 128-byte field kept 63, and 40 "ü" (80 bytes), where 64 kept 31.
 */
TEST(probe_text_longer_than_its_old_field_is_kept_whole)
{
	char dir[] = "/tmp/vp-test-utf8-XXXXXX";
	const char *parts[] = { "proc", "sys", "sys/class", "sys/class/dmi", "sys/class/dmi/id" };
	struct platform plat;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	char *p;
	size_t i;

	if (!mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		at(dir, parts[i], NULL);
	sbuf_addstr(&sb, "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
			 "model\t\t: 85\nmodel name\t: ");
	for (i = 0; i < 100; i++)
		sbuf_addstr(&sb, "\xc3\xa9");
	sbuf_addstr(&sb, "\nflags\t\t: fpu\n\n");
	at(dir, "proc/cpuinfo", sbuf_str(&sb));
	sbuf_reset(&sb);
	for (i = 0; i < 40; i++)
		sbuf_addstr(&sb, "\xc3\xbc");
	sbuf_addch(&sb, '\n');
	at(dir, "sys/class/dmi/id/product_name", sbuf_str(&sb));
	sbuf_release(&sb);

	CHECK_INT(platform_probe(&plat, dir, &err), 0);
	CHECK_AT(__LINE__, repeated(sbuf_str(&plat.cpu.model_name), "\xc3\xa9", 100),
		 "model name '%s' (%zu bytes)", sbuf_str(&plat.cpu.model_name),
		 strlen(sbuf_str(&plat.cpu.model_name)));
	CHECK_AT(__LINE__, repeated(sbuf_str(&plat.hv.dmi_product), "\xc3\xbc", 40),
		 "DMI product '%s' (%zu bytes)", sbuf_str(&plat.hv.dmi_product),
		 strlen(sbuf_str(&plat.hv.dmi_product)));
	platform_release(&plat);
	p = xasprintf("rm -rf '%s'", dir);
	CHECK_INT(system(p), 0);
	free(p);
}

/*
 * The fixed fields that hold libpfm4's names hold every one of them: the
 * bound is proved over libpfm4's own tables (every PMU it knows, present
 * here or not), so a libpfm4 with a longer name fails here rather than
 * cutting it in platform.cpu.pfm_pmu or libpfm_result.pmu.
 */
TEST(libpfm4_pmu_names_fit_their_fields)
{
	struct platform plat;
	struct libpfm_result res;
	struct vp_err err = { 0, "" };
	size_t longest = 0, n = 0;
	int i;

	if (libpfm_init(&err))
		SKIP("libpfm4: %s", err.msg);
	for (i = 0; i < PFM_PMU_MAX; i++) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)i, &info) != PFM_SUCCESS || !info.name)
			continue;
		n++;
		if (strlen(info.name) > longest)
			longest = strlen(info.name);
		CHECK_AT(__LINE__, strlen(info.name) < sizeof(plat.cpu.pfm_pmu) &&
				   strlen(info.name) < sizeof(res.pmu),
			 "libpfm4 PMU '%s' is longer than its fields", info.name);
	}
	CHECK(n > 10);
	CHECK(longest > 3);
}

/*
 * The coverage of a model whose texts are longer than their old fields (a
 * factor's description, 200 "é" = 400 bytes, where desc held 256; an
 * event's, where the input desc held 160) keeps them whole.
 */
TEST(coverage_text_longer_than_its_old_field_is_kept_whole)
{
	char dir[] = "/tmp/vp-test-cov-XXXXXX";
	struct sbuf m = SBUF_INIT, e = SBUF_INIT;
	struct model_registry reg;
	struct platform p;
	struct coverage cv;
	struct vp_err err = { 0, "" };
	const char *dirs[1] = { dir };
	const struct cov_row *r;
	char *cmd;
	size_t i;

	if (!mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	for (i = 0; i < 200; i++)
		sbuf_addstr(&e, "\xc3\xa9");
	sbuf_addf(&m, "model t\nmatch software\nevent tclk = task-clock \"%s\"\n"
		      "metric cpu_util = tclk / (duration * 1e9)\n"
		      "factor locality\n    score = cpu_util\n    warning = 0.5\n    critical = 0.9\n"
		      "    quality = proxy\n    description \"%s\"\n", sbuf_str(&e), sbuf_str(&e));
	sbuf_addstr(&m, "factor llc unavailable \"none\"\nfactor sharing unavailable \"none\"\n"
			"factor imc unavailable \"none\"\nfactor queue unavailable \"none\"\n");
	at(dir, "t.model", sbuf_str(&m));
	sbuf_release(&m);
	sbuf_release(&e);
	model_registry_init(&reg, dirs, 1);
	if (platform_probe(&p, test_data("root/skx-2s"), &err)) {
		CHECK_AT(__LINE__, 0, "%s", err.msg);
	} else {
		coverage_compute(&p, &reg, &cv);
		CHECK_STR(sbuf_str(&cv.model), "t");
		r = &cv.rows[FACTOR_LOCALITY];
		CHECK_AT(__LINE__, repeated(sbuf_str(&r->desc), "\xc3\xa9", 200), "desc (%zu bytes)",
			 strlen(sbuf_str(&r->desc)));
		CHECK_INT(r->n_inputs, 1);
		if (r->n_inputs == 1)
			CHECK_AT(__LINE__, repeated(sbuf_str(&r->inputs[0].desc), "\xc3\xa9", 200),
				 "input desc (%zu bytes)", strlen(sbuf_str(&r->inputs[0].desc)));
		coverage_release(&cv);
		platform_release(&p);
	}
	model_registry_release(&reg);
	cmd = xasprintf("rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	free(cmd);
}

/*
 * A list (libpfm4's active tables on a machine with many uncore PMUs) keeps
 * every name whole: 40 names of 12 bytes and their separators make 518
 * bytes, more than the 256-byte field that held them before.
 */
TEST(a_joined_list_keeps_every_name)
{
	const char *items[] = { "perf", "perf_raw", "skx", "skx_unc_cha0", "skx_unc_cha1" };
	const char *many[40];
	struct sbuf sb = SBUF_INIT;
	size_t i;

	plat_join(&sb, items, 5);
	CHECK_STR(sbuf_str(&sb), "perf, perf_raw, skx, skx_unc_cha0, skx_unc_cha1");
	for (i = 0; i < 40; i++)
		many[i] = "skx_unc_cha0";
	plat_join(&sb, many, 40);
	CHECK_INT((int)sb.len, 40 * 12 + 39 * 2);
	plat_join(&sb, items, 0);
	CHECK_STR(sbuf_str(&sb), "");
	sbuf_release(&sb);
}
