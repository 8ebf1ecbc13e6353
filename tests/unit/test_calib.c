/* test_calib.c - unit tests for the JSON reader and the calibration file */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "calib/calib.h"
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

/*
 * Physical checks, table-driven: each row edits the plausible sample (local
 * 89 ns, remote 143 ns, c2c 50/114 ns, peak 105 GB/s, curve 89 ns idle and
 * 160.25 ns at 80.5 GB/s) and says which value must be refused and why, or
 * that none is.  The slack for sampling noise is 5 % (CALIB_CHECK_TOL).
 */
enum edit { E_NONE, E_ISSUE, E_LOADED, E_REMOTE, E_CELL, E_RBW, E_KNEE, E_C2C, E_C2CR,
	    E_CURVE, E_CURVE_JITTER, E_NEG, E_DEPTH, E_LOADED_EQ };

static const struct {
	int line;
	enum edit e;
	double x;
	int key;           /* the key refused, -1 none */
	const char *why;
} check_rows[] = {
	{ __LINE__, E_NONE, 0, -1, NULL },
	/* the issue's calibration: loaded 153.7 ns below idle 216.2 ns */
	{ __LINE__, E_ISSUE, 0, CAL_LAT_LOADED_NS, "loaded latency 153.7 ns is below idle latency 216.2 ns" },
	{ __LINE__, E_LOADED, 80, CAL_LAT_LOADED_NS, "loaded latency 80.0 ns is below idle latency 89.0 ns" },
	{ __LINE__, E_LOADED, 86, -1, NULL },             /* 3.4 % below: noise */
	{ __LINE__, E_LOADED_EQ, 0, -1, NULL },           /* equal to idle: no load effect, fine */
	{ __LINE__, E_REMOTE, 70, CAL_LAT_REMOTE_NS, "remote latency 70.0 ns is below local latency 89.0 ns" },
	{ __LINE__, E_CELL, 60, CAL_LAT_REMOTE_NS, "latency from node 1 to memory on node 0, 60.0 ns, is below its local latency 89.0 ns" },
	{ __LINE__, E_RBW, 150, CAL_REMOTE_BW_GBS, "remote bandwidth 150.00 GB/s is above the peak local bandwidth 105.00 GB/s" },
	/* the issue's knee at 0.25 GB/s: below the one load measured */
	{ __LINE__, E_KNEE, 0.25, CAL_BW_KNEE_GBS, "bandwidth knee 0.25 GB/s is outside the range measured under load, 80.50 to 80.50 GB/s" },
	{ __LINE__, E_KNEE, 80, -1, NULL },
	{ __LINE__, E_KNEE, 200, CAL_BW_KNEE_GBS, "outside the range measured under load" },
	/* the issue's core-to-core 3,229 ns */
	{ __LINE__, E_C2C, 3229, CAL_LAT_C2C_LOCAL_NS, "core-to-core latency 3229.0 ns is not below the DRAM latency 89.0 ns" },
	{ __LINE__, E_C2C, 89, CAL_LAT_C2C_LOCAL_NS, "not below the DRAM latency" },
	{ __LINE__, E_C2CR, 150, CAL_LAT_C2C_REMOTE_NS, "cross-package core-to-core latency 150.0 ns is not below the remote DRAM latency 143.0 ns" },
	/* curve 89, 160, 150, 120, 118: smoothed 89, 150, 150, 120, 118, a fall of 20 % */
	{ __LINE__, E_CURVE, 0, CAL_LAT_LOADED_NS, "the loaded-latency curve falls as load grows: 150.0 ns with 8 streaming threads at 80.50 GB/s, 120.0 ns with 8 at 90.00 GB/s" },
	/* curve 89, 160, 100, 170, 175: one low point, smoothed 89, 100, 160, 170, 175 */
	{ __LINE__, E_CURVE_JITTER, 0, -1, NULL },
	{ __LINE__, E_NEG, -3, CAL_LAT_L1_NS, "lat_l1_ns is -3: a latency is positive" },
	{ __LINE__, E_DEPTH, 0.5, CAL_QUEUE_DEPTH, "queue_depth is 0.5: a queue holds at least one miss" },
};

static void edit(struct calib *c, enum edit e, double x)
{
	struct calib_point p5[5] = { { 0, 0, 89 }, { 8, 80.5, 160 }, { 8, 85, 150 }, { 8, 90, 120 },
				     { 8, 95, 118 } };

	switch (e) {
	case E_NONE:
		break;
	case E_ISSUE:
		calib_set(c, CAL_LAT_LOCAL_NS, 216.2, NULL);
		c->lat_ns[0] = c->lat_ns[3] = 216.2;
		calib_set(c, CAL_LAT_REMOTE_NS, 250, NULL);
		c->lat_ns[1] = c->lat_ns[2] = 250;
		c->loaded[0].lat_ns = 216.2;
		c->loaded[1].lat_ns = 230;
		calib_set(c, CAL_LAT_LOADED_NS, 153.7, NULL);
		break;
	case E_LOADED:
		calib_set(c, CAL_LAT_LOADED_NS, x, NULL);
		c->loaded[1].lat_ns = 95;
		break;
	case E_LOADED_EQ:
		calib_set(c, CAL_LAT_LOADED_NS, 89, NULL);
		break;
	case E_REMOTE:
		calib_set(c, CAL_LAT_REMOTE_NS, x, NULL);
		break;
	case E_CELL:
		c->lat_ns[2] = x;
		break;
	case E_RBW:
		calib_set(c, CAL_REMOTE_BW_GBS, x, NULL);
		break;
	case E_KNEE:
		calib_set(c, CAL_BW_KNEE_GBS, x, NULL);
		break;
	case E_C2C:
		calib_set(c, CAL_LAT_C2C_LOCAL_NS, x, NULL);
		break;
	case E_C2CR:
		calib_set(c, CAL_LAT_C2C_REMOTE_NS, x, NULL);
		break;
	case E_CURVE:
	case E_CURVE_JITTER:
		if (e == E_CURVE_JITTER) {
			p5[2].lat_ns = 100;
			p5[3].lat_ns = 170;
			p5[4].lat_ns = 175;
		}
		free(c->loaded);
		c->loaded = xcalloc(5, sizeof(*c->loaded));
		memcpy(c->loaded, p5, sizeof(p5));
		c->n_loaded = 5;
		break;
	case E_NEG:
		calib_set(c, CAL_LAT_L1_NS, x, NULL);
		break;
	case E_DEPTH:
		calib_set(c, CAL_QUEUE_DEPTH, x, NULL);
		break;
	}
}

TEST(calib_check_table)
{
	size_t i, j;

	for (i = 0; i < VP_ARRAY_SIZE(check_rows); i++) {
		struct calib c;
		struct calib_checks chk;
		bool found = false;

		sample(&c);
		edit(&c, check_rows[i].e, check_rows[i].x);
		calib_check(&c, &chk);
		if (check_rows[i].key < 0) {
			CHECK_AT(check_rows[i].line, chk.n == 0, "refused: %s",
				 chk.n ? chk.v[0].why : "");
			calib_release(&c);
			continue;
		}
		for (j = 0; j < chk.n; j++)
			if ((int)chk.v[j].key == check_rows[i].key &&
			    strstr(chk.v[j].why, check_rows[i].why))
				found = true;
		CHECK_AT(check_rows[i].line, found, "no violation of %s with '%s' (%zu found%s%s)",
			 calib_key_name((enum calib_key)check_rows[i].key), check_rows[i].why, chk.n,
			 chk.n ? ": " : "", chk.n ? chk.v[0].why : "");
		calib_release(&c);
	}
}

/* What a model reads after quarantine: NaN with the reason, never the impossible figure. */
TEST(calib_quarantine_takes_out_what_fails)
{
	struct calib c, b;
	struct calib_checks chk;
	struct sbuf sb = SBUF_INIT;
	struct vp_err err = { 0, "" };
	const char *why = NULL;

	sample(&c);
	edit(&c, E_ISSUE, 0);
	calib_set(&c, CAL_LAT_C2C_LOCAL_NS, 3229, NULL);
	CHECK_INT((int)calib_check(&c, &chk), 2);
	CHECK(calib_checks_name(&chk, CAL_LAT_LOADED_NS));
	CHECK(!calib_checks_name(&chk, CAL_LAT_LOCAL_NS));
	CHECK_INT(calib_quarantine(&c, &chk), 2);
	CHECK_NAN(calib_value(&c, "cal.lat_loaded_ns", &why));
	CHECK_CONTAINS(why, "implausible: loaded latency 153.7 ns is below idle latency 216.2 ns");
	CHECK_NAN(c.val[CAL_LAT_C2C_LOCAL_NS]);
	CHECK_INT(c.quality[CAL_LAT_C2C_LOCAL_NS], CALQ_IMPLAUSIBLE);
	CHECK_NEAR(c.val[CAL_LAT_LOCAL_NS], 216.2, 0);   /* the reference stays */
	CHECK_INT((int)calib_check(&c, &chk), 0);
	/* forced, the file keeps the figures, marks them, and lists the failed checks */
	sample(&b);
	edit(&b, E_C2C, 3229);
	b.forced = true;
	b.quality[CAL_LAT_C2C_LOCAL_NS] = CALQ_IMPLAUSIBLE;
	calib_format(&b, &sb);
	CHECK_CONTAINS(sb.buf, "\"forced\": true");
	CHECK_CONTAINS(sb.buf, "\"lat_c2c_local_ns\": \"implausible\"");
	CHECK_CONTAINS(sb.buf, "core-to-core latency 3229.0 ns");
	calib_release(&b);
	CHECK_INT(calib_parse(&b, sb.buf, sb.len, "rt", &err), 0);
	CHECK(b.forced);
	CHECK_INT(b.quality[CAL_LAT_C2C_LOCAL_NS], CALQ_IMPLAUSIBLE);
	CHECK_INT(b.quality[CAL_LAT_LOCAL_NS], CALQ_GOOD);
	CHECK_INT(b.quality[CAL_QUEUE_DEPTH], CALQ_UNMEASURED);
	CHECK_NEAR(b.val[CAL_LAT_C2C_LOCAL_NS], 3229, 0);
	calib_release(&b);
	calib_release(&c);
	sbuf_release(&sb);
}

/*
 * A quarantined calibration written out (a recording keeps it in its meta)
 * reads back with the values still taken out as implausible, not as
 * unmeasured, and with their reason; a NaN value the file calls "good" is
 * still unmeasured.  fuzz_calib found the round trip losing "implausible".
 */
TEST(calib_quarantine_survives_the_file)
{
	struct calib c, b;
	struct calib_checks chk;
	struct sbuf sb = SBUF_INIT;
	struct vp_err err = { 0, "" };
	const char *why = NULL;
	char *p;

	sample(&c);
	calib_set(&c, CAL_LAT_C2C_LOCAL_NS, 3229, NULL);  /* above DRAM latency: impossible */
	calib_check(&c, &chk);
	CHECK_INT(calib_quarantine(&c, &chk), 1);
	calib_format(&c, &sb);
	CHECK_CONTAINS(sb.buf, "\"lat_c2c_local_ns\": \"implausible\"");
	CHECK_INT(calib_parse(&b, sb.buf, sb.len, "rt", &err), 0);
	CHECK_NAN(calib_value(&b, "cal.lat_c2c_local_ns", &why));
	CHECK_CONTAINS(why, "implausible: core-to-core latency 3229.0 ns");
	CHECK_INT(b.quality[CAL_LAT_C2C_LOCAL_NS], CALQ_IMPLAUSIBLE);
	CHECK_INT(b.quality[CAL_QUEUE_DEPTH], CALQ_UNMEASURED);
	calib_release(&b);
	/* null with "good": unmeasured, a quality never makes an unknown value known */
	p = strstr(sb.buf, "\"queue_depth\": \"unmeasured\"");
	CHECK(p != NULL);
	if (p) {
		memcpy(p + strlen("\"queue_depth\": \""), "good\"      ", 11);
		CHECK_INT(calib_parse(&b, sb.buf, sb.len, "rt2", &err), 0);
		CHECK_INT(b.quality[CAL_QUEUE_DEPTH], CALQ_UNMEASURED);
		calib_release(&b);
	}
	calib_release(&c);
	sbuf_release(&sb);
}
