/* view.c - one model's view of the live machine: targets, inputs, software sources, frames (the hub counts) */
#include "collect/view.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/resctrl_vm.h"
#include "hv/kvm.h"
#include "model/resolve.h"
#include "model/run.h"
#include "model/swsource.h"
#include "source/cpustat.h"
#include "source/task.h"
#include "source/schedtrace.h"
#include "source/imc_pci.h"
#include "pmu/xen_pcpu.h"
#include "analysis/xen_apportion.h"
#include "util/alloc.h"
#include "hv/kvm.h"
#include "util/fs.h"
#include "util/sbuf.h"
#include "util/strmap.h"
#include "util/timeutil.h"

/* Sources this stage provides per entity (the swsource table has no
 * machine-wide provider for them). */
enum ent_source { ES_NONE, ES_PLACEMENT_REMOTE, ES_PLACEMENT_SPREAD, ES_SCHED_RUN, ES_SCHED_WAIT,
		  ES_RDT_LLC, ES_RDT_TOTAL, ES_RDT_LOCAL };

struct target {                 /* one counted thread */
	int tid;
	int pid;
	struct task_schedstat ss0;  /* schedstat at the start ... */
	struct task_schedstat ssp;  /* ... and at the previous sample */
	bool have_ss;
	bool fresh;                 /* came after the view was made: counted from the next frame */
};

struct cview {
	struct collect_opts o;
	struct cost_solo *solo;     /* each row's LLC miss rate when alone, across samples */
	char *root;
	struct pmu_db *db;          /* the caller's */
	struct model_avail av;
	bool have_av;
	char **in_reason;           /* per input: why NaN (heap), NULL when read */
	bool *in_node;              /* per input: counted per node (uncore or `node`), apportioned */
	int act_in[2];              /* loc_dram, rem_dram: the apportioning weight; -1 none */
	struct cpustat cs_start, cs_prev; /* /proc/stat for the nodes' busy time */
	bool have_cs;
	struct cpustat llc_prev;    /* /proc/stat at the previous sample, for LLC tenancy */
	struct cpustat run_cs;      /* /proc/stat and /proc/schedstat at the start, for each */
	struct cpudelay run_dl;     /* CPU's load over the run (the placement rules) */
	bool have_run_cs, have_run_dl;
	bool have_llc_cs;
	enum ent_source *es;        /* per input */
	double *sw_start, *sw_prev; /* machine-wide cumulative sources */
	struct evdesc_list evl;     /* the events the hub opens, spec_index = input */
	struct hv_vm_list vms;      /* the last scan */
	struct hv_vm_list gone;     /* scanned once, gone since: their rows stay in total frames */
	size_t gone_shown;          /* gone.vms[0..gone_shown) have had their ended rows in a
				       sample frame; the others have theirs in the next one */
	bool scanned;               /* the first scan is done: targets found later are fresh */
	uint64_t scan_seen;         /* the shared scan it had last (hv_scan_vms_shared()) */
	struct attrib attrib;
	struct schedtrace *trace;   /* exact residency for the placement sources, NULL: sampled;
				       a reference of the hub's shared recorder */
	struct trace_share *ts;     /* the hub's */
	struct resctrl_vms *rdt;    /* the hub's resctrl groups (--resctrl), NULL: off */
	struct resctrl_meter *meter; /* this view's use of them, NULL when no input needs it */
	/* Xen PSR (o.xen_psr): per domain, the MBM bytes of this view's samples so far (xl's
	 * rate at each scan x the interval), for the whole-run frame */
	int *psr_dom;
	double *psr_bytes;          /* 2 per domain: total, local */
	size_t n_psr;
	/* Xen pmu_mode 'all', dom0 pinned 1:1, --xentrace: core counts per pCPU apportioned to
	 * every domain's vCPUs by their traced run time there (xen_apportion_pcpu()) */
	struct xen_pcpu *xp;        /* NULL: not counted (a note says why) */
	bool *xp_in;                /* per input: counted per pCPU, apportioned */
	double *xp_start, *xp_prev; /* cumulative per input x pCPU at open / previous frame */
	struct xres {               /* every Xen vCPU seen (dom0's too): run s per pCPU */
		int domid, index;
		double *start, *prev, *now;
	} *xr;
	size_t n_xr;
	int n_xp;                   /* pCPUs */
	char xp_pin[200];           /* the last scan found a dom0 vCPU k not hard-pinned on
				       pCPU k: why ("" pinned); its counts are then n/a */
	bool xp_pin_said;           /* the note said so once */
	/* --xen-imc: the model's uncore_imc CAS/RPQ events from PCI config space, per node */
	struct imc_pci *imc;        /* the hub's channels (collect_opts.imc_set), NULL: not read
				       (a note says why when asked) */
	struct imc_base imc_base;   /* this view's baselines over them */
	int *imc_in;                /* per input: enum imc_ctr it is served by, -1 none */
	struct target *t;
	size_t n_t, cap_t;
	struct strmap t_by_tid;     /* "tid" -> index into t */
	double mhz;                 /* from /proc/cpuinfo, NaN unknown */
	uint64_t start_ns, prev_ns;
	struct sbuf notes;          /* what this view cannot count and why, whole */
};

static enum ent_source ent_source_of(const struct model_input *in)
{
	if (in->kind != INPUT_SOURCE)
		return ES_NONE;
	if (!strcmp(in->spec, "placement.remote_fraction"))
		return ES_PLACEMENT_REMOTE;
	if (!strcmp(in->spec, "placement.spread"))
		return ES_PLACEMENT_SPREAD;
	if (!strcmp(in->spec, "sched.run_ns"))
		return ES_SCHED_RUN;
	if (!strcmp(in->spec, "sched.wait_ns"))
		return ES_SCHED_WAIT;
	if (!strcmp(in->spec, "resctrl.llc_occupancy"))
		return ES_RDT_LLC;
	if (!strcmp(in->spec, "resctrl.mbm_total_bytes"))
		return ES_RDT_TOTAL;
	if (!strcmp(in->spec, "resctrl.mbm_local_bytes"))
		return ES_RDT_LOCAL;
	return ES_NONE;
}

struct check_ctx {
	struct model_machine *mm;
	struct resctrl_vms *rdt;
	bool resctrl;               /* asked for */
	bool xen_psr;               /* Xen PSR serves them for Xen domains */
	const int *imc_in;          /* --xen-imc: inputs served from PCI config space, NULL none */
	const struct model *m;
};

/*
 * Which IMC counter of src/source/imc_pci.h a model's uncore_imc event is
 * (CAS_COUNT.RD event 0x04 umask 0x03, .WR 0x04/0x0c, RPQ_CYCLES_FULL 0x12,
 * WPQ_CYCLES_FULL 0x22, CLOCKTICKS 0x00 or the fixed counter's 0xff, or the
 * kernel's cas_count_read/write and clockticks aliases); -1 other.
 */
static int imc_ctr_of_spec(const char *spec)
{
	const char *e, *u;
	unsigned long ev, um = 0;

	if (strncmp(spec, "uncore_imc", 10))
		return -1;
	if (strstr(spec, "/cas_count_read/"))
		return IMC_CAS_RD;
	if (strstr(spec, "/cas_count_write/"))
		return IMC_CAS_WR;
	if (strstr(spec, "/clockticks/"))
		return IMC_CLK;
	if (!(e = strstr(spec, "event=")))
		return -1;
	ev = strtoul(e + 6, NULL, 0);
	if ((u = strstr(spec, "umask=")))
		um = strtoul(u + 6, NULL, 0);
	if (ev == 0x04 && um == 0x03)
		return IMC_CAS_RD;
	if (ev == 0x04 && um == 0x0c)
		return IMC_CAS_WR;
	if (ev == 0x12 && !um)
		return IMC_RPQ_FULL;
	if (ev == 0x22 && !um)
		return IMC_WPQ_FULL;
	if ((ev == 0x00 || ev == 0xff) && !um)
		return IMC_CLK;
	return -1;
}

/*
 * The inputs this stage computes per entity exist wherever it runs; the
 * resctrl ones where the user asked for them and the kernel has them.
 */
static int check_input(void *ctx, const struct model_input *in, char **reason)
{
	const struct check_ctx *cc = ctx;
	enum ent_source es = ent_source_of(in);
	const char *why;

	if (es == ES_RDT_LLC || es == ES_RDT_TOTAL || es == ES_RDT_LOCAL) {
		if (cc->xen_psr)
			return 0; /* a domain without a value says why (its psr_reason) */
		if (!cc->resctrl) {
			*reason = xstrdup("resctrl monitoring is off: --resctrl (a daemon session: "
					  "resctrl: true) makes one monitoring group per VM");
			return VP_EUNSUPP;
		}
		why = cc->rdt ? resctrl_vms_event_missing(cc->rdt, es == ES_RDT_LLC ? RCE_LLC_OCCUPANCY :
							  es == ES_RDT_TOTAL ? RCE_MBM_TOTAL : RCE_MBM_LOCAL)
			      : "no resctrl groups";
		if (why) {
			*reason = xstrdup(why);
			return VP_EUNSUPP;
		}
		return 0;
	}
	if (es != ES_NONE)
		return 0;
	if (cc->imc_in && cc->imc_in[in - cc->m->inputs] >= 0)
		return 0; /* read from PCI config space */
	return model_machine_check(cc->mm, in, reason);
}

static bool is_rdt(enum ent_source es)
{
	return es == ES_RDT_LLC || es == ES_RDT_TOTAL || es == ES_RDT_LOCAL;
}

static double read_mhz(const char *root)
{
	char *text, *p;
	double mhz = NAN;

	if (vp_read_file(root, "/proc/cpuinfo", &text, NULL, NULL))
		return NAN;
	p = strstr(text, "cpu MHz");
	if (p && (p = strchr(p, ':')))
		mhz = strtod(p + 1, NULL);
	free(text);
	return mhz > 0 ? mhz : NAN;
}

static void note(struct cview *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fmt appended to notes, after "; " when notes holds one already. */
static void notes_vadd(struct sbuf *notes, const char *fmt, va_list ap)
{
	if (notes->len)
		sbuf_addstr(notes, "; ");
	sbuf_vaddf(notes, fmt, ap);
}

static void note(struct cview *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notes_vadd(&c->notes, fmt, ap);
	va_end(ap);
}

static void notes_add(struct sbuf *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notes_add(struct sbuf *notes, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	notes_vadd(notes, fmt, ap);
	va_end(ap);
}

static bool wanted_vm(const struct collect_opts *o, const struct hv_vm *vm)
{
	size_t i;

	if (!o->n_vm_names)
		return true;
	for (i = 0; i < o->n_vm_names; i++)
		if (hv_vm_is_named(vm, o->vm_names[i]))
			return true;
	return false;
}

static bool same_vm(const struct hv_vm *a, const struct hv_vm *b)
{
	return a->adapter == b->adapter && a->pid == b->pid && a->domid == b->domid &&
	       a->start_ticks == b->start_ticks && !strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

static const struct hv_vm *find_vm(const struct hv_vm_list *l, const struct hv_vm *vm)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (same_vm(&l->vms[i], vm))
			return &l->vms[i];
	return NULL;
}

/* The vCPU of vm that is v (its thread; under Xen its index), or NULL. */
static const struct hv_vcpu *find_vcpu(const struct hv_vm *vm, const struct hv_vcpu *v)
{
	size_t i;

	for (i = 0; i < vm->n_vcpus; i++)
		if (v->tid > 0 ? vm->vcpus[i].tid == v->tid : vm->vcpus[i].index == v->index)
			return &vm->vcpus[i];
	return NULL;
}

static struct target *find_target(struct cview *c, int tid);

/*
 * Every vCPU thread scanned becomes a target once: those of the first scan
 * when the view is made, the others (a VM that started, a vCPU added) as
 * they come, counted from the next frame.
 */
static void add_targets(struct cview *c)
{
	size_t i, j;

	for (i = 0; i < c->vms.n; i++)
		for (j = 0; j < c->vms.vms[i].n_vcpus; j++) {
			const struct hv_vcpu *v = &c->vms.vms[i].vcpus[j];
			struct target *t;

			if (v->tid <= 0 || v->ended || find_target(c, v->tid))
				continue;
			VP_GROW(c->t, c->cap_t, c->n_t + 1);
			t = &c->t[c->n_t];
			memset(t, 0, sizeof(*t));
			t->tid = v->tid;
			t->pid = c->vms.vms[i].pid;
			t->have_ss = !task_schedstat_read(c->root, t->pid, t->tid, &t->ss0, NULL);
			t->ssp = t->ss0;
			t->fresh = c->scanned;
			{
				char k[16];

				snprintf(k, sizeof(k), "%d", t->tid);
				strmap_put(&c->t_by_tid, k, c->n_t);
			}
			c->n_t++;
		}
}

/*
 * The traced run time per pCPU of every Xen vCPU of the scan, dom0's
 * included (the apportioning shares a pCPU's count among all who ran
 * there): a vCPU seen first is counted from here.
 */
static void xres_update(struct cview *c, const struct hv_vm_list *all)
{
	size_t i, j, k;
	int p, n = c->n_xp;

	if (!c->o.plat->hv.xen_dom0 || !c->o.xen_tracer || c->o.n_pids)
		return;
	if (!n)
		n = c->n_xp = c->o.plat->topo.n_cpus > 0 ? c->o.plat->topo.n_cpus : 0;
	/* dom0's CPU k counts pCPU k only while dom0's vCPU k is hard-pinned there */
	c->xp_pin[0] = '\0';
	for (i = 0; i < all->n && !c->xp_pin[0]; i++)
		for (j = 0; all->vms[i].dom0 && j < all->vms[i].n_vcpus && !c->xp_pin[0]; j++) {
			const struct hv_vcpu *v = &all->vms[i].vcpus[j];

			if (v->affinity_all || v->affinity.n != 1 || v->affinity.ids[0] != v->index)
				snprintf(c->xp_pin, sizeof(c->xp_pin), "dom0's vCPU %d is not hard-pinned "
					 "on pCPU %d (xl vcpu-list), so dom0's CPU %d does not count that "
					 "pCPU alone", v->index, v->index, v->index);
		}
	for (i = 0; i < all->n; i++)
		for (j = 0; all->vms[i].adapter == HVA_XEN && j < all->vms[i].n_vcpus; j++) {
			const struct hv_vcpu *v = &all->vms[i].vcpus[j];
			struct xres *x = NULL;

			for (k = 0; k < c->n_xr && !x; k++)
				if (c->xr[k].domid == all->vms[i].domid && c->xr[k].index == v->index)
					x = &c->xr[k];
			if (!x) {
				c->xr = xrealloc(c->xr, (c->n_xr + 1) * sizeof(*c->xr));
				x = &c->xr[c->n_xr++];
				x->domid = all->vms[i].domid;
				x->index = v->index;
				x->start = xcalloc((size_t)n + 1, sizeof(double));
				x->prev = xcalloc((size_t)n + 1, sizeof(double));
				x->now = xcalloc((size_t)n + 1, sizeof(double));
				for (p = 0; p < n; p++)
					x->start[p] = x->prev[p] = x->now[p] =
						v->trace_pcpu_s ? (p < v->n_trace_pcpus ? v->trace_pcpu_s[p] : 0)
								: NAN;
				continue;
			}
			for (p = 0; p < n; p++) {
				x->now[p] = v->trace_pcpu_s ? (p < v->n_trace_pcpus ? v->trace_pcpu_s[p] : 0)
							    : NAN;
				/* traced only since it was first seen: all it traced is in the run */
				if (isnan(x->start[p]) && !isnan(x->now[p]))
					x->start[p] = x->prev[p] = 0;
			}
		}
}

static int scan(struct cview *c, struct vp_err *err)
{
	struct hv_ctx ctx = { c->root, c->o.plat, NULL, c->o.xen_numa };
	struct hv_vm_list all, prev;

	ctx.xen_tracer = c->o.xen_tracer;
	ctx.xen_psr_run = c->o.xen_psr;
	size_t i;
	int ret;

	memset(&all, 0, sizeof(all));
	if (c->o.n_pids)
		ret = hv_native_scan(&ctx, c->o.pids, c->o.n_pids, &all, err);
	else /* one scan for the views sampled together, and what the scans keep (hv.h) */
		ret = hv_scan_vms_shared(&ctx, c->o.cache, &c->scan_seen, &all, err);
	if (ret) {
		hv_vm_list_release(&all);
		return ret;
	}
	/* keep only the wanted VMs, and never Xen's dom0 */
	prev = c->vms;
	memset(&c->vms, 0, sizeof(c->vms));
	memcpy(c->vms.notes, all.notes, sizeof(all.notes));
	{
		char xres[400];
		size_t len = strlen(c->vms.notes);

		hv_xen_residency_note(&all, c->o.xen_tracer, xres, sizeof(xres));
		if (xres[0])
			snprintf(c->vms.notes + len, sizeof(c->vms.notes) - len, "%s%s",
				 len ? "; " : "", xres);
	}
	xres_update(c, &all);
	for (i = 0; i < all.n; i++) {
		if (all.vms[i].dom0 || !wanted_vm(&c->o, &all.vms[i]))
			continue;
		VP_GROW(c->vms.vms, c->vms.cap, c->vms.n + 1);
		c->vms.vms[c->vms.n++] = all.vms[i];
		memset(&all.vms[i], 0, sizeof(all.vms[i]));
	}
	/*
	 * A VM or process that has exited since the last scan: its counters
	 * keep their final counts, so a total frame (diagnose over the whole
	 * run) still gives it its rows, as it was last seen; a sample frame
	 * ends its series.
	 */
	for (i = 0; i < prev.n; i++) {
		if (find_vm(&c->vms, &prev.vms[i]) || find_vm(&c->gone, &prev.vms[i]))
			continue;
		VP_GROW(c->gone.vms, c->gone.cap, c->gone.n + 1);
		c->gone.vms[c->gone.n++] = prev.vms[i];
		memset(&prev.vms[i], 0, sizeof(prev.vms[i]));
	}
	hv_vm_list_release(&all);
	attrib_update(&c->attrib, &c->vms, vp_now_ns());
	if (c->meter)
		resctrl_meter_update(c->meter, c->vms.vms, c->vms.n);
	/* a vCPU thread gone from a VM still there: one more row, its last interval */
	for (i = 0; i < prev.n; i++) {
		struct hv_vm *now = (struct hv_vm *)find_vm(&c->vms, &prev.vms[i]);
		size_t j;

		for (j = 0; now && j < prev.vms[i].n_vcpus; j++) {
			struct hv_vcpu *v = &prev.vms[i].vcpus[j];

			if (v->ended || find_vcpu(now, v))
				continue;
			*hv_vm_add_vcpu(now) = *v;
			now->vcpus[now->n_vcpus - 1].ended = true;
			memset(v, 0, sizeof(*v));
		}
	}
	hv_vm_list_release(&prev);
	add_targets(c);
	c->scanned = true;
	return 0;
}

int cview_scan(struct cview *c, struct vp_err *err)
{
	return scan(c, err);
}

/*
 * The placement sources weigh memory per node by where each vCPU ran, and
 * per-node counts are apportioned by it: with the context-switch recorder
 * that is exact, otherwise sampled at each frame.  Only a model that reads
 * placement or counts per node pays for tracing every switch.
 */
static bool wants_trace(const struct cview *c)
{
	size_t i;

	for (i = 0; i < c->o.model->n_inputs; i++)
		if (c->es[i] == ES_PLACEMENT_REMOTE || c->es[i] == ES_PLACEMENT_SPREAD)
			return true;
	return false;
}

static void open_trace(struct cview *c)
{
	const struct topology *topo = &c->o.plat->topo;
	struct trace_share *ts = c->ts;

	if (c->trace)
		return;
	if (!ts->tried) {
		struct vp_err e = { 0, "" };

		ts->tried = true;
		const struct topology *lt = platform_local_topo(c->o.plat);

		/* the CPUs this kernel runs on: a dom0's vCPUs, not Xen's pCPUs */
		if (schedtrace_open(&ts->st, c->root, lt->online.ids, lt->online.n, &e))
			snprintf(ts->why, sizeof(ts->why), "%s", e.msg);
	}
	if (!ts->st) {
		/* on a dom0 the domains' residency is Xen's: the scan's note says how it is known */
		if (!c->o.plat->topo.from_xen)
			note(c, "residency per node sampled at each frame, not traced: %s", ts->why);
		return;
	}
	c->trace = schedtrace_ref(ts->st);
	attrib_use_schedtrace(&c->attrib, c->trace, topo);
	attrib_watch(&c->attrib, &c->vms, vp_now_ns()); /* the threads scanned so far, from now */
}

static bool counts_nodes(const struct cview *c);

/* Every process and VM named must be there (an empty view would say nothing). */
static int check_targets(const struct cview *c, struct vp_err *err)
{
	size_t i, j;

	for (i = 0; i < c->o.n_pids; i++) {
		for (j = 0; j < c->vms.n && c->vms.vms[j].pid != c->o.pids[i]; j++)
			;
		if (j == c->vms.n)
			return vp_err_set(err, -ESRCH, "process %d does not exist", c->o.pids[i]);
	}
	if (!c->o.n_pids && c->o.n_vm_names) {   /* the error lists the VMs there are */
		struct hv_ctx ctx = { c->root, c->o.plat, NULL, NULL };

		return hv_vms_check_names(&ctx, c->o.vm_names, c->o.n_vm_names, false, err);
	}
	return 0;
}

/*
 * On a Xen dom0: the model's core events counted per pCPU (dom0's CPU k is
 * pCPU k) and apportioned to every domain's vCPUs by xentrace's exact run
 * time, when Xen allows it (pmu_mode 'all', dom0 pinned 1:1) and the run
 * traces Xen's scheduler; otherwise a note says what is missing.  The
 * events it counts leave the per-thread list (a Xen vCPU is no thread).
 */
static void xen_pcpu_setup(struct cview *c)
{
	const struct platform *p = c->o.plat;
	const struct model *m = c->o.model;
	const char **specs;
	char why[1024];
	struct vp_err e = { 0, "" };
	size_t i, k, j, any = 0;

	if (!p->hv.xen_dom0 || c->o.n_pids)
		return;
	specs = xcalloc(m->n_inputs + 1, sizeof(char *));
	for (i = 0; i < m->n_inputs; i++) {
		bool ok = m->inputs[i].kind == INPUT_EVENT && c->av.input_ok[i] && !c->in_node[i] &&
			  !c->in_reason[i], found = false;

		for (k = 0; ok && k < c->evl.n; k++)
			if (c->evl.v[k].spec_index == (int)i) {
				found = true;
				ok = xen_pcpu_event_ok(&c->evl.v[k]);
			}
		if (ok && found) {
			specs[i] = m->inputs[i].spec;
			any++;
		}
	}
	if (!any) {
		free(specs);
		return;
	}
	if (!xen_apportion_possible(p, why, sizeof(why))) {
		note(c, "core counters per domain: n/a: %s", why);
	} else if (!c->o.xen_tracer) {
		note(c, "core counters per domain: n/a: dom0 can count per pCPU here, and the counts "
			"are shared out by the exact run time of Xen's scheduler trace: add --xentrace "
			"(the daemon: xentrace = on)");
	} else if (xen_pcpu_open(&c->xp, c->root, specs, m->n_inputs, &c->evl, p->topo.n_cpus, &e)) {
		note(c, "core counters per domain: n/a: cannot count per pCPU in dom0: %s", e.msg);
	} else {
		size_t n = m->n_inputs * (size_t)p->topo.n_cpus + 1;

		c->n_xp = p->topo.n_cpus; /* what xres_update() took */
		c->xp_in = xcalloc(m->n_inputs + 1, sizeof(bool));
		c->xp_start = xcalloc(n, sizeof(double));
		c->xp_prev = xcalloc(n, sizeof(double));
		for (i = 0; i < m->n_inputs; i++)
			c->xp_in[i] = specs[i] != NULL;
		if (xen_pcpu_read(c->xp, c->xp_start, &e))
			note(c, "core counters per domain: %s", e.msg);
		memcpy(c->xp_prev, c->xp_start, (n - 1) * sizeof(double));
		for (j = k = 0; k < c->evl.n; k++) {
			if (c->xp_in[c->evl.v[k].spec_index]) {
				evdesc_release(&c->evl.v[k]);
				continue;
			}
			c->evl.v[j++] = c->evl.v[k];
		}
		c->evl.n = j;
		note(c, "core counters per domain: %s", why);
	}
	free(specs);
}

/* The targets (every vCPU thread) and the model's events that exist here. */
static void resolve_events(struct cview *c)
{
	const struct model *m = c->o.model;
	size_t i, j, n_events_in = 0;

	/* the targets are the first scan's (add_targets()) */
	for (i = 0; i < m->n_inputs; i++) {
		const struct model_input *in = &m->inputs[i];
		struct vp_err e;
		size_t before = c->evl.n;

		if (in->kind != INPUT_EVENT || !c->av.input_ok[i])
			continue;
		if (c->imc && c->imc_in[i] >= 0) {
			c->in_node[i] = true; /* counted per node from PCI config space */
			continue;
		}
		n_events_in++;
		if (event_resolve(c->db, in->spec, (int)i, &c->evl, &e)) {
			c->in_reason[i] = xasprintf("not resolved: %s", e.msg);
			continue;
		}
		/* per-socket PMUs cannot count a thread: counted per node, apportioned */
		c->in_node[i] = in->per_node;
		for (j = before; j < c->evl.n; j++)
			c->in_node[i] |= c->evl.v[j].uncore;
	}
	xen_pcpu_setup(c);
	if (!c->n_t && n_events_in && !c->vms.n)
		note(c, "no VM or process to count: per-thread perf events are not counted");
	else if (!c->n_t && n_events_in && !c->xp)
		note(c, "no vCPU is a host thread here (Xen vCPUs run in the hypervisor): "
			"perf events are not counted per vCPU");
	/*
	 * A fixture tree's thread ids are not this machine's: counting them
	 * would count strangers (or fail on the first one missing).  Its
	 * software sources and placement are read from the tree; per-node
	 * events count this machine's CPUs of the tree's nodes, as before.
	 */
	if (vp_root_is_fixture(c->root) && c->n_t && n_events_in) {
		for (i = j = 0; i < c->evl.n; i++) {
			int in = c->evl.v[i].spec_index;

			if (c->in_node[in]) {
				c->evl.v[j++] = c->evl.v[i];
				continue;
			}
			if (!c->in_reason[in])
				c->in_reason[in] = xstrdup("not counted: " VP_FIXTURE_THREADS);
			evdesc_release(&c->evl.v[i]);
		}
		c->evl.n = j;
		note(c, "per-thread counters off: %s", VP_FIXTURE_THREADS);
	}
	/*
	 * No thread yet (no VM, or Xen's): the per-thread events stay resolved,
	 * for the VMs and vCPU threads that come later (cview_scan()); per-node
	 * ones count now.
	 */
	c->act_in[0] = model_find_input(m, "loc_dram");
	c->act_in[1] = model_find_input(m, "rem_dram");
	for (i = 0; i < 2; i++)
		if (c->act_in[i] >= 0 && (m->inputs[c->act_in[i]].kind != INPUT_EVENT ||
					  c->in_node[c->act_in[i]]))
			c->act_in[i] = -1;
}

/*
 * On a Xen dom0 a factor that cannot be evaluated says what would measure it
 * per domain there (Xen PSR, the vPMU, or nothing dom0 can reach), after the
 * model's own reason: a software model's "needs a core PMU" names no way to
 * get one on Xen (docs/xen.md).
 */
static void xen_factor_reasons(struct cview *c, const struct platform *p)
{
	struct sbuf why = SBUF_INIT;
	int f;

	for (f = 0; p && f < FACTOR_N; f++) {
		char *old = c->av.factor_reason[f];

		sbuf_reset(&why);
		if ((c->o.model->factors[f].quality != VQ_UNAVAILABLE && c->av.factor_ok[f]) ||
		    !platform_xen_factor_why(p, f, &why))
			continue;
		c->av.factor_reason[f] = xasprintf("%s; on this Xen dom0: %s",
						   old ? old : "not measurable", sbuf_str(&why));
		free(old);
	}
	sbuf_release(&why);
}

int cview_new(struct cview **out, const struct collect_opts *o, struct pmu_db *db,
	      struct resctrl_vms *rdt, struct trace_share *ts, struct vp_err *err)
{
	struct cview *c = xcalloc(1, sizeof(*c));

	c->solo = cost_solo_new();
	const struct model *m = o->model;
	struct model_machine mm;
	struct check_ctx cc;
	struct diags d;
	size_t i;
	int ret;

	c->o = *o;
	c->root = xstrdup(o->root ? o->root : "/");
	c->o.root = c->root;
	c->db = db;
	c->rdt = o->resctrl ? rdt : NULL;
	c->ts = ts;
	evdesc_list_init(&c->evl);
	attrib_init(&c->attrib, &o->plat->topo);
	c->mhz = read_mhz(c->root);
	c->in_reason = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(char *));
	c->in_node = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(bool));
	c->es = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(*c->es));
	c->sw_start = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
	c->sw_prev = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));

	memset(&mm, 0, sizeof(mm));
	mm.db = c->db;
	mm.root = c->root;
	mm.plat = o->plat;
	cc.mm = &mm;
	cc.rdt = c->rdt;
	cc.resctrl = o->resctrl;
	cc.xen_psr = o->xen_psr != NULL;
	cc.imc_in = NULL;
	cc.m = m;
	if (o->xen_imc) {
		c->imc_in = xcalloc(m->n_inputs + 1, sizeof(int));
		for (i = 0; i < m->n_inputs; i++)
			c->imc_in[i] = m->inputs[i].kind == INPUT_EVENT ?
				       imc_ctr_of_spec(m->inputs[i].spec) : -1;
		c->imc = o->imc_set;
		if (!c->imc) {
			note(c, "IMC counters from PCI config space: n/a: %s",
			     o->imc_why && o->imc_why[0] ? o->imc_why : "not set up");
		} else {
			imc_base_init(&c->imc_base, c->imc);
			note(c, "IMC counters from PCI config space (%s, %zu channels): CAS x 64 B and "
			     "the read/write pending queues' full DRAM clocks per node, measured; "
			     "shares per VM apportioned", c->imc->gen, c->imc->n);
			cc.imc_in = c->imc_in;
		}
	}
	diags_init(&d);
	model_check_inputs(m, check_input, &cc, &c->av, &d);
	diags_release(&d);
	c->have_av = true;
	xen_factor_reasons(c, o->plat);
	for (i = 0; i < m->n_inputs; i++) {
		const struct model_input *in = &m->inputs[i];

		c->es[i] = ent_source_of(in);
		if (!c->av.input_ok[i] && c->av.input_reason[i])
			c->in_reason[i] = xstrdup(c->av.input_reason[i]);
		c->sw_start[i] = c->sw_prev[i] = NAN;
		if (in->kind == INPUT_SOURCE && c->es[i] == ES_NONE && c->av.input_ok[i])
			swsource_read(c->root, in->spec, &c->sw_start[i], NULL);
		c->sw_prev[i] = c->sw_start[i];
	}
	for (i = 0; c->rdt && !c->meter && i < m->n_inputs; i++)
		if (is_rdt(c->es[i]) && c->av.input_ok[i])
			c->meter = resctrl_meter_new(c->rdt);
	/* asked for: the groups give the node figures even when the model reads none of them */
	if (c->rdt && !c->meter && !resctrl_vms_unavailable(c->rdt))
		c->meter = resctrl_meter_new(c->rdt);
	if (c->rdt && resctrl_vms_notes(c->rdt)[0])
		note(c, "%s", resctrl_vms_notes(c->rdt));
	if (wants_trace(c))
		open_trace(c);
	ret = scan(c, err);
	if (!ret && o->strict)
		ret = check_targets(c, err);
	if (ret)
		goto fail;
	resolve_events(c);
	if (counts_nodes(c) && c->n_t)
		open_trace(c); /* watches the threads just scanned, from now */
	c->start_ns = c->prev_ns = vp_now_ns();
	*out = c;
	return 0;
fail:
	cview_free(c);
	return ret;
}

void cview_free(struct cview *c)
{
	size_t i;

	if (!c)
		return;
	cost_solo_free(c->solo);
	sbuf_release(&c->notes);
	free(c->psr_dom);
	free(c->psr_bytes);
	if (c->have_llc_cs)
		cpustat_release(&c->llc_prev);
	if (c->have_run_cs)
		cpustat_release(&c->run_cs);
	if (c->have_run_dl)
		cpudelay_release(&c->run_dl);
	for (i = 0; c->in_reason && i < c->o.model->n_inputs; i++)
		free(c->in_reason[i]);
	free(c->in_reason);
	free(c->in_node);
	if (c->have_cs) {
		cpustat_release(&c->cs_start);
		cpustat_release(&c->cs_prev);
	}
	free(c->es);
	free(c->sw_start);
	free(c->sw_prev);
	if (c->have_av)
		model_avail_release(c->o.model, &c->av);
	evdesc_list_release(&c->evl);
	hv_vm_list_release(&c->vms);
	hv_vm_list_release(&c->gone);
	attrib_release(&c->attrib);
	xen_pcpu_free(c->xp);
	imc_base_release(&c->imc_base); /* the channels are the hub's */
	free(c->imc_in);
	free(c->xp_in);
	free(c->xp_start);
	free(c->xp_prev);
	for (i = 0; i < c->n_xr; i++) {
		free(c->xr[i].start);
		free(c->xr[i].prev);
		free(c->xr[i].now);
	}
	free(c->xr);
	schedtrace_free(c->trace);
	resctrl_meter_free(c->meter); /* the groups go when no other view holds them */
	free(c->t);
	strmap_release(&c->t_by_tid);
	free(c->root);
	free(c);
}

const struct model *cview_model(const struct cview *c) { return c->o.model; }
const struct evdesc_list *cview_events(const struct cview *c) { return &c->evl; }
const struct attrib *cview_attrib(const struct cview *c) { return &c->attrib; }
const struct model_avail *cview_avail(const struct cview *c) { return &c->av; }
size_t cview_n_targets(const struct cview *c) { return c->n_t; }
int cview_target_tid(const struct cview *c, size_t i) { return i < c->n_t ? c->t[i].tid : -1; }

bool cview_input_node(const struct cview *c, size_t i)
{
	return i < c->o.model->n_inputs && c->in_node[i];
}

/* Per-node inputs that are counted: the frame then has node rows. */
static bool counts_nodes(const struct cview *c)
{
	size_t i;

	for (i = 0; i < c->o.model->n_inputs; i++)
		if (c->in_node[i] && !c->in_reason[i])
			return true;
	return false;
}

const char *cview_input_reason(const struct cview *c, size_t i)
{
	return i < c->o.model->n_inputs ? c->in_reason[i] : NULL;
}

void cview_input_fail(struct cview *c, size_t i, const char *why)
{
	if (i < c->o.model->n_inputs && !c->in_reason[i])
		c->in_reason[i] = xstrdup(why);
}

void cview_start(struct cview *c)
{
	size_t i;

	c->start_ns = c->prev_ns = vp_now_ns();
	for (i = 0; i < c->n_t; i++)
		if (c->t[i].have_ss)
			c->t[i].have_ss = !task_schedstat_read(c->root, c->t[i].pid, c->t[i].tid,
								&c->t[i].ss0, NULL);
	for (i = 0; i < c->n_t; i++)
		c->t[i].ssp = c->t[i].ss0;
	if (c->have_cs) {
		cpustat_release(&c->cs_start);
		cpustat_release(&c->cs_prev);
		c->have_cs = false;
	}
	if (counts_nodes(c) && !cpustat_read(c->root, &c->cs_start, NULL)) {
		if (cpustat_read(c->root, &c->cs_prev, NULL))
			cpustat_release(&c->cs_start);
		else
			c->have_cs = true;
	}
	if (c->have_run_cs)
		cpustat_release(&c->run_cs);
	if (c->have_run_dl)
		cpudelay_release(&c->run_dl);
	c->have_run_cs = !cpustat_read(c->root, &c->run_cs, NULL);
	c->have_run_dl = !cpudelay_read(c->root, &c->run_dl, NULL);
	if (counts_nodes(c) && !c->have_cs)
		note(c, "node busy time unknown (no /proc/stat): per-node counts are shared "
			"among the counted vCPUs only");
}

static struct target *find_target(struct cview *c, int tid)
{
	char k[16];
	size_t i;

	snprintf(k, sizeof(k), "%d", tid);
	if (!strmap_get(&c->t_by_tid, k, &i) || i >= c->n_t || c->t[i].tid != tid)
		return NULL;
	return &c->t[i];
}

/* Fill a row's inputs for one vCPU thread. */
static void vcpu_inputs(struct cview *c, const struct hv_vcpu *v, bool live, int ent, bool total,
			const double *counts, double *in, double *run_ns, double *wait_ns)
{
	const struct model *m = c->o.model;
	struct target *t = find_target(c, v->tid);
	size_t ti = t ? (size_t)(t - c->t) : 0;
	const struct entity *e = ent >= 0 ? &c->attrib.ents[ent] : NULL;
	struct task_schedstat now;
	bool have_now = false;
	size_t i;

	/* the scan just read it (not for a thread or VM gone since: NaN, as its file is) */
	if (t && t->have_ss && live && v->have_run_ns) {
		memset(&now, 0, sizeof(now));
		now.run_ns = v->run_ns;
		now.wait_ns = v->wait_ns;
		have_now = true;
	} else if (t && t->have_ss && live) {
		have_now = !task_schedstat_read(c->root, t->pid, t->tid, &now, NULL);
	}
	if (t && t->fresh && !total) { /* its baseline is this frame's: counted from the next */
		if (have_now)
			t->ssp = now;
		have_now = false;
		t = NULL;
	}
	/* CPU contention whatever the model reads (the diagnosis's own source) */
	*run_ns = *wait_ns = NAN;
	if (have_now && t) {
		const struct task_schedstat *b = total ? &t->ss0 : &t->ssp;

		if (now.run_ns >= b->run_ns && now.wait_ns >= b->wait_ns) {
			*run_ns = (double)(now.run_ns - b->run_ns);
			*wait_ns = (double)(now.wait_ns - b->wait_ns);
		}
	}
	for (i = 0; i < m->n_inputs; i++) {
		const struct task_schedstat *base = t ? (total ? &t->ss0 : &t->ssp) : NULL;

		in[i] = NAN;
		switch (c->es[i]) {
		case ES_PLACEMENT_REMOTE:
			if (ent >= 0)
				in[i] = attrib_remote_estimate(&c->attrib, ent).v;
			continue;
		case ES_PLACEMENT_SPREAD:
			continue; /* a VM's value: see vm_inputs() */
		case ES_SCHED_RUN:
			if (have_now && base)
				in[i] = (double)(now.run_ns - base->run_ns);
			else if (e && isfinite(e->interval_run_s) && !total)
				in[i] = e->interval_run_s * 1e9;
			continue;
		case ES_SCHED_WAIT:
			if (have_now && base)
				in[i] = (double)(now.wait_ns - base->wait_ns);
			continue;
		case ES_RDT_LLC:
		case ES_RDT_TOTAL:
		case ES_RDT_LOCAL:
			continue; /* the VM's group: see cview_frame() */
		case ES_NONE:
			break;
		}
		if (m->inputs[i].kind == INPUT_SOURCE) {
			in[i] = NAN; /* machine-wide: filled by the caller */
			continue;
		}
		if (counts && t && !c->in_reason[i])
			in[i] = counts[i * c->n_t + ti];
	}
	if (t && have_now && !total)
		t->ssp = now;
}

static void machine_sources(struct cview *c, bool total, double *cur)
{
	const struct model *m = c->o.model;
	size_t i;

	for (i = 0; i < m->n_inputs; i++) {
		const struct swsource_def *def;

		cur[i] = NAN;
		if (m->inputs[i].kind != INPUT_SOURCE || c->es[i] != ES_NONE || !c->av.input_ok[i])
			continue;
		if (swsource_read(c->root, m->inputs[i].spec, &cur[i], NULL))
			cur[i] = NAN;
		def = swsource_find(m->inputs[i].spec);
		if (def && def->cumulative && isfinite(cur[i])) {
			double base = total ? c->sw_start[i] : c->sw_prev[i];
			double now = cur[i];

			cur[i] = now - base;
			if (!total)
				c->sw_prev[i] = now;
		}
	}
}

/* "resctrl: VM 'NAME': why" into a frame's notes. */
static void note_vm(struct sbuf *buf, const struct hv_vm *vm, const char *why)
{
	notes_add(buf, "%s '%s': %s", vm->adapter == HVA_XEN ? "Xen PSR of domain" : "resctrl: VM",
		  vm->name ? vm->name : "?", why);
}

/* Busy CPU seconds of each node (topology order) between two /proc/stat reads. */
static void node_busy_s(const struct topology *topo, const struct cpustat *base,
			const struct cpustat *now, double *busy)
{
	double tck = (double)sysconf(_SC_CLK_TCK);
	size_t i, j;
	int ni;

	for (ni = 0; ni < topo->n_nodes; ni++)
		busy[ni] = 0;
	for (i = 0; i < now->n; i++) {
		ni = topology_node_index(topo, topology_cpu_node(topo, now->cpus[i].cpu));
		for (j = 0; j < base->n && base->cpus[j].cpu != now->cpus[i].cpu; j++)
			;
		if (ni < 0 || j == base->n)
			continue;
		if (now->cpus[i].busy >= base->cpus[j].busy)
			busy[ni] += (double)(now->cpus[i].busy - base->cpus[j].busy) / (tck > 0 ? tck : 100);
	}
}

/*
 * Each vCPU's share of each node's per-node counts (docs/method.md): its
 * run time on the node (exact with the context-switch recorder) over the node's
 * busy time, split among the vCPUs by their DRAM accesses where the model
 * counts them per thread.  Returns share[v * n_nodes + i] for the frame's
 * vCPUs in row order (heap), NULL when the model counts nothing per node.
 */
static double *vcpu_shares(struct cview *c, bool total, const double *counts, double **home)
{
	const struct topology *topo = &c->o.plat->topo;
	size_t nn = topo->n_nodes > 0 ? (size_t)topo->n_nodes : 0, nv = 0, v, i, j, ni, k;
	double *run, *act, *busy, *share, *mem = NULL;
	bool any_home = false;
	bool have_act = c->act_in[0] >= 0 && c->act_in[1] >= 0 && c->n_t &&
			!c->in_reason[c->act_in[0]] && !c->in_reason[c->act_in[1]];

	*home = NULL;
	if (!nn || !counts_nodes(c))
		return NULL;
	for (k = 0; k < c->o.model->n_inputs; k++)
		any_home |= c->in_node[k] && c->o.model->inputs[k].home && !c->in_reason[k];
	for (i = 0; i < c->vms.n; i++)
		nv += c->vms.vms[i].n_vcpus;
	if (any_home)
		mem = xcalloc(nv * nn + 1, sizeof(double));
	run = xcalloc(nv * nn + 1, sizeof(double));
	act = xcalloc(nv + 1, sizeof(double));
	busy = xcalloc(nn, sizeof(double));
	share = xcalloc(nv * nn + 1, sizeof(double));
	for (i = 0, v = 0; i < c->vms.n; i++)
		for (j = 0; j < c->vms.vms[i].n_vcpus; j++, v++) {
			const struct hv_vm *vm = &c->vms.vms[i];
			int e = attrib_find_vcpu(&c->attrib, vm, &vm->vcpus[j]);
			struct target *t = find_target(c, vm->vcpus[j].tid);

			for (ni = 0; ni < nn; ni++) {
				const struct entity *ent = e >= 0 ? &c->attrib.ents[e] : NULL;
				int id = topo->nodes[ni].id;

				if (mem) /* the VM's resident memory on the node: where its traffic goes */
					mem[v * nn + ni] = vm->mem_node && id >= 0 && id < vm->n_mem_nodes ?
							   (double)vm->mem_node[id] : NAN;
				run[v * nn + ni] = NAN;
				if (ent && id >= 0 && id < c->attrib.n_nodes)
					run[v * nn + ni] = total ? ent->node_run_s[id]
								 : ent->interval_node_run_s[id];
			}
			act[v] = NAN;
			if (have_act && t) {
				size_t ti = (size_t)(t - c->t);

				act[v] = counts[(size_t)c->act_in[0] * c->n_t + ti] +
					 counts[(size_t)c->act_in[1] * c->n_t + ti];
			}
		}
	if (c->have_cs) {
		struct cpustat now;

		if (!cpustat_read(c->root, &now, NULL)) {
			node_busy_s(topo, total ? &c->cs_start : &c->cs_prev, &now, busy);
			if (!total) {
				cpustat_release(&c->cs_prev);
				c->cs_prev = now;
			} else {
				cpustat_release(&now);
			}
		} else {
			for (ni = 0; ni < nn; ni++)
				busy[ni] = NAN;
		}
	}
	attrib_node_shares(run, have_act ? act : NULL, c->have_cs ? busy : NULL, nv, nn, share);
	if (mem) {
		*home = xcalloc(nv * nn + 1, sizeof(double));
		attrib_node_shares_mem(run, have_act ? act : NULL, mem, c->have_cs ? busy : NULL, nv,
				       nn, *home);
		free(mem);
	}
	free(run);
	free(act);
	free(busy);
	return share;
}

/*
 * A vCPU's per-node inputs: the node counts times its shares (home: its
 * shares of counts made at the memory's node, NULL when the model has none).
 */
static void apportion_row(const struct cview *c, const double *ncounts, const double *share,
			  const double *home, struct collect_row *r)
{
	const struct model *m = c->o.model;
	size_t nn = (size_t)c->o.plat->topo.n_nodes, k, ni;

	for (k = 0; k < m->n_inputs; k++) {
		double sum = 0;
		bool any = false;

		if (!c->in_node[k] || c->in_reason[k])
			continue;
		for (ni = 0; ni < nn && isfinite(sum); ni++) {
			double x = ncounts[k * nn + ni];
			double w = home && c->o.model->inputs[k].home ? home[ni] : share[ni];

			if (w == 0)
				continue;
			sum += x * w; /* NaN when the node's count or the share is unknown */
			any = true;
		}
		r->inputs[k] = any ? sum : 0;
		r->apportioned = true;
	}
}

/* The node rows: per-node inputs as counted, the model evaluated on them. */
static void node_rows(struct cview *c, const double *ncounts, const bool *nsplit,
		      struct collect_frame *f)
{
	const struct model *m = c->o.model;
	const struct topology *topo = &c->o.plat->topo;
	size_t nn = topo->n_nodes > 0 ? (size_t)topo->n_nodes : 0, ni, k;

	if (!ncounts || !nn || !counts_nodes(c))
		return;
	f->nodes = xcalloc(nn, sizeof(*f->nodes));
	f->n_nodes = nn;
	for (ni = 0; ni < nn; ni++) {
		struct collect_row *r = &f->nodes[ni];

		r->ent = -1;
		r->kind = ENT_NODE;
		r->key = xasprintf("node:%d", topo->nodes[ni].id);
		r->name = xasprintf("node %d", topo->nodes[ni].id);
		r->adapter = HVA_NATIVE;
		r->pid = r->domid = r->index = r->tid = r->cpu = -1;
		r->node = topo->nodes[ni].id;
		r->apportioned = nsplit && nsplit[ni];
		r->remote = (struct qval){ NAN, VQ_UNAVAILABLE, "a node row" };
		r->inputs = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
		for (k = 0; k < m->n_inputs; k++)
			r->inputs[k] = c->in_node[k] && !c->in_reason[k] ? ncounts[k * nn + ni] : NAN;
		frame_eval_row(m, c->o.plat, c->o.cal, c->mhz, r, f->duration);
	}
}

/*
 * Whether each thread row's LLC had another busy tenant in the interval: the
 * busy time of the CPUs of the LLC domain of the CPU it is on (/proc/stat),
 * less its own run time (task-clock), against 5 % of one CPU.  Alone, its
 * miss rate is its solo rate (the cost stage's LLC contention needs that);
 * a vCPU that moved between domains within the interval is judged by where
 * it is at the sample.  Only when the model counts LLC misses.
 */
static void llc_tenancy(struct cview *c, struct collect_frame *f)
{
	const struct model *m = c->o.model;
	const struct topology *topo = &c->o.plat->topo;
	struct cpustat now;
	int tclk = -1, d;
	size_t i, k;

	if (!m->cost_term[CT_LLC_MISS] || !topo->n_llc || !(f->duration > 0))
		return;
	for (k = 0; k < m->n_inputs; k++)
		if (m->inputs[k].kind == INPUT_EVENT && !strcmp(m->inputs[k].spec, "task-clock"))
			tclk = (int)k;
	if (cpustat_read(c->root, &now, NULL))
		return;
	if (!c->have_llc_cs) {
		c->llc_prev = now;
		c->have_llc_cs = true;
		return;   /* the first sample has no interval to judge */
	}
	for (i = 0; i < f->n_rows; i++) {
		struct collect_row *r = &f->rows[i];
		double busy = 0, own;
		bool known = true;

		if ((r->kind != ENT_VCPU && r->kind != ENT_THREAD) || r->cpu < 0 || tclk < 0 ||
		    !isfinite(r->inputs[tclk]))
			continue;
		for (d = 0; d < topo->n_llc && !cpulist_has(&topo->llc[d].cpus, r->cpu); d++)
			;
		if (d == topo->n_llc)
			continue;
		for (k = 0; k < topo->llc[d].cpus.n; k++) {
			double b = cpustat_busy(&c->llc_prev, &now, topo->llc[d].cpus.ids[k]);

			if (isnan(b))
				known = false;
			else
				busy += b * f->duration;
		}
		if (!known)
			continue;
		own = r->inputs[tclk] / 1e9;
		r->llc_alone = busy - own < 0.05 * f->duration ? 1 : -1;
	}
	cpustat_release(&c->llc_prev);
	c->llc_prev = now;
}

/* A process named numad under root's /proc; 0 none. */
static int find_numad(const char *root)
{
	char **names = NULL, path[64], comm[32];
	size_t n = 0, i;
	int pid = 0;

	if (vp_list_dir(root, "/proc", &names, &n, NULL))
		return 0;
	for (i = 0; i < n && !pid; i++) {
		char *end;
		long p = strtol(names[i], &end, 10);

		if (*end || p <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", p);
		if (!vp_read_line(root, path, comm, sizeof(comm), NULL) &&
		    !strcmp(vp_rstrip(comm), "numad"))
			pid = (int)p;
	}
	vp_free_names(names, n);
	return pid;
}

/*
 * The whole host over the run, for the placement rules: each CPU's busy
 * share, steal (inside a guest: what the hypervisor took from its vCPUs)
 * and run-queue wait, isolcpus=, and what would re-place VMs behind
 * the advice's back (kernel.numa_balancing, numad).
 */
static void host_state(struct cview *c, struct collect_frame *f)
{
	struct cpustat now;
	struct cpudelay dl;
	char line[4096];
	int on = 0;

	f->host_read = true;
	if (!vp_read_int(c->root, "/proc/sys/kernel/numa_balancing", &on, NULL))
		f->numa_balancing = on != 0;
	if (!vp_read_line(c->root, "/sys/devices/system/cpu/isolated", line, sizeof(line), NULL))
		f->isolated = xstrdup(vp_rstrip(line));
	f->numad_pid = find_numad(c->root);
	if (c->have_run_cs && !cpustat_read(c->root, &now, NULL)) {
		bool have_dl = c->have_run_dl && !cpudelay_read(c->root, &dl, NULL);

		frame_host_cpus(f, &c->run_cs, &now, have_dl ? &c->run_dl : NULL,
				have_dl ? &dl : NULL, f->duration);
		if (have_dl)
			cpudelay_release(&dl);
		cpustat_release(&now);
	}
}

void frame_host_cpus(struct collect_frame *f, const struct cpustat *prev, const struct cpustat *now,
		     const struct cpudelay *dprev, const struct cpudelay *dnow, double secs)
{
	int k, max = -1;
	size_t i;

	if (f->cpu_busy)
		return;
	for (i = 0; i < now->n; i++)
		if (now->cpus[i].cpu > max)
			max = now->cpus[i].cpu;
	f->n_cpu_stat = max + 1;
	f->cpu_busy = xcalloc((size_t)max + 2, sizeof(double));
	f->cpu_queued = xcalloc((size_t)max + 2, sizeof(double));
	f->cpu_steal = xcalloc((size_t)max + 2, sizeof(double));
	for (k = 0; k <= max; k++) {
		f->cpu_busy[k] = cpustat_busy(prev, now, k);
		f->cpu_steal[k] = cpustat_steal(prev, now, k);
		f->cpu_queued[k] = dprev && dnow ? cpudelay_queued(dprev, dnow, k, secs) : NAN;
	}
}

static double clk_tck(void)
{
	long t = sysconf(_SC_CLK_TCK);

	return t > 0 ? (double)t : 100.0;
}

/*
 * A Xen domain's PSR values for the frame into rdt[3] (LLC bytes now, MBM
 * bytes total and local over the frame): xl gives the bandwidth as its
 * 10 ms rate at the scan, so an interval's bytes are that rate x the
 * interval, and the whole run's the sum over this view's samples plus the
 * rate x the time since the last one.  why: what is missing, "" none.
 */
static void psr_values(struct cview *c, const struct hv_vm *vm, bool total, double duration,
		       double since_prev, double *rdt, char *why, size_t size)
{
	size_t i;

	why[0] = '\0';
	rdt[0] = vm->psr_llc_bytes;
	for (i = 0; i < c->n_psr && c->psr_dom[i] != vm->domid; i++)
		;
	if (i == c->n_psr) {
		c->psr_dom = xrealloc(c->psr_dom, (c->n_psr + 1) * sizeof(int));
		c->psr_bytes = xrealloc(c->psr_bytes, 2 * (c->n_psr + 1) * sizeof(double));
		c->psr_dom[c->n_psr] = vm->domid;
		c->psr_bytes[2 * c->n_psr] = c->psr_bytes[2 * c->n_psr + 1] = 0;
		c->n_psr++;
	}
	if (total) {
		rdt[1] = c->psr_bytes[2 * i] + vm->psr_mbm_bps * since_prev;
		rdt[2] = c->psr_bytes[2 * i + 1] + vm->psr_mbm_local_bps * since_prev;
	} else {
		rdt[1] = vm->psr_mbm_bps * duration;
		rdt[2] = vm->psr_mbm_local_bps * duration;
		if (isfinite(rdt[1]))
			c->psr_bytes[2 * i] += rdt[1];
		if (isfinite(rdt[2]))
			c->psr_bytes[2 * i + 1] += rdt[2];
	}
	if ((isnan(rdt[0]) || isnan(rdt[1])) && vm->psr_reason)
		snprintf(why, size, "%s", vm->psr_reason);
}

/*
 * This frame's core counts of every Xen vCPU seen (dom0's too), per input:
 * out[input * n_xr + vcpu], each pCPU's count over the frame shared out by
 * the traced run time there (xen_apportion_pcpu()); NaN for inputs not
 * counted per pCPU.  A sample moves the baselines on.
 */
static double *xen_apportioned(struct cview *c, bool total)
{
	const struct model *m = c->o.model;
	size_t ni = m->n_inputs, np = (size_t)c->n_xp, ne = c->n_xr, e, k, p;
	double *cur = xcalloc(ni * np + 1, sizeof(double)), *cnt = xcalloc(np + 1, sizeof(double));
	double *run = xcalloc(ne * np + 1, sizeof(double)), *out = xcalloc(ni * ne + 1, sizeof(double));
	double *one = xcalloc(ne + 1, sizeof(double)), un;
	struct vp_err err = { 0, "" };

	for (k = 0; k < ni * ne; k++)
		out[k] = NAN;
	if (xen_pcpu_read(c->xp, cur, &err)) {
		note(c, "core counters per domain: %s", err.msg);
		for (k = 0; k < ni * np; k++)
			cur[k] = NAN;
	}
	for (e = 0; e < ne; e++)
		for (p = 0; p < np; p++)
			run[e * np + p] = c->xr[e].now[p] - (total ? c->xr[e].start[p] : c->xr[e].prev[p]);
	if (c->xp_pin[0]) {
		if (!c->xp_pin_said)
			note(c, "core counters per domain: n/a: %s", c->xp_pin);
		c->xp_pin_said = true;
		for (k = 0; k < ni * np; k++)
			cur[k] = NAN;
	}
	for (k = 0; k < ni; k++) {
		if (!c->xp_in[k])
			continue;
		for (p = 0; p < np; p++)
			cnt[p] = cur[k * np + p] - (total ? c->xp_start : c->xp_prev)[k * np + p];
		xen_apportion_pcpu(cnt, run, ne, np, one, &un);
		memcpy(out + k * ne, one, ne * sizeof(double));
	}
	if (!total) {
		for (k = 0; k < ni * np; k++)
			if (!isnan(cur[k]))
				c->xp_prev[k] = cur[k];
		for (e = 0; e < ne; e++)
			memcpy(c->xr[e].prev, c->xr[e].now, np * sizeof(double));
	}
	free(cur);
	free(cnt);
	free(run);
	free(one);
	return out;
}

/*
 * --xen-imc: the frame's per-node counts with the IMC inputs read from PCI
 * config space put in (heap; the hub's per-node counts, may be NULL, copied
 * for the others).  A channel's count goes to the node of its socket's
 * pCPUs; a socket whose pCPUs span nodes (sub-NUMA clustering) has its
 * count split evenly among them (*nsplit set for those nodes, labelled
 * apportioned); a node with a channel not read (someone else's, or its
 * socket unknown) is NaN, never a partial sum.
 */
static double *imc_node_counts(struct cview *c, bool total, const double *ncounts,
			       const bool *hub_split, bool **nsplit)
{
	const struct model *m = c->o.model;
	const struct topology *topo = &c->o.plat->topo;
	size_t nn = topo->n_nodes > 0 ? (size_t)topo->n_nodes : 0, ni, k, ch;
	double *nc = xcalloc(m->n_inputs * nn + 1, sizeof(double));
	double *v = xcalloc(c->imc->n * IMC_N_CTR + 1, sizeof(double));
	bool *on = xcalloc(nn + 1, sizeof(bool));
	int cpu;

	*nsplit = xcalloc(nn + 1, sizeof(bool));
	for (ni = 0; ni < nn; ni++)
		(*nsplit)[ni] = hub_split && hub_split[ni];
	for (k = 0; k < m->n_inputs * nn; k++)
		nc[k] = ncounts ? ncounts[k] : NAN;
	imc_pci_update(c->imc);
	imc_base_read(&c->imc_base, c->imc, total, v);
	for (k = 0; k < m->n_inputs; k++)
		for (ni = 0; c->imc_in[k] >= 0 && ni < nn; ni++)
			nc[k * nn + ni] = 0;
	for (ch = 0; ch < c->imc->n; ch++) {
		int socket = c->imc->ch[ch].socket, n_on = 0;

		memset(on, 0, nn * sizeof(bool));
		for (cpu = 0; socket >= 0 && topo->cpu_package && cpu < topo->max_cpu; cpu++)
			if (topo->cpu_package[cpu] == socket)
				for (ni = 0; ni < nn; ni++)
					if (topo->nodes[ni].id == topo->cpu_node[cpu] && !on[ni]) {
						on[ni] = true;
						n_on++;
					}
		if (!n_on && nn == 1) {   /* one node: the socket's place does not matter */
			on[0] = true;
			n_on = 1;
		}
		for (ni = 0; ni < nn; ni++) {
			if (n_on && !on[ni])
				continue;
			if (n_on > 1)
				(*nsplit)[ni] = true;
			for (k = 0; k < m->n_inputs; k++)
				if (c->imc_in[k] >= 0)
					nc[k * nn + ni] += n_on ? v[ch * IMC_N_CTR + (size_t)c->imc_in[k]] /
								  n_on : NAN;
		}
	}
	free(v);
	free(on);
	return nc;
}

/* A Xen vCPU row's inputs counted per pCPU: its apportioned share (xen_apportioned()). */
static void xen_row(const struct cview *c, const double *xap, int domid, struct collect_row *r)
{
	size_t e, k;

	for (e = 0; e < c->n_xr && (c->xr[e].domid != domid || c->xr[e].index != r->index); e++)
		;
	for (k = 0; k < c->o.model->n_inputs; k++)
		if (c->xp_in[k]) {
			r->inputs[k] = e < c->n_xr ? xap[k * c->n_xr + e] : NAN;
			r->apportioned = true;
		}
}

int cview_frame(struct cview *c, bool total, const double *counts, const double *ncounts,
		const bool *nsplit, struct collect_frame *f, struct vp_err *err)
{
	const struct model *m = c->o.model;
	struct sbuf rdt_notes = SBUF_INIT, gone_notes = SBUF_INIT, psr_notes = SBUF_INIT;
	bool any_rdt = false, any_psr = false;
	uint64_t now;
	double *mw, *share = NULL, *home = NULL, *xap = NULL, *imc_nc = NULL;
	bool *imc_split = NULL;
	size_t i, j, k, v = 0, n_live;

	memset(f, 0, sizeof(*f));
	/* the interval ends where the caller read the counters, not after the scan
	 * below (tens of ms on a slow or loaded machine): rates use this duration */
	now = vp_now_ns();
	(void)err; /* the hub scanned (cview_scan()) before it read the counters */
	/*
	 * The whole run: what has exited is in it too; a sample: what exited
	 * since the previous sample, once, with its last interval (borrowed
	 * from c->gone until the end).
	 */
	n_live = c->vms.n;
	for (i = total ? 0 : c->gone_shown; i < c->gone.n; i++) {
		const struct hv_vm *g = &c->gone.vms[i];

		if (find_vm(&c->vms, g))
			continue;
		VP_GROW(c->vms.vms, c->vms.cap, c->vms.n + 1);
		c->vms.vms[c->vms.n++] = *g;
		sbuf_addf(&gone_notes, "%s%s '%s' (pid %d)", gone_notes.len ? ", " : "",
			  g->adapter == HVA_NATIVE ? "process" : "VM", g->name ? g->name : "?", g->pid);
	}
	if (!total)
		c->gone_shown = c->gone.n;
	if (c->imc) {
		imc_nc = imc_node_counts(c, total, ncounts, nsplit, &imc_split);
		ncounts = imc_nc;
		nsplit = imc_split;
	}
	if (ncounts)
		share = vcpu_shares(c, total, counts, &home);
	if (c->xp)
		xap = xen_apportioned(c, total);
	f->t_ns = now;
	f->duration = (double)(now - (total ? c->start_ns : c->prev_ns)) / 1e9;
	f->cpu_mhz = c->mhz;
	mw = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
	machine_sources(c, total, mw);
	if (c->rdt) {
		f->n_rdt_nodes = c->o.plat->topo.n_nodes;
		f->rdt_node = xcalloc(3 * (size_t)f->n_rdt_nodes + 1, sizeof(double));
		for (k = 0; k < 3 * (size_t)f->n_rdt_nodes; k++)
			f->rdt_node[k] = NAN;
		if (!c->meter || resctrl_vms_unavailable(c->rdt))
			sbuf_set(&f->rdt_why, resctrl_vms_unavailable(c->rdt) ?
				 resctrl_vms_unavailable(c->rdt) : "resctrl is not in use");
		else if (!c->vms.n)
			sbuf_set(&f->rdt_why, "no VM is monitored");
	}

	for (i = 0; i < c->vms.n; i++) {
		const struct hv_vm *vm = &c->vms.vms[i];
		char *key = attrib_vm_key(vm);
		size_t vm_row = f->n_rows;
		struct collect_row *vr;
		struct resctrl_values rv;
		double rdt[3];

		/*
		 * One group per VM (one RMID each): a vCPU row shows its VM's
		 * values (see docs/vms.md), never a share made up per vCPU.
		 */
		rdt[0] = rdt[1] = rdt[2] = NAN;
		if (c->o.xen_psr && vm->adapter == HVA_XEN) {
			char pwhy[640];

			psr_values(c, vm, total, f->duration, (double)(now - c->prev_ns) / 1e9, rdt,
				   pwhy, sizeof(pwhy));
			if (pwhy[0])
				note_vm(&psr_notes, vm, pwhy);
			else
				any_psr = true;
		} else if (c->meter) {
			if (resctrl_meter_read(c->meter, vm, total, &rv) || rv.why[0])
				note_vm(&rdt_notes, vm, rv.why);
			rdt[0] = rv.llc_occupancy;
			rdt[1] = rv.mbm_total;
			rdt[2] = rv.mbm_local;
			if (f->rdt_node) {
				resctrl_values_add_nodes(&rv, f->rdt_node, f->n_rdt_nodes);
				if (!isnan(rv.llc_occupancy) || !isnan(rv.mbm_total))
					any_rdt = true;
				else if (!f->rdt_why.len)
					sbuf_setf(&f->rdt_why, "VM '%s': %s", vm->name ? vm->name : "?",
						  rv.why[0] ? rv.why : "no values yet");
			}
			resctrl_values_release(&rv);
		}

		f->rows = xrealloc(f->rows, (f->n_rows + 1 + vm->n_vcpus) * sizeof(*f->rows));
		vr = &f->rows[f->n_rows++];
		memset(vr, 0, sizeof(*vr));
		vr->ent = attrib_find(&c->attrib, key);
		free(key);
		vr->kind = vm->adapter == HVA_NATIVE ? ENT_PROCESS : ENT_VM;
		vr->vm_row = vm_row;
		vr->key = attrib_vm_key(vm);
		vr->name = xstrdup(vm->name ? vm->name : "?");
		vr->adapter = vm->adapter;
		vr->libvirt = (vm->cgroup && (strstr(vm->cgroup, "libvirt") ||
					      strstr(vm->cgroup, "machine-qemu"))) ||
			      (vm->name_source && strstr(vm->name_source, "libvirt"));
		if (vr->libvirt) {
			int pers, restr;

			kvm_libvirt_domain(c->root, vm->name, &pers, &restr);
			vr->persist = pers < 0 ? DP_UNKNOWN : pers ? DP_PERSISTENT : DP_TRANSIENT;
			vr->numa_mode = restr < 0 ? DN_UNKNOWN : restr ? DN_RESTRICTIVE : DN_STRICT;
			vr->n_iothreads = kvm_libvirt_iothreads(c->root, vm->name, vr->iothread_ids,
								DIAG_MAX_IOTHREADS);
		}
		vr->pci = hv_pcidevs_dup(vm->pci, vm->n_pci);
		vr->n_pci = vr->pci ? vm->n_pci : 0;
		vr->io = hv_iothreads_dup(vm->io, vm->n_io);
		vr->n_io = vr->io ? vm->n_io : 0;
		vr->vnodes = hv_vnodes_dup(vm->vnodes, vm->n_vnodes);
		vr->n_vnodes = vr->vnodes ? vm->n_vnodes : 0;
		vr->pid = vm->pid;
		vr->domid = vm->domid;
		vr->started = vm->start_ticks ? (double)vm->start_ticks / clk_tck() : NAN;
		vr->state = i >= n_live ? RS_ENDED : vm->paused == 1 ? RS_PAUSED : RS_RUNNING;
		vr->index = vr->tid = vr->cpu = vr->node = -1;
		if (vm->n_mem_nodes > 0 && vm->mem_node) {
			vr->n_mem_nodes = vm->n_mem_nodes;
			vr->mem_node = xcalloc((size_t)vm->n_mem_nodes, sizeof(uint64_t));
			memcpy(vr->mem_node, vm->mem_node, (size_t)vm->n_mem_nodes * sizeof(uint64_t));
		}
		if (vm->mem_reason[0])
			vr->mem_reason = xstrdup(vm->mem_reason);
		vr->inputs = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
		for (k = 0; k < m->n_inputs; k++)
			vr->inputs[k] = NAN;

		for (j = 0; j < vm->n_vcpus; j++) {
			struct collect_row *r = &f->rows[f->n_rows++];

			vr = &f->rows[vm_row];
			memset(r, 0, sizeof(*r));
			r->key = attrib_vcpu_key(vm, &vm->vcpus[j]);
			r->ent = attrib_find(&c->attrib, r->key);
			r->kind = vm->adapter == HVA_NATIVE ? ENT_THREAD : ENT_VCPU;
			r->vm_row = vm_row;
			r->adapter = vm->adapter;
			r->pid = vm->pid;
			r->domid = vm->domid;
			r->started = vr->started;
			r->state = vm->vcpus[j].ended ? RS_ENDED : vr->state;
			r->index = vm->vcpus[j].index;
			r->tid = vm->vcpus[j].tid;
			r->cpu = vm->vcpus[j].cpu;
			r->node = vm->vcpus[j].node;
			r->inputs = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
			vcpu_inputs(c, &vm->vcpus[j], i < n_live && !vm->vcpus[j].ended, r->ent, total,
				    counts, r->inputs, &r->sched_run_ns, &r->sched_wait_ns);
			/* the run-queue wait's window: this frame, or the scan's mean over more */
			r->sched_window_s = !isfinite(r->sched_wait_ns) ? 0 :
					    !total && vm->vcpus[j].sched_window_ns > 0 ?
					    (double)vm->vcpus[j].sched_window_ns / 1e9 : f->duration;
			if (share)
				apportion_row(c, ncounts, share + v * (size_t)c->o.plat->topo.n_nodes,
					      home ? home + v * (size_t)c->o.plat->topo.n_nodes : NULL,
					      r);
			if (xap && vm->adapter == HVA_XEN)
				xen_row(c, xap, vm->domid, r);
			v++;
			for (k = 0; k < m->n_inputs; k++) {
				if (m->inputs[k].kind == INPUT_SOURCE && c->es[k] == ES_NONE)
					r->inputs[k] = mw[k];
				else if (is_rdt(c->es[k]) && c->av.input_ok[k])
					r->inputs[k] = rdt[c->es[k] - ES_RDT_LLC];
				/* a VM's events and scheduler times are its vCPUs' sum */
				if (isfinite(r->inputs[k]) &&
				    (m->inputs[k].kind == INPUT_EVENT || c->es[k] == ES_SCHED_RUN ||
				     c->es[k] == ES_SCHED_WAIT))
					vr->inputs[k] = (isfinite(vr->inputs[k]) ? vr->inputs[k] : 0) +
							r->inputs[k];
			}
			r->remote = r->ent >= 0 ? attrib_remote_estimate(&c->attrib, r->ent)
						: (struct qval){ NAN, VQ_UNAVAILABLE, "not attributed" };
			vr->apportioned |= r->apportioned;
			frame_eval_row(m, c->o.plat, c->o.cal, c->mhz, r, f->duration);
		}
		vr = &f->rows[vm_row];
		for (k = 0; k < m->n_inputs; k++) {
			if (m->inputs[k].kind == INPUT_SOURCE && c->es[k] == ES_NONE)
				vr->inputs[k] = mw[k];
			else if (is_rdt(c->es[k]) && c->av.input_ok[k])
				vr->inputs[k] = rdt[c->es[k] - ES_RDT_LLC];
			else if (c->es[k] == ES_PLACEMENT_REMOTE && vr->ent >= 0)
				vr->inputs[k] = attrib_remote_estimate(&c->attrib, vr->ent).v;
			else if (c->es[k] == ES_PLACEMENT_SPREAD) {
				uint64_t tot = hv_vm_mem_total(vm), best = 0;
				int n;

				for (n = 0; n < vm->n_mem_nodes; n++)
					if (vm->mem_node[n] > best)
						best = vm->mem_node[n];
				vr->inputs[k] = tot ? 1.0 - (double)best / (double)tot : NAN;
			}
		}
		vr->remote = vr->ent >= 0 ? attrib_remote_estimate(&c->attrib, vr->ent)
					  : (struct qval){ NAN, VQ_UNAVAILABLE, "not attributed" };
		frame_eval_row(m, c->o.plat, c->o.cal, c->mhz, vr, f->duration);
	}
	free(mw);
	free(share);
	free(home);
	free(xap);
	if (any_rdt)
		sbuf_reset(&f->rdt_why); /* the nodes whose values are NaN say why themselves */
	node_rows(c, ncounts, nsplit, f);
	free(imc_nc);
	free(imc_split);
	if (!total)
		llc_tenancy(c, f);
	else
		host_state(c, f);
	frame_cost(m, c->o.cal, f, c->solo);
	if (counts_nodes(c) || c->xp) {
		bool *counted = xcalloc(m->n_inputs + 1, sizeof(bool));

		for (k = 0; k < m->n_inputs; k++)
			counted[k] = (c->in_node[k] && !c->in_reason[k]) || (c->xp_in && c->xp_in[k]);
		frame_mark_node_inputs(m, counted, f);
		free(counted);
	}
	for (i = 0; !total && i < c->n_t; i++)
		c->t[i].fresh = false;
	f->residency = !(wants_trace(c) || counts_nodes(c)) ? "unused" :
		       c->trace ? "exact" : "sampled";
	sbuf_reset(&f->notes);
	if (c->notes.len)
		notes_add(&f->notes, "%s", sbuf_str(&c->notes));
	if (c->vms.notes[0])
		notes_add(&f->notes, "%s", c->vms.notes);
	if (rdt_notes.len)
		notes_add(&f->notes, "%s", sbuf_str(&rdt_notes));
	if (c->o.xen_psr) {
		/* how the resctrl.* inputs of Xen domains are known, or why they are not */
		if (any_psr)
			notes_add(&f->notes, "Xen PSR: LLC occupancy and "
				  "memory bandwidth measured by Xen (Intel CMT/MBM, xl psr-cmt-show) per "
				  "domain, not per vCPU (a vCPU row has its domain's values); the "
				  "bandwidth is xl's 10 ms sample at each update x the interval, not "
				  "the interval's average%s%s", psr_notes.len ? "; " : "",
				  sbuf_str(&psr_notes));
		else if (psr_notes.len)
			notes_add(&f->notes, "%s", sbuf_str(&psr_notes));
	}
	if (gone_notes.len)
		notes_add(&f->notes, "%s: %s", total ? "exited during the run, counted until then"
			  : "ended in this interval, counted until then", sbuf_str(&gone_notes));
	/* which VMs are paused, and how that is known: their rows are not rated */
	for (i = 0; i < n_live; i++) {
		const struct hv_vm *vm = &c->vms.vms[i];

		if (vm->paused == 1)
			notes_add(&f->notes, "VM '%s' (%s %d) is paused, not rated: %s",
				  vm->name ? vm->name : "?", vm->adapter == HVA_XEN ? "domain" : "pid",
				  vm->adapter == HVA_XEN ? vm->domid : vm->pid, vm->state_source);
	}
	sbuf_release(&rdt_notes);
	sbuf_release(&gone_notes);
	sbuf_release(&psr_notes);
	c->vms.n = n_live; /* the borrowed ones stay c->gone's */
	if (!total)
		c->prev_ns = now;
	return 0;
}

void cview_resctrl_why(const struct cview *c, struct sbuf *out)
{
	size_t i;

	if (!c->rdt)
		return;
	if (resctrl_vms_unavailable(c->rdt)) {
		sbuf_addstr(out, resctrl_vms_unavailable(c->rdt));
		return;
	}
	for (i = 0; i < c->vms.n; i++) {
		const char *why = resctrl_vms_group_why(c->rdt, &c->vms.vms[i]);

		if (why)
			sbuf_addf(out, "%sVM '%s': %s", out->len ? "; " : "",
				  c->vms.vms[i].name ? c->vms.vms[i].name : "?", why);
	}
}

void cview_diag_input(const struct cview *c, const struct collect_frame *f, struct diag_input *in)
{
	frame_diag_input(c->o.model, c->av.factor_ok, &c->o.plat->topo, c->o.cal, f, in);
}

