/*
 * numa_truth.c - a QEMU TCG plugin that is the locality estimate's ground
 * truth (issue 17 item 4): it sees every data access a guest vCPU makes,
 * with its guest-physical address, and counts each vCPU's user-mode
 * accesses per virtual NUMA node, exactly.
 *
 *   -plugin numa_truth.so,out=FILE,ranges=LO-HI:LO-HI:...
 *
 * ranges: node k's RAM (k = 0, 1, ...), [LO, HI) in the addresses that
 * qemu_plugin_hwaddr_phys_addr() returns.  In QEMU 7.2 (plugins/api.c) that
 * is not the guest-physical address: it is the RAM block's offset in QEMU's
 * ram_addr space plus the offset in the block plus the block's memory
 * region's address, so tests/vm/eval.py truth-ranges derives each node's
 * range from the paused QEMU's own "info ramblock" and "info mtree -f".
 * An address in no range counts as node "other"; an I/O access is not
 * counted.  User mode is an access whose virtual address is
 * in the lower canonical half (x86-64: below 0x0000800000000000), so the
 * guest kernel's own accesses stay out.
 *
 * Epochs: a user-mode access to page K of the marker window (virtual
 * address MARK_BASE + K * 4096, K in 1..MARK_MAX) starts epoch K; page 0
 * ends it (epoch 0, not reported).  tests/vm/guest/numa_touch.c maps that
 * page and touches it around its hold loop, so each run's counts are its
 * own.  The counts are written when an epoch ends and at exit:
 *
 *   epoch E vcpu V node N accesses C
 *
 * The header qemu-plugin.h comes from Debian's qemu source package at test
 * time (tests/tiers/vm-testbed.sh); nothing of QEMU is kept in this tree.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#define MARK_BASE 0x7e0000000000ULL
#define MARK_MAX 15
#define MAX_NODES 8
#define MAX_VCPUS 64
#define USER_TOP 0x0000800000000000ULL

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static uint64_t lo[MAX_NODES], hi[MAX_NODES];
static int n_nodes;
static const char *out_path;
static _Atomic int epoch;
/* [epoch][vcpu][node]: each vCPU writes its own row; the epoch is global */
static _Atomic uint64_t counts[MARK_MAX + 1][MAX_VCPUS][MAX_NODES + 1];

static void dump(void)
{
	FILE *f = fopen(out_path, "w");
	int e, v, n;

	if (!f)
		return;
	for (e = 1; e <= MARK_MAX; e++)
		for (v = 0; v < MAX_VCPUS; v++)
			for (n = 0; n <= n_nodes; n++) {
				uint64_t c = atomic_load(&counts[e][v][n]);

				if (!c)
					continue;
				if (n < n_nodes)
					fprintf(f, "epoch %d vcpu %d node %d accesses %" PRIu64 "\n",
						e, v, n, c);
				else
					fprintf(f, "epoch %d vcpu %d node other accesses %" PRIu64 "\n",
						e, v, c);
			}
	fclose(f);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw;
	uint64_t pa;
	int node = 0, e;

	(void)udata;
	if (vaddr >= USER_TOP || vcpu >= MAX_VCPUS)
		return;
	if (vaddr >= MARK_BASE && vaddr < MARK_BASE + (MARK_MAX + 1) * 4096ULL) {
		int k = (int)((vaddr - MARK_BASE) / 4096);

		if (atomic_exchange(&epoch, k) != k && k == 0)
			dump();
		return;
	}
	e = atomic_load(&epoch);
	if (!e)
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	while (node < n_nodes && !(pa >= lo[node] && pa < hi[node]))
		node++;
	atomic_fetch_add_explicit(&counts[e][vcpu][node], 1, memory_order_relaxed);
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (i = 0; i < n; i++)
		qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), on_mem,
						 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	dump();
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (!info->system_emulation) {
		fprintf(stderr, "numa_truth: system emulation only\n");
		return 1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "ranges=", 7)) {
			char *p = argv[i] + 7, *end, *end2;

			while (*p) {
				if (n_nodes == MAX_NODES) {
					fprintf(stderr, "numa_truth: more than %d ranges\n", MAX_NODES);
					return 1;
				}
				lo[n_nodes] = strtoull(p, &end, 0);
				hi[n_nodes] = end != p && *end == '-' ? strtoull(end + 1, &end2, 0) : 0;
				if (end == p || *end != '-' || end2 == end + 1 || (*end2 && *end2 != ':') ||
				    hi[n_nodes] <= lo[n_nodes]) {
					fprintf(stderr, "numa_truth: ranges=%s: not a ':' list of LO-HI\n",
						argv[i] + 7);
					return 1;
				}
				n_nodes++;
				p = *end2 ? end2 + 1 : end2;
			}
		} else {
			fprintf(stderr, "numa_truth: unknown argument '%s' (out=FILE, ranges=LO-HI:...)\n",
				argv[i]);
			return 1;
		}
	}
	if (!out_path || !n_nodes) {
		fprintf(stderr, "numa_truth: out=FILE and ranges=LO-HI:... are required\n");
		return 1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
