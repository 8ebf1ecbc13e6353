/* hub.c - the shared collector: views over one merged counter set */
#include "collect/hub.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/*
 * First step: every view is a collector of its own (its events opened on
 * its own threads).  The merged counter set below is what hub_events()
 * reports; de-duplicated opening comes next.
 */

struct hub_view {
	bool used;
	const struct model *model;
	struct collector *col;
};

struct hub {
	struct hub_opts o;
	char *root;
	struct hub_view *v;
	size_t n_v, cap_v;
};

int hub_new(struct hub **out, const struct hub_opts *o, struct vp_err *err)
{
	struct hub *h = xcalloc(1, sizeof(*h));

	(void)err;
	h->o = *o;
	h->root = xstrdup(o->root ? o->root : "/");
	h->o.root = h->root;
	*out = h;
	return 0;
}

void hub_free(struct hub *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n_v; i++)
		collect_free(h->v[i].col);
	free(h->v);
	free(h->root);
	free(h);
}

static struct hub_view *view_of(const struct hub *h, int id)
{
	if (id < 0 || (size_t)id >= h->n_v || !h->v[id].used)
		return NULL;
	return &h->v[id];
}

int hub_view_add(struct hub *h, const struct hub_view_opts *o, int *id, struct vp_err *err)
{
	struct collect_opts co;
	struct collector *c;
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
	ret = collect_new(&c, &co, err);
	if (ret)
		return ret;
	VP_GROW(h->v, h->cap_v, h->n_v + 1);
	h->v[h->n_v].used = true;
	h->v[h->n_v].model = o->model;
	h->v[h->n_v].col = c;
	*id = (int)h->n_v++;
	return 0;
}

void hub_view_remove(struct hub *h, int id)
{
	struct hub_view *v = view_of(h, id);

	if (!v)
		return;
	collect_free(v->col);
	v->col = NULL;
	v->used = false;
}

int hub_sample(struct hub *h, int id, struct collect_frame *f, struct vp_err *err)
{
	struct hub_view *v = view_of(h, id);

	if (!v)
		return vp_err_set(err, VP_EINVAL, "no view %d", id);
	return collect_sample(v->col, f, err);
}

int hub_total(struct hub *h, int id, struct collect_frame *f, struct vp_err *err)
{
	struct hub_view *v = view_of(h, id);

	if (!v)
		return vp_err_set(err, VP_EINVAL, "no view %d", id);
	return collect_total(v->col, f, err);
}

void hub_diag_input(const struct hub *h, int id, const struct collect_frame *f,
		    struct diag_input *in)
{
	const struct hub_view *v = view_of(h, id);

	if (v)
		collect_diag_input(v->col, f, in);
	else
		memset(in, 0, sizeof(*in));
}

const struct model_avail *hub_view_avail(const struct hub *h, int id)
{
	const struct hub_view *v = view_of(h, id);

	return v ? collect_avail(v->col) : NULL;
}

const char *hub_view_input_reason(const struct hub *h, int id, size_t input)
{
	const struct hub_view *v = view_of(h, id);

	return v ? collect_input_reason(v->col, input) : NULL;
}

size_t hub_view_n_targets(const struct hub *h, int id)
{
	const struct hub_view *v = view_of(h, id);

	return v ? collect_n_targets(v->col) : 0;
}

const struct attrib *hub_view_attrib(const struct hub *h, int id)
{
	const struct hub_view *v = view_of(h, id);

	return v ? collect_attrib(v->col) : NULL;
}

static void encode(const struct perf_event_attr *a, char *buf, size_t size)
{
	int len = snprintf(buf, size, "type=%" PRIu32 ",config=0x%" PRIx64, a->type,
			   (uint64_t)a->config);

	if (a->config1 && len > 0 && (size_t)len < size)
		len += snprintf(buf + len, size - (size_t)len, ",config1=0x%" PRIx64,
				(uint64_t)a->config1);
	if (a->config2 && len > 0 && (size_t)len < size)
		len += snprintf(buf + len, size - (size_t)len, ",config2=0x%" PRIx64,
				(uint64_t)a->config2);
	if (len > 0 && (size_t)len < size && (a->exclude_user || a->exclude_kernel ||
					       a->exclude_hv || a->exclude_host ||
					       a->exclude_guest || a->precise_ip))
		snprintf(buf + len, size - (size_t)len, ",mod=%s%s%s%s%s%s",
			 a->exclude_user ? "u" : "", a->exclude_kernel ? "k" : "",
			 a->exclude_hv ? "h" : "", a->exclude_host ? "H" : "",
			 a->exclude_guest ? "G" : "", a->precise_ip ? "p" : "");
}

int hub_events(const struct hub *h, struct hub_event **out, size_t *n)
{
	struct hub_event *ev = NULL;
	size_t i, j, k, n_ev = 0;

	for (i = 0; i < h->n_v; i++) {
		const struct cnt_session *cs;

		if (!h->v[i].used || !(cs = collect_session(h->v[i].col)))
			continue;
		for (j = 0; j < cs->n_events; j++) {
			const struct cnt_event *ce = &cs->events[j];
			struct hub_event *e = NULL;
			char enc[80];

			encode(&ce->ev.attr, enc, sizeof(enc));
			for (k = 0; k < n_ev && !e; k++)
				if (!strcmp(ev[k].encoding, enc))
					e = &ev[k];
			if (!e) {
				ev = xrealloc(ev, (n_ev + 1) * sizeof(*ev));
				e = &ev[n_ev++];
				memset(e, 0, sizeof(*e));
				e->name = xstrdup(ce->ev.name ? ce->ev.name : ce->ev.spec);
				snprintf(e->encoding, sizeof(e->encoding), "%s", enc);
				e->views = xcalloc(h->n_v, sizeof(int));
				e->enabled_s = e->running_s = NAN; /* per-view sessions: not summed yet */
				e->why = ce->state == CNT_EV_OPEN ? NULL :
					 xstrdup(ce->why ? ce->why : "open failed");
			}
			if (ce->state == CNT_EV_OPEN) {
				e->open = true;
				free(e->why);
				e->why = NULL;
			}
			if (!e->n_views || e->views[e->n_views - 1] != (int)i)
				e->views[e->n_views++] = (int)i;
		}
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
