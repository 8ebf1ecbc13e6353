/* collect.c - the live pipeline for one run: a hub with one view (stat -m, top, diagnose, record) */
#include "collect/collect.h"

#include <stdlib.h>
#include <string.h>

#include "collect/hub.h"
#include "util/alloc.h"

struct collector {
	struct hub *h;
	int id;                     /* the one view */
};

int collect_new(struct collector **out, const struct collect_opts *o, struct vp_err *err)
{
	struct collector *c = xcalloc(1, sizeof(*c));
	struct hub_opts ho = { o->root, o->plat, o->cal, o->xen_numa, o->trace, o->rdt,
			       o->xen_tracer, o->xen_psr, o->cache };
	struct hub_view_opts vo;
	int ret;

	ret = hub_new(&c->h, &ho, err);
	if (ret)
		goto fail;
	memset(&vo, 0, sizeof(vo));
	vo.model = o->model;
	vo.vm_names = o->vm_names;
	vo.n_vm_names = o->n_vm_names;
	vo.pids = o->pids;
	vo.n_pids = o->n_pids;
	vo.strict = o->strict;
	vo.resctrl = o->resctrl;
	vo.xen_imc = o->xen_imc;
	ret = hub_view_add(c->h, &vo, &c->id, err);
	if (ret)
		goto fail;
	*out = c;
	return 0;
fail:
	collect_free(c);
	return ret;
}

void collect_free(struct collector *c)
{
	if (!c)
		return;
	hub_free(c->h);
	free(c);
}

int collect_sample(struct collector *c, struct collect_frame *f, struct vp_err *err)
{
	return hub_sample(c->h, c->id, f, err);
}

int collect_total(struct collector *c, struct collect_frame *f, struct vp_err *err)
{
	return hub_total(c->h, c->id, f, err);
}

const struct attrib *collect_attrib(const struct collector *c) { return hub_view_attrib(c->h, c->id); }
const struct model_avail *collect_avail(const struct collector *c) { return hub_view_avail(c->h, c->id); }
size_t collect_n_targets(const struct collector *c) { return hub_view_n_targets(c->h, c->id); }

const char *collect_input_reason(const struct collector *c, size_t i)
{
	return hub_view_input_reason(c->h, c->id, i);
}

void collect_diag_input(const struct collector *c, const struct collect_frame *f,
			struct diag_input *in)
{
	hub_diag_input(c->h, c->id, f, in);
}
