/* libpfm.c - libpfm4 glue: core event names to perf_event_attr, and its event tables */
#include "pmu/libpfm.h"

#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"

int libpfm_init(struct vp_err *err)
{
	int r = pfm_initialize();

	if (r != PFM_SUCCESS)
		return vp_err_set(err, VP_EDEP, "cannot initialize libpfm4: %s", pfm_strerror(r));
	return 0;
}

/*
 * After PFM_ERR_ATTR, find which ':'-term libpfm4 did not know, so the
 * message can name it and its column.  Returns its offset in spec or -1.
 */
static int unknown_attr(const char *spec)
{
	pfm_event_info_t ei;
	const char *ev = strstr(spec, "::"), *p, *q;
	char *name;
	int idx, i;

	ev = ev ? ev + 2 : spec;
	p = strchr(ev, ':');
	if (!p)
		return -1;
	name = xstrndup(spec, (size_t)(p - spec));
	idx = pfm_find_event(name);
	free(name);
	if (idx < 0)
		return -1;
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
		return -1;
	for (; *p == ':'; p = q) {
		size_t len;
		bool found = false;

		p++;
		q = strchr(p, ':');
		if (!q)
			q = p + strlen(p);
		len = strcspn(p, "=:");
		for (i = 0; i < ei.nattrs && !found; i++) {
			pfm_event_attr_info_t ai;

			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_get_event_attr_info(idx, i, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS)
				continue;
			found = ai.name && strlen(ai.name) == len && !strncasecmp(ai.name, p, len);
		}
		if (!found)
			return (int)(p - spec);
	}
	return -1;
}

int libpfm_encode(const char *spec, struct libpfm_result *res, struct vp_err *err)
{
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t ei;
	pfm_pmu_info_t pi;
	char *fstr = NULL;
	int r, off;

	memset(res, 0, sizeof(*res));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &res->attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	r = pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r == PFM_ERR_NOTFOUND)
		return vp_err_set(err, VP_ENOTFOUND, "event '%s': unknown event at column 1", spec);
	if (r == PFM_ERR_ATTR || r == PFM_ERR_ATTR_VAL || r == PFM_ERR_ATTR_SET) {
		off = unknown_attr(spec);
		if (off >= 0 && r == PFM_ERR_ATTR)
			return vp_err_set(err, VP_ENOTFOUND,
					  "event '%s': unknown umask or modifier '%.*s' at column %d",
					  spec, (int)strcspn(spec + off, ":="), spec + off, off + 1);
		return vp_err_set(err, VP_EINVAL, "event '%s': %s", spec, pfm_strerror(r));
	}
	if (r == PFM_ERR_NOTSUPP)
		return vp_err_set(err, VP_EUNSUPP,
				  "event '%s': its PMU is not present on this machine (libpfm4: %s)",
				  spec, pfm_strerror(r));
	if (r != PFM_SUCCESS)
		return vp_err_set(err, VP_EINVAL, "event '%s': libpfm4: %s", spec, pfm_strerror(r));
	res->fstr = fstr;
	res->attr.size = sizeof(res->attr);
	memset(&ei, 0, sizeof(ei));
	ei.size = sizeof(ei);
	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	if (pfm_get_event_info(arg.idx, PFM_OS_NONE, &ei) == PFM_SUCCESS &&
	    pfm_get_pmu_info(ei.pmu, &pi) == PFM_SUCCESS) {
		snprintf(res->pmu, sizeof(res->pmu), "%s", pi.name);
		res->uncore = pi.type == PFM_PMU_TYPE_UNCORE;
	}
	return 0;
}

bool libpfm_core_pmu(char *buf, size_t size)
{
	pfm_pmu_t pmu;

	for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
		pfm_pmu_info_t pi;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(pmu, &pi) == PFM_SUCCESS && pi.is_present &&
		    pi.type == PFM_PMU_TYPE_CORE && strcmp(pi.name, "perf") && strcmp(pi.name, "perf_raw")) {
			snprintf(buf, size, "%s", pi.name);
			return true;
		}
	}
	return false;
}

void libpfm_foreach_event(libpfm_event_fn fn, void *ctx)
{
	pfm_pmu_t pmu;

	for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
		pfm_pmu_info_t pi;
		int idx;

		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(pmu, &pi) != PFM_SUCCESS || !pi.is_present ||
		    !strcmp(pi.name, "perf") || !strcmp(pi.name, "perf_raw"))
			continue;
		for (idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			pfm_event_info_t ei;
			int a;

			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm_get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS)
				continue;
			fn(ctx, pi.name, pi.desc, ei.name, NULL, ei.desc);
			for (a = 0; a < ei.nattrs; a++) {
				pfm_event_attr_info_t ai;

				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai) == PFM_SUCCESS &&
				    ai.type == PFM_ATTR_UMASK)
					fn(ctx, pi.name, pi.desc, ei.name, ai.name, ai.desc);
			}
		}
	}
}
