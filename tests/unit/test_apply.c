/* test_apply.c - `diagnose --apply`'s plan: exact undo commands, and which advice is refused */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/apply.h"
#include "util/alloc.h"
#include "util/sbuf.h"

/*
 * Thread 4003 had CPUs 0-3 before (the host-qemu fixture's status file),
 * 4002 had 2-3, QEMU's main thread 4000 had 0-7, IOThread 1's thread 4010 had 4-5;
 * others unknown.
 */
static char *aff(void *ctx, int tid)
{
	(void)ctx;
	return tid == 4003 ? xstrdup("0-3") : tid == 4000 ? xstrdup("0-7") :
	       tid == 4002 ? xstrdup("2-3") :
	       tid == 4010 ? xstrdup("4-5") : tid == 77 ? xstrdup("0-1; rm -rf /") : NULL;
}

/* QEMU 4000 has IOThread 1 on thread 4010 (named "IO iothread1"), no IOThread 3 */
static int iot(void *ctx, int pid, int id)
{
	(void)ctx;
	return pid == 4000 && id == 1 ? 4010 : -1;
}

/*
 * Persistent configurations: web1 pins vCPU 1 to 0-3 (as its thread runs),
 * pers pins vCPU 1 to 0-7 (its thread was pinned elsewhere --live only);
 * any other domain has none known (transient).
 */
static char *cfg(void *ctx, const char *dom, int vcpu)
{
	(void)ctx;
	if (vcpu != 1)
		return NULL;
	return !strcmp(dom, "web1") ? xstrdup("0-3") : !strcmp(dom, "pers") ? xstrdup("0-7") : NULL;
}

static const struct apply_probe probe = { aff, iot, NULL, cfg };
/* VM web1: QEMU 4000, vCPU 0 on an unknown thread, vCPU 1 on 4003 */
static const int web1_tids[2] = { -1, 4003 };
static const struct apply_vm web1 = { 4000, web1_tids, 2 };  /* vCPU 0 unknown here */
/* a VM whose process is not known */
static const struct apply_vm nopid = { -1, web1_tids, 2 };

static const struct {
	int line;
	const char *cmd;
	const struct apply_vm *vm;
	const char *undo;   /* NULL: no undo */
	const char *why;    /* a part of the reason when there is none */
} undo_cases[] = {
	/* migratepages PID FROM TO moves the pages back with FROM and TO swapped */
	{ __LINE__, "migratepages 4000 1 0", NULL, "migratepages 4000 0 1", NULL },
	{ __LINE__, "migratepages 4000 all 0", NULL, NULL, "from every node" },
	/* taskset: back to the affinity the thread had */
	{ __LINE__, "taskset -pc 0-1 4003", NULL, "taskset -pc 0-3 4003", NULL },
	{ __LINE__, "taskset -pc 0-1 4004", NULL, NULL, "thread 4004 before is not known" },
	/* an affinity that is not a CPU list is never put on a command line */
	{ __LINE__, "taskset -pc 0-1 77", NULL, NULL, "not known" },
	/* virsh vcpupin: the vCPU's thread's affinity before, the same flags */
	{ __LINE__, "virsh vcpupin web1 1 0-1 --live --config", &web1,
	  "virsh vcpupin web1 1 0-3 --live --config", NULL },
	/* --config writes the persistent configuration: its undo restores the
	 * configuration's pin, and the live one apart when the two differ */
	{ __LINE__, "virsh vcpupin pers 1 0-1 --live --config", &web1,
	  "virsh vcpupin pers 1 0-3 --live\nvirsh vcpupin pers 1 0-7 --config", NULL },
	{ __LINE__, "virsh vcpupin pers 1 0-1 --config", NULL, "virsh vcpupin pers 1 0-7 --config", NULL },
	{ __LINE__, "virsh vcpupin other 1 0-1 --live --config", &web1, NULL,
	  "pin of vCPU 1 in other's persistent configuration before is not known" },
	{ __LINE__, "virsh vcpupin web1 1 0-1 --live", NULL, NULL, "vCPU's thread before" },
	{ __LINE__, "virsh vcpupin web1 0 0-1 --live", &web1, NULL, "vCPU's thread before" },
	{ __LINE__, "virsh vcpupin web1 2 0-1 --live", &web1, NULL, "vCPU's thread before" },
	/* a name with a space, quoted as sh quotes it, stays one word in the undo */
	{ __LINE__, "virsh vcpupin 'my vm' 1 0-1 --live", &web1,
	  "virsh vcpupin 'my vm' 1 0-3 --live", NULL },
	/* virsh emulatorpin: back to QEMU's main thread's affinity, the same flags */
	{ __LINE__, "virsh emulatorpin web1 0-1 --live --config", &web1,
	  "virsh emulatorpin web1 0-7 --live --config", NULL },
	{ __LINE__, "virsh emulatorpin web1 0-1 --live", &nopid, NULL, "emulator threads before" },
	{ __LINE__, "virsh emulatorpin web1 0-1 --live", NULL, NULL, "emulator threads before" },
	/* virsh iothreadpin: back to that IOThread's thread's affinity */
	{ __LINE__, "virsh iothreadpin web1 1 0-1 --live", &web1,
	  "virsh iothreadpin web1 1 4-5 --live", NULL },
	{ __LINE__, "virsh iothreadpin web1 3 0-1 --live", &web1, NULL, "IOThread 3's thread" },
	{ __LINE__, "virsh iothreadpin web1 1 0-1 --live", &nopid, NULL, "IOThread 1's thread" },
	/* no exact undo known */
	{ __LINE__, "virsh numatune web1 --nodeset 0 --live", &web1, NULL,
	  "not a command --apply runs" },
	{ __LINE__, "xl vcpu-pin 'dom' 1 - 0-3", NULL, NULL, "not a command --apply runs" },
	{ __LINE__, "xl shutdown -w 'dom'", NULL, NULL, "not a command --apply runs" },
	{ __LINE__, "taskset -pc 0-1 4003 extra", NULL, NULL, "not a command --apply runs" },
};

TEST(apply_undo_lines)
{
	size_t i;

	for (i = 0; i < sizeof(undo_cases) / sizeof(undo_cases[0]); i++) {
		char *undo, *why;
		int ret = apply_undo_line(undo_cases[i].cmd, undo_cases[i].vm, &probe, &undo,
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

	CHECK_INT(apply_undo_line("# restart the VM under: numactl --interleave=0-1", NULL,
				  &probe, &undo, &why), 0);
	CHECK(!undo && !why);
	CHECK_INT(apply_undo_line("   ", NULL, &probe, &undo, &why), 0);
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
 * A VM name as one word of a command (POSIX sh quoting: inside single quotes
 * every byte is itself; a quote is closed, escaped with a backslash and
 * reopened) and apply_split() reading it back as sh would: the third word of
 * each line is the name, as sh -c 'printf "%s\n" ...' prints it.
 */
TEST(shell_word_round_trips_through_apply_split)
{
	static const char *const names[] = { "web1", "db-2", "my vm", "it's", "a;rm -rf /",
					     "$(x)", "tab\there", "'" };
	static const char *const want[] = { "web1", "db-2", "'my vm'", "'it'\\''s'",
					    "'a;rm -rf /'", "'$(x)'", "'tab\there'", "''\\'''" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *q = shell_word(names[i], false), *line;
		const char *why;
		char **w;

		CHECK_STR(q, want[i]);
		line = xasprintf("virsh vcpupin %s 1 0-1 --live", q);
		w = apply_split(line, &why);
		CHECK(w != NULL);
		if (w) {
			CHECK_STR(w[2], names[i]);
			CHECK_STR(w[3], "1");
			CHECK(w[6] == NULL);
		}
		apply_split_free(w);
		free(line);
		free(q);
	}
	{
		char *q = shell_word("guest", true);

		CHECK_STR(q, "'guest'");
		free(q);
	}
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
	apply_plan_make(&in, &r, allow_low, &probe, pl);
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

/*
 * A whole libvirt VM moved (colocate): each vCPU, the emulator threads and
 * IOThread 1, every line undone to the affinity its thread had before; with
 * IOThread 3 (no thread so named) the advice is refused whole.
 */
static void whole_vm(const char *command, struct apply_plan *pl)
{
	struct diag_vm vm = { .name = "web1", .pid = 4000, .libvirt = true };
	struct diag_vcpu vc[2] = { { .vm = 0, .index = 0, .tid = 4002 },
				   { .vm = 0, .index = 1, .tid = 4003 } };
	struct diag_bottleneck b = { .scope = DIAG_VM, .entity = 0, .factor = FACTOR_SHARING,
				     .confidence = CONF_HIGH };
	struct diag_advice a = { .rule = "colocate", .vm = 0, .vcpu = -1,
				 .command = (char *)command };
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
	r.a = &a;
	r.n_a = 1;
	apply_plan_make(&in, &r, false, &probe, pl);
}

TEST(apply_plan_whole_libvirt_vm_undone_line_by_line)
{
	struct apply_plan pl;

	whole_vm("virsh vcpupin web1 0 0-1 --live\n"
		 "virsh vcpupin web1 1 0-1 --live\n"
		 "virsh emulatorpin web1 0-1 --live\n"
		 "virsh iothreadpin web1 1 0-1 --live\n", &pl);
	CHECK_INT((int)pl.n_apply, 1);
	CHECK_INT((int)pl.items[0].n_steps, 4);
	if (pl.items[0].n_steps == 4) {
		CHECK_STR(pl.items[0].steps[0].undo, "virsh vcpupin web1 0 2-3 --live");
		CHECK_STR(pl.items[0].steps[1].undo, "virsh vcpupin web1 1 0-3 --live");
		CHECK_STR(pl.items[0].steps[2].undo, "virsh emulatorpin web1 0-7 --live");
		CHECK_STR(pl.items[0].steps[3].undo, "virsh iothreadpin web1 1 4-5 --live");
	}
	apply_plan_release(&pl);
	whole_vm("virsh vcpupin web1 0 0-1 --live\n"
		 "virsh emulatorpin web1 0-1 --live\n"
		 "virsh iothreadpin web1 3 0-1 --live\n", &pl);
	CHECK_INT((int)pl.n_apply, 0);
	CHECK_CONTAINS(pl.items[0].why_not, "IOThread 3's thread");
	apply_plan_release(&pl);
}
