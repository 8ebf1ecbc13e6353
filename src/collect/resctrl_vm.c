/* resctrl_vm.c - one resctrl monitoring group per VM: created, given the VM's threads, read each sample, removed */
#include "collect/resctrl_vm.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "analysis/attrib.h"
#include "util/alloc.h"
#include "util/fs.h"

/* include/uapi/linux/magic.h */
#define RDTGROUP_SUPER_MAGIC 0x7655821

#define GROUP_PREFIX "vmmprof-"

struct rgroup {
	char *key;                  /* attrib_vm_key() of the VM */
	char *name;
	char *dir;                  /* relative to root: RESCTRL_DIR[/CTRL]/mon_groups/NAME */
	int refs;                   /* meters that hold it */
	bool made;                  /* the directory exists and is ours */
	bool fresh;                 /* made by this set: its counters started at 0 */
	char why[512];              /* why it is not made (a path and the permission it needs) */
	char feed_why[512];         /* why the VM's threads could not be moved in: its counts
				       are then not the VM's (values NaN) */
	int *moved;                 /* thread ids written to its tasks */
	size_t n_moved, cap_moved;
};

struct dom_node {
	int dom;
	int node;                   /* node index, -1 when the domain spans nodes */
};

struct resctrl_vms {
	char *root;
	const struct platform *plat;
	int owner;
	char unavail[256];          /* "" when usable */
	bool have_ev[RCE_N];
	char ev_why[RCE_N][160];
	long num_rmids;             /* -1 unknown */
	struct dom_node *dn;
	size_t n_dn, cap_dn;
	struct rgroup *g;
	size_t n_g, cap_g;
	char notes[512];
};

static const char *const ev_file[RCE_N] = { "llc_occupancy", "mbm_total_bytes", "mbm_local_bytes" };

static void notef(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void notef(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 3 >= size)
		return;
	if (len)
		buf[len++] = ';', buf[len++] = ' ', buf[len] = '\0';
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

static bool is_dir(const char *root, const char *rel)
{
	char *p = vp_path(root, rel);
	struct stat st;
	bool ok = !stat(p, &st) && S_ISDIR(st.st_mode);

	free(p);
	return ok;
}

/*
 * Remove a group directory.  On resctrl rmdir takes the files with it and
 * hands the tasks back to the parent; a fixture directory (any other file
 * system) holds real files, which are removed first.
 */
static int remove_dir(const char *root, const char *rel, struct vp_err *err)
{
	char *p = vp_path(root, rel);
	struct statfs sf;
	int ret = 0;

	if (rmdir(p) && errno == ENOTEMPTY && !statfs(p, &sf) &&
	    (unsigned long)sf.f_type != RDTGROUP_SUPER_MAGIC) {
		char *md = xasprintf("%s/mon_data", rel), *t = xasprintf("%s/tasks", p), *q;
		char **doms = NULL, **files = NULL;
		size_t nd = 0, nf = 0, i, j;

		unlink(t);
		free(t);
		if (!vp_list_dir(root, md, &doms, &nd, NULL)) {
			for (i = 0; i < nd; i++) {
				char *dd = xasprintf("%s/%s", md, doms[i]);

				if (!vp_list_dir(root, dd, &files, &nf, NULL)) {
					for (j = 0; j < nf; j++) {
						q = xasprintf("%s/%s/%s", p, "mon_data", doms[i]);
						t = xasprintf("%s/%s", q, files[j]);
						unlink(t);
						free(t);
						free(q);
					}
					vp_free_names(files, nf);
				}
				q = vp_path(root, dd);
				rmdir(q);
				free(q);
				free(dd);
			}
			vp_free_names(doms, nd);
		}
		q = vp_path(root, md);
		rmdir(q);
		free(q);
		free(md);
	}
	if (vp_exists(root, rel) == 0 && rmdir(p))
		ret = vp_err_errno(err, errno, "cannot remove '%s'", p);
	free(p);
	return ret;
}

/* Another vmmprof process that still runs (its pid recycled by anything else does not count). */
static bool owner_alive(const struct resctrl_vms *s, int pid)
{
	char path[64], comm[64];

	if (pid <= 0 || pid == s->owner)
		return false; /* ours from an earlier process with our pid: a leftover */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (vp_read_line(s->root, path, comm, sizeof(comm), NULL))
		return false;
	return strstr(comm, "vmmprof") != NULL;
}

/* Remove vmmprof-*-OWNER groups whose owner is gone, under dir/mon_groups. */
static void sweep(struct resctrl_vms *s, const char *ctrl_dir)
{
	char *mg = xasprintf("%s/mon_groups", ctrl_dir);
	char **names = NULL;
	size_t n = 0, i;

	if (!vp_list_dir(s->root, mg, &names, &n, NULL)) {
		for (i = 0; i < n; i++) {
			const char *dash = strrchr(names[i], '-');
			char *rel;
			int owner;

			if (strncmp(names[i], GROUP_PREFIX, strlen(GROUP_PREFIX)) || !dash ||
			    sscanf(dash + 1, "%d", &owner) != 1 || owner_alive(s, owner))
				continue;
			rel = xasprintf("%s/%s", mg, names[i]);
			if (!remove_dir(s->root, rel, NULL))
				notef(s->notes, sizeof(s->notes), "removed resctrl group '%s' left by "
				      "vmmprof process %d, which is gone", names[i], owner);
			free(rel);
		}
		vp_free_names(names, n);
	}
	free(mg);
}

static void sweep_all(struct resctrl_vms *s)
{
	char **names = NULL;
	size_t n = 0, i;

	sweep(s, RESCTRL_DIR);
	if (vp_list_dir(s->root, RESCTRL_DIR, &names, &n, NULL))
		return;
	for (i = 0; i < n; i++) {
		char *rel = xasprintf(RESCTRL_DIR "/%s", names[i]);

		/* the CTRL_MON groups are the directories besides these */
		if (strcmp(names[i], "info") && strcmp(names[i], "mon_groups") &&
		    strcmp(names[i], "mon_data") && is_dir(s->root, rel))
			sweep(s, rel);
		free(rel);
	}
	vp_free_names(names, n);
}

static void add_dom(struct resctrl_vms *s, int dom, int node)
{
	size_t i;

	for (i = 0; i < s->n_dn; i++)
		if (s->dn[i].dom == dom) {
			if (s->dn[i].node != node)
				s->dn[i].node = -1;
			return;
		}
	VP_GROW(s->dn, s->cap_dn, s->n_dn + 1);
	s->dn[s->n_dn].dom = dom;
	s->dn[s->n_dn].node = node;
	s->n_dn++;
}

/* mon_L3_XX is the L3 cache id: cpuN/cache/indexM/id of the level-3 index, whose CPU gives the node. */
static void map_domains(struct resctrl_vms *s)
{
	const struct topology *t = &s->plat->topo;
	size_t i;

	for (i = 0; i < t->online.n; i++) {
		int cpu = t->online.ids[i], idx, node = -1, k;

		if (cpu >= 0 && cpu < t->max_cpu && t->cpu_node)
			for (k = 0; k < t->n_nodes; k++)
				if (t->nodes[k].id == t->cpu_node[cpu])
					node = k;
		for (idx = 0; idx < 16; idx++) {
			char path[128];
			int level, id;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, idx);
			if (vp_read_int(s->root, path, &level, NULL) || level != 3)
				continue;
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cache/index%d/id", cpu, idx);
			if (!vp_read_int(s->root, path, &id, NULL))
				add_dom(s, id, node);
			break;
		}
	}
}

struct resctrl_vms *resctrl_vms_new(const char *root, const struct platform *plat, int owner)
{
	struct resctrl_vms *s = xcalloc(1, sizeof(*s));
	const struct perm_info *pm = &plat->perm;
	char *feat = NULL;
	int e;

	s->root = xstrdup(root ? root : "/");
	s->plat = plat;
	s->owner = owner;
	s->num_rmids = -1;
	if (!pm->resctrl_supported || !pm->resctrl_mounted) {
		snprintf(s->unavail, sizeof(s->unavail), "%s", pm->resctrl_reason.len ?
			 sbuf_str(&pm->resctrl_reason) : "resctrl is not mounted at " RESCTRL_DIR);
		return s;
	}
	if (vp_read_file(s->root, RESCTRL_DIR "/info/L3_MON/mon_features", &feat, NULL, NULL)) {
		snprintf(s->unavail, sizeof(s->unavail), "resctrl is mounted without L3 monitoring "
			 "(no info/L3_MON/mon_features: this CPU has no RDT monitoring, or it is off)");
		return s;
	}
	for (e = 0; e < RCE_N; e++) {
		const char *p = feat;
		size_t len = strlen(ev_file[e]);

		while ((p = strstr(p, ev_file[e])) && !((p == feat || p[-1] == '\n') &&
							(p[len] == '\n' || !p[len])))
			p += len;
		s->have_ev[e] = p != NULL;
		if (!p)
			snprintf(s->ev_why[e], sizeof(s->ev_why[e]), "this CPU's resctrl monitors no "
				 "'%s' (not in info/L3_MON/mon_features)", ev_file[e]);
	}
	free(feat);
	{
		uint64_t v;

		if (!vp_read_u64(s->root, RESCTRL_DIR "/info/L3_MON/num_rmids", &v, NULL))
			s->num_rmids = (long)v;
	}
	map_domains(s);
	sweep_all(s);
	return s;
}

const char *resctrl_vms_unavailable(const struct resctrl_vms *s)
{
	return s->unavail[0] ? s->unavail : NULL;
}

const char *resctrl_vms_event_missing(const struct resctrl_vms *s, enum resctrl_ev ev)
{
	if (s->unavail[0])
		return s->unavail;
	return s->have_ev[ev] ? NULL : s->ev_why[ev];
}

const char *resctrl_vms_notes(const struct resctrl_vms *s) { return s->notes; }

int resctrl_vms_domain_node(const struct resctrl_vms *s, int dom)
{
	size_t i;

	for (i = 0; i < s->n_dn; i++)
		if (s->dn[i].dom == dom)
			return s->dn[i].node;
	return -1;
}

char *resctrl_vm_group_name(const struct hv_vm *vm, int owner)
{
	if (vm->pid <= 0 || vm->adapter == HVA_XEN || vm->adapter == HVA_GUEST)
		return NULL;
	return xasprintf(GROUP_PREFIX "%s-%d-%d", hv_adapter_name(vm->adapter), vm->pid, owner);
}

void resctrl_mkdir_explain(int errnum, long num_rmids, const char *path, char *buf, size_t size)
{
	char rm[48] = "";

	if (num_rmids > 0)
		snprintf(rm, sizeof(rm), " (num_rmids %ld)", num_rmids);
	switch (errnum) {
	case ENOSPC:
		notef(buf, size, "no free RMID for its monitoring group: every RMID%s is held by "
		      "another resctrl group; remove unused groups or monitor fewer VMs (--vm)", rm);
		break;
	case EBUSY:
		notef(buf, size, "no RMID ready: freed RMIDs wait until their cache occupancy falls "
		      "below info/L3_MON/max_threshold_occupancy; tried again each sample");
		break;
	case EACCES:
	case EPERM:
		notef(buf, size, "cannot create '%s': %s: making a resctrl group needs write access "
		      "to its parent directory, which is root's (mode 0755): run as root "
		      "(CAP_PERFMON and CAP_SYS_PTRACE do not give it)", path, strerror(errnum));
		break;
	case EEXIST:
		notef(buf, size, "'%s' exists and is no monitoring group", path);
		break;
	case ENOENT:
	case ENOTDIR:
		notef(buf, size, "cannot create '%s': no mon_groups directory there (resctrl "
		      "without monitoring?)", path);
		break;
	default:
		notef(buf, size, "cannot create '%s': %s", path, strerror(errnum));
		break;
	}
}

static struct rgroup *group_find(struct resctrl_vms *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->n_g; i++)
		if (!strcmp(s->g[i].key, key))
			return &s->g[i];
	return NULL;
}

const char *resctrl_vms_group_why(const struct resctrl_vms *s, const struct hv_vm *vm)
{
	char *key;
	const struct rgroup *g;

	if (s->unavail[0])
		return s->unavail;
	key = attrib_vm_key(vm);
	g = group_find((struct resctrl_vms *)s, key);
	free(key);
	if (!g)
		return NULL;
	if (!g->made)
		return g->why[0] ? g->why : NULL;
	return g->feed_why[0] ? g->feed_why : NULL;
}

static void parse_ints(const char *text, int **v, size_t *n, size_t *cap)
{
	const char *p = text;

	while (*p) {
		char *end;
		long x = strtol(p, &end, 10);

		if (end == p) {
			p++;
			continue;
		}
		if (x > 0 && x < (1L << 22)) {
			VP_GROW(*v, *cap, *n + 1);
			(*v)[(*n)++] = (int)x;
		}
		p = end;
	}
}

/* Every thread of a cgroup and its descendants (v2: cgroup.threads, v1: tasks). */
static void cgroup_threads(const char *root, const char *dir, int version, int depth,
			   int **v, size_t *n, size_t *cap)
{
	char *f = xasprintf("%s/%s", dir, version == 2 ? "cgroup.threads" : "tasks"), *text;
	char **names = NULL;
	size_t nn = 0, i;

	if (!vp_read_file(root, f, &text, NULL, NULL)) {
		parse_ints(text, v, n, cap);
		free(text);
	}
	free(f);
	if (depth >= 4 || vp_list_dir(root, dir, &names, &nn, NULL))
		return;
	for (i = 0; i < nn; i++) {
		char *sub = xasprintf("%s/%s", dir, names[i]);

		if (is_dir(root, sub))
			cgroup_threads(root, sub, version, depth + 1, v, n, cap);
		free(sub);
	}
	vp_free_names(names, nn);
}

static bool libvirt_cgroup(const struct hv_vm *vm)
{
	return vm->cgroup && vm->cgroup_dir &&
	       (strstr(vm->cgroup, "machine-qemu") || strstr(vm->cgroup, "libvirt"));
}

/*
 * The VM's threads: a libvirt VM's cgroup holds exactly its QEMU threads
 * and the vhost workers that move its I/O (the kernel puts them in the
 * owner's cgroup), which /proc/PID/task does not list; elsewhere the
 * process's threads (a plain QEMU may share its cgroup with a shell).
 */
static void vm_threads(const struct resctrl_vms *s, const struct hv_vm *vm, int **v, size_t *n)
{
	size_t cap = 0, i;

	*v = NULL;
	*n = 0;
	if (libvirt_cgroup(vm))
		cgroup_threads(s->root, vm->cgroup_dir, vm->cgroup_version, 0, v, n, &cap);
	if (*n)
		return;
	if (vm->pid > 0) {
		VP_GROW(*v, cap, *n + 1);
		(*v)[(*n)++] = vm->pid;
	}
	for (i = 0; i < vm->n_vcpus; i++)
		if (vm->vcpus[i].tid > 0 && vm->vcpus[i].tid != vm->pid) {
			VP_GROW(*v, cap, *n + 1);
			(*v)[(*n)++] = vm->vcpus[i].tid;
		}
	for (i = 0; i < vm->n_other; i++)
		if (vm->other_tids[i] > 0 && vm->other_tids[i] != vm->pid) {
			VP_GROW(*v, cap, *n + 1);
			(*v)[(*n)++] = vm->other_tids[i];
		}
}

/*
 * The CTRL_MON group of the VM's main thread ("" = the root group) from
 * /proc/PID/cpu_resctrl_groups ("res:/" or "res:NAME", then "mon:NAME"):
 * a MON group must sit under the CTRL_MON group its tasks are in.  *mon is
 * the MON group it is in already ("" none).
 */
static void vm_ctrl_group(const struct resctrl_vms *s, int pid, char *ctrl, size_t csize,
			  char *mon, size_t msize)
{
	char path[64], *text = NULL, *p;

	ctrl[0] = mon[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cpu_resctrl_groups", pid);
	if (vp_read_file(s->root, path, &text, NULL, NULL))
		return;
	if ((p = strstr(text, "res:"))) {
		p += 4;
		if (*p == '/')
			p++;
		snprintf(ctrl, csize, "%.*s", (int)strcspn(p, "\n"), p);
	}
	if ((p = strstr(text, "mon:"))) {
		p += 4;
		snprintf(mon, msize, "%.*s", (int)strcspn(p, "\n"), p);
	}
	free(text);
}

/* Make the group's directory (again after a failure: RMIDs may have been freed). */
static void group_make(struct resctrl_vms *s, struct rgroup *g, const struct hv_vm *vm)
{
	char ctrl[256], mon[256], *p;

	g->why[0] = '\0';
	vm_ctrl_group(s, vm->pid, ctrl, sizeof(ctrl), mon, sizeof(mon));
	if (strchr(ctrl, '/') || !strcmp(ctrl, "..") || !strcmp(ctrl, ".")) {
		snprintf(g->why, sizeof(g->why), "unexpected resctrl group '%s' of process %d",
			 ctrl, vm->pid);
		return;
	}
	if (mon[0] && strcmp(mon, g->name)) {
		snprintf(g->why, sizeof(g->why), "its threads are in resctrl monitoring group '%s' "
			 "already (a task is in one monitoring group only): left there", mon);
		return;
	}
	free(g->dir);
	g->dir = ctrl[0] ? xasprintf(RESCTRL_DIR "/%s/mon_groups/%s", ctrl, g->name)
			 : xasprintf(RESCTRL_DIR "/mon_groups/%s", g->name);
	p = vp_path(s->root, g->dir);
	if (!mkdir(p, 0755))
		g->made = g->fresh = true;
	else if (errno == EEXIST && is_dir(s->root, g->dir))
		g->made = true; /* ours from an earlier sample (the sweep took older ones) */
	else
		resctrl_mkdir_explain(errno, s->num_rmids, p, g->why, sizeof(g->why));
	free(p);
}

/* Write the VM's threads that are not in the group yet. */
static void group_feed(struct resctrl_vms *s, struct rgroup *g, const struct hv_vm *vm)
{
	int *tids, *todo;
	size_t n, n_todo = 0, i, j;

	if (!g->made)
		group_make(s, g, vm);
	if (!g->made)
		return;
	vm_threads(s, vm, &tids, &n);
	todo = xcalloc(n ? n : 1, sizeof(int));
	for (i = 0; i < n; i++) {
		for (j = 0; j < g->n_moved && g->moved[j] != tids[i]; j++)
			;
		if (j == g->n_moved)
			todo[n_todo++] = tids[i];
	}
	if (n_todo) {
		struct vp_err e = { 0, "" };

		/* a refused id is not retried each sample; the first refusal is reported once */
		if (resctrl_tasks_add(s->root, g->dir, todo, n_todo, NULL, &e)) {
			if (e.code == -EACCES || e.code == -EPERM)
				snprintf(g->feed_why, sizeof(g->feed_why), "%s: the kernel lets only "
					 "root (euid 0) or the threads' owner move a thread into a "
					 "resctrl group", e.msg);
			else
				notef(s->notes, sizeof(s->notes), "VM process %d: %s", vm->pid, e.msg);
		}
		for (i = 0; i < n_todo; i++) {
			VP_GROW(g->moved, g->cap_moved, g->n_moved + 1);
			g->moved[g->n_moved++] = todo[i];
		}
	}
	free(todo);
	free(tids);
}

static void group_drop(struct resctrl_vms *s, size_t i)
{
	struct rgroup *g = &s->g[i];

	if (g->made)
		remove_dir(s->root, g->dir, NULL);
	free(g->key);
	free(g->name);
	free(g->dir);
	free(g->moved);
	s->g[i] = s->g[--s->n_g];
}

static struct rgroup *group_attach(struct resctrl_vms *s, const struct hv_vm *vm)
{
	char *key = attrib_vm_key(vm);
	struct rgroup *g = group_find(s, key);

	if (g) {
		free(key);
		g->refs++;
		return g;
	}
	VP_GROW(s->g, s->cap_g, s->n_g + 1);
	g = &s->g[s->n_g++];
	memset(g, 0, sizeof(*g));
	g->key = key;
	g->refs = 1;
	g->name = resctrl_vm_group_name(vm, s->owner);
	if (s->unavail[0])
		snprintf(g->why, sizeof(g->why), "%s", s->unavail);
	else if (!g->name)
		snprintf(g->why, sizeof(g->why), "its vCPUs are no host threads (Xen runs them in "
			 "the hypervisor): resctrl here sees this domain's own tasks only");
	else
		group_feed(s, g, vm);
	return g;
}

static void group_detach(struct resctrl_vms *s, const char *key)
{
	struct rgroup *g = group_find(s, key);

	if (g && --g->refs <= 0)
		group_drop(s, (size_t)(g - s->g));
}

void resctrl_vms_free(struct resctrl_vms *s)
{
	if (!s)
		return;
	while (s->n_g)
		group_drop(s, s->n_g - 1);
	free(s->g);
	free(s->dn);
	free(s->root);
	free(s);
}

void resctrl_values_release(struct resctrl_values *v)
{
	free(v->node_llc);
	free(v->node_total);
	free(v->node_local);
	v->node_llc = v->node_total = v->node_local = NULL;
	v->n_nodes = 0;
}

static const struct resctrl_mon *dom_of(const struct resctrl_group *g, int dom)
{
	size_t i;

	for (i = 0; g && i < g->n_mon; i++)
		if (g->mon[i].domain == dom)
			return &g->mon[i];
	return NULL;
}

static void add_to(double *sum, double v)
{
	*sum = isnan(*sum) ? v : *sum + v;
}

void resctrl_values_compute(const struct resctrl_group *base, const struct resctrl_group *now,
			    int (*node_of)(const void *ctx, int dom), const void *ctx, int n_nodes,
			    struct resctrl_values *out)
{
	size_t i;
	int k;

	out->llc_occupancy = out->mbm_total = out->mbm_local = NAN;
	out->n_unavailable = 0;
	out->n_nodes = n_nodes > 0 ? n_nodes : 0;
	out->node_llc = xcalloc((size_t)out->n_nodes + 1, sizeof(double));
	out->node_total = xcalloc((size_t)out->n_nodes + 1, sizeof(double));
	out->node_local = xcalloc((size_t)out->n_nodes + 1, sizeof(double));
	for (k = 0; k < out->n_nodes; k++)
		out->node_llc[k] = out->node_total[k] = out->node_local[k] = NAN;
	for (i = 0; i < now->n_mon; i++) {
		const struct resctrl_mon *m = &now->mon[i], *b = dom_of(base, m->domain);
		int node = node_of ? node_of(ctx, m->domain) : -1;
		double dt = NAN, dl = NAN;
		bool in = node >= 0 && node < out->n_nodes;

		if (!isnan(m->llc_occupancy)) {
			add_to(&out->llc_occupancy, m->llc_occupancy);
			if (in)
				add_to(&out->node_llc[node], m->llc_occupancy);
		}
		if (b) {
			dt = m->mbm_total_bytes - b->mbm_total_bytes;
			dl = m->mbm_local_bytes - b->mbm_local_bytes;
		}
		/* Unavailable in either read (NaN), or a counter that went back (a reset) */
		if (!(dt >= 0) || !(dl >= 0)) {
			out->n_unavailable++;
			continue;
		}
		if (!isnan(dt)) {
			add_to(&out->mbm_total, dt);
			if (in)
				add_to(&out->node_total[node], dt);
		}
		if (!isnan(dl)) {
			add_to(&out->mbm_local, dl);
			if (in)
				add_to(&out->node_local[node], dl);
		}
	}
}

/* ---- per view ---- */

struct mvm {
	char *key;
	struct resctrl_group base0; /* at the start; NaN domains: not valid then */
	struct resctrl_group prev;  /* at the previous sample */
	bool have_base;
	bool zero_base;             /* the group was made for this meter: domains count from 0 */
	bool seen;                  /* in the latest update */
};

struct resctrl_meter {
	struct resctrl_vms *s;
	struct mvm *v;
	size_t n, cap;
};

struct resctrl_meter *resctrl_meter_new(struct resctrl_vms *s)
{
	struct resctrl_meter *m = xcalloc(1, sizeof(*m));

	m->s = s;
	return m;
}

static void mvm_release(struct resctrl_meter *m, size_t i)
{
	struct mvm *v = &m->v[i];

	group_detach(m->s, v->key);
	free(v->key);
	resctrl_group_release(&v->base0);
	resctrl_group_release(&v->prev);
	m->v[i] = m->v[--m->n];
}

void resctrl_meter_free(struct resctrl_meter *m)
{
	if (!m)
		return;
	while (m->n)
		mvm_release(m, m->n - 1);
	free(m->v);
	free(m);
}

static struct mvm *mvm_find(struct resctrl_meter *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].key, key))
			return &m->v[i];
	return NULL;
}

static void group_copy(struct resctrl_group *dst, const struct resctrl_group *src)
{
	memset(dst, 0, sizeof(*dst));
	if (src->n_mon) {
		dst->mon = xcalloc(src->n_mon, sizeof(*dst->mon));
		memcpy(dst->mon, src->mon, src->n_mon * sizeof(*dst->mon));
	}
	dst->n_mon = src->n_mon;
}

/* A fresh group's counters started at 0 when it was made: that is its baseline. */
static void zero_group(struct resctrl_group *g)
{
	memset(g, 0, sizeof(*g));
}

static void take_base(struct resctrl_meter *m, struct mvm *v, const struct rgroup *g)
{
	struct resctrl_group now;

	if (g->fresh && g->refs == 1) {
		zero_group(&v->base0);
		v->zero_base = true;
	} else {
		if (resctrl_dir_read(m->s->root, g->dir, &now, NULL))
			memset(&now, 0, sizeof(now));
		v->base0 = now;
	}
	group_copy(&v->prev, &v->base0);
	v->have_base = true;
}

void resctrl_meter_update(struct resctrl_meter *m, const struct hv_vm *vms, size_t n)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		m->v[i].seen = false;
	for (i = 0; i < n; i++) {
		char *key = attrib_vm_key(&vms[i]);
		struct mvm *v = mvm_find(m, key);
		struct rgroup *g;

		if (!v) {
			g = group_attach(m->s, &vms[i]);
			VP_GROW(m->v, m->cap, m->n + 1);
			v = &m->v[m->n++];
			memset(v, 0, sizeof(*v));
			v->key = key;
			key = NULL;
		} else {
			g = group_find(m->s, key);
			if (g && !m->s->unavail[0] && g->name)
				group_feed(m->s, g, &vms[i]);
		}
		free(key);
		v->seen = true;
		if (g && g->made && !v->have_base)
			take_base(m, v, g);
	}
	for (i = m->n; i-- > 0;)
		if (!m->v[i].seen)
			mvm_release(m, i);
}

static int node_of_cb(const void *ctx, int dom)
{
	return resctrl_vms_domain_node(ctx, dom);
}

/*
 * The next baseline: now's values where they are valid, the old ones where
 * now reads Unavailable (their bytes then count in the next valid interval).
 */
static void advance(struct resctrl_group *prev, const struct resctrl_group *now)
{
	struct resctrl_group next;
	size_t i;

	group_copy(&next, now);
	for (i = 0; i < next.n_mon; i++) {
		const struct resctrl_mon *old = dom_of(prev, next.mon[i].domain);

		if (old && (isnan(next.mon[i].mbm_total_bytes) || isnan(next.mon[i].mbm_local_bytes))) {
			next.mon[i].mbm_total_bytes = old->mbm_total_bytes;
			next.mon[i].mbm_local_bytes = old->mbm_local_bytes;
		}
	}
	resctrl_group_release(prev);
	*prev = next;
}

/* A fresh group's base has no domains: they count from 0. */
static void fill_zero_domains(struct resctrl_group *base, const struct resctrl_group *now)
{
	size_t i;

	for (i = 0; i < now->n_mon; i++)
		if (!dom_of(base, now->mon[i].domain)) {
			struct resctrl_mon *z;

			base->mon = xrealloc(base->mon, (base->n_mon + 1) * sizeof(*base->mon));
			z = &base->mon[base->n_mon++];
			z->domain = now->mon[i].domain;
			z->llc_occupancy = 0;
			z->mbm_total_bytes = z->mbm_local_bytes = 0;
		}
}

static double add_nan(double sum, double v)
{
	return isnan(v) ? sum : isnan(sum) ? v : sum + v;
}

void resctrl_values_add_nodes(const struct resctrl_values *v, double *acc, int n_nodes)
{
	int k;

	for (k = 0; k < v->n_nodes && k < n_nodes; k++) {
		acc[3 * k] = add_nan(acc[3 * k], v->node_llc[k]);
		acc[3 * k + 1] = add_nan(acc[3 * k + 1], v->node_total[k]);
		acc[3 * k + 2] = add_nan(acc[3 * k + 2], v->node_local[k]);
	}
}

int resctrl_meter_read(struct resctrl_meter *m, const struct hv_vm *vm, bool total,
		       struct resctrl_values *out)
{
	char *key = attrib_vm_key(vm);
	struct mvm *v = mvm_find(m, key);
	struct rgroup *g = group_find(m->s, key);
	const struct topology *t = &m->s->plat->topo;
	struct resctrl_group now, *base;
	struct vp_err e = { 0, "" };
	int ret = 0;

	free(key);
	memset(out, 0, sizeof(*out));
	out->llc_occupancy = out->mbm_total = out->mbm_local = NAN;
	if (!v || !g) {
		snprintf(out->why, sizeof(out->why), "not monitored (the VM appeared after the "
			 "last scan)");
		return VP_ENOTFOUND;
	}
	if (!g->made || !v->have_base) {
		snprintf(out->why, sizeof(out->why), "%s", g->why[0] ? g->why : "no group");
		return VP_EUNSUPP;
	}
	if (g->feed_why[0]) {
		/* the group counts none of the VM's threads: its zeros are not the VM's */
		snprintf(out->why, sizeof(out->why), "%s", g->feed_why);
		return VP_EUNSUPP;
	}
	if ((ret = resctrl_dir_read(m->s->root, g->dir, &now, &e))) {
		snprintf(out->why, sizeof(out->why), "cannot read its resctrl group: %s", e.msg);
		return ret;
	}
	base = total ? &v->base0 : &v->prev;
	if (v->zero_base) {
		/* domains that showed up after the start count from 0 too */
		fill_zero_domains(&v->base0, &now);
		fill_zero_domains(&v->prev, &now);
	}
	resctrl_values_compute(base, &now, node_of_cb, m->s, t->n_nodes, out);
	if (!total)
		advance(&v->prev, &now);
	resctrl_group_release(&now);
	if (out->n_unavailable)
		snprintf(out->why, sizeof(out->why), "%d L3 domain(s) read 'Unavailable' (left out)",
			 out->n_unavailable);
	return 0;
}
