/* collect.c - the live pipeline: a model's events and sources counted per vCPU, evaluated per vCPU and VM */
#include "collect/collect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resolve.h"
#include "model/run.h"
#include "model/swsource.h"
#include "source/task.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"
#include "util/timeutil.h"

/* Sources this stage provides per entity (the swsource table has no
 * machine-wide provider for them). */
enum ent_source { ES_NONE, ES_PLACEMENT_REMOTE, ES_PLACEMENT_SPREAD, ES_SCHED_RUN, ES_SCHED_WAIT };

struct target {                 /* one counted thread */
	int tid;
	int pid;
	int cnt_ent;                /* index into the counting session's entities, -1 none */
	struct task_schedstat ss0;  /* schedstat at the start ... */
	struct task_schedstat ssp;  /* ... and at the previous sample */
	bool have_ss;
};

struct collector {
	struct collect_opts o;
	char *root;
	struct pmu_db *db;
	struct model_avail av;
	bool have_av;
	char **in_reason;           /* per input: why NaN (heap), NULL when read */
	enum ent_source *es;        /* per input */
	double *sw_start, *sw_prev; /* machine-wide cumulative sources */
	struct cnt_session *cs;
	struct cnt_snapshot snap;
	struct hv_vm_list vms;      /* the last scan */
	struct attrib attrib;
	struct target *t;
	size_t n_t, cap_t;
	double mhz;                 /* from /proc/cpuinfo, NaN unknown */
	uint64_t start_ns, prev_ns;
	char notes[1024];
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
	return ES_NONE;
}

/* The inputs this stage computes per entity exist wherever it runs. */
static int check_input(void *ctx, const struct model_input *in, char **reason)
{
	if (ent_source_of(in) != ES_NONE)
		return 0;
	return model_machine_check(ctx, in, reason);
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

static void note(struct collector *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct collector *c, const char *fmt, ...)
{
	size_t len = strlen(c->notes);
	va_list ap;

	if (len + 3 >= sizeof(c->notes))
		return;
	if (len)
		c->notes[len++] = ';', c->notes[len++] = ' ', c->notes[len] = '\0';
	va_start(ap, fmt);
	vsnprintf(c->notes + len, sizeof(c->notes) - len, fmt, ap);
	va_end(ap);
}

static bool wanted_vm(const struct collect_opts *o, const struct hv_vm *vm)
{
	size_t i;

	if (!o->n_vm_names)
		return true;
	for (i = 0; i < o->n_vm_names; i++)
		if (vm->name && !strcmp(vm->name, o->vm_names[i]))
			return true;
	return false;
}

static int scan(struct collector *c, struct vp_err *err)
{
	struct hv_ctx ctx = { c->root, c->o.plat, NULL };
	struct hv_vm_list all;
	size_t i;
	int ret;

	memset(&all, 0, sizeof(all));
	if (c->o.n_pids)
		ret = hv_native_scan(&ctx, c->o.pids, c->o.n_pids, &all, err);
	else
		ret = hv_scan_vms(&ctx, &all, err);
	if (ret) {
		hv_vm_list_release(&all);
		return ret;
	}
	/* keep only the wanted VMs, and never Xen's dom0 */
	hv_vm_list_release(&c->vms);
	memset(&c->vms, 0, sizeof(c->vms));
	memcpy(c->vms.notes, all.notes, sizeof(all.notes));
	for (i = 0; i < all.n; i++) {
		if (all.vms[i].dom0 || !wanted_vm(&c->o, &all.vms[i]))
			continue;
		VP_GROW(c->vms.vms, c->vms.cap, c->vms.n + 1);
		c->vms.vms[c->vms.n++] = all.vms[i];
		memset(&all.vms[i], 0, sizeof(all.vms[i]));
	}
	hv_vm_list_release(&all);
	attrib_update(&c->attrib, &c->vms, vp_now_ns());
	return 0;
}

/* Open the model's events that exist here on every vCPU thread. */
static int open_counters(struct collector *c, struct vp_err *err)
{
	const struct model *m = c->o.model;
	struct evdesc_list evl;
	struct cnt_request req;
	pid_t *tids = NULL;
	size_t i, j, n_events_in = 0;
	int ret = 0;

	evdesc_list_init(&evl);
	for (i = 0; i < c->vms.n; i++)
		for (j = 0; j < c->vms.vms[i].n_vcpus; j++) {
			const struct hv_vcpu *v = &c->vms.vms[i].vcpus[j];
			struct target *t;

			if (v->tid <= 0)
				continue;
			VP_GROW(c->t, c->cap_t, c->n_t + 1);
			t = &c->t[c->n_t];
			memset(t, 0, sizeof(*t));
			t->tid = v->tid;
			t->pid = c->vms.vms[i].pid;
			t->cnt_ent = -1;
			t->have_ss = !task_schedstat_read(c->root, t->pid, t->tid, &t->ss0, NULL);
			t->ssp = t->ss0;
			c->n_t++;
		}
	for (i = 0; i < m->n_inputs; i++) {
		const struct model_input *in = &m->inputs[i];
		struct vp_err e;
		size_t before = evl.n;

		if (in->kind != INPUT_EVENT || !c->av.input_ok[i])
			continue;
		n_events_in++;
		if (event_resolve(c->db, in->spec, (int)i, &evl, &e)) {
			c->in_reason[i] = xasprintf("not resolved: %s", e.msg);
			continue;
		}
		/* per-socket PMUs cannot count a thread */
		for (j = before; j < evl.n; j++)
			if (evl.v[j].uncore)
				break;
		if (j < evl.n) {
			evl.n = before; /* entries stay owned by evl's storage until release */
			c->in_reason[i] = xasprintf("'%s' is a per-socket (uncore) event: "
						    "apportioning it to vCPUs is not implemented yet",
						    in->spec);
		}
	}
	if (!c->n_t) {
		if (n_events_in)
			note(c, "no vCPU is a host thread here (Xen vCPUs run in the hypervisor): "
				"perf events are not counted per vCPU");
		goto out;
	}
	if (!evl.n)
		goto out;
	tids = xcalloc(c->n_t, sizeof(pid_t));
	for (i = 0; i < c->n_t; i++)
		tids[i] = c->t[i].tid;
	memset(&req, 0, sizeof(req));
	req.events = evl.v;
	req.n_events = evl.n;
	req.target.tids = tids;
	req.target.n_tids = c->n_t;
	req.root = c->root;
	ret = cnt_session_new(&c->cs, &req, err);
	if (ret)
		goto out;
	for (i = 0; i < c->cs->n_events; i++) {
		const struct cnt_event *ce = &c->cs->events[i];
		int in = ce->ev.spec_index;

		if (ce->state == CNT_EV_DROPPED && in >= 0 && (size_t)in < m->n_inputs &&
		    !c->in_reason[in])
			c->in_reason[in] = xasprintf("not counted: %s", ce->why ? ce->why : "open failed");
	}
	for (i = 0; i < c->n_t; i++)
		for (j = 0; j < c->cs->n_entities; j++)
			if (c->cs->entities[j].kind == CNT_ENT_THREAD &&
			    c->cs->entities[j].tid == c->t[i].tid)
				c->t[i].cnt_ent = (int)j;
	ret = cnt_session_enable(c->cs, err);
	if (!ret)
		cnt_session_mark_start(c->cs);
out:
	free(tids);
	evdesc_list_release(&evl);
	return ret;
}

int collect_new(struct collector **out, const struct collect_opts *o, struct vp_err *err)
{
	struct collector *c = xcalloc(1, sizeof(*c));
	const struct model *m = o->model;
	struct model_machine mm;
	struct diags d;
	size_t i;
	int ret;

	c->o = *o;
	c->root = xstrdup(o->root ? o->root : "/");
	cnt_snapshot_init(&c->snap);
	attrib_init(&c->attrib, &o->plat->topo);
	c->mhz = read_mhz(c->root);
	c->in_reason = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(char *));
	c->es = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(*c->es));
	c->sw_start = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
	c->sw_prev = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));

	ret = pmu_db_new(&c->db, c->root, err);
	if (ret)
		goto fail;
	memset(&mm, 0, sizeof(mm));
	mm.db = c->db;
	mm.root = c->root;
	diags_init(&d);
	model_check_inputs(m, check_input, &mm, &c->av, &d);
	diags_release(&d);
	c->have_av = true;
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
	ret = scan(c, err);
	if (ret)
		goto fail;
	ret = open_counters(c, err);
	if (ret)
		goto fail;
	c->start_ns = c->prev_ns = vp_now_ns();
	*out = c;
	return 0;
fail:
	collect_free(c);
	return ret;
}

void collect_free(struct collector *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; c->in_reason && i < c->o.model->n_inputs; i++)
		free(c->in_reason[i]);
	free(c->in_reason);
	free(c->es);
	free(c->sw_start);
	free(c->sw_prev);
	if (c->have_av)
		model_avail_release(c->o.model, &c->av);
	cnt_session_free(c->cs);
	cnt_snapshot_release(&c->snap);
	hv_vm_list_release(&c->vms);
	attrib_release(&c->attrib);
	pmu_db_free(c->db);
	free(c->t);
	free(c->root);
	free(c);
}

const struct attrib *collect_attrib(const struct collector *c) { return &c->attrib; }
const struct model_avail *collect_avail(const struct collector *c) { return &c->av; }
size_t collect_n_targets(const struct collector *c) { return c->n_t; }
const struct cnt_session *collect_session(const struct collector *c) { return c->cs; }

const char *collect_input_reason(const struct collector *c, size_t i)
{
	return i < c->o.model->n_inputs ? c->in_reason[i] : NULL;
}

static struct target *find_target(struct collector *c, int tid)
{
	size_t i;

	for (i = 0; i < c->n_t; i++)
		if (c->t[i].tid == tid)
			return &c->t[i];
	return NULL;
}

/* Fill a row's inputs for one vCPU thread. */
static void vcpu_inputs(struct collector *c, const struct hv_vcpu *v, int ent, bool total,
			double *in)
{
	const struct model *m = c->o.model;
	struct target *t = find_target(c, v->tid);
	const struct entity *e = ent >= 0 ? &c->attrib.ents[ent] : NULL;
	struct task_schedstat now;
	bool have_now = false;
	size_t i;

	if (t && t->have_ss)
		have_now = !task_schedstat_read(c->root, t->pid, t->tid, &now, NULL);
	for (i = 0; i < m->n_inputs; i++) {
		const struct task_schedstat *base = t ? (total ? &t->ss0 : &t->ssp) : NULL;
		struct cnt_value val;

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
		case ES_NONE:
			break;
		}
		if (m->inputs[i].kind == INPUT_SOURCE) {
			in[i] = NAN; /* machine-wide: filled by the caller */
			continue;
		}
		if (!c->cs || !t || t->cnt_ent < 0 || c->in_reason[i])
			continue;
		{
			struct cnt_filter flt = CNT_FILTER_ANY;

			flt.spec_index = (int)i;
			flt.entity = t->cnt_ent;
			if (cnt_sum(c->cs, &c->snap, total, &flt, &val) > 0)
				in[i] = val.value;
		}
	}
	if (t && have_now && !total)
		t->ssp = now;
}

static void machine_sources(struct collector *c, bool total, double *cur)
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

static int find_tclk(const struct model *m)
{
	size_t i;

	for (i = 0; i < m->n_inputs; i++)
		if (m->inputs[i].kind == INPUT_EVENT && !strcmp(m->inputs[i].spec, "task-clock"))
			return (int)i;
	return -1;
}

void frame_eval_row(const struct model *m, const struct platform *plat, const struct calib *cal,
		    double cpu_mhz, struct collect_row *r, double duration)
{
	int tclk = find_tclk(m), ms = model_find_metric(m, "mem_stall");
	struct expr_env env;

	model_env_fill(&env, plat, cal, duration);
	env.inputs = r->inputs;
	env.n_inputs = m->n_inputs;
	free(r->metrics);
	r->metrics = xcalloc(m->n_metrics ? m->n_metrics : 1, sizeof(double));
	model_eval(m, &env, r->metrics, r->fv);
	r->cycles = m->cycles ? expr_eval(m->cycles, &env) : NAN;
	r->cycles_proxy = false;
	if (!isfinite(r->cycles) && tclk >= 0 && isfinite(r->inputs[tclk]) && isfinite(cpu_mhz)) {
		/* task-clock ns x cycles per ns */
		r->cycles = r->inputs[tclk] * cpu_mhz / 1000.0;
		r->cycles_proxy = true;
	}
	r->mem_stall = ms >= 0 ? r->metrics[ms] : NAN;
}

static int build_frame(struct collector *c, struct collect_frame *f, bool total,
		       struct vp_err *err)
{
	const struct model *m = c->o.model;
	uint64_t now;
	double *mw;
	size_t i, j, k;
	int ret;

	memset(f, 0, sizeof(*f));
	if (c->cs) {
		ret = cnt_session_read(c->cs, &c->snap, err);
		if (ret)
			return ret;
	}
	ret = scan(c, err);
	if (ret)
		return ret;
	now = vp_now_ns();
	f->t_ns = now;
	f->duration = (double)(now - (total ? c->start_ns : c->prev_ns)) / 1e9;
	f->cpu_mhz = c->mhz;
	mw = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
	machine_sources(c, total, mw);

	for (i = 0; i < c->vms.n; i++) {
		const struct hv_vm *vm = &c->vms.vms[i];
		char *key = attrib_vm_key(vm);
		size_t vm_row = f->n_rows;
		struct collect_row *vr;

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
		vr->pid = vm->pid;
		vr->domid = vm->domid;
		vr->index = vr->tid = vr->cpu = vr->node = -1;
		if (vm->n_mem_nodes > 0 && vm->mem_node) {
			vr->n_mem_nodes = vm->n_mem_nodes;
			vr->mem_node = xcalloc((size_t)vm->n_mem_nodes, sizeof(uint64_t));
			memcpy(vr->mem_node, vm->mem_node, (size_t)vm->n_mem_nodes * sizeof(uint64_t));
		}
		vr->inputs = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
		for (k = 0; k < m->n_inputs; k++)
			vr->inputs[k] = NAN;

		for (j = 0; j < vm->n_vcpus; j++) {
			struct collect_row *r = &f->rows[f->n_rows++];

			vr = &f->rows[vm_row];
			memset(r, 0, sizeof(*r));
			key = attrib_vcpu_key(vm, &vm->vcpus[j]);
			r->ent = attrib_find(&c->attrib, key);
			free(key);
			r->kind = vm->adapter == HVA_NATIVE ? ENT_THREAD : ENT_VCPU;
			r->vm_row = vm_row;
			r->key = attrib_vcpu_key(vm, &vm->vcpus[j]);
			r->adapter = vm->adapter;
			r->pid = vm->pid;
			r->domid = vm->domid;
			r->index = vm->vcpus[j].index;
			r->tid = vm->vcpus[j].tid;
			r->cpu = vm->vcpus[j].cpu;
			r->node = vm->vcpus[j].node;
			r->inputs = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
			vcpu_inputs(c, &vm->vcpus[j], r->ent, total, r->inputs);
			for (k = 0; k < m->n_inputs; k++) {
				if (m->inputs[k].kind == INPUT_SOURCE && c->es[k] == ES_NONE)
					r->inputs[k] = mw[k];
				/* a VM's events and scheduler times are its vCPUs' sum */
				if (isfinite(r->inputs[k]) &&
				    (m->inputs[k].kind == INPUT_EVENT || c->es[k] == ES_SCHED_RUN ||
				     c->es[k] == ES_SCHED_WAIT))
					vr->inputs[k] = (isfinite(vr->inputs[k]) ? vr->inputs[k] : 0) +
							r->inputs[k];
			}
			r->remote = r->ent >= 0 ? attrib_remote_estimate(&c->attrib, r->ent)
						: (struct qval){ NAN, VQ_UNAVAILABLE, "not attributed" };
			frame_eval_row(m, c->o.plat, c->o.cal, c->mhz, r, f->duration);
		}
		vr = &f->rows[vm_row];
		for (k = 0; k < m->n_inputs; k++) {
			if (m->inputs[k].kind == INPUT_SOURCE && c->es[k] == ES_NONE)
				vr->inputs[k] = mw[k];
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
	for (k = 0; c->cs && k < m->n_inputs; k++) {
		struct cnt_filter flt = CNT_FILTER_ANY;
		struct collect_scaling *sc;
		struct cnt_value val;

		if (m->inputs[k].kind != INPUT_EVENT || c->in_reason[k])
			continue;
		flt.spec_index = (int)k;
		if (cnt_sum(c->cs, &c->snap, total, &flt, &val) <= 0)
			continue;
		f->scaling = xrealloc(f->scaling, (f->n_scaling + 1) * sizeof(*f->scaling));
		sc = &f->scaling[f->n_scaling++];
		sc->event = xstrdup(m->inputs[k].spec);
		sc->input = k;
		sc->enabled_s = (double)val.enabled / 1e9;
		sc->running_s = (double)val.running / 1e9;
		sc->running_pct = val.pct;
	}
	snprintf(f->notes, sizeof(f->notes), "%s%s%s", c->notes,
		 c->notes[0] && c->vms.notes[0] ? "; " : "", c->vms.notes);
	if (!total)
		c->prev_ns = now;
	return 0;
}

int collect_sample(struct collector *c, struct collect_frame *f, struct vp_err *err)
{
	return build_frame(c, f, false, err);
}

int collect_total(struct collector *c, struct collect_frame *f, struct vp_err *err)
{
	return build_frame(c, f, true, err);
}

void collect_frame_release(struct collect_frame *f)
{
	size_t i;

	for (i = 0; i < f->n_rows; i++) {
		free(f->rows[i].inputs);
		free(f->rows[i].metrics);
		free(f->rows[i].name);
		free(f->rows[i].key);
		free(f->rows[i].mem_node);
	}
	free(f->rows);
	for (i = 0; i < f->n_scaling; i++)
		free(f->scaling[i].event);
	free(f->scaling);
	memset(f, 0, sizeof(*f));
}

/* ---- the diagnosis input ---- */

static void factor_evidence(const struct model *m, const bool *factor_ok,
			    const struct collect_row *r, enum factor_id fi, struct diag_factor_in *out)
{
	const struct model_factor *mf = &m->factors[fi];
	struct sbuf sb = SBUF_INIT;

	out->cost_cycles = r->fv[fi].cost_cycles;
	out->score = r->fv[fi].score;
	out->sev = r->fv[fi].sev;
	out->quality = mf->quality;
	if (!factor_ok[fi] || mf->quality == Q_UNAVAILABLE)
		out->quality = Q_UNAVAILABLE;
	if (mf->score && mf->score->k == EX_METRIC && mf->score->name)
		sbuf_addf(&sb, "%s ", mf->score->name);
	else
		sbuf_addstr(&sb, "score ");
	if (isfinite(r->fv[fi].score))
		sbuf_addf(&sb, "%.3g", r->fv[fi].score);
	else
		sbuf_addstr(&sb, "n/a");
	sbuf_addf(&sb, " (%s)", factor_quality_name(out->quality));
	snprintf(out->evidence, sizeof(out->evidence), "%s", sbuf_str(&sb));
	sbuf_release(&sb);
}

void frame_diag_input(const struct model *m, const bool *factor_ok, const struct topology *topo,
		      const struct calib *cal, const struct collect_frame *f, struct diag_input *in)
{
	int remote_metric = model_find_metric(m, "remote_frac");
	int intensity_metric = model_find_metric(m, "mem_bw");
	size_t i, nv = 0, nvc = 0, *vm_of_row;
	int fi;

	memset(in, 0, sizeof(*in));
	diag_params_default(&in->params);
	in->lat_local_loaded_ns = cal ? cal->val[CAL_LAT_LOADED_NS] : NAN;
	in->lat_remote_idle_ns = cal ? cal->val[CAL_LAT_REMOTE_NS] : NAN;
	in->nodes = xcalloc(topo->n_nodes > 0 ? (size_t)topo->n_nodes : 1, sizeof(*in->nodes));
	in->n_nodes = topo->n_nodes > 0 ? (size_t)topo->n_nodes : 0;
	for (i = 0; i < in->n_nodes; i++) {
		struct diag_node *n = &in->nodes[i];
		struct sbuf sb = SBUF_INIT;

		n->id = topo->nodes[i].id;
		cpulist_format(&topo->nodes[i].cpus, &sb);
		n->cpus = sbuf_detach(&sb);
		n->n_cpus = (int)topo->nodes[i].cpus.n;
		n->bw_gbs = NAN;
		n->peak_gbs = cal ? cal->val[CAL_PEAK_BW_GBS] : NAN;
		n->queue_full_frac = NAN;
		n->bw_quality = Q_UNAVAILABLE;
	}
	for (i = 0; i < f->n_rows; i++)
		if (f->rows[i].kind == ENT_VM || f->rows[i].kind == ENT_PROCESS)
			nv++;
		else
			nvc++;
	in->vms = xcalloc(nv ? nv : 1, sizeof(*in->vms));
	in->vcpus = xcalloc(nvc ? nvc : 1, sizeof(*in->vcpus));
	vm_of_row = xcalloc(f->n_rows ? f->n_rows : 1, sizeof(size_t));
	for (i = 0; i < f->n_rows; i++)
		if (f->rows[i].kind == ENT_VM || f->rows[i].kind == ENT_PROCESS)
			vm_of_row[i] = in->n_vms++;
	in->n_vms = 0;
	for (i = 0; i < f->n_rows; i++) {
		const struct collect_row *r = &f->rows[i];

		if (r->kind == ENT_VM || r->kind == ENT_PROCESS) {
			struct diag_vm *d = &in->vms[in->n_vms++];
			uint64_t tot = 0;
			int n;

			d->name = r->name;
			d->adapter = r->adapter;
			d->libvirt = r->libvirt;
			d->pid = r->pid;
			d->domid = r->domid;
			d->scored = true;
			for (fi = 0; fi < FACTOR_N; fi++) {
				d->score[fi] = r->fv[fi].score;
				d->sev[fi] = r->fv[fi].sev;
			}
			for (n = 0; n < r->n_mem_nodes; n++)
				tot += r->mem_node[n];
			if (tot) {
				double *frac = xcalloc(in->n_nodes ? in->n_nodes : 1, sizeof(double));
				size_t k;

				for (k = 0; k < in->n_nodes; k++) {
					int id = in->nodes[k].id;

					frac[k] = id >= 0 && id < r->n_mem_nodes ?
						  (double)r->mem_node[id] / (double)tot : 0;
				}
				d->mem_frac = frac;
			}
			continue;
		}
		{
			struct diag_vcpu *v = &in->vcpus[in->n_vcpus++];

			v->vm = r->vm_row < f->n_rows ? vm_of_row[r->vm_row] : 0;
			v->index = r->index;
			v->tid = r->tid;
			v->node = r->node;
			v->cycles = r->cycles;
			v->cycles_proxy = r->cycles_proxy;
			v->mem_stall_cycles = r->mem_stall;
			v->remote_frac = remote_metric >= 0 && isfinite(r->metrics[remote_metric]) ?
					 r->metrics[remote_metric] : r->remote.v;
			v->mem_intensity = intensity_metric >= 0 ? r->metrics[intensity_metric] : NAN;
			for (fi = 0; fi < FACTOR_N; fi++)
				factor_evidence(m, factor_ok, r, (enum factor_id)fi, &v->f[fi]);
		}
	}
	free(vm_of_row);
}

void collect_diag_input(const struct collector *c, const struct collect_frame *f,
			struct diag_input *in)
{
	frame_diag_input(c->o.model, c->av.factor_ok, &c->o.plat->topo, c->o.cal, f, in);
}

void collect_diag_release(struct diag_input *in)
{
	size_t i;

	for (i = 0; i < in->n_nodes; i++)
		free((char *)in->nodes[i].cpus);
	for (i = 0; i < in->n_vms; i++)
		free((double *)in->vms[i].mem_frac);
	free(in->nodes);
	free(in->vms);
	free(in->vcpus);
	memset(in, 0, sizeof(*in));
}
