/* pipeline.c - the collecting commands' shared options, and the pipeline opened from them */
#include "cli/cli.h"
#include "cli/pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	case PO_XEN_IMC: o->xen_imc = true; return 1;
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

/* o with this process's directories unless it names others. */
static struct pipe_opts with_dirs(const struct pipe_opts *o)
{
	struct pipe_opts w = *o;

	if (!w.dirs)
		w.dirs = cli_dirs();
	return w;
}

int cli_pipeline_model(struct pipeline *p, const struct pipe_opts *o, const char *name)
{
	struct pipe_opts w = with_dirs(o);
	struct vp_err err = { 0, "" };

	return pipeline_model(p, &w, name, &err) ? cli_error(&err) : 0;
}

int cli_pipeline_choose(struct pipeline *p, const struct pipe_opts *o, const struct platform *plat)
{
	struct pipe_opts w = with_dirs(o);
	struct vp_err err = { 0, "" };

	return pipeline_choose(p, &w, plat, &err) ? cli_error(&err) : 0;
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

int cli_pipeline_open(struct pipeline *p, const struct pipe_opts *o, bool collect)
{
	struct pipe_opts w = with_dirs(o);
	struct vp_err err = { 0, "" };
	int rc;

	if (pipeline_open(p, &w, &err))
		return cli_error(&err);
	if (collect && (rc = pipe_wait_vms(&w, &p->plat, true)))
		return rc;
	if (collect && pipeline_collect(p, &w, &err))
		return cli_error(&err);
	return 0;
}
