/* test_apply.c - `diagnose --apply`'s plan: exact undo commands, and which advice is refused */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/apply.h"
#include "util/alloc.h"

/* Thread 4003 had CPUs 0-3 before (the host-qemu fixture's status file); others unknown. */
static char *aff(void *ctx, int tid)
{
	(void)ctx;
	return tid == 4003 ? xstrdup("0-3") : tid == 77 ? xstrdup("0-1; rm -rf /") : NULL;
}

static const struct {
	int line;
	const char *cmd;
	int tid;
	const char *undo;   /* NULL: no undo */
	const char *why;    /* a part of the reason when there is none */
} undo_cases[] = {
	/* migratepages PID FROM TO moves the pages back with FROM and TO swapped */
	{ __LINE__, "migratepages 4000 1 0", -1, "migratepages 4000 0 1", NULL },
	{ __LINE__, "migratepages 4000 all 0", -1, NULL, "from every node" },
	/* taskset: back to the affinity the thread had */
	{ __LINE__, "taskset -pc 0-1 4003", -1, "taskset -pc 0-3 4003", NULL },
	{ __LINE__, "taskset -pc 0-1 4004", -1, NULL, "thread 4004 before is not known" },
	/* an affinity that is not a CPU list is never put on a command line */
	{ __LINE__, "taskset -pc 0-1 77", -1, NULL, "not known" },
	/* virsh vcpupin: the vCPU's thread's affinity before, the same flags */
	{ __LINE__, "virsh vcpupin web1 1 0-1 --live --config", 4003,
	  "virsh vcpupin web1 1 0-3 --live --config", NULL },
	{ __LINE__, "virsh vcpupin web1 1 0-1 --live", -1, NULL, "vCPU's thread before" },
	/* no exact undo known */
	{ __LINE__, "virsh numatune web1 --nodeset 0 --live", -1, NULL, "not a command --apply runs" },
	{ __LINE__, "xl vcpu-pin 'dom' 1 - 0-3", -1, NULL, "not a command --apply runs" },
	{ __LINE__, "xl shutdown -w 'dom'", -1, NULL, "not a command --apply runs" },
	{ __LINE__, "taskset -pc 0-1 4003 extra", -1, NULL, "not a command --apply runs" },
};

TEST(apply_undo_lines)
{
	size_t i;

	for (i = 0; i < sizeof(undo_cases) / sizeof(undo_cases[0]); i++) {
		char *undo, *why;
		int ret = apply_undo_line(undo_cases[i].cmd, undo_cases[i].tid, aff, NULL, &undo,
					  &why);

		if (undo_cases[i].undo) {
			CHECK_INT_AT(undo_cases[i].line, ret, 0);
			CHECK_AT(undo_cases[i].line, undo && !strcmp(undo, undo_cases[i].undo),
				 "undo of '%s' is '%s'", undo_cases[i].cmd, undo ? undo : "(none)");
		} else {
			CHECK_AT(undo_cases[i].line, ret != 0 && !undo && why &&
				 strstr(why, undo_cases[i].why),
				 "'%s': want no undo because '%s', got '%s'", undo_cases[i].cmd,
				 undo_cases[i].why, why ? why : "(none)");
		}
		free(undo);
		free(why);
	}
}

TEST(apply_comments_and_blank_lines_run_nothing)
{
	char *undo, *why;

	CHECK_INT(apply_undo_line("# restart the VM under: numactl --interleave=0-1", -1, aff,
				  NULL, &undo, &why), 0);
	CHECK(!undo && !why);
	CHECK_INT(apply_undo_line("   ", -1, aff, NULL, &undo, &why), 0);
	CHECK(!undo && !why);
}

TEST(apply_split_words)
{
	const char *why;
	char **w = apply_split("xl vcpu-pin 'my dom' 1 - 0-3  # soft", &why);

	CHECK(w != NULL);
	CHECK_STR(w[0], "xl");
	CHECK_STR(w[2], "my dom");
	CHECK_STR(w[5], "0-3");
	CHECK(w[6] == NULL);
	apply_split_free(w);
	CHECK(apply_split("virsh 'unterminated", &why) == NULL);
	CHECK_STR(why, "unterminated quote");
}

/*
 * A diagnosis by hand: VM "a" (pid 4000) with vCPU 1 on thread 4003.
 * Advice 1 pins vCPU 1 (taskset), backed by a locality bottleneck of
 * vCPU 1 of the given confidence; advice 2 moves memory from every node
 * (no exact undo); advice 3 clashes with advice 1.
 */
static void plan_of(enum diag_confidence conf, bool allow_low, struct apply_plan *pl)
{
	struct diag_vm vm = { .name = "a", .pid = 4000 };
	struct diag_vcpu vc[2] = { { .vm = 0, .index = 0, .tid = 4002 },
				   { .vm = 0, .index = 1, .tid = 4003 } };
	struct diag_bottleneck b = { .scope = DIAG_VCPU, .entity = 1, .factor = FACTOR_LOCALITY,
				     .confidence = conf };
	struct diag_advice a[3] = {
		{ .rule = "pin-vcpu-to-memory", .vm = 0, .vcpu = 1,
		  .command = (char *)"taskset -pc 0-1 4003\n" },
		{ .rule = "migrate-memory", .vm = 0, .vcpu = -1,
		  .command = (char *)"migratepages 4000 all 0\n" },
		{ .rule = "pin-vcpu-to-memory", .vm = 0, .vcpu = 1, .conflict = true,
		  .conflict_note = (char *)"advice 1 moves it elsewhere",
		  .command = (char *)"taskset -pc 2-3 4003\n" },
	};
	struct diag_input in;
	struct diag_result r;

	memset(&in, 0, sizeof(in));
	memset(&r, 0, sizeof(r));
	in.vms = &vm;
	in.n_vms = 1;
	in.vcpus = vc;
	in.n_vcpus = 2;
	r.b = &b;
	r.n_b = 1;
	r.a = a;
	r.n_a = 3;
	apply_plan_make(&in, &r, allow_low, aff, NULL, pl);
}

TEST(apply_plan_confidence_and_refusals)
{
	struct apply_plan pl;

	plan_of(CONF_HIGH, false, &pl);
	CHECK_INT((int)pl.n, 3);
	CHECK_INT((int)pl.n_apply, 1);
	CHECK(pl.items[0].apply);
	CHECK_INT(pl.items[0].confidence, CONF_HIGH);
	CHECK_INT((int)pl.items[0].n_steps, 1);
	CHECK_STR(pl.items[0].steps[0].cmd, "taskset -pc 0-1 4003");
	CHECK_STR(pl.items[0].steps[0].undo, "taskset -pc 0-3 4003");
	CHECK(!pl.items[1].apply);
	CHECK_CONTAINS(pl.items[1].why_not, "from every node");
	/* advice for the whole VM takes its vCPUs' bottlenecks in the factor: high */
	CHECK_INT(pl.items[1].confidence, CONF_HIGH);
	CHECK(!pl.items[2].apply);
	CHECK_CONTAINS(pl.items[2].why_not, "clashes with a higher-ranked advice: advice 1");
	apply_plan_release(&pl);

	/* low confidence: refused unless told */
	plan_of(CONF_LOW, false, &pl);
	CHECK_INT((int)pl.n_apply, 0);
	CHECK_CONTAINS(pl.items[0].why_not, "confidence is low");
	CHECK_CONTAINS(pl.items[0].why_not, "--allow-low-confidence");
	apply_plan_release(&pl);
	plan_of(CONF_LOW, true, &pl);
	CHECK_INT((int)pl.n_apply, 1);
	CHECK(pl.items[0].apply);
	apply_plan_release(&pl);
}
