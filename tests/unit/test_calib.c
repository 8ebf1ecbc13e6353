/* test_calib.c - unit tests for the JSON reader and the calibration file */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "bench/calib.h"
#include "util/alloc.h"
#include "util/err.h"
#include "util/jsonread.h"

static const struct {
	int line;
	const char *in;
	int ok;
	const char *msg;   /* expected in the message when !ok */
} jv_rows[] = {
	{ __LINE__, "{\"a\": [1, 2.5e3, -0.5], \"b\": null}", 1, NULL },
	{ __LINE__, "\"\\u00e9\\ud83d\\ude00\"", 1, NULL },
	{ __LINE__, "  true ", 1, NULL },
	{ __LINE__, "{\"a\": 1,}", 0, "t:1:9: expected a member name" },
	{ __LINE__, "{\"a\" 1}", 0, "t:1:6: expected ':'" },
	{ __LINE__, "[1,\n 2\n 3]", 0, "t:3:2: expected ',' or ']'" },
	{ __LINE__, "{\"a\": [1, 2", 0, "unexpected end of input" },
	{ __LINE__, "\"abc", 0, "unterminated string" },
	{ __LINE__, "01", 0, "t:1:2: unexpected text after the value" },
	{ __LINE__, "1.", 0, "bad number" },
	{ __LINE__, "nul", 0, "expected a value" },
	{ __LINE__, "\"\\ud800\"", 0, "unpaired surrogate" },
	{ __LINE__, "\"a\tb\"", 0, "control character" },
	{ __LINE__, "", 0, "unexpected end of input" },
};

TEST(jsonread_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(jv_rows); i++) {
		struct jv v;
		struct vp_err err = { 0, "" };
		int ret = jv_parse(&v, jv_rows[i].in, strlen(jv_rows[i].in), "t", &err);

		if (jv_rows[i].ok) {
			CHECK_INT_AT(jv_rows[i].line, ret, 0);
			if (!ret)
				jv_release(&v);
			continue;
		}
		CHECK_INT_AT(jv_rows[i].line, ret, VP_EPARSE);
		CHECK_AT(jv_rows[i].line, strstr(err.msg, jv_rows[i].msg),
			 "message '%s' lacks '%s'", err.msg, jv_rows[i].msg);
	}
}

TEST(jsonread_values)
{
	struct jv v;
	struct vp_err err = { 0, "" };
	const char *t = "{\"n\": 2.5e3, \"s\": \"\\u00e9x\", \"a\": [true, null]}";
	const struct jv *x;

	CHECK_INT(jv_parse(&v, t, strlen(t), "t", &err), 0);
	x = jv_get(&v, "n");
	CHECK(x && x->type == JV_NUM);
	CHECK_NEAR(x ? x->num : 0, 2500.0, 0);
	x = jv_get(&v, "s");
	CHECK_STR(x ? x->str : NULL, "\xc3\xa9x");
	x = jv_get(&v, "a");
	CHECK(x && x->type == JV_ARR && x->n == 2 && x->items[0].b && x->items[1].type == JV_NULL);
	CHECK(jv_get(&v, "zz") == NULL);
	jv_release(&v);
}

static void sample(struct calib *c)
{
	int ids[2] = { 0, 1 };

	calib_init(c);
	snprintf(c->created, sizeof(c->created), "2026-11-30T00:00:00Z");
	snprintf(c->tool, sizeof(c->tool), "0.test");
	snprintf(c->machine.vendor, sizeof(c->machine.vendor), "GenuineIntel");
	snprintf(c->machine.model_name, sizeof(c->machine.model_name), "Xeon \"Gold\" 6140");
	c->machine.family = 6;
	c->machine.model = 85;
	c->machine.n_cpus = 72;
	c->machine.n_nodes = 2;
	c->machine.n_packages = 2;
	c->machine.llc_bytes = 25344u * 1024;
	c->machine.n_llc = 2;
	calib_set_nodes(c, 2, ids);
	/* the Skylake Gold 6140 figures of REFERENCES.md section 5 */
	c->lat_ns[0] = 89; c->lat_ns[1] = 143; c->lat_ns[2] = 143; c->lat_ns[3] = 89;
	c->bw_gbs[0] = 105; c->bw_gbs[1] = 34; c->bw_gbs[2] = 34; c->bw_gbs[3] = NAN;
	c->peak_bw_node_gbs[0] = 105;
	c->peak_bw_node_gbs[1] = 105;
	calib_set(c, CAL_LAT_LOCAL_NS, 89, NULL);
	calib_set(c, CAL_LAT_REMOTE_NS, 143, NULL);
	calib_set(c, CAL_PEAK_BW_GBS, 105, NULL);
	calib_set(c, CAL_LAT_C2C_LOCAL_NS, 50, NULL);
	calib_set(c, CAL_LAT_C2C_REMOTE_NS, 114, NULL);
	calib_set(c, CAL_QUEUE_DEPTH, NAN, "knee not reached by k = 32");
	c->loaded = xcalloc(2, sizeof(*c->loaded));
	c->loaded[0] = (struct calib_point){ 0, 0.0, 89 };
	c->loaded[1] = (struct calib_point){ 8, 80.5, 160.25 };
	c->n_loaded = 2;
}

TEST(calib_round_trip)
{
	struct calib a, b;
	struct sbuf sb = SBUF_INIT;
	struct vp_err err = { 0, "" };
	const char *why = NULL;
	int k;

	sample(&a);
	calib_format(&a, &sb);
	CHECK_INT(calib_parse(&b, sb.buf, sb.len, "rt", &err), 0);
	CHECK_STR(b.machine.model_name, "Xeon \"Gold\" 6140");
	CHECK_INT(b.machine.n_cpus, 72);
	CHECK_U64(b.machine.llc_bytes, 25344u * 1024);
	for (k = 0; k < CAL_N; k++) {
		CHECK_NEAR_AT(__LINE__, b.val[k], a.val[k], 0);
		CHECK_STR(b.reason[k], a.reason[k]);
	}
	CHECK_INT(b.n_nodes, 2);
	CHECK_NEAR(b.lat_ns[1], 143, 0);
	CHECK_NAN(b.bw_gbs[3]);
	CHECK_INT((int)b.n_loaded, 2);
	CHECK_NEAR(b.loaded[1].lat_ns, 160.25, 0);
	CHECK_INT(b.loaded[1].threads, 8);
	CHECK_NEAR(calib_value(&b, "cal.lat_remote_ns", &why), 143, 0);
	CHECK_STR(why, "");
	CHECK_NAN(calib_value(&b, "queue_depth", &why));
	CHECK_STR(why, "knee not reached by k = 32");
	CHECK_NAN(calib_value(&b, "cal.no_such", &why));
	CHECK_STR(why, "no such calibration value");
	CHECK_INT(calib_match(&b, &a.machine, &err), 0);
	calib_release(&a);
	calib_release(&b);
	sbuf_release(&sb);
}

TEST(calib_save_load)
{
	struct calib a, b;
	struct vp_err err = { 0, "" };
	char path[] = "/tmp/vp-calib-XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	sample(&a);
	CHECK_INT(calib_save(&a, path, &err), 0);
	CHECK_INT(calib_load(&b, path, &err), 0);
	CHECK_NEAR(b.val[CAL_LAT_C2C_REMOTE_NS], 114, 0);
	calib_release(&b);
	unlink(path);
	CHECK(calib_load(&b, path, &err) < 0);
	CHECK_CONTAINS(err.msg, path);
	calib_release(&a);
	calib_release(&b);
}

TEST(calib_foreign_machine)
{
	struct calib a;
	struct calib_machine here;
	struct vp_err err = { 0, "" };

	sample(&a);
	here = a.machine;
	here.n_cpus = 2;
	CHECK_INT(calib_match(&a, &here, &err), VP_EINVAL);
	CHECK_CONTAINS(err.msg, "another machine: 72 CPUs there, 2 here");
	here = a.machine;
	here.model = 106;
	CHECK_INT(calib_match(&a, &here, &err), VP_EINVAL);
	CHECK_CONTAINS(err.msg, "6/85 there");
	here = a.machine;
	here.n_nodes = 1;
	CHECK_INT(calib_match(&a, &here, &err), VP_EINVAL);
	CHECK_CONTAINS(err.msg, "2 NUMA nodes there, 1 here");
	calib_release(&a);
}

/* Edits of a valid file: each replaces one substring, and must be refused. */
static const struct {
	int line;
	const char *from, *to;
	const char *msg;
} bad_rows[] = {
	{ __LINE__, "\"vmmprof-calibration\"", "\"vmmprof-recording\"", "rt:2:13: format is 'vmmprof-recording'" },
	{ __LINE__, "\"version\": 1", "\"version\": 99", "rt:3:14: version 99 is newer" },
	{ __LINE__, "\"version\": 1", "\"version\": \"1\"", "rt:3:14: field 'version' should be a number" },
	{ __LINE__, "\"cpus\": 72", "\"cpus\": -3", "field 'cpus' is out of range" },
	{ __LINE__, "\"cpus\": 72,", "", "missing field 'cpus'" },
	{ __LINE__, "\"lat_local_ns\": 89", "\"lat_local_ns\": \"fast\"", "lat_local_ns should be a number or null" },
	{ __LINE__, "[\n    0,\n    1\n  ]", "[0]", "'lat_ns' should have one row per node" },
	{ __LINE__, "\"threads\": 8", "\"threads\": 8.5", "field 'threads' is out of range" },
	{ __LINE__, "\"loaded_latency\"", "\"loaded_lat\"", "missing field 'loaded_latency'" },
};

static char *replace(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);

	if (!at)
		return NULL;
	return xasprintf("%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
}

TEST(calib_rejects_corrupt)
{
	struct calib a, b;
	struct sbuf sb = SBUF_INIT;
	struct vp_err err = { 0, "" };
	size_t i, cut;

	sample(&a);
	calib_format(&a, &sb);
	for (i = 0; i < VP_ARRAY_SIZE(bad_rows); i++) {
		char *t = replace(sb.buf, bad_rows[i].from, bad_rows[i].to);

		CHECK_AT(bad_rows[i].line, t, "'%s' not in the sample file", bad_rows[i].from);
		if (!t)
			continue;
		CHECK_AT(bad_rows[i].line, calib_parse(&b, t, strlen(t), "rt", &err) < 0,
			 "accepted an edited file");
		CHECK_AT(bad_rows[i].line, strstr(err.msg, bad_rows[i].msg),
			 "message '%s' lacks '%s'", err.msg, bad_rows[i].msg);
		calib_release(&b);
		free(t);
	}
	/* every truncation of a valid file is refused */
	for (cut = 0; cut + 2 < sb.len; cut += 7) {
		CHECK_AT(__LINE__, calib_parse(&b, sb.buf, cut, "rt", &err) == VP_EPARSE,
			 "truncation at %zu accepted", cut);
		calib_release(&b);
	}
	CHECK_CONTAINS(err.msg, "unexpected end of input");
	/* JSON that is not a calibration at all */
	CHECK(calib_parse(&b, "[1,2]", 5, "rt", &err) == VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "rt:1:1: a calibration file is a JSON object");
	calib_release(&b);
	calib_release(&a);
	sbuf_release(&sb);
}
