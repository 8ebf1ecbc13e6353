/* xen_pcpu.c - dom0's core counters per pCPU under Xen's pmu_mode 'all' (dom0 pinned 1:1) */
#include "pmu/xen_pcpu.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmu/counter.h"
#include "util/alloc.h"
#include "util/fs.h"

struct xen_pcpu {
	char *root;
	bool fixture;
	unsigned reads;                 /* fixture: reads so far */
	double *last;                   /* fixture: the last file's counts, NULL none yet */
	char **specs;                   /* per input, NULL not counted */
	size_t n_in;
	int n_pcpu;
	struct cnt_session *s;          /* live */
	int *ent_of_cpu;                /* live: the session's entity of dom0 CPU p, -1 none */
	int *ev_of_in;                  /* live: the session's event of input i, -1 none */
};

bool xen_pcpu_event_ok(const struct evdesc *ev)
{
	if (ev->uncore || ev->source == EV_TRACEPOINT)
		return false;
	switch (ev->attr.type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return true;
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return false;
	}
	/* a dynamic type: the core PMU's own (hybrid Intel, Arm) */
	return !strncmp(ev->pmu, "cpu", 3) || !strncmp(ev->pmu, "armv8", 5);
}

static int fixture_read(struct xen_pcpu *x, double *tot, struct vp_err *err)
{
	char path[96], *text = NULL, *line, *save = NULL;
	size_t len = 0, i;
	int ret;

	snprintf(path, sizeof(path), "/.vmmprof-fixture/xen-pcpu/%u", ++x->reads);
	ret = vp_read_file(x->root, path, &text, &len, err);
	if (ret && x->last) {  /* no more files: the counters stand still */
		memcpy(tot, x->last, x->n_in * (size_t)x->n_pcpu * sizeof(double));
		return 0;
	}
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok = strtok(line, " \t"), *end;
		int p;

		for (i = 0; tok && i < x->n_in && (!x->specs[i] || strcmp(x->specs[i], tok)); i++)
			;
		if (!tok || i == x->n_in)
			continue;
		for (p = 0; p < x->n_pcpu; p++) {
			char *v = strtok(NULL, " \t");
			double d = v ? strtod(v, &end) : NAN;

			if (!v || *end || !(d >= 0)) {
				ret = vp_err_set(err, VP_EPARSE, "%s: '%s': pCPU %d's count is %s", path,
						 x->specs[i], p, v ? "not a count" : "missing");
				free(text);
				return ret;
			}
			tot[i * (size_t)x->n_pcpu + (size_t)p] = d;
		}
	}
	free(text);
	if (!x->last)
		x->last = xcalloc(x->n_in * (size_t)x->n_pcpu + 1, sizeof(double));
	memcpy(x->last, tot, x->n_in * (size_t)x->n_pcpu * sizeof(double));
	return 0;
}

int xen_pcpu_read(struct xen_pcpu *x, double *tot, struct vp_err *err)
{
	struct cnt_snapshot snap;
	size_t i;
	int p, ret;

	for (i = 0; i < x->n_in * (size_t)x->n_pcpu; i++)
		tot[i] = NAN;
	if (x->fixture)
		return fixture_read(x, tot, err);
	cnt_snapshot_init(&snap);
	ret = cnt_session_read(x->s, &snap, err);
	for (i = 0; !ret && i < x->n_in; i++)
		for (p = 0; x->ev_of_in[i] >= 0 && p < x->n_pcpu; p++) {
			struct cnt_filter f = CNT_FILTER_ANY;
			struct cnt_value v;

			if (x->ent_of_cpu[p] < 0)
				continue;
			f.event = x->ev_of_in[i];
			f.entity = x->ent_of_cpu[p];
			if (cnt_sum(x->s, &snap, true, &f, &v))
				tot[i * (size_t)x->n_pcpu + (size_t)p] = v.value;
		}
	cnt_snapshot_release(&snap);
	return ret;
}

int xen_pcpu_open(struct xen_pcpu **out, const char *root, const char *const *specs, size_t n_in,
		  const struct evdesc_list *evl, int n_pcpu, struct vp_err *err)
{
	struct xen_pcpu *x = xcalloc(1, sizeof(*x));
	struct cnt_request req;
	struct evdesc *evs = NULL;
	size_t i, n = 0, k;
	int ret = 0, p;

	x->root = xstrdup(root ? root : "/");
	x->fixture = vp_root_is_fixture(x->root);
	x->n_in = n_in;
	x->n_pcpu = n_pcpu;
	x->specs = xcalloc(n_in + 1, sizeof(char *));
	for (i = 0; i < n_in; i++)
		x->specs[i] = specs[i] ? xstrdup(specs[i]) : NULL;
	if (!x->fixture) {
		x->ev_of_in = xcalloc(n_in + 1, sizeof(int));
		x->ent_of_cpu = xcalloc((size_t)n_pcpu + 1, sizeof(int));
		for (i = 0; i < n_in; i++)
			x->ev_of_in[i] = -1;
		evs = xcalloc(evl->n + 1, sizeof(*evs));
		for (k = 0; k < evl->n; k++) {
			int in = evl->v[k].spec_index;

			if (in < 0 || (size_t)in >= n_in || !specs[in] || x->ev_of_in[in] >= 0)
				continue;
			evs[n] = evl->v[k];   /* shallow: the session copies it */
			x->ev_of_in[in] = (int)n++;
		}
		memset(&req, 0, sizeof(req));
		req.events = evs;
		req.n_events = n;
		req.root = x->root;
		cpulist_init(&req.target.cpus);
		for (p = 0; p < n_pcpu; p++)
			cpulist_add(&req.target.cpus, p);
		ret = n ? cnt_session_new(&x->s, &req, err)
			: vp_err_set(err, VP_EUNSUPP, "no core PMU event to count per pCPU");
		cpulist_release(&req.target.cpus);
		free(evs);
		if (!ret)
			ret = cnt_session_enable(x->s, err);
		for (p = 0; !ret && p < n_pcpu; p++) {
			x->ent_of_cpu[p] = -1;
			for (k = 0; k < x->s->n_entities; k++)
				if (x->s->entities[k].kind == CNT_ENT_CPU && x->s->entities[k].cpu == p)
					x->ent_of_cpu[p] = (int)k;
		}
	}
	if (ret) {
		xen_pcpu_free(x);
		return ret;
	}
	*out = x;
	return 0;
}

int xen_pcpu_n(const struct xen_pcpu *x)
{
	return x ? x->n_pcpu : 0;
}

void xen_pcpu_free(struct xen_pcpu *x)
{
	size_t i;

	if (!x)
		return;
	if (x->s)
		cnt_session_free(x->s);
	for (i = 0; i < x->n_in; i++)
		free(x->specs[i]);
	free(x->specs);
	free(x->ev_of_in);
	free(x->ent_of_cpu);
	free(x->last);
	free(x->root);
	free(x);
}
