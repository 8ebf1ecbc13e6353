/* hub.c - the shared collector: one merged, de-duplicated counter set read by views that keep their own baselines */
#include "collect/hub.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/resctrl_vm.h"
#include "collect/view.h"
#include "source/imc_pci.h"
#include "source/schedtrace.h"
#include "pmu/counter.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/timeutil.h"

/*
 * Three tables, indexed by stable slots (a freed slot is reused; view ids
 * are never reused, so a stale id stays unknown):
 *   ev   the distinct events (one per resolved encoding), whoever asked;
 *   set  counter sets: one counting session each, one event on the threads
 *        that were missing it when a view asked for it.  A set is never
 *        reopened or extended, so adding a view never disturbs a counter
 *        another view reads; it is closed when no view reads it any more;
 *   v    the views: a cview (model, targets, sources, frames) and the
 *        series it reads, each with the totals it saw when it was added and
 *        at its previous sample.  A view's interval is the difference of
 *        the cumulative totals, whoever else read the set in between.
 * One event per set: the kernel schedules (and multiplexes) every event on
 * its own, as perf does for events not grouped, and a set can be closed
 * when its event is no longer wanted without touching the others.
 */

struct hub_ev {                 /* one distinct event of the merged set */
	bool used;
	struct evdesc ev;           /* deep copy of the first asker's resolved event */
	bool node;                  /* counted system-wide per CPU (uncore: on its cpumask) */
	char enc[160];              /* identity: PMU type, config, config1, config2, modifiers,
				       ",cpu-wide" for per-node counting (uncore: ",cpus=" its cpumask) */
	char *why;                  /* the last failure to open it, NULL none */
};

struct hub_set {                /* one counter set: one event opened on some threads */
	bool used;
	size_t ev;                  /* index into h->ev */
	struct cnt_session *cs;
	struct cnt_snapshot snap;   /* the last read: totals since the set was opened */
	uint64_t read_gen;          /* h->gen of that read */
};

struct hub_sub {                /* one series a view reads: an input's event on one of its threads,
				       or (node) a per-node input's event on one CPU */
	size_t input, target;       /* the model's input, the view's target thread (not node) */
	bool node;                  /* a per-node input: counted on a CPU, summed per node */
	size_t set, ctr;            /* the counter: h->set[set].cs->counters[ctr] */
	struct cnt_value start;     /* its totals when the view was added ... */
	struct cnt_value prev;      /* ... and at the view's previous sample */
	bool start_ended, prev_ended; /* the series had ended by then */
	bool fresh;                 /* opened at this frame for a thread that came later: counts
				       from the next frame (this one has nothing to give) */
};

struct hub_view {
	bool used;
	struct cview *cv;
	size_t *evs;                /* the merged events it asked for */
	size_t n_evs;
	struct hub_sub *subs;
	size_t n_subs, cap_subs;
	size_t n_joined;            /* the view's targets joined so far (they only grow) */
	bool imc;                   /* it reads the hub's IMC channels (xen_imc) */
};

struct hub {
	struct hub_opts o;
	char *root;
	struct pmu_db *db;
	struct hub_ev *ev;
	size_t n_ev, cap_ev;
	struct hub_set *set;
	size_t n_set, cap_set;
	struct hub_view *v;
	size_t n_v, cap_v;
	uint64_t gen;               /* one per read of the sets */
	struct resctrl_vms *rdt;    /* per-VM resctrl groups, made when a view first asks
				       (ours), or o.rdt (the caller's) */
	struct trace_share ts;      /* the context-switch recorder the views share */
	struct hv_cache *cache;     /* o.cache, or the hub's own (own_cache) */
	bool own_cache;
	/* xen_imc: the IMC channels, programmed once when the first view asks and
	 * shared by every view (each keeps its own baselines), cleared after the
	 * last: two views never see each other's counters as someone else's */
	struct imc_pci *imc;
	size_t imc_users;
};

/* The scan's CPU source (hv_cpu_source): the views' context-switch recorder, once open. */
static void hub_cpu_begin(void *arg)
{
	struct hub *h = arg;

	if (h->ts.st)
		schedtrace_poll(h->ts.st, vp_now_ns(), NULL);
}

static int hub_cpu_of(void *arg, int tid)
{
	struct hub *h = arg;

	return h->ts.st ? schedtrace_cpu(h->ts.st, tid) : -1;
}

int hub_new(struct hub **out, const struct hub_opts *o, struct vp_err *err)
{
	struct hv_cpu_source src = { hub_cpu_begin, hub_cpu_of, NULL };
	struct hub *h = xcalloc(1, sizeof(*h));
	int ret;

	h->o = *o;
	h->rdt = o->rdt;
	h->root = xstrdup(o->root ? o->root : "/");
	h->o.root = h->root;
	h->cache = o->cache;
	if (!h->cache) {
		h->cache = hv_cache_new(h->root);
		h->own_cache = true;
	}
	if (o->trace) {
		h->ts.st = schedtrace_ref(o->trace);
		h->ts.tried = true;
	}
	src.arg = h;
	hv_cache_set_cpu_source(h->cache, &src);
	ret = pmu_db_new(&h->db, h->root, err);
	if (ret) {
		hub_free(h);
		return ret;
	}
	*out = h;
	return 0;
}

/*
 * The hub's IMC channels for one more view: found and programmed at the
 * first ask (again after the last view let them go), otherwise read now so
 * that the new view's baselines are its start.  NULL and why when none can
 * be counted.
 */
static struct imc_pci *imc_get(struct hub *h, char *why, size_t size)
{
	struct vp_err e = { 0, "" };

	if (h->imc) {
		imc_pci_update(h->imc);
	} else if (imc_pci_find(h->root, h->o.plat, &h->imc, &e) || imc_pci_start(h->imc, &e) <= 0) {
		imc_pci_free(h->imc);
		h->imc = NULL;
		snprintf(why, size, "%s", e.msg);
		return NULL;
	}
	h->imc_users++;
	return h->imc;
}

/* A view that read them is gone: after the last, the event selects are cleared. */
static void imc_put(struct hub *h)
{
	if (h->imc_users && !--h->imc_users) {
		imc_pci_free(h->imc);
		h->imc = NULL;
	}
}

static void view_release(struct hub *h, struct hub_view *v)
{
	bool imc = v->imc;

	cview_free(v->cv);
	free(v->evs);
	free(v->subs);
	memset(v, 0, sizeof(*v));
	if (imc)
		imc_put(h);
}

static void set_release(struct hub_set *s)
{
	cnt_session_free(s->cs);
	cnt_snapshot_release(&s->snap);
	memset(s, 0, sizeof(*s));
}

static void ev_release(struct hub_ev *e)
{
	evdesc_release(&e->ev);
	free(e->why);
	memset(e, 0, sizeof(*e));
}

void hub_free(struct hub *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n_v; i++)
		if (h->v[i].used)
			view_release(h, &h->v[i]);
	for (i = 0; i < h->n_set; i++)
		if (h->set[i].used)
			set_release(&h->set[i]);
	for (i = 0; i < h->n_ev; i++)
		if (h->ev[i].used)
			ev_release(&h->ev[i]);
	if (!h->o.rdt)
		resctrl_vms_free(h->rdt); /* after the views: they let go of their groups first */
	schedtrace_free(h->ts.st); /* the hub's reference; a caller's recorder lives on */
	if (h->own_cache)
		hv_cache_free(h->cache);
	else
		hv_cache_set_cpu_source(h->cache, NULL); /* a caller's cache lives on */
	free(h->v);
	free(h->set);
	free(h->ev);
	pmu_db_free(h->db);
	free(h->root);
	free(h);
}

static struct hub_view *view_of(const struct hub *h, int id)
{
	if (id < 0 || (size_t)id >= h->n_v || !h->v[id].used)
		return NULL;
	return &h->v[id];
}

/* The identity of a resolved event: what the kernel is asked to count, and where. */
static void encode(const struct evdesc *d, bool node, char *buf, size_t size)
{
	const struct perf_event_attr *a = &d->attr;
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "type=%" PRIu32 ",config=0x%" PRIx64, a->type, (uint64_t)a->config);
	if (a->config1)
		sbuf_addf(&sb, ",config1=0x%" PRIx64, (uint64_t)a->config1);
	if (a->config2)
		sbuf_addf(&sb, ",config2=0x%" PRIx64, (uint64_t)a->config2);
	if (a->exclude_user || a->exclude_kernel || a->exclude_hv || a->exclude_idle ||
	    a->exclude_host || a->exclude_guest || a->precise_ip || a->pinned || a->exclusive)
		sbuf_addf(&sb, ",mod=%s%s%s%s%s%s%s%s%s", a->exclude_user ? "u" : "",
			  a->exclude_kernel ? "k" : "", a->exclude_hv ? "h" : "",
			  a->exclude_idle ? "I" : "", a->exclude_host ? "H" : "",
			  a->exclude_guest ? "G" : "", a->precise_ip ? "p" : "",
			  a->pinned ? "D" : "", a->exclusive ? "e" : "");
	if (node)
		sbuf_addstr(&sb, ",cpu-wide");
	if (node && d->uncore && d->cpus.n) {
		sbuf_addstr(&sb, ",cpus=");
		cpulist_format(&d->cpus, &sb);
	}
	snprintf(buf, size, "%s", sbuf_str(&sb));
	sbuf_release(&sb);
}

/* The merged event for d (node: counted per CPU for a per-node input): found by encoding, or added. */
static size_t ev_get(struct hub *h, const struct evdesc *d, bool node)
{
	char enc[sizeof(h->ev[0].enc)];
	size_t i, slot = h->n_ev;

	encode(d, node, enc, sizeof(enc));
	for (i = 0; i < h->n_ev; i++) {
		if (h->ev[i].used && !strcmp(h->ev[i].enc, enc))
			return i;
		if (!h->ev[i].used && slot == h->n_ev)
			slot = i;
	}
	if (slot == h->n_ev) {
		VP_GROW(h->ev, h->cap_ev, h->n_ev + 1);
		h->n_ev++;
	}
	memset(&h->ev[slot], 0, sizeof(h->ev[slot]));
	h->ev[slot].used = true;
	evdesc_copy(&h->ev[slot].ev, d);
	h->ev[slot].node = node;
	h->ev[slot].ev.spec_index = 0; /* sets hold one event; views map inputs themselves */
	memcpy(h->ev[slot].enc, enc, sizeof(enc));
	return slot;
}

/* The counter of event e on thread tid, in whichever set counts it. */
static bool find_counter(const struct hub *h, size_t e, int tid, size_t *set, size_t *ctr)
{
	size_t i, j;

	for (i = 0; i < h->n_set; i++) {
		const struct cnt_session *cs = h->set[i].cs;

		if (!h->set[i].used || h->set[i].ev != e)
			continue;
		for (j = 0; j < cs->n_counters; j++) {
			const struct cnt_entity *ent = &cs->entities[cs->counters[j].entity];

			if (ent->kind == CNT_ENT_THREAD && ent->tid == tid) {
				if (set)
					*set = i, *ctr = j;
				return true;
			}
		}
	}
	return false;
}

/* The set counting per-node event e (one per event, on every CPU it opens on), or -1. */
static long node_set(const struct hub *h, size_t e)
{
	size_t i;

	for (i = 0; i < h->n_set; i++)
		if (h->set[i].used && h->set[i].ev == e)
			return (long)i;
	return -1;
}

/*
 * Open event e on these threads as a new set, counting from now; n == 0
 * with a per-node event: system-wide, one counter per CPU (an uncore
 * event on each CPU of its PMU's cpumask: the counting engine plans that).
 */
static int set_open(struct hub *h, size_t e, const pid_t *tids, size_t n, struct vp_err *err)
{
	struct cnt_request req;
	struct cnt_session *cs = NULL;
	size_t i, slot = h->n_set;
	int ret;

	memset(&req, 0, sizeof(req));
	req.events = &h->ev[e].ev;
	req.n_events = 1;
	req.target.tids = tids;
	req.target.n_tids = n;
	/* a vCPU thread that ended between the scan and this open (a VM destroyed
	 * meanwhile) is left out, not a failure of every thread of the set */
	req.target.skip_gone = true;
	req.target.system_wide = h->ev[e].node;
	req.root = h->root;
	ret = cnt_session_new(&cs, &req, err);
	if (!ret)
		ret = cnt_session_enable(cs, err);
	if (ret) {
		cnt_session_free(cs);
		return ret;
	}
	for (i = 0; i < h->n_set && slot == h->n_set; i++)
		if (!h->set[i].used)
			slot = i;
	if (slot == h->n_set) {
		VP_GROW(h->set, h->cap_set, h->n_set + 1);
		h->n_set++;
	}
	memset(&h->set[slot], 0, sizeof(h->set[slot]));
	h->set[slot].used = true;
	h->set[slot].ev = e;
	h->set[slot].cs = cs;
	cnt_snapshot_init(&h->set[slot].snap);
	return 0;
}

/* Read every set view v reads (once per call, however many series it has there). */
static int read_sets(struct hub *h, struct hub_view *v, struct vp_err *err)
{
	size_t i;
	int ret;

	h->gen++;
	for (i = 0; i < v->n_subs; i++) {
		struct hub_set *s = &h->set[v->subs[i].set];

		if (s->read_gen == h->gen)
			continue;
		ret = cnt_session_read(s->cs, &s->snap, err);
		if (ret)
			return ret;
		s->read_gen = h->gen;
	}
	return 0;
}

/* Close the sets no view reads and forget the events no view asks for. */
static void gc(struct hub *h)
{
	size_t i, j, k;

	for (i = 0; i < h->n_set; i++) {
		bool needed = false;

		for (j = 0; j < h->n_v && !needed; j++)
			for (k = 0; h->v[j].used && k < h->v[j].n_subs && !needed; k++)
				needed = h->v[j].subs[k].set == i;
		if (h->set[i].used && !needed)
			set_release(&h->set[i]);
	}
	for (i = 0; i < h->n_ev; i++) {
		bool needed = false;

		for (j = 0; j < h->n_v && !needed; j++)
			for (k = 0; h->v[j].used && k < h->v[j].n_evs && !needed; k++)
				needed = h->v[j].evs[k] == i;
		if (h->ev[i].used && !needed)
			ev_release(&h->ev[i]);
	}
}

static void view_add_ev(struct hub_view *v, size_t e)
{
	size_t i;

	for (i = 0; i < v->n_evs; i++)
		if (v->evs[i] == e)
			return;
	v->evs = xrealloc(v->evs, (v->n_evs + 1) * sizeof(*v->evs));
	v->evs[v->n_evs++] = e;
}

static bool view_reads_input(const struct hub_view *v, size_t input)
{
	size_t i;

	for (i = 0; i < v->n_subs; i++)
		if (v->subs[i].input == input)
			return true;
	return false;
}

/* One sub per CPU counter of per-node event e's set (opened system-wide when new). */
static void join_node(struct hub *h, size_t vi, size_t e, size_t input, struct vp_err *first,
		      int *first_ret)
{
	struct hub_view *v = &h->v[vi];
	long si = node_set(h, e);
	size_t j;

	if (si < 0) {
		struct vp_err e2 = { 0, "" };
		int ret = set_open(h, e, NULL, 0, &e2);

		free(h->ev[e].why);
		h->ev[e].why = ret ? xstrdup(e2.msg) : NULL;
		if (ret && !*first_ret) {
			*first_ret = ret;
			*first = e2;
		}
		si = node_set(h, e);
		v = &h->v[vi];
	}
	for (j = 0; si >= 0 && j < h->set[si].cs->n_counters; j++) {
		const struct cnt_session *cs = h->set[si].cs;
		struct hub_sub *s;

		if (cs->entities[cs->counters[j].entity].kind != CNT_ENT_CPU)
			continue;
		VP_GROW(v->subs, v->cap_subs, v->n_subs + 1);
		s = &v->subs[v->n_subs++];
		memset(s, 0, sizeof(*s));
		s->input = input;
		s->node = true;
		s->set = (size_t)si;
		s->ctr = j;
	}
}

/*
 * Join view vi's events to the merged set: each (event, thread) pair not
 * yet counted is opened, in one new set per event; then the view reads
 * every pair that is counted.  Returns the first open failure when the
 * view has events and none of them could be counted.
 */
static int view_join(struct hub *h, size_t vi, size_t t_from, bool later, struct vp_err *err)
{
	struct cview *cv = h->v[vi].cv;
	const struct evdesc_list *evl = cview_events(cv);
	size_t n_t = cview_n_targets(cv), k, ti;
	pid_t *tids = xcalloc(n_t ? n_t : 1, sizeof(pid_t));
	size_t *ev_of = xcalloc(evl->n + 1, sizeof(size_t));
	struct vp_err first = { 0, "" };
	struct vp_err node_first = { 0, "" };
	int first_ret = 0, node_ret = 0, ret = 0;
	bool sources = false;

	for (k = 0; k < evl->n; k++) {
		struct hub_view *v = &h->v[vi];
		bool node = cview_input_node(cv, (size_t)evl->v[k].spec_index);
		size_t e = ev_get(h, &evl->v[k], node), n_miss = 0;

		ev_of[k] = e;
		view_add_ev(v, e);
		if (node) {
			if (!later)
				join_node(h, vi, e, (size_t)evl->v[k].spec_index, &node_first,
					  &node_ret);
			continue;
		}
		for (ti = t_from; ti < n_t; ti++)
			if (!find_counter(h, e, cview_target_tid(cv, ti), NULL, NULL))
				tids[n_miss++] = (pid_t)cview_target_tid(cv, ti);
		if (n_miss) {
			struct vp_err e2 = { 0, "" };

			ret = set_open(h, e, tids, n_miss, &e2);
			free(h->ev[e].why);
			h->ev[e].why = ret ? xstrdup(e2.msg) : NULL;
			if (ret && !first_ret) {
				first_ret = ret;
				first = e2;
			}
		}
		for (ti = t_from; ti < n_t; ti++) {
			struct hub_sub *s;
			size_t set, ctr;

			if (!find_counter(h, e, cview_target_tid(cv, ti), &set, &ctr))
				continue;
			VP_GROW(v->subs, v->cap_subs, v->n_subs + 1);
			s = &v->subs[v->n_subs++];
			memset(s, 0, sizeof(*s));
			s->input = (size_t)evl->v[k].spec_index;
			s->target = ti;
			s->set = set;
			s->ctr = ctr;
			s->fresh = later;
		}
	}
	h->v[vi].n_joined = n_t;
	/* no thread yet: the per-thread events wait for the threads that come (grow()) */
	for (k = 0; !later && k < evl->n; k++) {
		size_t input = (size_t)evl->v[k].spec_index, e = ev_of[k];

		if (!n_t && !cview_input_node(cv, input))
			continue;
		if (!view_reads_input(&h->v[vi], input)) {
			char *why = xasprintf("not counted: %s",
					      h->ev[e].why ? h->ev[e].why : "no thread could be counted");

			cview_input_fail(cv, input, why);
			free(why);
		}
	}
	free(tids);
	free(ev_of);
	for (k = 0; k < cview_model(cv)->n_inputs; k++)
		sources |= cview_model(cv)->inputs[k].kind == INPUT_SOURCE && cview_avail(cv)->input_ok[k];
	/*
	 * Nothing counted: fail with the first per-thread failure; per-node
	 * events that cannot open fail the view only when it has nothing else
	 * (no per-thread event, no software source) to show.
	 */
	if (later) /* a VM or vCPU that came later: what failed stays n/a for it */
		return 0;
	if (evl->n && !h->v[vi].n_subs && (first_ret || (node_ret && !sources))) {
		*err = first_ret ? first : node_first;
		return first_ret ? first_ret : node_ret;
	}
	return 0;
}

int hub_view_add(struct hub *h, const struct hub_view_opts *o, int *id, struct vp_err *err)
{
	struct collect_opts co;
	struct hub_view *v;
	struct cview *cv = NULL;
	char imc_why[256] = "";
	size_t vi, i;
	int ret;

	memset(&co, 0, sizeof(co));
	co.root = h->root;
	co.plat = h->o.plat;
	co.cal = h->o.cal;
	co.model = o->model;
	co.pids = o->pids;
	co.n_pids = o->n_pids;
	co.vm_names = o->vm_names;
	co.n_vm_names = o->n_vm_names;
	co.strict = o->strict;
	co.xen_numa = h->o.xen_numa;
	co.xen_tracer = h->o.xen_tracer;
	co.xen_psr = h->o.xen_psr;
	co.resctrl = o->resctrl;
	co.xen_imc = o->xen_imc;
	if (o->xen_imc) {
		co.imc_set = imc_get(h, imc_why, sizeof(imc_why));
		co.imc_why = imc_why;
	}
	co.cache = h->cache;
	ret = cview_new(&cv, &co, h->db, o->resctrl ? hub_resctrl(h) : NULL, &h->ts, err);
	if (ret) {
		if (co.imc_set)
			imc_put(h);
		return ret;
	}
	VP_GROW(h->v, h->cap_v, h->n_v + 1);
	vi = h->n_v++;
	memset(&h->v[vi], 0, sizeof(h->v[vi]));
	h->v[vi].used = true;
	h->v[vi].cv = cv;
	h->v[vi].imc = co.imc_set != NULL;
	ret = view_join(h, vi, 0, false, err);
	v = &h->v[vi];
	if (!ret)
		ret = read_sets(h, v, err);
	if (ret) {
		view_release(h, v);
		gc(h);
		return ret;
	}
	for (i = 0; i < v->n_subs; i++) {
		struct hub_sub *s = &v->subs[i];
		const struct hub_set *set = &h->set[s->set];

		s->start = s->prev = set->snap.total[s->ctr];
		s->start_ended = s->prev_ended = set->snap.state[s->ctr] != CNT_SERIES_LIVE;
	}
	cview_start(cv);
	*id = (int)vi;
	return 0;
}

void hub_view_remove(struct hub *h, int id)
{
	struct hub_view *v = view_of(h, id);

	if (!v)
		return;
	view_release(h, v);
	gc(h);
}

/*
 * The nodes (indices into the topology's nodes) a per-node counter counts
 * for, into idx (up to max); returns how many.  A software or `node` event
 * counted on a CPU counts for that CPU's node.  An uncore PMU whose cpumask
 * has one CPU in this CPU's package is a per-package box: its count is the
 * package's, shared evenly by the package's nodes when it has several
 * (Intel SNC, AMD NPS: which node's memory a box served cannot be told
 * from its count).  A PMU with several cpumask CPUs per package (AMD's L3,
 * one per CCX) counts for each CPU's own node.
 */
static size_t counter_nodes(const struct hub *h, const struct hub_set *set, size_t ctr, int *idx,
			    size_t max)
{
	const struct topology *topo = &h->o.plat->topo;
	const struct evdesc *ev = &h->ev[set->ev].ev;
	int cpu = set->cs->entities[set->cs->counters[ctr].entity].cpu;
	int pkg = cpu >= 0 && cpu < topo->max_cpu && topo->cpu_package ? topo->cpu_package[cpu] : -1;
	size_t i, j, n = 0, same = 0;
	int ni;

	for (i = 0; ev->uncore && pkg >= 0 && i < ev->cpus.n; i++) {
		int c = ev->cpus.ids[i];

		same += c >= 0 && c < topo->max_cpu && topo->cpu_package[c] == pkg;
	}
	if (same == 1) {
		for (ni = 0; ni < topo->n_nodes && n < max; ni++) {
			const struct cpulist *cl = &topo->nodes[ni].cpus;

			for (j = 0; j < cl->n; j++) {
				int c = cl->ids[j];

				if (c >= 0 && c < topo->max_cpu && topo->cpu_package[c] == pkg) {
					idx[n++] = ni;
					break;
				}
			}
		}
		if (n)
			return n;
	}
	ni = topology_node_index(topo, topology_cpu_node(topo, cpu));
	if (ni < 0 && topo->n_nodes == 1)
		ni = 0;
	if (ni < 0 || !max)
		return 0;
	idx[0] = ni;
	return 1;
}

/*
 * The view's targets grew (a VM or vCPU thread that came since the last
 * frame): the same join as when the view was added, for the new threads
 * only, so no counter is reopened; their series start now, from the totals
 * just read, and count from the next frame.  An open that fails leaves
 * those threads n/a, as a view's threads that could not be counted are.
 */
static void grow(struct hub *h, int id)
{
	struct hub_view *v = &h->v[id];
	size_t from = v->n_joined, first_new = v->n_subs, i;
	struct vp_err e = { 0, "" };

	view_join(h, (size_t)id, from, true, &e);
	v = &h->v[id];
	h->gen++;
	for (i = first_new; i < v->n_subs; i++) {
		struct hub_sub *s = &v->subs[i];
		struct hub_set *set = &h->set[s->set];

		if (set->read_gen != h->gen) {
			if (cnt_session_read(set->cs, &set->snap, &e)) {
				s->start_ended = s->prev_ended = true; /* no baseline: never counted */
				continue;
			}
			set->read_gen = h->gen;
		}
		s->start = s->prev = set->snap.total[s->ctr];
		s->start_ended = s->prev_ended = set->snap.state[s->ctr] != CNT_SERIES_LIVE;
	}
}

/*
 * A view's frame: its series' totals now minus its baselines, summed per
 * (input, target) and scaled as one counter (perf's aggregation), then
 * evaluated by the view.
 */
static int hub_frame(struct hub *h, int id, bool total, struct collect_frame *f,
		     struct vp_err *err)
{
	struct hub_view *v = view_of(h, id);
	const struct model *m;
	struct cnt_value *agg = NULL, *isum = NULL;
	double *counts = NULL, *scale = NULL, *ncounts = NULL;
	bool *have = NULL, *ihave = NULL, *nhave = NULL, *nsplit = NULL;
	size_t n_t, n_in, nn, i;
	int ret, *nidx = NULL;

	memset(f, 0, sizeof(*f));
	if (!v)
		return vp_err_set(err, VP_EINVAL, "no view %d", id);
	m = cview_model(v->cv);
	/* the host now: VMs and vCPU threads that came since are counted from here */
	ret = cview_scan(v->cv, err);
	if (ret)
		return ret;
	if (cview_n_targets(v->cv) > v->n_joined)
		grow(h, id);
	n_t = cview_n_targets(v->cv);
	n_in = m->n_inputs;
	nn = h->o.plat->topo.n_nodes > 0 ? (size_t)h->o.plat->topo.n_nodes : 0;
	ret = read_sets(h, v, err);
	if (ret)
		return ret;
	agg = xcalloc(n_in * n_t + 1, sizeof(*agg));
	have = xcalloc(n_in * n_t + 1, sizeof(*have));
	counts = xcalloc(n_in * n_t + 1, sizeof(*counts));
	isum = xcalloc(n_in + 1, sizeof(*isum));
	ihave = xcalloc(n_in + 1, sizeof(*ihave));
	scale = xcalloc(n_in + 1, sizeof(*scale));
	ncounts = xcalloc(n_in * nn + 1, sizeof(*ncounts));
	nhave = xcalloc(n_in * nn + 1, sizeof(*nhave));
	nsplit = xcalloc(nn + 1, sizeof(*nsplit));
	nidx = xcalloc(nn + 1, sizeof(*nidx));
	for (i = 0; i < v->n_subs; i++) {
		const struct hub_sub *s = &v->subs[i];
		const struct hub_set *set = &h->set[s->set];
		const struct cnt_value *base = total ? &s->start : &s->prev;
		size_t at = s->input * n_t + s->target;
		double sc = h->ev[set->ev].ev.scale;
		struct cnt_value d;

		if ((total ? s->start_ended : s->prev_ended) || s->fresh)
			continue; /* ended before this interval: no series, as cnt_sum() does */
		cnt_value_delta(&d, &set->snap.total[s->ctr], base);
		if (s->node) {
			/* each CPU's (uncore instance's) series scaled on its own, then summed per node */
			size_t k, n = counter_nodes(h, set, s->ctr, nidx, nn);

			isum[s->input].enabled += d.enabled;
			isum[s->input].running += d.running;
			ihave[s->input] = true;
			cnt_value_scale(&d, sc > 0 && isfinite(sc) ? sc : 1.0);
			for (k = 0; k < n; k++) {
				size_t nat = s->input * nn + (size_t)nidx[k];

				ncounts[nat] = (nhave[nat] ? ncounts[nat] : 0) + d.value / (double)n;
				nhave[nat] = true;
				nsplit[nidx[k]] |= n > 1;
			}
			continue;
		}
		agg[at].raw += d.raw;
		agg[at].enabled += d.enabled;
		agg[at].running += d.running;
		have[at] = true;
		isum[s->input].enabled += d.enabled;
		isum[s->input].running += d.running;
		ihave[s->input] = true;
		scale[s->input] = sc > 0 && isfinite(sc) ? sc : 1.0;
	}
	for (i = 0; i < n_in * n_t; i++) {
		counts[i] = NAN;
		if (have[i]) {
			cnt_value_scale(&agg[i], scale[i / n_t]);
			counts[i] = agg[i].value;
		}
	}
	for (i = 0; i < n_in * nn; i++)
		if (!nhave[i])
			ncounts[i] = NAN;
	ret = cview_frame(v->cv, total, counts, nn ? ncounts : NULL, nsplit, f, err);
	if (ret)
		goto out;
	for (i = 0; i < n_in; i++) {
		struct collect_scaling *sc;

		if (!ihave[i])
			continue;
		f->scaling = xrealloc(f->scaling, (f->n_scaling + 1) * sizeof(*f->scaling));
		sc = &f->scaling[f->n_scaling++];
		sc->event = xstrdup(m->inputs[i].spec);
		sc->input = i;
		sc->enabled_s = (double)isum[i].enabled / 1e9;
		sc->running_s = (double)isum[i].running / 1e9;
		sc->running_pct = isum[i].enabled ? 100.0 * (double)isum[i].running /
							    (double)isum[i].enabled : NAN;
	}
	for (i = 0; !total && i < v->n_subs; i++) {
		struct hub_sub *s = &v->subs[i];
		const struct hub_set *set = &h->set[s->set];

		s->prev = set->snap.total[s->ctr];
		s->prev_ended = set->snap.state[s->ctr] != CNT_SERIES_LIVE;
		s->fresh = false;
	}
out:
	free(agg);
	free(have);
	free(counts);
	free(isum);
	free(ihave);
	free(scale);
	free(ncounts);
	free(nhave);
	free(nsplit);
	free(nidx);
	return ret;
}

int hub_sample(struct hub *h, int id, struct collect_frame *f, struct vp_err *err)
{
	return hub_frame(h, id, false, f, err);
}

int hub_total(struct hub *h, int id, struct collect_frame *f, struct vp_err *err)
{
	return hub_frame(h, id, true, f, err);
}

void hub_diag_input(const struct hub *h, int id, const struct collect_frame *f,
		    struct diag_input *in)
{
	const struct hub_view *v = view_of(h, id);

	if (v)
		cview_diag_input(v->cv, f, in);
	else
		memset(in, 0, sizeof(*in));
}

struct resctrl_vms *hub_resctrl(struct hub *h)
{
	if (!h->rdt)
		h->rdt = resctrl_vms_new(h->root, h->o.plat, (int)getpid());
	return h->rdt;
}

void hub_view_resctrl_why(const struct hub *h, int id, struct sbuf *out)
{
	const struct hub_view *v = view_of(h, id);

	if (v)
		cview_resctrl_why(v->cv, out);
}

const struct model_avail *hub_view_avail(const struct hub *h, int id)
{
	const struct hub_view *v = view_of(h, id);

	return v ? cview_avail(v->cv) : NULL;
}

const char *hub_view_input_reason(const struct hub *h, int id, size_t input)
{
	const struct hub_view *v = view_of(h, id);

	return v ? cview_input_reason(v->cv, input) : NULL;
}

size_t hub_view_n_targets(const struct hub *h, int id)
{
	const struct hub_view *v = view_of(h, id);

	return v ? cview_n_targets(v->cv) : 0;
}

const struct attrib *hub_view_attrib(const struct hub *h, int id)
{
	const struct hub_view *v = view_of(h, id);

	return v ? cview_attrib(v->cv) : NULL;
}

struct hv_cache *hub_scan_cache(struct hub *h)
{
	return h->cache;
}

size_t hub_n_targets(const struct hub *h)
{
	int *tids = NULL;
	size_t i, j, k, n = 0, cap = 0;

	for (i = 0; i < h->n_set; i++) {
		const struct cnt_session *cs = h->set[i].cs;

		for (j = 0; h->set[i].used && j < cs->n_entities; j++) {
			if (cs->entities[j].kind != CNT_ENT_THREAD)
				continue;
			for (k = 0; k < n && tids[k] != cs->entities[j].tid; k++)
				;
			if (k < n)
				continue;
			VP_GROW(tids, cap, n + 1);
			tids[n++] = cs->entities[j].tid;
		}
	}
	free(tids);
	return n;
}

int hub_events(const struct hub *h, struct hub_event **out, size_t *n)
{
	struct hub_event *ev = NULL;
	size_t i, j, k, n_ev = 0;

	for (i = 0; i < h->n_ev; i++) {
		const struct hub_ev *he = &h->ev[i];
		uint64_t enabled = 0, running = 0;
		struct hub_event *e;

		if (!he->used)
			continue;
		ev = xrealloc(ev, (n_ev + 1) * sizeof(*ev));
		e = &ev[n_ev++];
		memset(e, 0, sizeof(*e));
		e->name = xstrdup(he->ev.name ? he->ev.name : he->ev.spec);
		memcpy(e->encoding, he->enc, sizeof(e->encoding));
		e->views = xcalloc(h->n_v + 1, sizeof(int));
		for (j = 0; j < h->n_v; j++)
			for (k = 0; h->v[j].used && k < h->v[j].n_evs; k++)
				if (h->v[j].evs[k] == i) {
					e->views[e->n_views++] = (int)j;
					break;
				}
		for (j = 0; j < h->n_set; j++) {
			const struct hub_set *s = &h->set[j];

			if (!s->used || s->ev != i)
				continue;
			e->open = true;
			for (k = 0; k < s->snap.n; k++) {
				enabled += s->snap.total[k].enabled;
				running += s->snap.total[k].running;
			}
		}
		e->enabled_s = (double)enabled / 1e9;
		e->running_s = (double)running / 1e9;
		if (!e->open)
			e->why = xstrdup(he->why ? he->why : "not opened");
	}
	*out = ev;
	*n = n_ev;
	return 0;
}

void hub_events_release(struct hub_event *ev, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(ev[i].name);
		free(ev[i].views);
		free(ev[i].why);
	}
	free(ev);
}
