/* pipeline.c - what the front ends compose: platform, model, calibration, collector */
#include "compose/pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "calib/file.h"
#include "hv/hv.h"
#include "util/fs.h"

/* The calibration: o->cal_path, else the default file when it exists. */
static int load_calibration(struct pipeline *p, const struct pipe_opts *o,
			    const struct platform *plat, struct vp_err *err)
{
	return calib_file_open(plat, o->cal_path, o->dirs, &p->cal, &p->have_cal, &p->cal_note, err);
}

static int open_model(struct pipeline *p, const char *name, struct vp_err *err)
{
	struct diags d;
	int rc;

	diags_init(&d);
	rc = model_registry_open(&p->reg, name, &p->model, &d, err);
	diags_release(&d);
	return rc;
}

static void open_registry(struct pipeline *p, const struct pipe_opts *o)
{
	model_dirs_build(&p->dirs, o->model_paths, o->n_model_paths, o->dirs);
	model_registry_init(&p->reg, (const char *const *)p->dirs.v, p->dirs.n);
	p->have_reg = true;
}

int pipeline_model(struct pipeline *p, const struct pipe_opts *o, const char *name,
		   struct vp_err *err)
{
	const struct model_entry *e;

	memset(p, 0, sizeof(*p));
	calib_init(&p->cal);
	open_registry(p, o);
	snprintf(p->why, sizeof(p->why), "as recorded");
	/*
	 * A recording names its model by the name in the model's 'model'
	 * statement, found in the model directories: never a path.  A
	 * recording may come from someone else, and a name such as
	 * "/dev/zero" or "x.model" would have been opened as a model file.
	 */
	if (!model_name_ok(name)) {
		char shown[64];
		size_t i;

		snprintf(shown, sizeof(shown), "%s", name);
		for (i = 0; shown[i]; i++)
			if ((unsigned char)shown[i] < 0x20 || (unsigned char)shown[i] >= 0x7f)
				shown[i] = '?';
		return vp_err_set(err, VP_EINVAL,
				  "the recording names its model '%s', which is not a model name "
				  "(letters, digits, '_', '-' and '.'); it is not opened as a path",
				  shown);
	}
	e = model_registry_find(&p->reg, name);
	if (!e)
		return vp_err_set(err, VP_ENOTFOUND, "no model named '%s' (see 'vmmprof model list')",
				  name);
	return open_model(p, e->path, err);
}

/*
 * The model (-m, else chosen for plat) and the calibration.  With optional,
 * no model matching plat is not an error: p->model stays NULL and p->why
 * says why.
 */
static int choose(struct pipeline *p, const struct pipe_opts *o, const struct platform *plat,
		  bool optional, struct vp_err *err)
{
	int rc;

	open_registry(p, o);
	if (o->model) {
		snprintf(p->why, sizeof(p->why), "chosen with -m");
		if ((rc = open_model(p, o->model, err)))
			return rc;
	} else {
		const struct model_entry *me =
			model_registry_choose(&p->reg, plat, p->why, sizeof(p->why), err);

		if (!me && optional) {
			snprintf(p->why, sizeof(p->why), "%s", err->msg);
			vp_err_clear(err);
			return 0;
		}
		if (!me)
			return err->code ? err->code : vp_err_set(err, VP_ENOTFOUND, "no model fits");
		if ((rc = open_model(p, me->path, err)))
			return rc;
	}
	return load_calibration(p, o, plat, err);
}

int pipeline_choose(struct pipeline *p, const struct pipe_opts *o, const struct platform *plat,
		    struct vp_err *err)
{
	memset(p, 0, sizeof(*p));
	calib_init(&p->cal);
	return choose(p, o, plat, true, err);
}

int pipeline_open(struct pipeline *p, const struct pipe_opts *o, struct vp_err *err)
{
	int rc;

	memset(p, 0, sizeof(*p));
	calib_init(&p->cal);
	if ((rc = vp_exists(NULL, o->root ? o->root : "/")))
		return vp_err_set(err, rc < 0 ? rc : -ENOENT, "root directory '%s' does not exist",
				  o->root);
	if ((rc = platform_probe(&p->plat, o->root, err)))
		return rc;
	p->have_plat = true;
	return choose(p, o, &p->plat, false, err);
}

int pipeline_collect(struct pipeline *p, const struct pipe_opts *o, struct vp_err *err)
{
	struct collect_opts co = {
		.root = o->root, .plat = &p->plat, .model = p->model,
		.cal = p->have_cal ? &p->cal : NULL,
		.pids = o->pids, .n_pids = o->n_pids,
		.vm_names = o->vms, .n_vm_names = o->n_vms,
		.resctrl = o->resctrl,
		/* a process named with -p that is not there is an error, as in stat
		 * (a VM named with --vm the caller checked: pipe_wait_vms()) */
		.strict = o->n_pids > 0,
	};
	int rc;

	if (o->xen_numa) {
		p->xen_numa.every_ns = (uint64_t)(o->xen_numa_every_s * 1e9);
		co.xen_numa = &p->xen_numa;
	}
	if (o->xentrace) {
		/* a start that fails leaves the residency sampled, and the notes say
		 * why; but another xentrace running is refused: both would lose */
		if ((rc = hv_xen_tracer_start(&p->xen_tracer, o->root, err)) == -EBUSY) {
			hv_xen_tracer_stop(p->xen_tracer);
			p->xen_tracer = NULL;
			return rc;
		}
		vp_err_clear(err);
		co.xen_tracer = p->xen_tracer;
	}
	co.xen_imc = o->xen_imc;
	if (o->xen_psr) {
		p->xen_psr = hv_xen_psr_new();
		co.xen_psr = p->xen_psr;
	}
	return collect_new(&p->col, &co, err);
}

void pipeline_close(struct pipeline *p)
{
	collect_free(p->col);
	hv_xen_tracer_stop(p->xen_tracer);
	{
		struct hv_ctx ctx = { p->plat.root, NULL, NULL, NULL };

		hv_xen_psr_stop(p->xen_psr, &ctx); /* detaches what it attached */
	}
	model_free(p->model);
	if (p->have_reg)
		model_registry_release(&p->reg);
	model_dirs_release(&p->dirs);
	calib_release(&p->cal);
	if (p->have_plat)
		platform_release(&p->plat);
	sbuf_release(&p->cal_note);
	memset(p, 0, sizeof(*p));
}
