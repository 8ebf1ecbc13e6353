/* verify_count.c - the chosen model counted on this process around verify's factor scenarios */
#include "cli/verify_count.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * The collector is made at the first scenario, not before: its counters on
 * this process's threads would share the PMU with the counting checks that
 * run first (and multiplex their exact counts).
 */
static int vc_open_collector(struct verify_count *vc, char *why, size_t size)
{
	struct vp_err err = { 0, "" };
	struct collect_opts co = {
		.root = NULL, .plat = vc->plat, .model = vc->pl->model,
		.cal = vc->pl->have_cal ? &vc->pl->cal : NULL, .pids = &vc->self, .n_pids = 1,
	};

	if (vc->col)
		return 0;
	if (vc->failed[0] || collect_new(&vc->col, &co, &err)) {
		if (!vc->failed[0])
			snprintf(vc->failed, sizeof(vc->failed), "not counted: %.600s", err.msg);
		snprintf(why, size, "%s", vc->failed);
		vc->col = NULL;
		return -1;
	}
	return 0;
}

static int vc_start(void *ctx, char *why, size_t size)
{
	struct verify_count *vc = ctx;
	struct collect_frame f;
	struct vp_err err = { 0, "" };

	if (vc_open_collector(vc, why, size))
		return -1;

	/* the frame up to here is thrown away: the next one covers the run */
	if (collect_sample(vc->col, &f, &err)) {
		snprintf(why, size, "not counted: %s", err.msg);
		return -1;
	}
	collect_frame_release(&f);
	return 0;
}

static void take(struct provoke_reading *r, const struct collect_row *row, bool whole)
{
	int i;

	for (i = 0; i < FACTOR_N; i++) {
		r->score[i] = row->fv[i].score;
		r->cost_pct[i] = row->fv[i].cost_pct;
	}
	r->cycles = row->cycles_proxy ? NAN : row->cycles;
	if (whole)
		r->remote = row->remote.q == VQ_UNAVAILABLE ? NAN : row->remote.v;
}

static int vc_stop(void *ctx, int tid, int node, struct provoke_reading *r, char *why, size_t size)
{
	struct verify_count *vc = ctx;
	struct collect_frame f;
	struct vp_err err = { 0, "" };
	bool found = false;
	size_t j;
	int i;

	if (collect_sample(vc->col, &f, &err)) {
		snprintf(why, size, "not counted: %s", err.msg);
		return -1;
	}
	for (j = 0; j < f.n_rows; j++) {
		const struct collect_row *row = &f.rows[j];

		if (row->name && row->pid == vc->self) {
			take(r, row, true);
			found = true;
		}
	}
	/* a thread's own row replaces the process's scores and costs */
	for (j = 0; tid > 0 && j < f.n_rows; j++)
		if (!f.rows[j].name && f.rows[j].tid == tid)
			take(r, &f.rows[j], false);
	for (j = 0; node >= 0 && j < f.n_nodes; j++)
		if (f.nodes[j].node == node)
			for (i = 0; i < FACTOR_N; i++)
				r->node_score[i] = f.nodes[j].fv[i].score;
	collect_frame_release(&f);
	if (!found) {
		snprintf(why, size, "not counted: this process has no row in the model's frame");
		return -1;
	}
	return 0;
}

/* The factor scenarios are over: the collector's counters go back to the PMU. */
static void vc_end(void *ctx)
{
	verify_count_close(ctx);
}

static const char *vc_factor_why(void *ctx, int f)
{
	struct verify_count *vc = ctx;
	const struct model_avail *av;

	if (f < 0 || f >= FACTOR_N)
		return NULL;
	if (vc->model->factors[f].quality == VQ_UNAVAILABLE)
		return vc->model->factors[f].reason ? vc->model->factors[f].reason :
						      "the model marks it unavailable";
	if (!vc->col)
		return vc->failed[0] ? vc->failed : NULL;
	av = collect_avail(vc->col);
	if (av && !av->factor_ok[f])
		return av->factor_reason[f] ? av->factor_reason[f] : "its inputs are not counted here";
	return NULL;
}

int verify_count_open(struct verify_count *vc, const struct pipeline *pl,
		      const struct platform *plat)
{
	memset(vc, 0, sizeof(*vc));
	vc->self = (int)getpid();
	if (!pl->model) {
		snprintf(vc->why, sizeof(vc->why), "not counted: no model for this machine (%.500s)",
			 pl->why);
		return -1;
	}
	vc->model = pl->model;
	vc->pl = pl;
	vc->plat = plat;
	vc->hook.start = vc_start;
	vc->hook.stop = vc_stop;
	vc->hook.factor_why = vc_factor_why;
	vc->hook.end = vc_end;
	vc->hook.model = pl->model->name;
	vc->hook.ctx = vc;
	return 0;
}

void verify_count_close(struct verify_count *vc)
{
	if (vc->col)
		collect_free(vc->col);
	vc->col = NULL;
}
