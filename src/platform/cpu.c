/* cpu.c - CPU identity from cpuinfo and the libpfm4 core PMU it maps to */
#include "platform/probe.h"

#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

/*
 * vendor/family/model -> libpfm4 core PMU.  The model numbers are the ones
 * libpfm4's own detect functions accept (lib/pfmlib_intel_*.c,
 * pfmlib_amd64.c amd64_get_revision(), pfmlib_arm_armv8.c); the names are
 * checked against the linked libpfm4 by tests/unit/test_platform.c.  Used
 * for fixture roots, where libpfm4 cannot detect anything, and live when
 * libpfm4 detects no core table (an Intel VM without a PMU hides the
 * architectural perfmon leaf, so nothing is detected).
 */
static const struct pfm_map_row pfm_rows[] = {
	{ "GenuineIntel", 6, 0x1a, 0x1a, 0, 15, "nhm", "Nehalem-EP" },
	{ "GenuineIntel", 6, 0x1e, 0x1f, 0, 15, "nhm", "Nehalem" },
	{ "GenuineIntel", 6, 0x2e, 0x2e, 0, 15, "nhm_ex", "Nehalem-EX" },
	{ "GenuineIntel", 6, 0x25, 0x25, 0, 15, "wsm", "Westmere" },
	{ "GenuineIntel", 6, 0x2c, 0x2c, 0, 15, "wsm_dp", "Westmere-EP" },
	{ "GenuineIntel", 6, 0x2f, 0x2f, 0, 15, "wsm_dp", "Westmere-EX" },
	{ "GenuineIntel", 6, 0x2a, 0x2a, 0, 15, "snb", "Sandy Bridge" },
	{ "GenuineIntel", 6, 0x2d, 0x2d, 0, 15, "snb_ep", "Sandy Bridge-EP" },
	{ "GenuineIntel", 6, 0x3a, 0x3a, 0, 15, "ivb", "Ivy Bridge" },
	{ "GenuineIntel", 6, 0x3e, 0x3e, 0, 15, "ivb_ep", "Ivy Bridge-EP" },
	{ "GenuineIntel", 6, 0x3c, 0x3c, 0, 15, "hsw", "Haswell" },
	{ "GenuineIntel", 6, 0x45, 0x46, 0, 15, "hsw", "Haswell" },
	{ "GenuineIntel", 6, 0x3f, 0x3f, 0, 15, "hsw_ep", "Haswell-EP" },
	{ "GenuineIntel", 6, 0x3d, 0x3d, 0, 15, "bdw", "Broadwell" },
	{ "GenuineIntel", 6, 0x47, 0x47, 0, 15, "bdw", "Broadwell" },
	{ "GenuineIntel", 6, 0x4f, 0x4f, 0, 15, "bdw_ep", "Broadwell-EP" },
	{ "GenuineIntel", 6, 0x56, 0x56, 0, 15, "bdw_ep", "Broadwell-DE" },
	{ "GenuineIntel", 6, 0x4e, 0x4e, 0, 15, "skl", "Skylake" },
	{ "GenuineIntel", 6, 0x5e, 0x5e, 0, 15, "skl", "Skylake" },
	{ "GenuineIntel", 6, 0x55, 0x55, 0, 4, "skx", "Skylake-SP" },
	{ "GenuineIntel", 6, 0x55, 0x55, 5, 15, "clx", "Cascade Lake-SP" },
	{ "GenuineIntel", 6, 0x7d, 0x7e, 0, 15, "icl", "Ice Lake" },
	{ "GenuineIntel", 6, 0x6a, 0x6a, 0, 15, "icx", "Ice Lake-SP" },
	{ "GenuineIntel", 6, 0x8f, 0x8f, 0, 15, "spr", "Sapphire Rapids" },
	{ "AuthenticAMD", 0x17, 0x00, 0x2f, 0, 15, "amd64_fam17h_zen1", "Zen" },
	{ "AuthenticAMD", 0x17, 0x30, 0xff, 0, 15, "amd64_fam17h_zen2", "Zen 2" },
	{ "AuthenticAMD", 0x19, 0x00, 0x0f, 0, 15, "amd64_fam19h_zen3", "Zen 3" },
	{ "AuthenticAMD", 0x19, 0x10, 0x1f, 0, 15, "amd64_fam19h_zen4", "Zen 4" },
	{ "AuthenticAMD", 0x19, 0x20, 0x5f, 0, 15, "amd64_fam19h_zen3", "Zen 3" },
	{ "AuthenticAMD", 0x19, 0x60, 0xff, 0, 15, "amd64_fam19h_zen4", "Zen 4" },
	{ "ARM", 0x41, 0xd03, 0xd03, 0, 15, "arm_ac53", "Cortex-A53" },
	{ "ARM", 0x41, 0xd07, 0xd07, 0, 15, "arm_ac57", "Cortex-A57" },
	{ "ARM", 0x41, 0xd08, 0xd08, 0, 15, "arm_ac72", "Cortex-A72" },
	{ "ARM", 0x41, 0xd0c, 0xd0c, 0, 15, "arm_n1", "Neoverse N1" },
	{ "ARM", 0x41, 0xd40, 0xd40, 0, 15, "arm_v1", "Neoverse V1" },
	{ "ARM", 0x41, 0xd49, 0xd49, 0, 15, "arm_n2", "Neoverse N2" },
};

const struct pfm_map_row *platform_pfm_table(int *n)
{
	*n = (int)(sizeof(pfm_rows) / sizeof(pfm_rows[0]));
	return pfm_rows;
}

static const struct pfm_map_row *pfm_row(const char *vendor, int family, int model, int stepping)
{
	size_t i;

	for (i = 0; i < sizeof(pfm_rows) / sizeof(pfm_rows[0]); i++) {
		const struct pfm_map_row *r = &pfm_rows[i];

		if (!strcmp(r->vendor, vendor) && r->family == family &&
		    model >= r->model_lo && model <= r->model_hi &&
		    stepping >= r->stepping_lo && stepping <= r->stepping_hi)
			return r;
	}
	return NULL;
}

const char *platform_pfm_name(const char *vendor, int family, int model, int stepping)
{
	const struct pfm_map_row *r = pfm_row(vendor, family, model, stepping);

	return r ? r->pfm : NULL;
}

/* Arm implementer codes (arch/arm64/include/asm/cputype.h). */
static const char *arm_vendor(int impl)
{
	switch (impl) {
	case 0x41: return "ARM";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x46: return "Fujitsu";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x50: return "APM";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0xc0: return "Ampere";
	}
	return NULL;
}

/* The integer after "key:" in text (decimal or 0x hex); -1 when absent or not a number. */
static int field_int(const char *text, const char *key)
{
	size_t len;
	const char *v = plat_field(text, key, &len);
	char buf[32], *end;
	long x;

	if (!v || !len || len >= sizeof(buf))
		return -1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	x = strtol(buf, &end, 0);
	if (end == buf || *end || x < 0 || x > 0xfffff)
		return -1;
	return (int)x;
}

static void field_str(const char *text, const char *key, char *dst, size_t size)
{
	size_t len;
	const char *v = plat_field(text, key, &len);

	char *whole;

	if (!v) {
		dst[0] = '\0';
		return;
	}
	whole = xstrndup(v, len);
	plat_copy(dst, size, whole);   /* whole characters only */
	free(whole);
}

/* The same into an sbuf field, whole. */
static void field_text(const char *text, const char *key, struct sbuf *dst)
{
	size_t len;
	const char *v = plat_field(text, key, &len);
	char *whole;

	sbuf_reset(dst);
	if (!v)
		return;
	whole = xstrndup(v, len);
	plat_set(dst, whole);
	free(whole);
}

/* Does the first "flags" (x86) line hold word? */
static bool has_flag(const char *text, const char *word)
{
	size_t len, wl = strlen(word);
	const char *v = plat_field(text, "flags", &len), *p, *end;

	if (!v)
		return false;
	end = v + len;
	for (p = v; p < end;) {
		const char *q = p;

		while (q < end && *q != ' ')
			q++;
		if ((size_t)(q - p) == wl && !memcmp(p, word, wl))
			return true;
		p = q + 1;
	}
	return false;
}

static int count_processors(const char *text)
{
	const char *p = text;
	int n = 0;

	while ((p = strstr(p, "processor"))) {
		if ((p == text || p[-1] == '\n') && (p[9] == '\t' || p[9] == ' ' || p[9] == ':'))
			n++;
		p += 9;
	}
	return n;
}

static void parse_x86(struct cpu_identity *c, const char *text)
{
	field_str(text, "vendor_id", c->vendor, sizeof(c->vendor));
	field_text(text, "model name", &c->model_name);
	c->family = field_int(text, "cpu family");
	c->model = field_int(text, "model");
	c->stepping = field_int(text, "stepping");
	plat_copy(c->arch, sizeof(c->arch), "x86_64");
	c->flag_hypervisor = has_flag(text, "hypervisor");
	c->flag_cqm_llc = has_flag(text, "cqm_occup_llc");
	c->flag_cqm_mbm = has_flag(text, "cqm_mbm_total") || has_flag(text, "cqm_mbm_local");
	if (!c->vendor[0] || c->family < 0 || c->model < 0) {
		c->known = false;
		plat_setf(&c->reason,
			 "/proc/cpuinfo lacks a valid vendor_id, cpu family or model");
	}
}

static void parse_arm(struct cpu_identity *c, const char *text)
{
	const struct pfm_map_row *r;
	const char *v;
	int impl = field_int(text, "CPU implementer");

	plat_copy(c->arch, sizeof(c->arch), "aarch64");
	c->family = impl;
	c->model = field_int(text, "CPU part");
	c->stepping = field_int(text, "CPU revision");
	v = impl >= 0 ? arm_vendor(impl) : NULL;
	if (v)
		plat_copy(c->vendor, sizeof(c->vendor), v);
	else if (impl >= 0)
		snprintf(c->vendor, sizeof(c->vendor), "implementer 0x%x", (unsigned)impl);
	/* Newer arm64 kernels print no model name: take it from the table. */
	field_text(text, "model name", &c->model_name);
	r = impl >= 0 ? pfm_row(c->vendor, c->family, c->model, 0) : NULL;
	if (!c->model_name.len && r)
		plat_set(&c->model_name, r->what);
	else if (!c->model_name.len && c->model >= 0)
		plat_setf(&c->model_name, "part 0x%x", (unsigned)c->model);
	if (impl < 0 || c->model < 0) {
		c->known = false;
		plat_setf(&c->reason,
			 "/proc/cpuinfo lacks a valid CPU implementer or CPU part");
	}
}

/* Live: the core table libpfm4 detects, and every active table's name. */
static void pfm_live(struct cpu_identity *c)
{
	const char **active = NULL;     /* libpfm4's names: static strings */
	size_t n_active = 0, cap = 0;
	pfm_pmu_info_t info;
	int i, ret;

	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		plat_setf(&c->pfm_source, "libpfm4 failed to initialize: %s",
			 pfm_strerror(ret));
		return;
	}
	for (i = 0; i < PFM_PMU_MAX; i++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)i, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		VP_GROW(active, cap, n_active + 1);
		active[n_active++] = info.name;
		if (!c->pfm_pmu[0] && info.type == PFM_PMU_TYPE_CORE &&
		    strcmp(info.name, "perf") && strcmp(info.name, "perf_raw")) {
			plat_copy(c->pfm_pmu, sizeof(c->pfm_pmu), info.name);
			plat_set(&c->pfm_desc, info.desc ? info.desc : "");
		}
	}
	plat_join(&c->pfm_active, active, n_active);
	free(active);
	if (c->pfm_pmu[0])
		plat_setf(&c->pfm_source, "libpfm4 detection (CPUID)");
}

/* libpfm4's description of a table by name, "" if this libpfm4 lacks it. */
static void pfm_desc_of(const char *name, struct sbuf *dst)
{
	pfm_pmu_info_t info;
	int i;

	sbuf_reset(dst);
	if (pfm_initialize() != PFM_SUCCESS)
		return;
	for (i = 0; i < PFM_PMU_MAX; i++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info((pfm_pmu_t)i, &info) == PFM_SUCCESS && info.name &&
		    !strcmp(info.name, name)) {
			plat_set(dst, info.desc ? info.desc : "");
			return;
		}
	}
}

void probe_cpu(struct platform *p, bool live)
{
	struct cpu_identity *c = &p->cpu;
	struct vp_err err = { 0, "" };
	char *text = NULL;
	const char *name;

	c->family = c->model = c->stepping = -1;
	if (vp_read_file(p->root, "/proc/cpuinfo", &text, NULL, &err)) {
		plat_reason(&c->reason, p->root, &err);
		plat_setf(&c->pfm_source, "CPU unknown");
		return;
	}
	c->known = true;
	c->n_cpus_listed = count_processors(text);
	if (plat_field(text, "vendor_id", NULL))
		parse_x86(c, text);
	else if (plat_field(text, "CPU implementer", NULL))
		parse_arm(c, text);
	else {
		c->known = false;
		plat_setf(&c->reason,
			 "/proc/cpuinfo has neither an x86 vendor_id nor an Arm CPU implementer");
	}
	free(text);
	if (live)
		pfm_live(c);
	if (c->pfm_pmu[0] || !c->known)
		goto out;
	name = platform_pfm_name(c->vendor, c->family, c->model, c->stepping);
	if (name) {
		plat_copy(c->pfm_pmu, sizeof(c->pfm_pmu), name);
		pfm_desc_of(name, &c->pfm_desc);
		plat_setf(&c->pfm_source, "%s",
			 live ? "model table (libpfm4 detected no core table here)" : "model table");
	} else {
		plat_setf(&c->pfm_source,
			 "no libpfm4 table for %s family 0x%x model 0x%x", c->vendor,
			 (unsigned)c->family, (unsigned)c->model);
	}
out:
	if (!c->known && !c->pfm_source.len)
		plat_setf(&c->pfm_source, "CPU unknown");
}
