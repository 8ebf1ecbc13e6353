/* xen_host.c - a Xen dom0's machine: pCPUs, nodes, distances and boot options from `xl info -n` */
#include "platform/probe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/run.h"
#include "util/vocab.h"

/*
 * A PV dom0's kernel sees its own vCPUs and one node; the machine's pCPUs
 * and NUMA nodes are Xen's.  xl prints them (tools/xl/xl_info.c,
 * output_topologyinfo and output_numainfo):
 *
 *   cpu_topology           :
 *   cpu:    core    socket     node
 *     0:       0        0        0
 *   numa_info              :
 *   node:    memsize    memfree    distances
 *      0:      1536        729      10,20
 *
 * with memory in MiB (libxl's bytes >> 20) and one distance per node id.
 */

/* The text after "key : " on its own line, copied into buf; false when absent. */
static bool info_value(const char *text, const char *key, char *buf, size_t size)
{
	size_t len;
	const char *v = plat_field(text, key, &len);

	if (!v || !len)
		return false;
	snprintf(buf, size, "%.*s", (int)len, v);
	return true;
}

/* The lines after a "NAME   :" header line and its column header; NULL when absent. */
static const char *section(const char *text, const char *name, const char *colhead)
{
	const char *p = text;
	size_t nl = strlen(name);

	while (p && *p) {
		if (!strncmp(p, name, nl) && (p[nl] == ' ' || p[nl] == ':')) {
			p = strchr(p, '\n');
			if (p && !strncmp(p + 1, colhead, strlen(colhead)))
				p = strchr(p + 1, '\n');
			return p ? p + 1 : NULL;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

struct xcpu {
	int cpu, core, socket, node;
};

/* A node id of xl's: below 4096 (Linux's MAX_NUMNODES is 1024 at most; src/hv/xen.c alike). */
#define XEN_NODE_MAX 4096

struct xnode {
	int id;
	unsigned long long mem_mib, free_mib;
	int dist[64];
	int n_dist;
};

static int node_of(const struct xnode *nd, int n, int id)
{
	int i;

	for (i = 0; i < n; i++)
		if (nd[i].id == id)
			return i;
	return -1;
}

int platform_xen_info_parse(const char *text, struct topology *t, struct hypervisor *h,
			    struct vp_err *err)
{
	struct xcpu *cpus = NULL;
	struct xnode *nodes = NULL;
	size_t ncpu = 0, capc = 0, capn = 0, i, k;
	int nnode = 0, ret = 0, j;
	const char *p;
	char buf[64];

	memset(t, 0, sizeof(*t));
	if (h) {
		info_value(text, "xen_version", h->xen_version, sizeof(h->xen_version));
		info_value(text, "xen_scheduler", h->xen_scheduler, sizeof(h->xen_scheduler));
		size_t len;
		const char *v = plat_field(text, "xen_commandline", &len);
		char *line = v ? xstrndup(v, len) : NULL;

		plat_set(&h->xen_cmdline, line);  /* whole: Xen allows 1024 bytes and more */
		free(line);
	}
	p = section(text, "cpu_topology", "cpu:");
	if (!p)
		return vp_err_set(err, VP_EPARSE, "'xl info -n' has no cpu_topology section");
	/* "  0:       0        0        0" until the next "key  :" line */
	while (*p == ' ') {
		struct xcpu c;

		if (sscanf(p, " %d: %d %d %d", &c.cpu, &c.core, &c.socket, &c.node) == 4) {
			/* refused, not left out: a topology without the pCPU would be wrong */
			if (c.cpu < 0 || c.cpu >= CPULIST_MAX || c.node < 0 || c.node >= XEN_NODE_MAX) {
				ret = vp_err_set(err, VP_EPARSE, "'xl info -n' cpu_topology: pCPU %d on "
						 "node %d is out of range (pCPU 0 to %d, node 0 to %d)",
						 c.cpu, c.node, CPULIST_MAX - 1, XEN_NODE_MAX - 1);
				goto out;
			}
			VP_GROW(cpus, capc, ncpu + 1);
			cpus[ncpu++] = c;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	if (!ncpu) {
		ret = vp_err_set(err, VP_EPARSE, "'xl info -n' lists no pCPU under cpu_topology");
		goto out;
	}
	p = section(text, "numa_info", "node:");
	while (p && *p == ' ') {
		struct xnode nd;
		int n = 0;
		const char *d;

		memset(&nd, 0, sizeof(nd));
		if (sscanf(p, " %d: %llu %llu %n", &nd.id, &nd.mem_mib, &nd.free_mib, &n) == 3 && n) {
			if (nd.id < 0 || nd.id >= XEN_NODE_MAX) {
				ret = vp_err_set(err, VP_EPARSE, "'xl info -n' numa_info: node %d is "
						 "out of range (0 to %d)", nd.id, XEN_NODE_MAX - 1);
				goto out;
			}
			for (d = p + n; isdigit((unsigned char)*d) && nd.n_dist < 64;) {
				nd.dist[nd.n_dist++] = atoi(d);
				while (isdigit((unsigned char)*d))
					d++;
				if (*d != ',')
					break;
				d++;
			}
			VP_GROW(nodes, capn, (size_t)nnode + 1);
			nodes[nnode++] = nd;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	/* nodes that hold CPUs but no numa_info line (older xl): memory unknown */
	for (i = 0; i < ncpu; i++)
		if (node_of(nodes, nnode, cpus[i].node) < 0) {
			VP_GROW(nodes, capn, (size_t)nnode + 1);
			memset(&nodes[nnode], 0, sizeof(nodes[nnode]));
			nodes[nnode].id = cpus[i].node;
			nodes[nnode].mem_mib = nodes[nnode].free_mib = (unsigned long long)-1;
			nnode++;
		}
	/* ascending node id */
	for (j = 1; j < nnode; j++)
		for (k = (size_t)j; k > 0 && nodes[k - 1].id > nodes[k].id; k--) {
			struct xnode tmp = nodes[k];

			nodes[k] = nodes[k - 1];
			nodes[k - 1] = tmp;
		}

	t->known = true;
	t->from_xen = true;
	cpulist_init(&t->online);
	for (i = 0; i < ncpu; i++)
		cpulist_add(&t->online, cpus[i].cpu);
	t->n_cpus = (int)t->online.n;
	t->max_cpu = t->online.ids[t->online.n - 1] + 1;
	t->cpu_package = xmalloc((size_t)t->max_cpu * sizeof(int));
	t->cpu_core = xmalloc((size_t)t->max_cpu * sizeof(int));
	t->cpu_node = xmalloc((size_t)t->max_cpu * sizeof(int));
	for (j = 0; j < t->max_cpu; j++)
		t->cpu_package[j] = t->cpu_core[j] = t->cpu_node[j] = -1;
	for (i = 0; i < ncpu; i++) {
		bool new_pkg = true, new_core = true;

		for (k = 0; k < i; k++) {
			new_pkg &= cpus[k].socket != cpus[i].socket;
			new_core &= cpus[k].socket != cpus[i].socket || cpus[k].core != cpus[i].core;
		}
		t->n_packages += new_pkg;
		t->n_cores += new_core;
		t->cpu_package[cpus[i].cpu] = cpus[i].socket;
		t->cpu_core[cpus[i].cpu] = cpus[i].core;
		t->cpu_node[cpus[i].cpu] = cpus[i].node;
	}
	t->smt_on = t->n_cpus > t->n_cores;
	t->n_nodes = nnode;
	t->nodes = xcalloc((size_t)nnode, sizeof(*t->nodes));
	for (j = 0; j < nnode; j++) {
		struct numa_node *nd = &t->nodes[j];

		nd->id = nodes[j].id;
		cpulist_init(&nd->cpus);
		for (i = 0; i < ncpu; i++)
			if (cpus[i].node == nd->id)
				cpulist_add(&nd->cpus, cpus[i].cpu);
		nd->mem_known = nodes[j].mem_mib != (unsigned long long)-1;
		if (nd->mem_known) {
			nd->mem_total = (uint64_t)nodes[j].mem_mib << 20;
			nd->mem_free = (uint64_t)nodes[j].free_mib << 20;
		}
	}
	if (info_value(text, "total_memory", buf, sizeof(buf)))
		t->mem_total_sys = strtoull(buf, NULL, 10) << 20;
	plat_setf(&t->node_note,
		 "from Xen (xl info -n): the machine's nodes, not dom0's");
	/* distances: row i, column j is the distance to node id nodes[j].id */
	t->distance = xmalloc((size_t)nnode * (size_t)nnode * sizeof(int));
	for (j = 0; j < nnode && t->distance; j++)
		for (k = 0; k < (size_t)nnode; k++) {
			int to = t->nodes[k].id;

			if (to >= nodes[j].n_dist || nodes[j].dist[to] <= 0) {
				free(t->distance);
				t->distance = NULL;
				plat_setf(&t->distance_reason,
					 "'xl info -n' numa_info gives node %d no distance to node %d",
					 nodes[j].id, to);
				break;
			}
			t->distance[(size_t)j * (size_t)nnode + k] = nodes[j].dist[to];
		}
	plat_setf(&t->llc_reason,
		 "Xen's 'xl info -n' does not list caches (dom0's sysfs shows its vCPUs' view)");
out:
	free(cpus);
	free(nodes);
	return ret;
}

void probe_xen_host(struct platform *p, bool live)
{
	static const char *const argv[] = { "xl", "info", "-n", NULL };
	struct hypervisor *h = &p->hv;
	struct vp_err err = { 0, "" };
	struct topology xt;
	char *text = NULL;

	(void)live;
	if (!h->xen_dom0)
		return;
	if (vp_run(p->root, argv, &text, &err)) {
		plat_reason(&h->xen_info_reason, p->root, &err);
		return;
	}
	if (platform_xen_info_parse(text, &xt, h, &err)) {
		plat_reason(&h->xen_info_reason, p->root, &err);
		topology_release(&xt);
		free(text);
		return;
	}
	free(text);
	/* dom0's own view stays, as dom0's */
	p->dom0_topo = p->topo;
	p->topo = xt;
}

bool platform_xen_option(const struct hypervisor *h, const char *name, struct sbuf *val)
{
	const char *p = sbuf_str(&h->xen_cmdline);
	size_t nl = strlen(name);
	bool found = false;

	if (val)
		sbuf_reset(val);
	/* the last occurrence wins, as in Xen's own parser */
	while (*p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, name, nl) && (p[nl] == '=' || p[nl] == ' ' || !p[nl])) {
			const char *v = p[nl] == '=' ? p + nl + 1 : p + nl;
			size_t vl = strcspn(v, " ");

			found = true;
			if (val) {
				sbuf_reset(val);
				sbuf_add(val, v, vl);
			}
		}
		p += strcspn(p, " ");
	}
	return found;
}

bool platform_xen_pmu_why(const struct platform *p, struct sbuf *buf)
{
	const struct hypervisor *h = &p->hv;
	struct sbuf vpmu = SBUF_INIT, pin = SBUF_INIT;
	int n = p->topo.from_xen ? p->topo.n_cpus : 0;
	bool ok = false;

	sbuf_reset(buf);
	if (n > 0)
		sbuf_addf(&pin, "dom0_max_vcpus=%d dom0_vcpus_pin", n);
	else
		sbuf_addstr(&pin, "dom0_max_vcpus=<pCPUs> dom0_vcpus_pin");
	if (!h->xen_pmu_mode[0]) {
		bool opt = platform_xen_option(h, "vpmu", &vpmu);

		sbuf_addf(buf,
			  "Xen has no vPMU (pmu_mode: %s)%s%s%s: add vpmu=1 to Xen's command line",
			  h->xen_pmu_reason.len ? sbuf_str(&h->xen_pmu_reason) : "unreadable",
			  opt ? "; Xen's command line has vpmu=" : h->xen_cmdline.len ?
			  "; Xen's command line has no vpmu=" : "",
			  opt ? sbuf_str(&vpmu) : "", opt ? " (the CPU may be one Xen's vPMU does not know: "
			  "'VPMU: Initialization failed' in xl dmesg)" : "");
	} else if (strcmp(h->xen_pmu_mode, "all")) {
		sbuf_addf(buf,
			  "pmu_mode is '%s': dom0's counters cover dom0 alone; counting for other "
			  "domains needs pmu_mode 'all' (echo all > /sys/hypervisor/pmu/pmu_mode, "
			  "which takes the vPMU from every guest; vmmprof never switches it) and one "
			  "dom0 vCPU pinned on every pCPU (%s); then vmmprof counts per pCPU and "
			  "apportions to domains with --xentrace",
			  h->xen_pmu_mode, sbuf_str(&pin));
	} else {
		/* 'all': dom0's counts are per pCPU only when dom0 is pinned 1:1 */
		int k = (int)platform_local_topo(p)->online.n;
		bool pin_opt = platform_xen_option(h, "dom0_vcpus_pin", NULL);
		struct sbuf d0 = SBUF_INIT;

		platform_xen_option(h, "dom0", &d0);
		ok = pin_opt && n > 0 && k == n;
		sbuf_addstr(buf, "pmu_mode is 'all'; ");
		if (ok)
			sbuf_addf(buf, "dom0 has one vCPU pinned on each of the %d pCPUs", n);
		else if (n > 0)
			sbuf_addf(buf, "dom0 is not pinned 1:1 (%d vCPU(s) on %d pCPUs%s): "
				  "its perf counts on its vCPUs, which are pCPUs only with %s", k, n,
				  pin_opt ? "" : ", no dom0_vcpus_pin", sbuf_str(&pin));
		else
			sbuf_addf(buf, "dom0's pinning is unknown (the pCPUs are not "
				  "known): its perf counts on its vCPUs, which are pCPUs only with %s",
				  sbuf_str(&pin));
		sbuf_addf(buf, "%s%s", ok ?
			  ": counted per pCPU and apportioned to domains and vCPUs by Xen's scheduler "
			  "trace (with --xentrace)" : "", strstr(sbuf_str(&d0), "msr-relaxed") ?
			  "; Xen's command line has dom0=msr-relaxed: dom0's reads of MSRs Xen does "
			  "not handle return 0, so a zero count is not evidence" : "");
		sbuf_release(&d0);
	}
	sbuf_release(&vpmu);
	sbuf_release(&pin);
	return ok;
}

bool platform_xen_psr(const struct platform *p, struct sbuf *why)
{
	const struct hypervisor *h = &p->hv;
	struct sbuf v = SBUF_INIT;
	bool intel = !strcmp(p->cpu.vendor, "GenuineIntel"), ok = false;

	sbuf_reset(why);
	if (!h->xen_cmdline.len)
		sbuf_addf(why, "Xen's command line is unknown (%s): PSR monitoring needs "
			  "psr=cmt there and an Intel CPU with RDT",
			  h->xen_info_reason.len ? sbuf_str(&h->xen_info_reason) : "not read");
	else if (!platform_xen_option(h, "psr", &v) || !strstr(sbuf_str(&v), "cmt"))
		sbuf_addf(why, "needs psr=cmt on Xen's command line (it has none) and an "
			  "Intel CPU with RDT%s", p->cpu.known && !intel ? " (this one is not Intel)" : "");
	else {
		sbuf_addf(why, "psr=%s on Xen's command line", sbuf_str(&v));
		ok = true;
	}
	sbuf_release(&v);
	return ok;
}

bool platform_xen_factor_why(const struct platform *p, int f, struct sbuf *buf)
{
	struct sbuf pmu = SBUF_INIT, psr = SBUF_INIT;
	bool said = true;

	if (!p->hv.xen_dom0)
		return false;
	platform_xen_pmu_why(p, &pmu);
	if (platform_xen_psr(p, &psr))
		/* Xen can: vmmprof asks only when told to */
		sbuf_addstr(&psr, ": ask with --xen-psr (the daemon: xen_psr = on)");
	switch (f) {
	case FACTOR_LLC:
		sbuf_addf(buf, "per-domain LLC occupancy: Xen PSR CMT (xl psr-cmt-show "
			  "cache-occupancy): %s; LLC misses: %s", sbuf_str(&psr), sbuf_str(&pmu));
		break;
	case FACTOR_SHARING:
		sbuf_addf(buf, "HITM and snoop-forward counts: %s", sbuf_str(&pmu));
		break;
	case FACTOR_IMC:
		sbuf_addf(buf, "per-domain bandwidth: Xen PSR MBM (xl psr-cmt-show "
			  "total-mem-bandwidth): %s; memory-controller counters: dom0 has no uncore "
			  "PMU (Linux registers none under a hypervisor; Xen >= 4.15 faults uncore MSR "
			  "reads); the IMC's own registers, which dom0 owns: --xen-imc reads them from PCI "
			  "config space on Intel Xeon Sandy Bridge-EP to Cascade Lake (root; Ice Lake-SP "
			  "and later keep them in MMIO: not built; AMD has none dom0 can reach)",
			  sbuf_str(&psr));
		break;
	case FACTOR_QUEUE:
		/* no core event replaces them (CPI is every kind of stall): the
		 * vPMU does not help here, so pmu is not named */
		sbuf_addstr(buf, "queue trackers (GQ, CHA/CBo TOR) are uncore MSRs, which Xen does "
			    "not let dom0 read, and no core event counts them; the IMC's read and "
			    "write pending queues are in the memory channels' PCI config space on "
			    "Intel Xeon Sandy Bridge-EP to Cascade Lake: --xen-imc reads them (the "
			    "queue score of the SNB-EP, IVB-EP and SKX models; the Haswell-EP and "
			    "Broadwell-EP models score the home agent's tracker, which it does not "
			    "program)");
		break;
	default:
		said = false;
	}
	sbuf_release(&pmu);
	sbuf_release(&psr);
	return said;
}
