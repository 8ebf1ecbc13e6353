/* xen.c - Xen adapter: domains and their vCPUs from xl, seen from dom0 */
#include "hv/xen.h"
#include "hv/cache.h"
#include "source/xen_psr.h"
#include "source/xentrace.h"
#include "util/fs.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/timeutil.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_JANSSON
#include <jansson.h>
#endif

static struct hv_vm *find_domid(struct hv_vm_list *l, size_t first, int domid)
{
	size_t i;

	for (i = first; i < l->n; i++)
		if (l->vms[i].adapter == HVA_XEN && l->vms[i].domid == domid)
			return &l->vms[i];
	return NULL;
}

/* &(*arr)[node], growing *arr (*n long) with zeros to hold it; node < 4096. */
static uint64_t *node_slot(uint64_t **arr, int *n, int node)
{
	if (node >= *n) {
		*arr = xrealloc(*arr, (size_t)(node + 1) * sizeof(uint64_t));
		memset(*arr + *n, 0, (size_t)(node + 1 - *n) * sizeof(uint64_t));
		*n = node + 1;
	}
	return &(*arr)[node];
}

#ifdef HAVE_JANSSON
static void bitmap_to_list(json_t *arr, struct cpulist *cl)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v)
		if (json_is_integer(v) && json_integer_value(v) >= 0 &&
		    json_integer_value(v) < CPULIST_MAX)
			cpulist_add(cl, (int)json_integer_value(v));
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static long long jint(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static void parse_domain(json_t *d, struct hv_vm_list *out)
{
	json_t *cfg = json_object_get(d, "config");
	json_t *ci = json_object_get(cfg, "c_info"), *bi = json_object_get(cfg, "b_info");
	json_t *vnuma = json_object_get(bi, "vnuma_nodes");
	struct hv_vm *vm = hv_vm_list_add(out, HVA_XEN);
	const char *s;
	long long n, i;

	vm->domid = (int)jint(d, "domid", -1);
	vm->dom0 = vm->domid == 0;
	s = jstr(ci, "name");
	vm->name = s ? xstrdup(s) : vm->dom0 ? xstrdup("Domain-0") : xasprintf("dom%d", vm->domid);
	vm->name_source = xstrdup(s ? "xl" : "domid");
	if ((s = jstr(ci, "uuid")))
		vm->uuid = xstrdup(s);
	if ((s = jstr(ci, "type")))
		vm->accel = xstrdup(s);
	n = jint(bi, "max_vcpus", 0);
	if (n > 0) {
		struct hv_vcpu *v = hv_vm_add_vcpus(vm, (size_t)(n < 4096 ? n : 4096));

		for (i = 0; i < n && i < 4096; i++)
			v[i].index = (int)i;
	}
	/* target is what the balloon aims at; max is the ceiling */
	n = jint(bi, "target_memkb", jint(bi, "max_memkb", 0));
	if (n > 0)
		vm->mem_size = (uint64_t)n * 1024;
	if (json_is_array(json_object_get(bi, "nodemap")))
		bitmap_to_list(json_object_get(bi, "nodemap"), &vm->node_affinity);
	if (json_is_array(vnuma) && json_array_size(vnuma)) {
		size_t k;
		json_t *vn;

		/* vNUMA: each virtual node's memory sits on its pnode */
		json_array_foreach(vnuma, k, vn) {
			long long pnode = jint(vn, "pnode", -1), kb = jint(vn, "memkb", -1);

			if (pnode < 0 || pnode >= 4096 || kb < 0)
				continue;
			*node_slot(&vm->mem_node, &vm->n_mem_nodes, (int)pnode) += (uint64_t)kb * 1024;
		}
		snprintf(vm->mem_reason, sizeof(vm->mem_reason),
			 "configured vNUMA memory per physical node (xl list -l vnuma_nodes)");
	} else {
		snprintf(vm->mem_reason, sizeof(vm->mem_reason),
			 "no vNUMA: Xen prints pages per node only on request (--xen-numa-dump runs "
			 "'xl debug-keys u' and reads 'xl dmesg')");
	}
	snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "xl vcpu-list");
}

int xen_parse_list_l(const char *text, struct hv_vm_list *out, struct vp_err *err)
{
	json_error_t je;
	json_t *root, *d;
	size_t i;
	const char *p = text;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '(')
		return vp_err_set(err, VP_EUNSUPP,
				  "'xl list -l' printed SXP: set output_format=\"json\" in xl.conf");
	root = json_loads(text, 0, &je);
	if (!root)
		return vp_err_set(err, VP_EPARSE, "'xl list -l':%d:%d: %s", je.line, je.column,
				  je.text);
	if (!json_is_array(root)) {
		json_decref(root);
		return vp_err_set(err, VP_EPARSE, "'xl list -l': expected a JSON array");
	}
	json_array_foreach(root, i, d)
		if (json_is_object(d))
			parse_domain(d, out);
	json_decref(root);
	return 0;
}
#else
int xen_parse_list_l(const char *text, struct hv_vm_list *out, struct vp_err *err)
{
	(void)text;
	(void)out;
	return vp_err_set(err, VP_EDEP, "cannot read 'xl list -l': built without jansson");
}
#endif

/* "all", or a CPU list; xl prints "none" for an empty soft affinity. */
static int parse_affinity(const char *s, struct cpulist *cl, bool *all)
{
	*all = !strcmp(s, "all") || !strcmp(s, "any cpu");
	if (*all || !strcmp(s, "none"))
		return 0;
	return cpulist_parse(cl, s, NULL);
}

/*
 * What xl's outputs may name: a vCPU index below 4096 (the cap of 'xl list -l''s max_vcpus
 * here), a pCPU below CPULIST_MAX, a node below 4096 (Linux's MAX_NUMNODES is 1024 at most).
 * A value outside is refused with the output's name and line, never used as an index.
 */
#define XEN_VCPU_MAX 4096
#define XEN_NODE_MAX 4096

int xen_parse_vcpu_list(const char *text, struct hv_vm_list *l, size_t first,
			const int *pcpu_node, int n_pcpu, struct vp_err *err)
{
	const char *p = text;
	int lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len), *tok[64], *save = NULL, *t;
		int nt = 0, domid, vidx, cpu;
		struct hv_vm *vm;
		struct hv_vcpu *v = NULL;
		size_t k;

		lineno++;
		p += len + (nl ? 1 : 0);
		for (t = strtok_r(line, " \t", &save); t && nt < 64; t = strtok_r(NULL, " \t", &save))
			tok[nt++] = t;
		/* NAME... ID VCPU CPU STATE TIME HARD / SOFT (name may hold spaces) */
		if (nt < 9 || !strcmp(tok[0], "Name") || strcmp(tok[nt - 2], "/"))
			goto next;
		if (sscanf(tok[nt - 8], "%d", &domid) != 1 || sscanf(tok[nt - 7], "%d", &vidx) != 1) {
			int ret = vp_err_set(err, VP_EPARSE,
					     "'xl vcpu-list' line %d: domain id or vCPU is not a number",
					     lineno);

			free(line);
			return ret;
		}
		if (vidx < 0 || vidx >= XEN_VCPU_MAX ||
		    (sscanf(tok[nt - 6], "%d", &cpu) == 1 && (cpu < 0 || cpu >= CPULIST_MAX))) {
			int ret = vidx < 0 || vidx >= XEN_VCPU_MAX ?
				vp_err_set(err, VP_EPARSE, "'xl vcpu-list' line %d: vCPU %d of domain %d "
					   "is out of range (0 to %d)", lineno, vidx, domid,
					   XEN_VCPU_MAX - 1) :
				vp_err_set(err, VP_EPARSE, "'xl vcpu-list' line %d: pCPU %d of domain %d "
					   "vCPU %d is out of range (0 to %d)", lineno, cpu, domid, vidx,
					   CPULIST_MAX - 1);

			free(line);
			return ret;
		}
		vm = find_domid(l, first, domid);
		if (!vm)
			goto next; /* created after 'xl list -l' ran */
		for (k = 0; k < vm->n_vcpus; k++)
			if (vm->vcpus[k].index == vidx)
				v = &vm->vcpus[k];
		if (!v) {
			v = hv_vm_add_vcpu(vm);
			v->index = vidx;
		}
		v->cpu = sscanf(tok[nt - 6], "%d", &cpu) == 1 ? cpu : -1;
		v->node = v->cpu >= 0 && pcpu_node && v->cpu < n_pcpu ? pcpu_node[v->cpu] : -1;
		snprintf(v->state, sizeof(v->state), "%s", tok[nt - 5]);
		v->cpu_time_s = strtod(tok[nt - 4], NULL);
		cpulist_release(&v->affinity);
		cpulist_release(&v->soft_affinity);
		parse_affinity(tok[nt - 3], &v->affinity, &v->affinity_all);
		parse_affinity(tok[nt - 1], &v->soft_affinity, &v->soft_all);
next:
		free(line);
	}
	return 0;
}

int xen_parse_list_n(const char *text, struct hv_vm_list *l, size_t first, int nr_nodes)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len), *tok[64], *save = NULL, *t;
		struct cpulist cl;
		struct hv_vm *vm;
		int nt = 0, domid, n;

		p += len + (nl ? 1 : 0);
		for (t = strtok_r(line, " \t", &save); t && nt < 64; t = strtok_r(NULL, " \t", &save))
			tok[nt++] = t;
		/* NAME... ID Mem VCPUs State Time(s) NODE-AFFINITY (the name may hold spaces) */
		if (nt < 7 || !strcmp(tok[0], "Name") || sscanf(tok[nt - 6], "%d", &domid) != 1 ||
		    !(vm = find_domid(l, first, domid)))
			goto next;
		/* State "rbpscd": p, its third letter, is a paused domain (xl pause) */
		if (strlen(tok[nt - 3]) == 6 && strspn(tok[nt - 3], "rbpscd-") == 6) {
			vm->paused = tok[nt - 3][2] == 'p';
			snprintf(vm->state_source, sizeof(vm->state_source), "xl list state '%s'",
				 tok[nt - 3]);
		}
		cpulist_init(&cl);
		if (!strcmp(tok[nt - 1], "all")) {
			if (nr_nodes <= 0) /* "all" of how many: unknown */
				goto next;
			for (n = 0; n < nr_nodes; n++)
				cpulist_add(&cl, n);
		} else if (cpulist_parse(&cl, tok[nt - 1], NULL)) {
			goto next;
		}
		cpulist_release(&vm->node_affinity);
		vm->node_affinity = cl;
next:
		free(line);
	}
	return 0;
}

int xen_parse_info_topology(const char *text, int **pcpu_node, int *n, struct vp_err *err)
{
	const char *p = strstr(text, "cpu_topology");
	int cap = 0;

	*pcpu_node = NULL;
	*n = 0;
	if (!p)
		return vp_err_set(err, VP_ENOTFOUND, "'xl info -n' has no cpu_topology section");
	p = strchr(p, '\n');
	while (p && *++p) {
		int cpu, core, socket, node;

		if (!strncmp(p, "cpu:", 4))
			goto next; /* the column header */
		if (sscanf(p, " %d: %d %d %d", &cpu, &core, &socket, &node) != 4)
			break;
		if (cpu < 0 || cpu >= CPULIST_MAX || node < 0 || node >= XEN_NODE_MAX) {
			free(*pcpu_node);
			*pcpu_node = NULL;
			*n = 0;
			return cpu < 0 || cpu >= CPULIST_MAX ?
				vp_err_set(err, VP_EPARSE, "'xl info -n' cpu_topology: pCPU %d is out "
					   "of range (0 to %d)", cpu, CPULIST_MAX - 1) :
				vp_err_set(err, VP_EPARSE, "'xl info -n' cpu_topology: node %d of pCPU %d "
					   "is out of range (0 to %d)", node, cpu, XEN_NODE_MAX - 1);
		}
		if (cpu >= cap) {
			int old = cap;

			cap = cpu + 16;
			*pcpu_node = xrealloc(*pcpu_node, (size_t)cap * sizeof(int));
			while (old < cap)
				(*pcpu_node)[old++] = -1;
		}
		(*pcpu_node)[cpu] = node;
		if (cpu + 1 > *n)
			*n = cpu + 1;
next:
		p = strchr(p, '\n');
	}
	return 0;
}

/* The 'u' dump counts pages; Xen's page is 4 KiB on x86 and Arm. */
#define XEN_PAGE_SIZE 4096ull

/*
 * The text of one `xl dmesg` line without "(XEN) " and a console timestamp
 * ("[...] ", console_timestamps=); NULL for a guest's "(d1) ..." line.
 */
static const char *dmesg_text(const char *line)
{
	if (!strncmp(line, "(XEN)", 5)) {
		line += 5;
		if (*line == ' ')
			line++;
		if (*line == '[' && strchr(line, ']')) {
			line = strchr(line, ']') + 1;
			if (*line == ' ')
				line++;
		}
		return line;
	}
	return *line == '(' ? NULL : line;
}

/* "Domain 3 (total: 32768):" (Xen <= 4.17) or "d3 (total: 32768):" (%pd, later). */
static bool dump_domain_line(const char *s, int *domid, uint64_t *total)
{
	unsigned int id;
	unsigned long long t;
	int n = 0;

	if (sscanf(s, "Domain %u (total: %llu):%n", &id, &t, &n) != 2 || !n) {
		n = 0;
		if (s[0] != 'd' || !isdigit((unsigned char)s[1]) ||
		    sscanf(s, "d%u (total: %llu):%n", &id, &t, &n) != 2 || !n)
			return false;
	}
	if (id >= 0x7ff0) /* DOMID_FIRST_RESERVED and up: DOMID_IO & co, not domains */
		return false;
	*domid = (int)id;
	*total = t;
	return true;
}

/* "    Node 1: 16384": indented, unlike the dump's "NODE0 start->..." lines. */
static bool dump_node_line(const char *s, int *node, uint64_t *pages)
{
	unsigned int nd;
	unsigned long long pg;
	int n = 0;

	if (*s != ' ' || sscanf(s, " Node %u: %llu%n", &nd, &pg, &n) != 2 || !n || nd >= 4096)
		return false;
	*node = (int)nd;
	*pages = pg;
	return true;
}

void xen_numa_dump_release(struct xen_numa_dump *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->doms[i].pages);
	free(d->doms);
	memset(d, 0, sizeof(*d));
}

int xen_parse_numa_dump(const char *text, int want_nodes, struct xen_numa_dump *out,
			struct vp_err *err)
{
	struct xen_numa_dom *cur = NULL;
	const char *p;
	size_t cap = 0, i;
	int most = 0;

	memset(out, 0, sizeof(*out));
	for (p = text; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len);
		const char *t = dmesg_text(line);
		int domid, node;
		uint64_t v;

		p += len + (nl ? 1 : 0);
		if (t && !strncmp(t, "Memory location of each domain:", 31)) {
			/* a newer dump: what came before is history */
			out->n_dumps++;
			for (i = 0; i < out->n; i++)
				free(out->doms[i].pages);
			out->n = 0;
			cur = NULL;
		} else if (t && dump_domain_line(t, &domid, &v)) {
			VP_GROW(out->doms, cap, out->n + 1);
			cur = &out->doms[out->n++];
			memset(cur, 0, sizeof(*cur));
			cur->domid = domid;
			cur->total_pages = v;
		} else if (t && cur && dump_node_line(t, &node, &v)) {
			/* a Node line before any domain line is the tail of a cut entry */
			*node_slot(&cur->pages, &cur->n_nodes, node) = v;
			cur->n_lines++;
		}
		/* anything else (vNUMA layout, other messages in between) is skipped */
		free(line);
	}
	/* no header: the ring wrapped inside the only dump left, if any */
	out->cut = !out->n_dumps;
	if (!out->n)
		return vp_err_set(err, VP_ENOTFOUND, out->n_dumps ?
				  "Xen's newest 'u' dump in 'xl dmesg' lists no domain" :
				  "no 'Memory location of each domain' dump in 'xl dmesg'");
	/* Xen prints one line per online node for every domain */
	for (i = 0; i < out->n; i++)
		if (out->doms[i].n_lines > most)
			most = out->doms[i].n_lines;
	if (want_nodes > most)
		most = want_nodes;
	for (i = 0; i < out->n; i++)
		out->doms[i].complete = out->doms[i].n_lines == most;
	return 0;
}

/* Why a domain without vNUMA has no memory per node, when the dump cannot say. */
static void numa_reason(struct hv_vm_list *l, size_t first, const char *fmt, const char *msg)
{
	size_t i;

	for (i = first; i < l->n; i++)
		if (l->vms[i].adapter == HVA_XEN && !l->vms[i].n_mem_nodes)
			snprintf(l->vms[i].mem_reason, sizeof(l->vms[i].mem_reason), fmt, msg);
}

void xen_numa_apply(const struct xen_numa_dump *d, struct hv_vm_list *l, size_t first)
{
	size_t i, k;

	for (i = first; i < l->n; i++) {
		struct hv_vm *vm = &l->vms[i];
		const struct xen_numa_dom *dd = NULL;
		int n;

		if (vm->adapter != HVA_XEN)
			continue;
		for (k = 0; k < d->n; k++)
			if (d->doms[k].domid == vm->domid)
				dd = &d->doms[k];  /* the last one: a domid listed twice is reused */
		if (dd && dd->complete) {
			free(vm->mem_node);
			vm->mem_node = xcalloc((size_t)dd->n_nodes, sizeof(uint64_t));
			for (n = 0; n < dd->n_nodes; n++)
				vm->mem_node[n] = dd->pages[n] * XEN_PAGE_SIZE;
			vm->n_mem_nodes = dd->n_nodes;
			snprintf(vm->mem_reason, sizeof(vm->mem_reason),
				 "Xen's pages per node (4 KiB) from its 'u' debug key, newest dump in 'xl dmesg'");
			continue;
		}
		if (vm->n_mem_nodes)
			continue; /* keep the vNUMA configuration */
		if (dd)
			snprintf(vm->mem_reason, sizeof(vm->mem_reason),
				 "Xen's dump of domain %d in 'xl dmesg' is cut short (read while Xen wrote it)",
				 vm->domid);
		else if (d->cut)
			snprintf(vm->mem_reason, sizeof(vm->mem_reason),
				 "domain %d is not in what is left of Xen's dump: the console ring wrapped "
				 "(raise Xen's conring_size=)", vm->domid);
		else
			snprintf(vm->mem_reason, sizeof(vm->mem_reason),
				 "domain %d is not in Xen's newest 'u' dump (created after it)", vm->domid);
	}
}

/* nr_nodes of `xl info -n`, 0 when absent. */
static int info_nr_nodes(const char *text)
{
	const char *p = strstr(text, "\nnr_nodes");
	int n = 0;

	if (p && (p = strchr(p, ':')))
		n = atoi(p + 1);
	return n > 0 && n < 4096 ? n : 0;
}

/* The opt-in: ask Xen for its dump (rate-limited), read the newest back. */
static void xen_numa_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, size_t first,
			  int want_nodes)
{
	static const char *const keys_argv[] = { "xl", "debug-keys", "u", NULL };
	static const char *const dmesg_argv[] = { "xl", "dmesg", NULL };
	struct hv_xen_numa *xn = ctx->xen_numa;
	struct xen_numa_dump d;
	struct vp_err e = { 0, "" };
	uint64_t now = vp_now_ns();
	char *text = NULL;

	if (!xn->last_ns || now - xn->last_ns >= xn->every_ns) {
		if (hv_run(ctx, keys_argv, &text, &e)) {
			numa_reason(out, first, "cannot ask Xen for its pages per node: %s", e.msg);
			return;
		}
		free(text);
		xn->last_ns = now;
	}
	/* never 'xl dmesg -c': clearing the ring would destroy the admin's log */
	if (hv_run(ctx, dmesg_argv, &text, &e)) {
		numa_reason(out, first, "cannot read Xen's pages per node: %s", e.msg);
		return;
	}
	if (xen_parse_numa_dump(text, want_nodes, &d, &e))
		numa_reason(out, first, "%s", e.msg);
	else
		xen_numa_apply(&d, out, first);
	xen_numa_dump_release(&d);
	free(text);
}

/* cpu_mhz of `xl info`: Xen's TSC rate, which stamps its trace records; NaN when absent. */
static double info_tsc_hz(const char *text)
{
	const char *p = strstr(text, "\ncpu_mhz");
	double mhz;

	if (p && (p = strchr(p, ':')) && sscanf(p + 1, "%lf", &mhz) == 1 && mhz > 0)
		return mhz * 1e6;
	return NAN;
}

/* Every Xen domain of out (from first) gets why it has no traced residency. */
static void trace_reason_all(struct hv_vm_list *out, size_t first, const char *fmt, const char *a,
			     const char *b)
{
	size_t i;

	for (i = first; i < out->n; i++)
		if (out->vms[i].adapter == HVA_XEN) {
			free(out->vms[i].trace_reason);
			out->vms[i].trace_reason = xasprintf(fmt, a, b);
		}
}

#define TBUF_ADVICE "Xen's trace buffers are sized once and never freed: boot Xen with " \
		    "tbuf_size=PAGES (pages per pCPU), or size them once with 'xentrace -S PAGES'"

/* The opt-in: trace runstate changes for ctx->xen_trace->secs, charge each vCPU's pCPUs. */
static void xen_trace_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, size_t first,
			   double tsc_hz)
{
	struct xentrace_res r;
	struct vp_err e = { 0, "" };
	unsigned char *data = NULL;
	size_t len = 0, i, j, k;
	char *text = NULL, lost[300] = "";
	bool live = !ctx->root || !*ctx->root || !strcmp(ctx->root, "/");

	if (!isfinite(tsc_hz)) {
		trace_reason_all(out, first, "%s%s", "no traced residency: 'xl info' gives no cpu_mhz "
				 "to turn Xen's TSC stamps into time", "");
		return;
	}
	if (live) {
		char path[] = "/tmp/vmmprof-xentrace-XXXXXX", secs[16];
		const char *argv[] = { "xentrace", "-D", "-e", "0x00021000", "-T", secs, path, NULL };
		int fd = mkstemp(path);

		if (fd < 0) {
			trace_reason_all(out, first, "no traced residency: cannot make a file for "
					 "xentrace in /tmp: %s%s", strerror(errno), "");
			return;
		}
		close(fd);
		snprintf(secs, sizeof(secs), "%u", ctx->xen_trace->secs);
		if (hv_xentrace_refuse(ctx->root, &e) || hv_run(ctx, argv, &text, &e) ||
		    vp_read_file("/", path, (char **)&data, &len, &e)) {
			trace_reason_all(out, first, "no traced residency: %s; " TBUF_ADVICE "%s",
					 e.msg, "");
			unlink(path);
			free(text);
			return;
		}
		unlink(path);
		free(text);
	} else if (vp_read_file(ctx->root, "/.vmmprof-fixture/xentrace/trace.bin", (char **)&data,
				&len, &e)) {
		trace_reason_all(out, first, "no traced residency: %s%s", e.msg, "");
		return;
	}
	if (xentrace_parse(data, len, &r, &e)) {
		trace_reason_all(out, first, "no traced residency: %s%s", e.msg, "");
		free(data);
		return;
	}
	free(data);
	for (i = first; i < out->n; i++) {
		struct hv_vm *vm = &out->vms[i];

		if (vm->adapter != HVA_XEN)
			continue;
		vm->trace_s = (double)(r.tsc_last - r.tsc_first) / tsc_hz;
		free(vm->trace_reason);
		if (r.n_lost)
			snprintf(lost, sizeof(lost), ", inexact: Xen lost %llu records during the "
				 "trace (full buffers): " TBUF_ADVICE, (unsigned long long)r.n_lost);
		vm->trace_reason = xasprintf(
			"xentrace, %.2f s: run time per pCPU from %zu runstate-change records "
			"(TRC_SCHED_MIN)%s", vm->trace_s, r.n_sched, lost);
		for (j = 0; j < vm->n_vcpus; j++) {
			struct hv_vcpu *v = &vm->vcpus[j];

			free(v->trace_pcpu_s);
			v->n_trace_pcpus = r.n_pcpus;
			v->trace_pcpu_s = xcalloc(r.n_pcpus ? (size_t)r.n_pcpus : 1, sizeof(double));
			for (k = 0; k < (size_t)r.n_pcpus; k++)
				v->trace_pcpu_s[k] = (double)xentrace_ticks(&r, vm->domid, v->index,
									   (int)k) / tsc_hz;
		}
	}
	xentrace_res_release(&r);
}

static void psr_reason_all(struct hv_vm_list *out, size_t first, const char *why)
{
	size_t i;

	for (i = first; i < out->n; i++)
		if (out->vms[i].adapter == HVA_XEN) {
			free(out->vms[i].psr_reason);
			out->vms[i].psr_reason = xasprintf("n/a: %s", why);
		}
}

/* One `xl psr-cmt-show TYPE`, parsed; false (and *why) when it cannot be read. */
static bool psr_show(const struct hv_ctx *ctx, const char *type, struct xen_psr_table *t,
		     char *why, size_t size)
{
	const char *argv[] = { "xl", "psr-cmt-show", type, NULL };
	struct vp_err e = { 0, "" };
	char *text = NULL;
	int ret = hv_run(ctx, argv, &text, &e);

	if (!ret)
		ret = xen_psr_show_parse(text, t, &e);
	free(text);
	if (ret)
		snprintf(why, size, "%s", e.msg);
	return !ret;
}

struct hv_xen_psr {
	bool hw_done;                   /* xl psr-hwinfo ran */
	bool hw_ok;
	struct xen_psr_hw hw;
	char hw_why[512];
	int *tried, *mine;              /* domids attach was tried for / that vmmprof attached */
	size_t n_tried, n_mine;
};

struct hv_xen_psr *hv_xen_psr_new(void)
{
	return xcalloc(1, sizeof(struct hv_xen_psr));
}

static bool domid_in(const int *ids, size_t n, int domid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == domid)
			return true;
	return false;
}

void hv_xen_psr_stop(struct hv_xen_psr *p, const struct hv_ctx *ctx)
{
	struct hv_ctx live = { 0 };
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n_mine; i++) {
		char id[16], *text = NULL;
		const char *argv[] = { "xl", "psr-cmt-detach", id, NULL };

		snprintf(id, sizeof(id), "%d", p->mine[i]);
		/* a domain that is gone took its RMID with it: the detach fails, harmlessly */
		hv_run(ctx ? ctx : &live, argv, &text, NULL);
		free(text);
	}
	free(p->tried);
	free(p->mine);
	free(p);
}

size_t hv_xen_psr_attached(const struct hv_xen_psr *p, const int **domids)
{
	*domids = p ? p->mine : NULL;
	return p ? p->n_mine : 0;
}

/* xl psr-hwinfo, parsed: false and *why when PSR cannot serve. */
static bool psr_hw(const struct hv_ctx *ctx, struct xen_psr_hw *hw, char *why, size_t size)
{
	static const char *const hw_argv[] = { "xl", "psr-hwinfo", NULL };
	struct vp_err e = { 0, "" };
	char *text = NULL;

	if (ctx->plat) {
		struct sbuf pw = SBUF_INIT;
		bool ok = platform_xen_psr(ctx->plat, &pw);

		if (!ok)
			snprintf(why, size, "%s", sbuf_str(&pw));
		sbuf_release(&pw);
		if (!ok)
			return false;
	}
	if (hv_run(ctx, hw_argv, &text, &e) || xen_psr_hwinfo_parse(text, hw, &e)) {
		snprintf(why, size, "%s", e.msg);
		free(text);
		return false;
	}
	free(text);
	if (!hw->cmt) {
		snprintf(why, size, "xl psr-hwinfo: CMT is not enabled (psr=cmt on Xen's command "
			 "line, on an Intel CPU with RDT)");
		return false;
	}
	return true;
}

/*
 * The opt-in: attach what is not attached, read the three monitors; per
 * scan (list vms), detach what it attached; for a run (ctx->xen_psr_run),
 * keep it attached until hv_xen_psr_stop().
 */
static void xen_psr_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, size_t first)
{
	struct hv_xen_psr *run = ctx->xen_psr_run;
	struct xen_psr_table occ, tot, loc;
	struct xen_psr_hw hw_local, *hw = run ? &run->hw : &hw_local;
	char why[512], wo[256] = "", wt[256] = "", wl[256] = "", *text = NULL;
	bool *mine, ok_o, ok_t, ok_l;
	size_t i;

	if (run && !run->hw_done) {
		run->hw_done = true;
		run->hw_ok = psr_hw(ctx, hw, run->hw_why, sizeof(run->hw_why));
	}
	if (run ? !run->hw_ok : !psr_hw(ctx, hw, why, sizeof(why))) {
		psr_reason_all(out, first, run ? run->hw_why : why);
		return;
	}
	mine = xcalloc(out->n + 1, sizeof(bool));
	for (i = first; i < out->n; i++) {
		char id[16];
		const char *argv[] = { "xl", "psr-cmt-attach", id, NULL };
		int domid = out->vms[i].domid;

		if (out->vms[i].adapter != HVA_XEN)
			continue;
		if (run && domid_in(run->tried, run->n_tried, domid)) {
			mine[i] = domid_in(run->mine, run->n_mine, domid);
			continue;
		}
		snprintf(id, sizeof(id), "%d", domid);
		/* fails when already attached (by someone else): then it is not ours to detach */
		mine[i] = !hv_run(ctx, argv, &text, NULL);
		free(text);
		if (run) {
			run->tried = xrealloc(run->tried, (run->n_tried + 1) * sizeof(int));
			run->tried[run->n_tried++] = domid;
			if (mine[i]) {
				run->mine = xrealloc(run->mine, (run->n_mine + 1) * sizeof(int));
				run->mine[run->n_mine++] = domid;
			}
		}
	}
	ok_o = hw->occupancy && psr_show(ctx, "cache-occupancy", &occ, wo, sizeof(wo));
	ok_t = hw->total_bw && psr_show(ctx, "total-mem-bandwidth", &tot, wt, sizeof(wt));
	ok_l = hw->local_bw && psr_show(ctx, "local-mem-bandwidth", &loc, wl, sizeof(wl));
	for (i = first; i < out->n; i++) {
		struct hv_vm *vm = &out->vms[i];
		char id[16];
		const char *argv[] = { "xl", "psr-cmt-detach", id, NULL };

		if (vm->adapter != HVA_XEN)
			continue;
		if (mine[i] && !run) {
			snprintf(id, sizeof(id), "%d", vm->domid);
			hv_run(ctx, argv, &text, NULL);
			free(text);
		}
		vm->psr_llc_bytes = ok_o ? xen_psr_dom_total(&occ, vm->domid) : NAN;
		vm->psr_mbm_bps = ok_t ? xen_psr_dom_total(&tot, vm->domid) : NAN;
		vm->psr_mbm_local_bps = ok_l ? xen_psr_dom_total(&loc, vm->domid) : NAN;
		free(vm->psr_reason);
		vm->psr_reason = xasprintf(
			"Xen PSR (xl psr-cmt-show, %s): occupancy %s; bandwidth %s (xl's 10 ms sample, "
			"not an interval's average)%s%s%s%s",
			mine[i] ? (run ? "attached by vmmprof for the run, detached at its end" :
				   "attached for this read and detached after it") :
			"not attached by vmmprof (xl psr-cmt-attach failed: already attached, or no "
			"free RMID), left as it was",
			ok_o ? (run ? "now" : "read just after attaching (it grows from 0 as the domain "
				"refills the cache)") : *wo ? wo : "not supported",
			ok_t ? "total" : *wt ? wt : "total not supported",
			ok_l ? ", local" : "", ok_l ? "" : "; local: ",
			ok_l ? "" : *wl ? wl : "not supported", "");
	}
	if (ok_o)
		xen_psr_table_release(&occ);
	if (ok_t)
		xen_psr_table_release(&tot);
	if (ok_l)
		xen_psr_table_release(&loc);
	free(mine);
}

/*
 * What a periodic caller's scans keep of xl's outputs (hv_cache.xen, on a
 * live root: hv_cache_opts.slow_ns set).  Under load, or in a dom0 under
 * emulation, one xl call costs seconds, and a scan made four: now it makes
 * one, `xl vcpu-list` (placement, state, CPU time, live affinity: what
 * moves), and reads `xl list -l` and `xl list -n` (the domains'
 * configuration and node affinity) again only when the domains or vCPUs
 * that vcpu-list lists changed, or every slow_ns; `xl info -n` (the
 * pCPUs' nodes, cpu_mhz) every slow_ns, or sooner when a caller read it
 * for its memfree (hv_xen_info_n()).
 */
struct xen_cache {
	char *list_l, *list_n;          /* texts; list_n NULL when it failed */
	char *key;                      /* vcpu-list's domains and vCPUs when list_l was read */
	uint64_t list_ns;
	char *info_n;                   /* NULL: not read, or it failed */
	uint64_t info_ns;
};

void xen_cache_release(struct hv_cache *c)
{
	struct xen_cache *x = c ? c->xen : NULL;

	if (!x)
		return;
	free(x->list_l);
	free(x->list_n);
	free(x->key);
	free(x->info_n);
	free(x);
	c->xen = NULL;
}

static struct xen_cache *xen_cache_of(const struct hv_ctx *ctx)
{
	struct hv_cache *c = ctx->cache;

	if (!c || !c->o.slow_ns)
		return NULL;
	if (!c->xen)
		c->xen = xcalloc(1, sizeof(*c->xen));
	return c->xen;
}

/* The domains and vCPUs `xl vcpu-list` lists: "NAME ID VCPU;" per line, in its order. */
static char *vcpu_list_key(const char *text)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len), *tok[64], *save = NULL, *t;
		int nt = 0, i;

		p += len + (nl ? 1 : 0);
		for (t = strtok_r(line, " \t", &save); t && nt < 64; t = strtok_r(NULL, " \t", &save))
			tok[nt++] = t;
		if (nt >= 9 && strcmp(tok[0], "Name") && !strcmp(tok[nt - 2], "/")) {
			for (i = 0; i <= nt - 7; i++)
				sbuf_addf(&sb, "%s%s", i ? " " : "", tok[i]);
			sbuf_addch(&sb, ';');
		}
		free(line);
	}
	return sbuf_detach(&sb);
}

/* hv_xen_info_n() through ctx's runner and cache. */
static int info_n_since(const struct hv_ctx *ctx, uint64_t since_ns, char **text,
			struct vp_err *err)
{
	static const char *const info_argv[] = { "xl", "info", "-n", NULL };
	struct xen_cache *x = xen_cache_of(ctx);
	int ret;

	if (x && x->info_n && x->info_ns >= since_ns) {
		*text = xstrdup(x->info_n);
		return 0;
	}
	ret = hv_run(ctx, info_argv, text, err);
	if (!ret && x) {
		free(x->info_n);
		x->info_n = xstrdup(*text);
		x->info_ns = vp_now_ns();
	}
	return ret;
}

int hv_xen_info_n(struct hv_cache *c, const char *root, uint64_t since_ns, char **text,
		  struct vp_err *err)
{
	struct hv_ctx ctx = { root, NULL, NULL, NULL };

	ctx.cache = c;
	return info_n_since(&ctx, since_ns, text, err);
}

/* "xen: no domain listed: ..." in the list's notes, and what xl needs. */
static void no_domain_note(const struct hv_ctx *ctx, struct hv_vm_list *out, const char *why)
{
	bool not_root = ctx->plat && ctx->plat->perm.known && !ctx->plat->perm.is_root;

	snprintf(out->notes, sizeof(out->notes), "xen: no domain listed: %s%s", why,
		 not_root ? "; xl needs root in dom0 (/dev/xen/privcmd and xenstored), and this "
		 "process is not root (a daemon started with --user, or under the shipped "
		 "systemd unit, cannot run xl: docs/xen.md)" : "");
}

/*
 * xl's four outputs for a scan through the cache x: vcpu-list now, the
 * others when x's copies are stale (see struct xen_cache).  1: xl did not
 * list the domains (the note says why); 0 with the texts (free them).
 */
static int cached_texts(const struct hv_ctx *ctx, struct xen_cache *x, struct hv_vm_list *out,
			char **list_l, char **info_n, char **vcpu, char **list_n)
{
	static const char *const list_argv[] = { "xl", "list", "-l", NULL };
	static const char *const vcpu_argv[] = { "xl", "vcpu-list", NULL };
	static const char *const list_n_argv[] = { "xl", "list", "-n", NULL };
	uint64_t now = vp_now_ns(), slow = ctx->cache->o.slow_ns;
	struct vp_err e = { 0, "" };
	char *key;

	if (hv_run(ctx, vcpu_argv, vcpu, &e)) {
		no_domain_note(ctx, out, e.msg);
		return 1;
	}
	key = vcpu_list_key(*vcpu);
	if (!x->list_l || !x->key || strcmp(key, x->key) || now - x->list_ns >= slow) {
		free(x->list_l);
		free(x->list_n);
		x->list_l = x->list_n = NULL;
		if (hv_run(ctx, list_argv, &x->list_l, &e)) {
			free(key);
			free(*vcpu);
			*vcpu = NULL;
			no_domain_note(ctx, out, e.msg);
			return 1;
		}
		if (hv_run(ctx, list_n_argv, &x->list_n, NULL)) {
			free(x->list_n);
			x->list_n = NULL;
		}
		free(x->key);
		x->key = key;
		key = NULL;
		x->list_ns = now;
	}
	free(key);
	*list_l = xstrdup(x->list_l);
	*list_n = x->list_n ? xstrdup(x->list_n) : NULL;
	if (info_n_since(ctx, now >= slow ? now - slow : 0, info_n, NULL)) {
		free(*info_n);
		*info_n = NULL;
	}
	return 0;
}

int hv_xen_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err)
{
	static const char *const list_argv[] = { "xl", "list", "-l", NULL };
	static const char *const vcpu_argv[] = { "xl", "vcpu-list", NULL };
	static const char *const info_argv[] = { "xl", "info", "-n", NULL };
	static const char *const list_n_argv[] = { "xl", "list", "-n", NULL };
	struct xen_cache *x = xen_cache_of(ctx);
	char *text = NULL, *info_n = NULL, *vcpu = NULL, *list_n = NULL;
	int *pcpu_node = NULL, n_pcpu = 0, nr_nodes = 0, ret;
	double tsc_hz = NAN;
	size_t first = out->n, i, j;
	struct vp_err e = { 0, "" };

	if (x) {
		if (cached_texts(ctx, x, out, &text, &info_n, &vcpu, &list_n))
			return 0;
	} else {
		ret = hv_run(ctx, list_argv, &text, &e);
		if (ret) {
			/* no xl: not an error for the scan, but say it, and what xl needs */
			no_domain_note(ctx, out, e.msg);
			return 0;
		}
		if (hv_run(ctx, info_argv, &info_n, NULL)) {
			free(info_n);
			info_n = NULL;
		}
	}
	ret = xen_parse_list_l(text, out, err);
	free(text);
	if (ret)
		goto out;
	/* pCPU -> node from the hypervisor: dom0's own /sys shows its vCPUs */
	if (info_n) {
		/* no cpu_topology: the platform's view below; a value out of range: refused */
		ret = xen_parse_info_topology(info_n, &pcpu_node, &n_pcpu, &e);
		nr_nodes = info_nr_nodes(info_n);
		tsc_hz = info_tsc_hz(info_n);
		if (ret && ret != VP_ENOTFOUND) {
			if (err)
				*err = e;
			goto out;
		}
		ret = 0;
	}
	if (!vcpu)
		ret = hv_run(ctx, vcpu_argv, &vcpu, err);
	if (!ret)
		ret = xen_parse_vcpu_list(vcpu, out, first, pcpu_node, n_pcpu, err);
	/* node affinity as Xen has it ('xl list -l' holds only a configured nodemap) */
	if (!ret && !x && hv_run(ctx, list_n_argv, &list_n, NULL)) {
		free(list_n);
		list_n = NULL;
	}
	if (!ret && list_n)
		xen_parse_list_n(list_n, out, first, nr_nodes);
	if (!pcpu_node) /* fall back to the platform's view */
		for (i = first; i < out->n; i++)
			for (j = 0; j < out->vms[i].n_vcpus; j++)
				out->vms[i].vcpus[j].node = hv_cpu_node(ctx, out->vms[i].vcpus[j].cpu);
	if (!ret && ctx->xen_numa)
		xen_numa_scan(ctx, out, first, nr_nodes);
	if (!ret && ctx->xen_trace)
		xen_trace_scan(ctx, out, first, tsc_hz);
	if (!ret && ctx->xen_tracer && !ctx->xen_trace)
		hv_xen_tracer_read(ctx->xen_tracer, tsc_hz, out, first);
	if (!ret && (ctx->xen_psr || ctx->xen_psr_run))
		xen_psr_scan(ctx, out, first);
out:
	free(info_n);
	free(vcpu);
	free(list_n);
	free(pcpu_node);
	return ret;
}
