/* test_hub.c - the shared collector: views over one merged counter set */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/hub.h"
#include "test.h"
#include "util/alloc.h"

static void burn_ms(double ms)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}

/* The five factors every model binds, none measurable by these test models. */
#define NO_FACTORS "factor locality unavailable \"test\"\nfactor llc unavailable \"test\"\n" \
	"factor sharing unavailable \"test\"\nfactor imc unavailable \"test\"\n" \
	"factor queue unavailable \"test\"\n"

static struct model *load_text(const char *text)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };

	diags_init(&d);
	if (model_load_text(&m, text, "test.model", NULL, 0, &d, &err))
		test_fail(__FILE__, __LINE__, "%s", err.msg);
	diags_release(&d);
	return m;
}

static int input_of(const struct model *m, const char *name)
{
	return model_find_input(m, name);
}

/* A view on this process: its one thread's task-clock is the CPU time it burnt. */
TEST(hub_one_view_counts_own_thread)
{
	struct model *m = load_text("model a\nevent tclk = task-clock\n"
				    "metric cpu_util = tclk / (duration * 1e9)\n" NO_FACTORS);
	struct platform plat;
	struct vp_err err = { 0, "" };
	struct hub *h = NULL;
	struct hub_opts ho;
	struct hub_view_opts vo;
	struct collect_frame f;
	int pid = (int)getpid(), id = -1, tc;

	memset(&f, 0, sizeof(f));
	memset(&plat, 0, sizeof(plat));
	if (!m)
		return;
	CHECK_INT(platform_probe(&plat, "/", &err), 0);
	memset(&ho, 0, sizeof(ho));
	ho.root = "/";
	ho.plat = &plat;
	CHECK_INT(hub_new(&h, &ho, &err), 0);
	memset(&vo, 0, sizeof(vo));
	vo.model = m;
	vo.pids = &pid;
	vo.n_pids = 1;
	if (hub_view_add(h, &vo, &id, &err)) {
		test_fail(__FILE__, __LINE__, "%s", err.msg);
		goto out;
	}
	CHECK(id >= 0);
	burn_ms(50);
	CHECK_INT(hub_sample(h, id, &f, &err), 0);
	tc = input_of(m, "tclk");
	CHECK(f.n_rows >= 2);
	if (f.n_rows >= 2) {
		/* the process row sums its threads: at least the 50 ms burnt */
		CHECK(f.rows[0].inputs[tc] >= 45e6);
		CHECK(f.rows[0].inputs[tc] < 5e9);
	}
	CHECK_INT(f.n_scaling, 1);
	if (f.n_scaling == 1) {
		CHECK_STR(f.scaling[0].event, "task-clock");
		CHECK_NEAR(f.scaling[0].running_pct, 100.0, 0.01); /* software events never multiplex */
	}
out:
	collect_frame_release(&f);
	hub_free(h);
	platform_release(&plat);
	model_free(m);
}
