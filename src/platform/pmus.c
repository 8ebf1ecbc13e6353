/* pmus.c - PMU inventory from /sys/bus/event_source/devices, and why a core PMU is missing */
#include "platform/probe.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Classes by the names the kernel's drivers register (arch/x86/events, drivers/perf). */
static enum pmu_class classify(const char *name)
{
	static const char *const core[] = { "cpu", "cpu_core", "cpu_atom" };
	static const char *const uncore_prefix[] = {
		"uncore_", "amd_df", "amd_l3", "amd_umc", "arm_cmn", "arm_dsu", "arm_ccn",
		"hisi_sccl", "nvidia_",
	};
	size_t i;

	for (i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (!strcmp(name, core[i]))
			return PMU_CORE;
	if (starts(name, "armv8_") || starts(name, "armv7_") || starts(name, "arm_cortex_"))
		return PMU_CORE;
	if (!strcmp(name, "software"))
		return PMU_SOFTWARE;
	if (!strcmp(name, "tracepoint"))
		return PMU_TRACEPOINT;
	if (!strcmp(name, "uncore"))  /* Nehalem/Westmere: one uncore PMU per socket */
		return PMU_UNCORE;
	for (i = 0; i < sizeof(uncore_prefix) / sizeof(uncore_prefix[0]); i++)
		if (starts(name, uncore_prefix[i]))
			return PMU_UNCORE;
	return PMU_OTHER;
}

/* "uncore_imc_3" -> "uncore_imc"; names without a "_N" suffix stay. */
static void family_of(const char *name, char *fam, size_t size)
{
	size_t n = strlen(name), k = n;

	while (k > 0 && isdigit((unsigned char)name[k - 1]))
		k--;
	if (k < n && k > 1 && name[k - 1] == '_')
		n = k - 1;
	if (n >= size)
		n = size - 1;
	memcpy(fam, name, n);
	fam[n] = '\0';
}

/* Entries of dir that are event aliases or format fields (not .scale/.unit/...). */
static int count_entries(const char *root, const char *dir)
{
	struct vp_err err = { 0, "" };
	char **names = NULL;
	size_t n = 0, i;
	int cnt = 0;

	if (vp_list_dir(root, dir, &names, &n, &err))
		return 0;
	for (i = 0; i < n; i++)
		if (!strchr(names[i], '.'))
			cnt++;
	vp_free_names(names, n);
	return cnt;
}

static int cmp_pmu(const void *a, const void *b)
{
	return strverscmp(((const struct pmu_info *)a)->name, ((const struct pmu_info *)b)->name);
}

static bool perf_line(const char *line, size_t len, struct sbuf *out)
{
	const char *k = "Performance Events:";
	const char *hit;
	char *buf = xstrndup(line, len);

	hit = strstr(buf, k);
	if (hit)
		plat_set(out, vp_rstrip((char *)hit));
	free(buf);
	return hit != NULL;
}

/* The last "Performance Events:" line of a text log. */
static bool scan_text_log(const char *text, struct sbuf *out)
{
	const char *p = text;
	bool found = false;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (perf_line(p, len, out))
			found = true;
		p += len + (e ? 1 : 0);
	}
	return found;
}

/*
 * Live: /dev/kmsg, read without blocking, one record per read().  Records
 * are "PRI,SEQ,TS,FLAGS;TEXT".  Needs CAP_SYSLOG when dmesg_restrict is 1.
 */
static int scan_kmsg(struct sbuf *out, char *why, size_t wsize)
{
	char rec[8192];
	int fd, found = 0, guard = 0;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wsize, "/dev/kmsg: %s", strerror(errno));
		return -1;
	}
	while (guard++ < 1000000) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		const char *semi;

		if (n < 0 && errno == EPIPE)
			continue;  /* the record was overwritten: the next one follows */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN)
				snprintf(why, wsize, "/dev/kmsg: %s", strerror(errno));
			break;
		}
		rec[n] = '\0';
		semi = strchr(rec, ';');
		if (semi && perf_line(semi + 1, strcspn(semi + 1, "\n"), out))
			found = 1;
	}
	close(fd);
	return found;
}

/* The kernel's own word on its PMU, from the first log that can be read. */
static void kernel_pmu_line(struct platform *p, bool live, char *why, size_t wsize)
{
	static const char *const logs[] = { "/var/log/kern.log", "/var/log/dmesg", "/var/log/syslog",
					    "/var/log/messages" };
	size_t i;

	why[0] = '\0';
	if (live && scan_kmsg(&p->kernel_pmu_line, why, wsize) > 0)
		return;
	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		struct vp_err err = { 0, "" };
		char *text = NULL;
		bool ok;

		if (vp_read_file(p->root, logs[i], &text, NULL, &err))
			continue;
		ok = scan_text_log(text, &p->kernel_pmu_line);
		free(text);
		if (ok)
			return;
	}
	if (!why[0])
		snprintf(why, wsize, "%s", live ? "not in /dev/kmsg or /var/log" :
			 "no kernel log under the root (/var/log/kern.log)");
}

static void add_family(struct platform *p, const struct pmu_info *pi)
{
	int i;

	for (i = 0; i < p->n_families; i++)
		if (!strcmp(p->families[i].family, pi->family)) {
			p->families[i].n_instances++;
			return;
		}
	p->families = xrealloc(p->families, (size_t)(p->n_families + 1) * sizeof(*p->families));
	memset(&p->families[p->n_families], 0, sizeof(p->families[0]));
	plat_copy(p->families[p->n_families].family, sizeof(p->families[0].family), pi->family);
	p->families[p->n_families].cls = pi->cls;
	p->families[p->n_families].n_instances = 1;
	p->n_families++;
}

void probe_pmus(struct platform *p, bool live)
{
	struct vp_err err = { 0, "" };
	char **names = NULL, why[160], *msg;
	size_t n = 0, i;
	int k;

	if (vp_list_dir(p->root, PMU_DIR, &names, &n, &err)) {
		plat_reason(&p->pmus_reason, p->root, &err);
	} else {
		p->pmus_known = true;
		p->pmus = xcalloc(n ? n : 1, sizeof(*p->pmus));
		for (i = 0; i < n; i++) {
			struct pmu_info *pi = &p->pmus[p->n_pmus++];
			char path[400], *text = NULL;

			plat_copy(pi->name, sizeof(pi->name), names[i]);
			family_of(pi->name, pi->family, sizeof(pi->family));
			pi->cls = classify(pi->name);
			cpulist_init(&pi->cpumask);
			snprintf(path, sizeof(path), PMU_DIR "/%s/type", names[i]);
			if (vp_read_int(p->root, path, &pi->type, NULL))
				pi->type = -1;
			snprintf(path, sizeof(path), PMU_DIR "/%s/cpumask", names[i]);
			if (vp_read_file(p->root, path, &text, NULL, NULL) == 0) {
				if (cpulist_parse(&pi->cpumask, text, NULL))
					cpulist_init(&pi->cpumask);
				free(text);
			}
			snprintf(path, sizeof(path), PMU_DIR "/%s/events", names[i]);
			pi->n_events = count_entries(p->root, path);
			snprintf(path, sizeof(path), PMU_DIR "/%s/format", names[i]);
			pi->n_formats = count_entries(p->root, path);
		}
		vp_free_names(names, n);
		if (p->n_pmus > 1)
			qsort(p->pmus, (size_t)p->n_pmus, sizeof(*p->pmus), cmp_pmu);
		for (k = 0; k < p->n_pmus; k++) {
			add_family(p, &p->pmus[k]);
			if (p->pmus[k].cls == PMU_CORE && !p->core_pmu) {
				p->core_pmu = true;
				plat_copy(p->core_pmu_name, sizeof(p->core_pmu_name), p->pmus[k].name);
			}
		}
	}
	kernel_pmu_line(p, live, why, sizeof(why));
	if (p->core_pmu)
		return;
	if (!p->pmus_known)
		msg = xasprintf("PMU inventory unknown (%s)", sbuf_str(&p->pmus_reason));
	else if (p->kernel_pmu_line.len)
		msg = xasprintf("kernel: \"%s\"", sbuf_str(&p->kernel_pmu_line));
	else if (p->hv.kind != HV_NONE && p->hv.kind != HV_UNKNOWN && !p->hv.xen_dom0)
		msg = xasprintf("no core PMU under " PMU_DIR ": this %s guest has no vPMU "
				"(the kernel's own line is unreadable: %s)", hv_kind_name(p->hv.kind), why);
	else
		msg = xasprintf("no core PMU under " PMU_DIR " (kernel log: %s)", why);
	plat_set(&p->core_pmu_reason, msg);
	free(msg);
}
