/* calib.c - the machine calibration file: writing, loading, checking */
#include "calib/calib.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/jsonread.h"

static const char *const key_names[CAL_N] = {
	[CAL_LAT_LOCAL_NS] = "lat_local_ns",
	[CAL_LAT_REMOTE_NS] = "lat_remote_ns",
	[CAL_PEAK_BW_GBS] = "peak_bw_gbs",
	[CAL_REMOTE_BW_GBS] = "remote_bw_gbs",
	[CAL_LAT_C2C_LOCAL_NS] = "lat_c2c_local_ns",
	[CAL_LAT_C2C_REMOTE_NS] = "lat_c2c_remote_ns",
	[CAL_QUEUE_DEPTH] = "queue_depth",
	[CAL_LAT_LOADED_NS] = "lat_loaded_ns",
	[CAL_BW_KNEE_GBS] = "bw_knee_gbs",
	[CAL_LAT_L1_NS] = "lat_l1_ns",
	[CAL_LAT_L2_NS] = "lat_l2_ns",
	[CAL_LAT_LLC_NS] = "lat_llc_ns",
	[CAL_MIGRATE_GBS] = "migrate_gbs",
};

static const char *const quality_names[CALQ_N] = {
	[CALQ_UNMEASURED] = "unmeasured",
	[CALQ_UNCHECKED] = "unchecked",
	[CALQ_GOOD] = "good",
	[CALQ_NOISY] = "noisy",
	[CALQ_IMPLAUSIBLE] = "implausible",
};

const char *calib_quality_name(enum calib_quality q)
{
	return (unsigned)q < CALQ_N ? quality_names[q] : NULL;
}

void calib_init(struct calib *c)
{
	int k;

	memset(c, 0, sizeof(*c));
	c->version = CALIB_VERSION;
	for (k = 0; k < CAL_N; k++)
		calib_set(c, (enum calib_key)k, NAN, "not measured");
}

void calib_release(struct calib *c)
{
	if (!c)
		return;
	free(c->node_ids);
	free(c->lat_ns);
	free(c->bw_gbs);
	free(c->peak_bw_node_gbs);
	free(c->loaded);
	memset(c, 0, sizeof(*c));
}

void calib_set_nodes(struct calib *c, int n, const int *node_ids)
{
	int i;

	free(c->node_ids);
	free(c->lat_ns);
	free(c->bw_gbs);
	free(c->peak_bw_node_gbs);
	c->n_nodes = n;
	c->node_ids = xcalloc((size_t)n + 1, sizeof(int));
	c->lat_ns = xcalloc((size_t)n * (size_t)n + 1, sizeof(double));
	c->bw_gbs = xcalloc((size_t)n * (size_t)n + 1, sizeof(double));
	c->peak_bw_node_gbs = xcalloc((size_t)n + 1, sizeof(double));
	for (i = 0; i < n; i++) {
		c->node_ids[i] = node_ids ? node_ids[i] : i;
		c->peak_bw_node_gbs[i] = NAN;
	}
	for (i = 0; i < n * n; i++)
		c->lat_ns[i] = c->bw_gbs[i] = NAN;
}

void calib_set(struct calib *c, enum calib_key k, double v, const char *reason)
{
	if ((unsigned)k >= CAL_N)
		return;
	c->val[k] = v;
	c->quality[k] = isnan(v) ? CALQ_UNMEASURED : CALQ_GOOD;
	utf8_copy(c->reason[k], sizeof(c->reason[k]),
		  isnan(v) ? (reason && *reason ? reason : "not measured") : "");
}

const char *calib_key_name(enum calib_key k)
{
	return (unsigned)k < CAL_N ? key_names[k] : NULL;
}

int calib_key_lookup(const char *name)
{
	int k;

	if (!strncmp(name, "cal.", 4))
		name += 4;
	for (k = 0; k < CAL_N; k++)
		if (!strcmp(key_names[k], name))
			return k;
	return -1;
}

double calib_value(const struct calib *c, const char *name, const char **reason)
{
	int k = calib_key_lookup(name);

	if (k < 0) {
		if (reason)
			*reason = "no such calibration value";
		return NAN;
	}
	if (reason)
		*reason = c->reason[k];
	return c->val[k];
}

void calib_machine_format(const struct calib_machine *m, struct sbuf *out)
{
	sbuf_addf(out, "%s %d/%d '%s', %d CPU%s, %d node%s, %d package%s, LLC %" PRIu64 " KiB x%d",
		  m->vendor, m->family, m->model, m->model_name, m->n_cpus,
		  m->n_cpus == 1 ? "" : "s", m->n_nodes, m->n_nodes == 1 ? "" : "s",
		  m->n_packages, m->n_packages == 1 ? "" : "s", m->llc_bytes / 1024, m->n_llc);
}

void calib_format(const struct calib *c, struct sbuf *out)
{
	struct jw w;
	int k, i;

	jw_init(&w, out, true);
	jw_obj_begin(&w);
	jw_kstr(&w, "format", CALIB_FORMAT);
	jw_kint(&w, "version", CALIB_VERSION);
	jw_kstr(&w, "created", c->created);
	jw_kstr(&w, "tool", c->tool);
	jw_key(&w, "machine");
	jw_obj_begin(&w);
	jw_kstr(&w, "vendor", c->machine.vendor);
	jw_kint(&w, "family", c->machine.family);
	jw_kint(&w, "model", c->machine.model);
	jw_kstr(&w, "model_name", c->machine.model_name);
	jw_kint(&w, "cpus", c->machine.n_cpus);
	jw_kint(&w, "nodes", c->machine.n_nodes);
	jw_kint(&w, "packages", c->machine.n_packages);
	jw_kuint(&w, "llc_bytes", c->machine.llc_bytes);
	jw_kint(&w, "llc_count", c->machine.n_llc);
	jw_obj_end(&w);
	jw_key(&w, "values");
	jw_obj_begin(&w);
	for (k = 0; k < CAL_N; k++)
		jw_kdouble(&w, key_names[k], c->val[k]);
	jw_obj_end(&w);
	jw_key(&w, "reasons");
	jw_obj_begin(&w);
	for (k = 0; k < CAL_N; k++)
		if (isnan(c->val[k]))
			jw_kstr(&w, key_names[k], c->reason[k]);
	jw_obj_end(&w);
	jw_key(&w, "quality");
	jw_obj_begin(&w);
	for (k = 0; k < CAL_N; k++)
		jw_kstr(&w, key_names[k], quality_names[c->quality[k]]);
	jw_obj_end(&w);
	if (c->forced) {
		struct calib_checks chk;
		size_t v;

		jw_kbool(&w, "forced", true);
		calib_check(c, &chk);
		jw_key(&w, "failed_checks");
		jw_arr_begin(&w);
		for (v = 0; v < chk.n && v < CALIB_VIOLATION_MAX; v++)
			jw_str(&w, chk.v[v].why);
		jw_arr_end(&w);
	}
	jw_key(&w, "nodes");
	jw_arr_begin(&w);
	for (i = 0; i < c->n_nodes; i++)
		jw_int(&w, c->node_ids[i]);
	jw_arr_end(&w);
	jw_kmatrix(&w, "lat_ns", c->lat_ns, c->n_nodes, c->n_nodes);
	jw_kmatrix(&w, "bw_gbs", c->bw_gbs, c->n_nodes, c->n_nodes);
	jw_key(&w, "peak_bw_node_gbs");
	jw_arr_begin(&w);
	for (i = 0; i < c->n_nodes; i++)
		jw_double(&w, c->peak_bw_node_gbs[i]);
	jw_arr_end(&w);
	jw_key(&w, "loaded_latency");
	jw_arr_begin(&w);
	for (i = 0; i < (int)c->n_loaded; i++) {
		jw_obj_begin(&w);
		jw_kint(&w, "threads", c->loaded[i].threads);
		jw_kdouble(&w, "bw_gbs", c->loaded[i].bw_gbs);
		jw_kdouble(&w, "lat_ns", c->loaded[i].lat_ns);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(out, '\n');
}

int calib_save(const struct calib *c, const char *path, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = NULL;
	int ret = 0;

	calib_format(c, &sb);
	unlink(tmp);		/* a leftover (or a planted link): created anew below */
	{
		int fd = vp_open_output(tmp, true, 0644, err);

		if (fd < 0) {
			ret = fd;
			goto out;
		}
		f = fdopen(fd, "w");
		if (!f) {
			ret = vp_err_errno(err, errno, "cannot create '%s'", tmp);
			close(fd);
			goto out;
		}
	}
	if (fwrite(sb.buf, 1, sb.len, f) != sb.len || fflush(f) || fsync(fileno(f))) {
		ret = vp_err_errno(err, errno, "cannot write '%s'", tmp);
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		ret = vp_err_errno(err, errno, "cannot write '%s'", tmp);
		goto out;
	}
	f = NULL;
	if (rename(tmp, path))
		ret = vp_err_errno(err, errno, "cannot rename '%s' to '%s'", tmp, path);
out:
	if (f)
		fclose(f);
	if (ret)
		unlink(tmp);
	free(tmp);
	sbuf_release(&sb);
	return ret;
}

/* Field access with messages that point at the offending value. */
struct rd {
	const char *name;
	struct vp_err *err;
};

static int rd_bad(struct rd *r, const struct jv *at, const char *fmt, const char *field,
		  const char *detail)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, field, detail);
	return vp_err_set(r->err, VP_EFORMAT, "%s:%d:%d: %s", r->name, at->line, at->col, msg);
}

static const struct jv *rd_field(struct rd *r, const struct jv *obj, const char *key,
				 enum jv_type want, int *ret)
{
	const struct jv *v = jv_get(obj, key);

	if (!v) {
		*ret = rd_bad(r, obj, "missing field '%s'%s", key, "");
		return NULL;
	}
	if (v->type != want) {
		*ret = rd_bad(r, v, "field '%s' should be %s", key,
			      want == JV_NUM ? "a number" : want == JV_STR ? "a string" :
			      want == JV_OBJ ? "an object" : "an array");
		return NULL;
	}
	return v;
}

static int rd_str(struct rd *r, const struct jv *obj, const char *key, char *buf, size_t size)
{
	int ret = 0;
	const struct jv *v = rd_field(r, obj, key, JV_STR, &ret);

	if (v)
		utf8_copy(buf, size, v->str);
	return ret;
}

static int rd_int(struct rd *r, const struct jv *obj, const char *key, long long lo,
		  long long hi, long long *out)
{
	int ret = 0;
	const struct jv *v = rd_field(r, obj, key, JV_NUM, &ret);

	if (!v)
		return ret;
	if (v->num != floor(v->num) || v->num < (double)lo || v->num > (double)hi)
		return rd_bad(r, v, "field '%s' is out of range%s", key, "");
	*out = (long long)v->num;
	return 0;
}

/* A number, or null for NaN. */
static int rd_num(struct rd *r, const struct jv *v, const char *what, double *out)
{
	if (v->type == JV_NULL) {
		*out = NAN;
		return 0;
	}
	if (v->type != JV_NUM)
		return rd_bad(r, v, "%s should be a number or null%s", what, "");
	*out = v->num;
	return 0;
}

static int rd_matrix(struct rd *r, const struct jv *root, const char *key, int n, double *m)
{
	int ret = 0, i, j;
	const struct jv *a = rd_field(r, root, key, JV_ARR, &ret);

	if (!a)
		return ret;
	if ((int)a->n != n)
		return rd_bad(r, a, "'%s' should have one row per node%s", key, "");
	for (i = 0; i < n; i++) {
		const struct jv *row = &a->items[i];

		if (row->type != JV_ARR || (int)row->n != n)
			return rd_bad(r, row, "a row of '%s' should be an array of one number per node%s",
				      key, "");
		for (j = 0; j < n; j++)
			if ((ret = rd_num(r, &row->items[j], key, &m[i * n + j])))
				return ret;
	}
	return 0;
}

static int calib_from_json(struct calib *c, const struct jv *root, struct rd *r)
{
	const struct jv *v, *mach, *vals, *reasons, *nodes, *arr;
	long long x;
	int ret = 0, k;
	size_t i;

	if (root->type != JV_OBJ)
		return rd_bad(r, root, "a calibration file is a JSON object%s%s", "", "");
	if (!(v = rd_field(r, root, "format", JV_STR, &ret)))
		return ret;
	if (strcmp(v->str, CALIB_FORMAT))
		return rd_bad(r, v, "format is '%s', not '" CALIB_FORMAT "'%s", v->str, "");
	if ((ret = rd_int(r, root, "version", 1, 1000000, &x)))
		return ret;
	if (x > CALIB_VERSION) {
		v = jv_get(root, "version");
		return vp_err_set(r->err, VP_EFORMAT,
				  "%s:%d:%d: version %lld is newer than this vmmprof reads (%d)",
				  r->name, v->line, v->col, x, CALIB_VERSION);
	}
	c->version = (int)x;
	if ((ret = rd_str(r, root, "created", c->created, sizeof(c->created))) ||
	    (ret = rd_str(r, root, "tool", c->tool, sizeof(c->tool))))
		return ret;
	if (!(mach = rd_field(r, root, "machine", JV_OBJ, &ret)))
		return ret;
	if ((ret = rd_str(r, mach, "vendor", c->machine.vendor, sizeof(c->machine.vendor))) ||
	    (ret = rd_str(r, mach, "model_name", c->machine.model_name,
			  sizeof(c->machine.model_name))))
		return ret;
	if ((ret = rd_int(r, mach, "family", 0, 1 << 20, &x)))
		return ret;
	c->machine.family = (int)x;
	if ((ret = rd_int(r, mach, "model", 0, 1 << 20, &x)))
		return ret;
	c->machine.model = (int)x;
	if ((ret = rd_int(r, mach, "cpus", 1, 1 << 20, &x)))
		return ret;
	c->machine.n_cpus = (int)x;
	if ((ret = rd_int(r, mach, "nodes", 1, 1 << 16, &x)))
		return ret;
	c->machine.n_nodes = (int)x;
	if ((ret = rd_int(r, mach, "packages", 1, 1 << 16, &x)))
		return ret;
	c->machine.n_packages = (int)x;
	if ((ret = rd_int(r, mach, "llc_bytes", 0, (long long)1 << 50, &x)))
		return ret;
	c->machine.llc_bytes = (uint64_t)x;
	if ((ret = rd_int(r, mach, "llc_count", 0, 1 << 16, &x)))
		return ret;
	c->machine.n_llc = (int)x;

	if (!(vals = rd_field(r, root, "values", JV_OBJ, &ret)))
		return ret;
	reasons = jv_get(root, "reasons");
	if (reasons && reasons->type != JV_OBJ)
		return rd_bad(r, reasons, "field '%s' should be %s", "reasons", "an object");
	for (k = 0; k < CAL_N; k++) {
		const struct jv *rv;
		double d;

		v = jv_get(vals, key_names[k]);
		if (!v) {   /* an older file may lack newer keys */
			calib_set(c, (enum calib_key)k, NAN, "not in the calibration file");
			continue;
		}
		if ((ret = rd_num(r, v, key_names[k], &d)))
			return ret;
		rv = jv_get(reasons, key_names[k]);
		calib_set(c, (enum calib_key)k, d,
			  rv && rv->type == JV_STR ? rv->str : "not measurable when calibrated");
	}

	if ((v = jv_get(root, "quality"))) {
		if (v->type != JV_OBJ)
			return rd_bad(r, v, "field '%s' should be %s", "quality", "an object");
		for (k = 0; k < CAL_N; k++) {
			const struct jv *q = jv_get(v, key_names[k]);
			int qi;

			if (!q)
				continue;
			for (qi = 0; qi < CALQ_N; qi++)
				if (q->type == JV_STR && !strcmp(q->str, quality_names[qi]))
					break;
			if (qi == CALQ_N)
				return rd_bad(r, q, "quality of '%s' should be one of unmeasured, "
					      "unchecked, good, noisy, implausible%s", key_names[k], "");
			/* a value taken out as implausible (calib_quarantine()) is NaN and
			 * stays implausible written back, as in a recording's meta
			 * (fuzz_calib found it read back as unmeasured) */
			if (!isnan(c->val[k]) || qi == CALQ_IMPLAUSIBLE)
				c->quality[k] = (enum calib_quality)qi;
		}
	} else {   /* written before values carried a quality */
		for (k = 0; k < CAL_N; k++)
			if (!isnan(c->val[k]))
				c->quality[k] = CALQ_UNCHECKED;
	}
	if ((v = jv_get(root, "forced"))) {
		if (v->type != JV_BOOL)
			return rd_bad(r, v, "field '%s' should be %s", "forced", "true or false");
		c->forced = v->b;
	}

	if (!(nodes = rd_field(r, root, "nodes", JV_ARR, &ret)))
		return ret;
	if (nodes->n < 1 || nodes->n > 4096)
		return rd_bad(r, nodes, "'%s' should list 1 to 4096 nodes%s", "nodes", "");
	calib_set_nodes(c, (int)nodes->n, NULL);
	for (i = 0; i < nodes->n; i++) {
		if (nodes->items[i].type != JV_NUM || nodes->items[i].num < 0 ||
		    nodes->items[i].num != floor(nodes->items[i].num) || nodes->items[i].num > 65535)
			return rd_bad(r, &nodes->items[i], "a node number should be a non-negative integer%s%s",
				      "", "");
		c->node_ids[i] = (int)nodes->items[i].num;
	}
	if ((ret = rd_matrix(r, root, "lat_ns", c->n_nodes, c->lat_ns)) ||
	    (ret = rd_matrix(r, root, "bw_gbs", c->n_nodes, c->bw_gbs)))
		return ret;
	if (!(arr = rd_field(r, root, "peak_bw_node_gbs", JV_ARR, &ret)))
		return ret;
	if ((int)arr->n != c->n_nodes)
		return rd_bad(r, arr, "'%s' should have one number per node%s", "peak_bw_node_gbs", "");
	for (i = 0; i < arr->n; i++)
		if ((ret = rd_num(r, &arr->items[i], "peak_bw_node_gbs", &c->peak_bw_node_gbs[i])))
			return ret;
	if (!(arr = rd_field(r, root, "loaded_latency", JV_ARR, &ret)))
		return ret;
	c->loaded = xcalloc(arr->n + 1, sizeof(*c->loaded));
	for (i = 0; i < arr->n; i++) {
		const struct jv *pt = &arr->items[i];

		if (pt->type != JV_OBJ)
			return rd_bad(r, pt, "a loaded-latency point should be an object%s%s", "", "");
		if ((ret = rd_int(r, pt, "threads", 0, 1 << 20, &x)))
			return ret;
		c->loaded[i].threads = (int)x;
		if (!(v = jv_get(pt, "bw_gbs")))
			return rd_bad(r, pt, "missing field '%s'%s", "bw_gbs", "");
		if ((ret = rd_num(r, v, "bw_gbs", &c->loaded[i].bw_gbs)))
			return ret;
		if (!(v = jv_get(pt, "lat_ns")))
			return rd_bad(r, pt, "missing field '%s'%s", "lat_ns", "");
		if ((ret = rd_num(r, v, "lat_ns", &c->loaded[i].lat_ns)))
			return ret;
		c->n_loaded++;
	}
	return 0;
}

int calib_parse(struct calib *c, const char *text, size_t len, const char *name,
		struct vp_err *err)
{
	struct rd r = { name ? name : "<calibration>", err };
	struct jv root;
	int ret;

	calib_init(c);
	ret = jv_parse(&root, text, len, r.name, err);
	if (ret)
		return ret;
	ret = calib_from_json(c, &root, &r);
	jv_release(&root);
	return ret;
}

int calib_load(struct calib *c, const char *path, struct vp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	calib_init(c);
	ret = vp_read_regular(path, CALIB_MAX_BYTES, &text, &len, err);
	if (!ret)
		ret = calib_parse(c, text, len, path, err);
	free(text);
	return ret;
}

void calib_machine_of(const struct platform *p, struct calib_machine *m)
{
	const struct topology *tp = &p->topo;
	int j;

	memset(m, 0, sizeof(*m));
	snprintf(m->vendor, sizeof(m->vendor), "%s", p->cpu.known ? p->cpu.vendor : "unknown");
	snprintf(m->model_name, sizeof(m->model_name), "%s",
		 p->cpu.known ? sbuf_str(&p->cpu.model_name) : "unknown");
	m->family = p->cpu.family;
	m->model = p->cpu.model;
	m->n_cpus = tp->n_cpus;
	for (j = 0; j < tp->n_nodes; j++)
		if (!tp->nodes[j].mem_known || tp->nodes[j].mem_total > 0)
			m->n_nodes++;
	if (m->n_nodes == 0)
		m->n_nodes = 1;
	m->n_packages = tp->n_packages > 0 ? tp->n_packages : 1;
	m->n_llc = tp->n_llc > 0 ? tp->n_llc : 1;
	for (j = 0; j < tp->n_llc; j++)
		if (tp->llc[j].size > m->llc_bytes)
			m->llc_bytes = tp->llc[j].size;
}

int calib_match(const struct calib *c, const struct calib_machine *here, struct vp_err *err)
{
	const struct calib_machine *m = &c->machine;
	const char *pre = "calibration was made on another machine";

	if (strcmp(m->vendor, here->vendor) || m->family != here->family ||
	    m->model != here->model || strcmp(m->model_name, here->model_name))
		return vp_err_set(err, VP_EINVAL, "%s: CPU '%s' %d/%d there, '%s' %d/%d here", pre,
				  m->model_name, m->family, m->model, here->model_name,
				  here->family, here->model);
	if (m->n_cpus != here->n_cpus)
		return vp_err_set(err, VP_EINVAL, "%s: %d CPUs there, %d here", pre, m->n_cpus,
				  here->n_cpus);
	if (m->n_nodes != here->n_nodes)
		return vp_err_set(err, VP_EINVAL, "%s: %d NUMA nodes there, %d here", pre,
				  m->n_nodes, here->n_nodes);
	if (m->n_packages != here->n_packages)
		return vp_err_set(err, VP_EINVAL, "%s: %d packages there, %d here", pre,
				  m->n_packages, here->n_packages);
	if (m->llc_bytes != here->llc_bytes || m->n_llc != here->n_llc)
		return vp_err_set(err, VP_EINVAL, "%s: LLC %" PRIu64 " KiB x%d there, %" PRIu64
				  " KiB x%d here", pre, m->llc_bytes / 1024, m->n_llc,
				  here->llc_bytes / 1024, here->n_llc);
	return 0;
}

/* Checks. */

static void violate(struct calib_checks *out, enum calib_key key, enum calib_key other,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void violate(struct calib_checks *out, enum calib_key key, enum calib_key other,
		    const char *fmt, ...)
{
	va_list ap;

	if (out->n < CALIB_VIOLATION_MAX) {
		struct calib_violation *v = &out->v[out->n];

		v->key = key;
		v->other = other;
		va_start(ap, fmt);
		vsnprintf(v->why, sizeof(v->why), fmt, ap);
		va_end(ap);
	}
	out->n++;
}

static double median3(double a, double b, double c)
{
	if (a > b) {
		double t = a;

		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

/*
 * The loaded-latency curve never falls as load grows, after smoothing; its
 * first point is the idle figure, so a point below idle falls too.
 */
static void check_curve(const struct calib *c, struct calib_checks *out)
{
	double *s, top = NAN;
	size_t i, n = c->n_loaded, itop = 0;

	if (n == 0)
		return;
	s = xcalloc(n, sizeof(*s));
	for (i = 0; i < n; i++)
		s[i] = i == 0 || i + 1 == n ? c->loaded[i].lat_ns :
		       median3(c->loaded[i - 1].lat_ns, c->loaded[i].lat_ns, c->loaded[i + 1].lat_ns);
	for (i = 0; i < n; i++) {
		if (!isfinite(s[i]))
			continue;
		if (!isnan(top) && s[i] < top * (1 - CALIB_CHECK_TOL)) {
			violate(out, CAL_LAT_LOADED_NS, CAL_N,
				"the loaded-latency curve falls as load grows: %.1f ns with %d "
				"streaming thread%s at %.2f GB/s, %.1f ns with %d at %.2f GB/s "
				"(3-point running median)", top, c->loaded[itop].threads,
				c->loaded[itop].threads == 1 ? "" : "s", c->loaded[itop].bw_gbs, s[i],
				c->loaded[i].threads, c->loaded[i].bw_gbs);
			break;
		}
		if (isnan(top) || s[i] > top) {
			top = s[i];
			itop = i;
		}
	}
	free(s);
}

static void check_knee(const struct calib *c, struct calib_checks *out)
{
	double knee = c->val[CAL_BW_KNEE_GBS], lo = NAN, hi = NAN, peak = c->val[CAL_PEAK_BW_GBS];
	size_t i;

	if (isnan(knee))
		return;
	for (i = 0; i < c->n_loaded; i++) {
		double b = c->loaded[i].bw_gbs;

		if (c->loaded[i].threads <= 0 || !isfinite(b))
			continue;
		if (isnan(lo) || b < lo)
			lo = b;
		if (isnan(hi) || b > hi)
			hi = b;
	}
	if (isnan(lo))
		violate(out, CAL_BW_KNEE_GBS, CAL_N,
			"bandwidth knee %.2f GB/s with no point of the loaded-latency curve under load",
			knee);
	else if (knee < lo * (1 - CALIB_CHECK_TOL) || knee > hi * (1 + CALIB_CHECK_TOL))
		violate(out, CAL_BW_KNEE_GBS, CAL_N,
			"bandwidth knee %.2f GB/s is outside the range measured under load, "
			"%.2f to %.2f GB/s: the curve does not place it", knee, lo, hi);
	else if (!isnan(peak) && knee > peak * (1 + CALIB_CHECK_TOL))
		violate(out, CAL_BW_KNEE_GBS, CAL_PEAK_BW_GBS,
			"bandwidth knee %.2f GB/s is above the peak bandwidth %.2f GB/s", knee, peak);
}

size_t calib_check(const struct calib *c, struct calib_checks *out)
{
	const double *v = c->val;
	int k, i, j, n = c->n_nodes;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < CAL_N; k++) {
		bool depth = k == CAL_QUEUE_DEPTH;

		if (isnan(v[k]))
			continue;
		if (!isfinite(v[k]) || (depth ? v[k] < 1 : v[k] <= 0))
			violate(out, (enum calib_key)k, CAL_N, "%s is %g: %s", key_names[k], v[k],
				depth ? "a queue holds at least one miss" :
				strstr(key_names[k], "_gbs") ? "a bandwidth is positive" :
				"a latency is positive");
	}
	if (v[CAL_LAT_LOADED_NS] < v[CAL_LAT_LOCAL_NS] * (1 - CALIB_CHECK_TOL))
		violate(out, CAL_LAT_LOADED_NS, CAL_LAT_LOCAL_NS,
			"loaded latency %.1f ns is below idle latency %.1f ns",
			v[CAL_LAT_LOADED_NS], v[CAL_LAT_LOCAL_NS]);
	if (v[CAL_LAT_REMOTE_NS] < v[CAL_LAT_LOCAL_NS] * (1 - CALIB_CHECK_TOL))
		violate(out, CAL_LAT_REMOTE_NS, CAL_LAT_LOCAL_NS,
			"remote latency %.1f ns is below local latency %.1f ns",
			v[CAL_LAT_REMOTE_NS], v[CAL_LAT_LOCAL_NS]);
	for (i = 0; i < n && c->lat_ns; i++)
		for (j = 0; j < n; j++) {
			double loc = c->lat_ns[i * n + i], rem = c->lat_ns[i * n + j];

			if (i != j && rem < loc * (1 - CALIB_CHECK_TOL))
				violate(out, CAL_LAT_REMOTE_NS, CAL_LAT_LOCAL_NS,
					"latency from node %d to memory on node %d, %.1f ns, is below "
					"its local latency %.1f ns", c->node_ids[i], c->node_ids[j],
					rem, loc);
		}
	if (v[CAL_REMOTE_BW_GBS] > v[CAL_PEAK_BW_GBS] * (1 + CALIB_CHECK_TOL))
		violate(out, CAL_REMOTE_BW_GBS, CAL_PEAK_BW_GBS,
			"remote bandwidth %.2f GB/s is above the peak local bandwidth %.2f GB/s",
			v[CAL_REMOTE_BW_GBS], v[CAL_PEAK_BW_GBS]);
	if (v[CAL_LAT_C2C_LOCAL_NS] >= v[CAL_LAT_LOCAL_NS])
		violate(out, CAL_LAT_C2C_LOCAL_NS, CAL_LAT_LOCAL_NS,
			"core-to-core latency %.1f ns is not below the DRAM latency %.1f ns "
			"(a cache line between cores does not go through memory)",
			v[CAL_LAT_C2C_LOCAL_NS], v[CAL_LAT_LOCAL_NS]);
	if (v[CAL_LAT_C2C_REMOTE_NS] >= v[CAL_LAT_REMOTE_NS])
		violate(out, CAL_LAT_C2C_REMOTE_NS, CAL_LAT_REMOTE_NS,
			"cross-package core-to-core latency %.1f ns is not below the remote DRAM "
			"latency %.1f ns", v[CAL_LAT_C2C_REMOTE_NS], v[CAL_LAT_REMOTE_NS]);
	check_knee(c, out);
	check_curve(c, out);
	return out->n;
}

bool calib_checks_name(const struct calib_checks *chk, enum calib_key k)
{
	size_t i;

	for (i = 0; i < chk->n && i < CALIB_VIOLATION_MAX; i++)
		if (chk->v[i].key == k)
			return true;
	return false;
}

int calib_quarantine(struct calib *c, const struct calib_checks *chk)
{
	size_t i;
	int n = 0;

	for (i = 0; i < chk->n && i < CALIB_VIOLATION_MAX; i++) {
		enum calib_key k = chk->v[i].key;
		char why[CALIB_REASON_MAX];

		if (isnan(c->val[k]))
			continue;   /* taken out by an earlier violation */
		snprintf(why, sizeof(why), "implausible: %s", chk->v[i].why);
		calib_set(c, k, NAN, why);
		c->quality[k] = CALQ_IMPLAUSIBLE;
		n++;
	}
	return n;
}
