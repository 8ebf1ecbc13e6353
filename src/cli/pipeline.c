/* pipeline.c - what diagnose, record and report share: platform, model, calibration, collector */
#include "cli/cli.h"
#include "cli/pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/calib_file.h"
#include "cli/interrupt.h"
#include "hv/hv.h"
#include "util/timeutil.h"
#include "util/alloc.h"
#include "util/fs.h"

int xen_numa_opt(const struct cmd *c, const char *arg, double *every_s)
{
	char *end;

	*every_s = 60.0;
	if (!arg)
		return 0;
	*every_s = strtod(arg, &end);
	if (end == arg || *end || !(*every_s >= 0) || *every_s > 86400) {
		cli_usage_error(c, "--xen-numa-dump needs seconds >= 0, not '%s'", arg);
		return -1;
	}
	return 0;
}

int pipe_opt(const struct cmd *c, struct pipe_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case PO_XEN_NUMA:
		o->xen_numa = true;
		return xen_numa_opt(c, arg, &o->xen_numa_every_s) ? -1 : 1;
	case PO_ROOT: o->root = arg; return 1;
	case 'm': o->model = arg; return 1;
	case PO_CAL: o->cal_path = arg; return 1;
	case PO_RESCTRL: o->resctrl = true; return 1;
	case PO_XENTRACE: o->xentrace = true; return 1;
	case PO_XEN_PSR: o->xen_psr = true; return 1;
	case PO_WAIT: {
		char *end;

		o->wait_s = arg ? strtod(arg, &end) : 60.0;
		if (arg && (end == arg || *end || !(o->wait_s > 0) || o->wait_s > 86400)) {
			cli_usage_error(c, "--wait needs seconds > 0, not '%s'", arg);
			return -1;
		}
		return 1;
	}
	case PO_MODEL_PATH:
		o->model_paths = xrealloc(o->model_paths, (o->n_model_paths + 1) * sizeof(char *));
		o->model_paths[o->n_model_paths++] = (char *)arg;
		return 1;
	case PO_VM:
		o->vms = xrealloc(o->vms, (o->n_vms + 1) * sizeof(char *));
		o->vms[o->n_vms++] = arg;
		return 1;
	case 'p':
		if (cli_parse_pids(arg, &o->pids, &o->n_pids)) {
			cli_usage_error(c, "invalid process list '%s'", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

void pipe_opts_release(struct pipe_opts *o)
{
	free(o->model_paths);
	free(o->vms);
	free(o->pids);
	memset(o, 0, sizeof(*o));
}

/* The calibration: --calibration FILE, else the default file when it exists. */
static int load_calibration(struct pipeline *p, const struct pipe_opts *o,
			    const struct platform *plat)
{
	struct vp_err err = { 0, "" };

	if (calib_file_open(plat, o->cal_path, &p->cal, &p->have_cal, &p->cal_note, &err))
		return cli_error(&err);
	return 0;
}

static int open_model(struct pipeline *p, const char *name)
{
	struct vp_err err;
	struct diags d;
	int rc = 0;

	diags_init(&d);
	if (model_registry_open(&p->reg, name, &p->model, &d, &err))
		rc = cli_error(&err);
	diags_release(&d);
	return rc;
}

int pipeline_model(struct pipeline *p, const struct pipe_opts *o, const char *name)
{
	const struct model_entry *e;

	memset(p, 0, sizeof(*p));
	calib_init(&p->cal);
	model_dirs_build(&p->dirs, o->model_paths, o->n_model_paths);
	model_registry_init(&p->reg, (const char *const *)p->dirs.v, p->dirs.n);
	p->have_reg = true;
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
		return cli_errorf("the recording names its model '%s', which is not a model name "
				  "(letters, digits, '_', '-' and '.'); it is not opened as a path",
				  shown);
	}
	e = model_registry_find(&p->reg, name);
	if (!e)
		return cli_errorf("no model named '%s' (see 'vmmprof model list')", name);
	return open_model(p, e->path);
}

/*
 * The model (-m, else chosen for plat) and the calibration.  With optional,
 * no model matching plat is not an error: p->model stays NULL and p->why
 * says why.
 */
static int choose(struct pipeline *p, const struct pipe_opts *o, const struct platform *plat,
		  bool optional)
{
	struct vp_err err;
	int rc;

	model_dirs_build(&p->dirs, o->model_paths, o->n_model_paths);
	model_registry_init(&p->reg, (const char *const *)p->dirs.v, p->dirs.n);
	p->have_reg = true;
	if (o->model) {
		snprintf(p->why, sizeof(p->why), "chosen with -m");
		if ((rc = open_model(p, o->model)))
			return rc;
	} else {
		const struct model_entry *me =
			model_registry_choose(&p->reg, plat, p->why, sizeof(p->why), &err);

		if (!me && optional) {
			snprintf(p->why, sizeof(p->why), "%s", err.msg);
			return 0;
		}
		if (!me)
			return cli_error(&err);
		if ((rc = open_model(p, me->path)))
			return rc;
	}
	return load_calibration(p, o, plat);
}

int pipeline_choose(struct pipeline *p, const struct pipe_opts *o, const struct platform *plat)
{
	memset(p, 0, sizeof(*p));
	calib_init(&p->cal);
	return choose(p, o, plat, true);
}

int pipe_wait_vms(const struct pipe_opts *o, const struct platform *plat, bool block)
{
	struct hv_ctx ctx = { o->root, plat, NULL, NULL };
	struct vp_err err = { 0, "" };
	uint64_t t0 = vp_now_ns();
	bool told = false;
	int ret;

	if (!o->n_vms || o->n_pids)
		return 0;
	/* waiting polls 4 times a second: what the scan cache keeps (hv.h) is not read
	 * again at each poll, a busy QMP monitor's 250 ms among it */
	if (block && o->wait_s > 0)
		ctx.cache = hv_cache_new(o->root ? o->root : "/");
	for (;;) {
		/* waiting, a VM is there when its vCPUs are (a QEMU that is starting has none) */
		ret = hv_vms_check_names(&ctx, o->vms, o->n_vms, o->wait_s > 0, &err);
		if (ret != -ENOENT || !(o->wait_s > 0))
			break;
		if (!block)
			break;
		if ((double)(vp_now_ns() - t0) / 1e9 >= o->wait_s) {
			hv_cache_free(ctx.cache);
			return cli_errorf("%s (waited %.3g s for it: --wait)", err.msg, o->wait_s);
		}
		if (!told) {
			fprintf(stderr, "vmmprof: %s; waiting up to %.3g s for it (--wait)...\n", err.msg,
				o->wait_s);
			told = true;
		}
		if (cli_sleep_ns(250000000ull)) {
			hv_cache_free(ctx.cache);
			return cli_errorf("%s (interrupted while waiting for it)", err.msg);
		}
	}
	hv_cache_free(ctx.cache);
	if (ret == -ENOENT && !block && o->wait_s > 0)
		return 0;
	return ret ? cli_error(&err) : 0;
}

int pipeline_open(struct pipeline *p, const struct pipe_opts *o, bool collect)
{
	struct vp_err err;
	int rc;

	memset(p, 0, sizeof(*p));
	calib_init(&p->cal);
	if (vp_exists(NULL, o->root ? o->root : "/"))
		return cli_errorf("root directory '%s' does not exist", o->root);
	if (platform_probe(&p->plat, o->root, &err))
		return cli_error(&err);
	p->have_plat = true;
	if ((rc = choose(p, o, &p->plat, false)))
		return rc;
	if (collect && (rc = pipe_wait_vms(o, &p->plat, true)))
		return rc;
	if (collect) {
		struct collect_opts co = {
			.root = o->root, .plat = &p->plat, .model = p->model,
			.cal = p->have_cal ? &p->cal : NULL,
			.pids = o->pids, .n_pids = o->n_pids,
			.vm_names = o->vms, .n_vm_names = o->n_vms,
			.resctrl = o->resctrl,
			/* a process named with -p that is not there is an error, as in stat
			 * (a VM named with --vm was checked above, pipe_wait_vms()) */
			.strict = o->n_pids > 0,
		};

		if (o->xen_numa) {
			p->xen_numa.every_ns = (uint64_t)(o->xen_numa_every_s * 1e9);
			co.xen_numa = &p->xen_numa;
		}
		if (o->xentrace) {
			/* a start that fails leaves the residency sampled, and the notes say
			 * why; but another xentrace running is refused: both would lose */
			if (hv_xen_tracer_start(&p->xen_tracer, o->root, &err) == -EBUSY) {
				hv_xen_tracer_stop(p->xen_tracer);
				p->xen_tracer = NULL;
				return cli_error(&err);
			}
			co.xen_tracer = p->xen_tracer;
		}
		if (o->xen_psr) {
			p->xen_psr = hv_xen_psr_new();
			co.xen_psr = p->xen_psr;
		}
		if (collect_new(&p->col, &co, &err))
			return cli_error(&err);
	}
	return 0;
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
