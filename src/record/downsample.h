/* downsample.h - a series of n values kept as at most nb buckets: means, and the most frequent value */
#ifndef VP_DOWNSAMPLE_H
#define VP_DOWNSAMPLE_H

#include <stddef.h>

/*
 * A report of a long recording draws each series with at most max points:
 * frame i of n goes to bucket i * nb / n, nb = min(n, max), so a bucket is
 * a run of consecutive frames and bucket sizes differ by at most one
 * (floor(n / nb) or ceil(n / nb)).  Up to max frames a bucket is one frame.
 * Memory is nb entries whatever n.
 */
struct ds_geom {
	size_t n, nb;                 /* frames, buckets */
};

void ds_geom_init(struct ds_geom *g, size_t n, size_t max);
size_t ds_bucket(const struct ds_geom *g, size_t i);
/* The frames of bucket b: first .. end - 1. */
void ds_range(const struct ds_geom *g, size_t b, size_t *first, size_t *end);

/* The mean of the finite values added to each bucket (NaN: none). */
struct ds_mean {
	struct ds_geom g;
	double *sum;
	size_t *cnt;
};

void ds_mean_init(struct ds_mean *m, const struct ds_geom *g);
void ds_mean_release(struct ds_mean *m);
/* Add frame i's value; NaN and infinities are left out. */
void ds_mean_add(struct ds_mean *m, size_t i, double v);
double ds_mean_get(const struct ds_mean *m, size_t b);

/*
 * The value that came up in most of a bucket's frames (a node number;
 * -1 unknown counts as a value too); a tie goes to the value seen later.
 * Frames are added in order, one value each.
 */
struct ds_tally {
	int v;
	size_t n, last;
};

struct ds_mode {
	struct ds_geom g;
	int *v;                       /* per bucket; -1 until closed */
	size_t *n;                    /* frames of the bucket with that value */
	struct ds_tally *t;           /* the open bucket */
	size_t n_t, cap_t, open;
	int have_open;
};

void ds_mode_init(struct ds_mode *m, const struct ds_geom *g);
void ds_mode_release(struct ds_mode *m);
void ds_mode_add(struct ds_mode *m, size_t i, int v);
/* Close the last bucket; call once after the last frame. */
void ds_mode_finish(struct ds_mode *m);
/* The bucket's value and (count) in how many of its frames. */
int ds_mode_get(const struct ds_mode *m, size_t b, size_t *count);

#endif
