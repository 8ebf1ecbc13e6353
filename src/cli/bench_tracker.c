/* bench_tracker.c - the shared trackers' full share counted beside bench queue's cores scenario (bench, verify) */
#include "cli/bench_tracker.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * The collector is made at the first point, not at open: its counters on
 * this process's threads would otherwise hold the PMU through whatever runs
 * before (verify's exact counting checks, multiplexed by them on a PMU of
 * few counters).
 */
static int tracker_collector(struct bench_tracker *tc)
{
	struct vp_err err = { 0, "" };
	struct collect_opts co = {
		.root = NULL, .plat = &tc->plat, .model = tc->p.model,
		.cal = tc->p.have_cal ? &tc->p.cal : NULL, .pids = &tc->self, .n_pids = 1,
	};

	if (tc->p.col)
		return 0;
	if (tc->failed)
		return -1;
	if (collect_new(&tc->p.col, &co, &err)) {
		snprintf(tc->why, sizeof(tc->why), "not counted: %.600s", err.msg);
		tc->p.col = NULL;
		tc->failed = true;
		return -1;
	}
	return 0;
}

int bench_tracker_start(void *ctx, const char **why)
{
	struct bench_tracker *tc = ctx;
	struct collect_frame f;
	struct vp_err err = { 0, "" };

	if (tracker_collector(tc)) {
		*why = tc->why;
		return -1;
	}
	if (collect_sample(tc->p.col, &f, &err)) {
		snprintf(tc->why, sizeof(tc->why), "not counted: %s", err.msg);
		*why = tc->why;
		return -1;
	}
	collect_frame_release(&f);
	return 0;
}

double bench_tracker_stop(void *ctx, const char **why)
{
	struct bench_tracker *tc = ctx;
	struct collect_frame f;
	struct vp_err err = { 0, "" };
	double v = NAN;
	size_t j;

	if (collect_sample(tc->p.col, &f, &err)) {
		snprintf(tc->why, sizeof(tc->why), "not counted: %s", err.msg);
		*why = tc->why;
		return NAN;
	}
	for (j = 0; j < f.n_nodes; j++)
		if (f.nodes[j].node == tc->node && f.nodes[j].metrics)
			v = f.nodes[j].metrics[tc->metric];
	collect_frame_release(&f);
	if (isnan(v)) {
		snprintf(tc->why, sizeof(tc->why), "not counted: model %s's queue_full_frac is n/a on "
			 "node %d (its uncore counters did not count here: 'vmmprof info' says why)",
			 tc->p.model->name, tc->node);
		*why = tc->why;
	}
	return v;
}

int bench_tracker_open(struct bench_tracker *tc, int node)
{
	struct pipe_opts po = { 0 };
	struct vp_err err = { 0, "" };

	memset(tc, 0, sizeof(*tc));
	tc->node = node;
	tc->self = (int)getpid();
	if (platform_probe(&tc->plat, NULL, &err)) {
		snprintf(tc->why, sizeof(tc->why), "not counted: %s", err.msg);
		return -1;
	}
	tc->have_plat = true;
	if (cli_pipeline_choose(&tc->p, &po, &tc->plat) || !tc->p.model) {
		snprintf(tc->why, sizeof(tc->why), "not counted: no model for this machine (%.500s)",
			 tc->p.why);
		return -1;
	}
	tc->metric = model_find_metric(tc->p.model, "queue_full_frac");
	if (tc->metric < 0) {
		snprintf(tc->why, sizeof(tc->why), "not counted: model %s counts no tracker-full "
			 "share (no queue_full_frac metric: docs/models.md, \"The queue factor\")",
			 tc->p.model->name);
		return -1;
	}
	return 0;
}

void bench_tracker_close(struct bench_tracker *tc)
{
	pipeline_close(&tc->p);
	if (tc->have_plat)
		platform_release(&tc->plat);
}

