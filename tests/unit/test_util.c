/* test_util.c - unit tests for src/util */
#include "test.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "util/alloc.h"
#include "util/cpulist.h"
#include "util/err.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/table.h"

static const struct {
	int line;
	const char *in;
	int ret;          /* 0 or VP_EPARSE */
	const char *out;  /* canonical form */
} cpulist_rows[] = {
	{ __LINE__, "0-3,8", 0, "0-3,8" },
	{ __LINE__, "", 0, "" },
	{ __LINE__, "  0  \n", 0, "0" },
	{ __LINE__, "3,2,1,0", 0, "0-3" },
	{ __LINE__, "0-1,1-2", 0, "0-2" },
	{ __LINE__, "0,2,4-5,7", 0, "0,2,4-5,7" },
	{ __LINE__, "5-3", VP_EPARSE, NULL },
	{ __LINE__, "a", VP_EPARSE, NULL },
	{ __LINE__, "1-", VP_EPARSE, NULL },
	{ __LINE__, "1;2", VP_EPARSE, NULL },
	{ __LINE__, "-1", VP_EPARSE, NULL },
	{ __LINE__, "99999999999", VP_EPARSE, NULL },
};

TEST(cpulist_parse_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(cpulist_rows); i++) {
		struct cpulist cl;
		struct vp_err err = { 0, "" };
		struct sbuf sb = SBUF_INIT;
		int ret = cpulist_parse(&cl, cpulist_rows[i].in, &err);

		CHECK_INT_AT(cpulist_rows[i].line, ret, cpulist_rows[i].ret);
		if (ret) {
			CHECK_AT(cpulist_rows[i].line, strstr(err.msg, "invalid CPU list"),
				 "message '%s'", err.msg);
			continue;
		}
		cpulist_format(&cl, &sb);
		CHECK_STR_AT(cpulist_rows[i].line, sbuf_str(&sb), cpulist_rows[i].out);
		sbuf_release(&sb);
		cpulist_release(&cl);
	}
}

TEST(cpulist_mask)
{
	struct cpulist cl;
	struct sbuf sb = SBUF_INIT;

	CHECK_INT(cpulist_parse_mask(&cl, "00000001,0000000f\n", NULL), 0);
	cpulist_format(&cl, &sb);
	CHECK_STR(sbuf_str(&sb), "0-3,32");
	CHECK(cpulist_has(&cl, 32));
	CHECK(!cpulist_has(&cl, 4));
	sbuf_release(&sb);
	cpulist_release(&cl);
	CHECK_INT(cpulist_parse_mask(&cl, "fg", NULL), VP_EPARSE);
}

TEST(json_writer_escapes_and_nan)
{
	struct sbuf sb = SBUF_INIT;
	struct jw w;

	jw_init(&w, &sb, false);
	jw_obj_begin(&w);
	jw_kstr(&w, "name", "CPU 0/KVM \"x\"\n");
	jw_kdouble(&w, "nan", NAN);
	jw_kdouble(&w, "tenth", 0.1);
	jw_kint(&w, "neg", -5);
	jw_key(&w, "list");
	jw_arr_begin(&w);
	jw_int(&w, 1);
	jw_bool(&w, true);
	jw_null(&w);
	jw_arr_end(&w);
	jw_key(&w, "empty");
	jw_obj_begin(&w);
	jw_obj_end(&w);
	jw_obj_end(&w);
	CHECK_STR(sbuf_str(&sb),
		  "{\"name\":\"CPU 0/KVM \\\"x\\\"\\n\",\"nan\":null,\"tenth\":0.1,"
		  "\"neg\":-5,\"list\":[1,true,null],\"empty\":{}}");
	sbuf_release(&sb);
}

TEST(err_messages)
{
	struct vp_err err;

	CHECK_INT(vp_err_errno(&err, ENOENT, "cannot open '%s'", "/x"), -ENOENT);
	CHECK_STR(err.msg, "cannot open '/x': No such file or directory");
	vp_err_prefix(&err, "model '%s'", "skx");
	CHECK_STR(err.msg, "model 'skx': cannot open '/x': No such file or directory");
	CHECK_INT(err.code, -ENOENT);
	CHECK_STR(vp_strerror(VP_EPARSE), "parse error");
	CHECK_STR(vp_strerror(-EACCES), "Permission denied");
}

TEST(fs_reads_under_root)
{
	struct vp_err err;
	char *p = vp_path("/tmp/root/", "/sys/x");
	uint64_t v;

	CHECK_STR(p, "/tmp/root/sys/x");
	free(p);
	p = vp_path("/", "/sys/x");
	CHECK_STR(p, "/sys/x");
	free(p);
	CHECK(vp_read_u64("/nonexistent-root", "/sys/x", &v, &err) == -ENOENT);
	CHECK_CONTAINS(err.msg, "/nonexistent-root/sys/x");
}

TEST(table_notes_numbered_once)
{
	struct table_notes tn = { NULL, 0, 0, 0 };
	char text[] = "no PMU 'amd_umc' here";

	/* the first text is 1, a second 2, the first again 1: kept once, as a copy */
	CHECK_INT(table_note(&tn, text), 1);
	CHECK_INT(table_note(&tn, "no core PMU here"), 2);
	text[0] = 'N';
	CHECK_INT(table_note(&tn, "no PMU 'amd_umc' here"), 1);
	CHECK_INT(table_note(&tn, text), 3);
	CHECK_INT(tn.n, 3);
	CHECK_STR(tn.v[0], "no PMU 'amd_umc' here");
	table_notes_release(&tn);
	CHECK_INT(tn.n, 0);
}

TEST(table_render)
{
	static const char *const cols[] = { "name", ">value" };
	struct table t;
	struct sbuf sb = SBUF_INIT;

	table_init(&t, 2, cols);
	table_row(&t);
	table_cell(&t, "a");
	table_cell(&t, "%d", 1000);
	table_row(&t);
	table_cell(&t, "long,name");
	table_cell(&t, "n/a");
	table_render(&t, &sb, 0, true);
	CHECK_STR(sbuf_str(&sb), "name       value\na           1000\nlong,name    n/a\n");
	sbuf_reset(&sb);
	table_render_csv(&t, &sb, ',');
	CHECK_STR(sbuf_str(&sb), "name,value\na,1000\n\"long,name\",n/a\n");
	sbuf_release(&sb);
	table_release(&t);
}

/*
 * JSON text is UTF-8 (RFC 8259 8.1): whole characters pass as they are
 * (é = c3 a9, € = e2 82 ac, 😀 = f0 9f 98 80), a byte of no character is
 * U+FFFD, whose UTF-8 is ef bf bd: a lone ff, a lead byte cut off at the end
 * (e2 82), an overlong form (c0 af), a surrogate (ed a0 80: ed then two
 * strays).  A genuine U+FFFD in the input is written the same three bytes, so
 * what was replaced once is unchanged when written again.
 */
TEST(json_writer_replaces_bytes_of_no_character)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "a\xff" "b", "\"a\xef\xbf\xbd" "b\"" },
		{ "end\xe2\x82", "\"end\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
		{ "a\xef\xbf\xbd" "b", "\"a\xef\xbf\xbd" "b\"" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbuf sb = SBUF_INIT;

		jw_escape(&sb, cases[i].in);
		CHECK_STR(sbuf_str(&sb), cases[i].out);
		sbuf_release(&sb);
	}
}

/*
 * utf8_copy() into a fixed field: whole characters only, a byte of no
 * character as U+FFFD (3 bytes), so the field's text is the same when copied
 * again.  Sizes by hand: "a\xff" "b" needs 1 + 3 + 1 + NUL = 6 bytes; in 5
 * the "b" does not fit; two stray bytes in 5 keep one replacement (3 + 3
 * would need 7); "a" + e-acute (c3 a9) in 3 keeps "a" (the character needs
 * 2 more bytes and the NUL).
 */
TEST(utf8_copy_keeps_whole_characters)
{
	static const struct { const char *in; size_t size; const char *out; } cases[] = {
		{ "a\xff" "b", 6, "a\xef\xbf\xbd" "b" },
		{ "a\xff" "b", 5, "a\xef\xbf\xbd" },
		{ "\xff\xff", 5, "\xef\xbf\xbd" },
		{ "a\xc3\xa9", 3, "a" },
		{ "a\xc3\xa9", 4, "a\xc3\xa9" },
		{ "plain", 1, "" },
	};
	char out[16], again[16];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		utf8_copy(out, cases[i].size, cases[i].in);
		CHECK_STR(out, cases[i].out);
		utf8_copy(again, cases[i].size, out);
		CHECK_STR(again, out);
	}
}

TEST(table_cell_escapes_control_characters)
{
	static const char *const titles[] = { "name", ">n" };
	struct table t;
	struct sbuf out = SBUF_INIT;

	table_init(&t, 2, titles);
	table_row(&t);
	/* a process named with an OSC title escape, a newline, DEL and C1 CSI (U+009B) */
	table_cell(&t, "%s", "a\033]0;x\007b\nc\177d\xc2\x9b" "2J\xc3\xa9");
	table_cell(&t, "%d", 7);
	table_render(&t, &out, 0, false);
	CHECK_STR(sbuf_str(&out), "a?]0;x?b?c?d?2J\xc3\xa9  7\n");
	table_release(&t);
	sbuf_release(&out);
}

TEST(sbuf_sanitize_terminal_text)
{
	struct sbuf sb = SBUF_INIT;

	/* ESC [2J (clear screen), BEL, CR, a newline and a tab in one line of text */
	sbuf_addstr(&sb, "keep\n");
	sbuf_addtext(&sb, "vm\033[2J\a\rx\ny\tz");
	CHECK_STR(sbuf_str(&sb), "keep\nvm?[2J??x?y?z");
	/* a renderer's own lines and tabs stay with keep_lines; ESC and DEL do not */
	sbuf_reset(&sb);
	sbuf_addstr(&sb, "a\tb\n\033c\177\n");
	sbuf_sanitize(&sb, 0, true);
	CHECK_STR(sbuf_str(&sb), "a\tb\n?c?\n");
	/* UTF-8: e-acute, a euro sign and U+1F600 stay; C1 CSI U+009B (c2 9b) is one '?';
	 * U+00A0 (c2 a0) is not C1 and stays */
	sbuf_reset(&sb);
	sbuf_addtext(&sb, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\xc2\x9b" "1m|\xc2\xa0");
	CHECK_STR(sbuf_str(&sb), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|?1m|\xc2\xa0");
	/* bytes of no whole character: a raw 8-bit CSI (9b), ff, a cut sequence, an overlong
	 * '/' (c0 af), a UTF-16 surrogate (ed a0 80), above U+10FFFF (f4 90 80 80) */
	sbuf_reset(&sb);
	sbuf_addtext(&sb, "\x9b" "2J\xff|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80");
	CHECK_STR(sbuf_str(&sb), "?2J?|??|??|???|????");
	/* a four-byte sequence cut short by what follows, and one by the end of the text */
	sbuf_reset(&sb);
	sbuf_addtextf(&sb, "%s-%d%s", "\xf0\x9f\x98", 3, "\xf0\x9f\x98");
	CHECK_STR(sbuf_str(&sb), "???" "-3???");
	sbuf_release(&sb);
}

/* What vp_fmt_double() wrote before its own digits: printf's, the reference. */
static void fmt_double_printf(char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, size, "%.17g", v);
}

static unsigned long long rng_next(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * The writer's own digits are printf's byte for byte: random doubles over
 * every decade it writes itself and beyond (random mantissa bits), values
 * a few ulps either side of each power of ten and of the decimals d.5 x
 * 10^-j (ties at 15 and 17 digits), and short decimals (n / 10^j).
 */
TEST(json_writer_fast_doubles)
{
	struct sbuf sb = SBUF_INIT;
	char ref[40];
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	long bad = 0, n = 0;
	int i, j, u;

#define ONE(x)                                                                    \
	do {                                                                      \
		double v_ = (x);                                                  \
		sbuf_reset(&sb);                                                  \
		vp_fmt_double(&sb, v_);                                           \
		fmt_double_printf(ref, sizeof(ref), v_);                          \
		n++;                                                              \
		if (strcmp(sbuf_str(&sb), ref) && bad++ < 5)                      \
			CHECK_STR(sbuf_str(&sb), ref);                            \
	} while (0)
	for (i = 0; i < 200000; i++) {
		/* a random mantissa at a random binary exponent from 2^-17 to 2^53 */
		unsigned long long r = rng_next(&seed);
		double v = ldexp((double)(r >> 11) / 9007199254740992.0 + 1.0,
				 (int)(rng_next(&seed) % 71) - 17);

		ONE(v);
		ONE(-v);
	}
	for (j = -6; j <= 16; j++) {
		double p = pow(10, j), up = p, down = p;

		for (u = 0; u < 40; u++) {
			ONE(up);
			ONE(down);
			up = nextafter(up, INFINITY);
			down = nextafter(down, 0);
		}
	}
	for (j = 1; j <= 18; j++)
		for (i = 0; i < 2000; i++) {
			/* a 15 or 17 digit decimal ending in 5: a tie before binary rounding */
			unsigned long long d = rng_next(&seed) % 100000000000000ull * 10 + 5;
			double v = (double)d / pow(10, j), w = v;

			for (u = 0; u < 3; u++) {
				ONE(w);
				w = nextafter(w, INFINITY);
			}
			d = rng_next(&seed) % 10000000000000000ull * 10 + 5;
			ONE((double)d / pow(10, j + 2));
		}
	for (j = 0; j <= 8; j++)
		for (i = 1; i < 3000; i++)
			ONE(i / pow(10, j));
#undef ONE
	CHECK(bad == 0);
	CHECK(n > 400000);
	sbuf_release(&sb);
}

/*
 * Numbers as %.15g writes them (then %.17g where that does not read back),
 * whole numbers below 1e15 by the writer's own digits: written by hand.  And
 * runs of plain characters between escapes come out whole.
 */
TEST(json_writer_numbers_and_runs)
{
	static const struct { double v; const char *out; } nums[] = {
		{ 0, "0" }, { -0.0, "-0" }, { 42, "42" }, { -7, "-7" }, { 1e8, "100000000" },
		{ 999999999999999.0, "999999999999999" }, { -123456789012345.0, "-123456789012345" },
		{ 1e15, "1e+15" }, { 2.5, "2.5" }, { 0.1, "0.1" }, { 1.0 / 3, "0.33333333333333331" },
	};
	struct sbuf sb = SBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		sbuf_reset(&sb);
		vp_fmt_double(&sb, nums[i].v);
		CHECK_STR(sbuf_str(&sb), nums[i].out);
	}
	sbuf_reset(&sb);
	jw_escape(&sb, "plain \"q\" back\\slash\ttab\x01" "caf\xc3\xa9 end");
	CHECK_STR(sbuf_str(&sb), "\"plain \\\"q\\\" back\\\\slash\\ttab\\u0001caf\xc3\xa9 end\"");
	sbuf_reset(&sb);
	jw_escape(&sb, "");
	CHECK_STR(sbuf_str(&sb), "\"\"");
	sbuf_release(&sb);
}
