/* test_downsample.c - long series as at most N buckets: bucket bounds, means, most frequent value */
#include "test.h"

#include "record/downsample.h"
#include "util/alloc.h"

/* Buckets of n frames in at most max: bucket of each frame, hand-computed as i * nb / n. */
TEST(downsample_buckets)
{
	static const struct {
		int line;
		size_t n, max, nb;
		const char *buckets;     /* bucket of frame i, one digit each */
	} rows[] = {
		{ __LINE__, 10, 4, 4, "0001122233" },
		{ __LINE__, 3, 4, 3, "012" },        /* fewer frames than buckets: one each */
		{ __LINE__, 4, 4, 4, "0123" },
		{ __LINE__, 5, 1, 1, "00000" },
		{ __LINE__, 7, 3, 3, "0001122" },
		{ __LINE__, 0, 4, 0, "" },
	};
	size_t r, i;

	for (r = 0; r < VP_ARRAY_SIZE(rows); r++) {
		struct ds_geom g;
		size_t b, seen = 0;

		ds_geom_init(&g, rows[r].n, rows[r].max);
		CHECK_INT_AT(rows[r].line, (int)g.nb, (int)rows[r].nb);
		for (i = 0; i < rows[r].n; i++)
			CHECK_INT_AT(rows[r].line, (int)ds_bucket(&g, i), rows[r].buckets[i] - '0');
		/* the ranges cover the frames once, in order */
		for (b = 0; b < g.nb; b++) {
			size_t first, end;

			ds_range(&g, b, &first, &end);
			CHECK_INT_AT(rows[r].line, (int)first, (int)seen);
			for (i = first; i < end; i++)
				CHECK_INT_AT(rows[r].line, rows[r].buckets[i] - '0', (int)b);
			seen = end;
		}
		CHECK_INT_AT(rows[r].line, (int)seen, (int)rows[r].n);
	}
}

TEST(downsample_means)
{
	struct ds_geom g;
	struct ds_mean m;
	size_t i;

	/* 10 frames in 4 buckets: {0,1,2} {3,4} {5,6,7} {8,9}; value = frame number */
	ds_geom_init(&g, 10, 4);
	ds_mean_init(&m, &g);
	for (i = 0; i < 10; i++)
		ds_mean_add(&m, i, i == 4 ? NAN : (double)i);
	ds_mean_add(&m, 10, 1e9);      /* past the end: left out */
	CHECK_NEAR(ds_mean_get(&m, 0), 1.0, 1e-15);   /* (0 + 1 + 2) / 3 */
	CHECK_NEAR(ds_mean_get(&m, 1), 3.0, 1e-15);   /* 4 is NaN: 3 / 1 */
	CHECK_NEAR(ds_mean_get(&m, 2), 6.0, 1e-15);   /* (5 + 6 + 7) / 3 */
	CHECK_NEAR(ds_mean_get(&m, 3), 8.5, 1e-15);   /* (8 + 9) / 2 */
	CHECK_NAN(ds_mean_get(&m, 4));
	ds_mean_release(&m);

	/* a bucket with no value at all is NaN, not 0 */
	ds_geom_init(&g, 4, 2);
	ds_mean_init(&m, &g);
	ds_mean_add(&m, 0, NAN);
	ds_mean_add(&m, 1, INFINITY);
	ds_mean_add(&m, 2, 0.25);
	CHECK_NAN(ds_mean_get(&m, 0));
	CHECK_NEAR(ds_mean_get(&m, 1), 0.25, 0);
	ds_mean_release(&m);

	/* up to max frames a bucket is one frame: the value itself, exactly */
	ds_geom_init(&g, 3, 1000);
	ds_mean_init(&m, &g);
	ds_mean_add(&m, 0, 0.1);
	ds_mean_add(&m, 1, 1.0 / 3.0);
	ds_mean_add(&m, 2, 1e-300);
	CHECK(ds_mean_get(&m, 0) == 0.1);
	CHECK(ds_mean_get(&m, 1) == 1.0 / 3.0);
	CHECK(ds_mean_get(&m, 2) == 1e-300);
	ds_mean_release(&m);
}

TEST(downsample_modes)
{
	/* nodes of 10 frames in 4 buckets {0,1,2} {3,4} {5,6,7} {8,9} */
	static const int node[10] = { 0, 1, 1, 2, 3, -1, -1, 0, 1, 0 };
	static const struct {
		int line;
		int v;
		size_t n;
	} want[4] = {
		{ __LINE__, 1, 2 },   /* 1 twice, 0 once */
		{ __LINE__, 3, 1 },   /* 2 and 3 once each: the later, 3 */
		{ __LINE__, -1, 2 },  /* unknown in two of three frames */
		{ __LINE__, 0, 1 },   /* 1 then 0: the later */
	};
	struct ds_geom g;
	struct ds_mode m;
	size_t i, count;

	ds_geom_init(&g, 10, 4);
	ds_mode_init(&m, &g);
	for (i = 0; i < 10; i++)
		ds_mode_add(&m, i, node[i]);
	ds_mode_finish(&m);
	for (i = 0; i < 4; i++) {
		CHECK_INT_AT(want[i].line, ds_mode_get(&m, i, &count), want[i].v);
		CHECK_INT_AT(want[i].line, (int)count, (int)want[i].n);
	}
	CHECK_INT(ds_mode_get(&m, 4, &count), -1);
	CHECK_INT((int)count, 0);
	ds_mode_release(&m);

	/* one frame per bucket: each frame's own value */
	ds_geom_init(&g, 3, 1000);
	ds_mode_init(&m, &g);
	ds_mode_add(&m, 0, 2);
	ds_mode_add(&m, 1, -1);
	ds_mode_add(&m, 2, 7);
	ds_mode_finish(&m);
	CHECK_INT(ds_mode_get(&m, 0, &count), 2);
	CHECK_INT(ds_mode_get(&m, 1, &count), -1);
	CHECK_INT(ds_mode_get(&m, 2, &count), 7);
	CHECK_INT((int)count, 1);
	ds_mode_release(&m);
}
