/* record.h - recordings: collector frames in an SQLite file, read back for report and diagnose */
#ifndef VP_RECORD_H
#define VP_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "calib/calib.h"
#include "collect/collect.h"
#include "model/model.h"
#include "platform/platform.h"
#include "util/err.h"

/*
 * A recording (.vmmdb) holds what the live pipeline saw: the machine's
 * topology, the model by name with the inputs it read, the calibration,
 * and one frame per interval (every row's identity, placement and model
 * inputs; counts already scaled for multiplexing).  Metrics, factors and
 * the diagnosis are recomputed when it is read, by the same code as live,
 * so a report is exactly what `diagnose` would have said.  The schema is
 * docs/record-format.md.  Each frame is committed on its own (WAL), so a
 * recording cut short by a signal or a crash holds every frame before it.
 */

/* Written by this version; 1 to 5 are read (docs/record-format.md). */
#define REC_SCHEMA_VERSION 5

struct rec_writer;

/* What a recording starts with. */
struct rec_header {
	const struct platform *plat;
	const struct model *model;
	const char *const *input_reason; /* model->n_inputs entries: why not counted, NULL ok */
	const struct calib *cal;         /* NULL when none */
	double interval_s;
	const char *command;             /* the command line, for the record */
};

/* Create path (it must not exist).  Returns 0 and *out, or a negative code. */
int rec_create(struct rec_writer **out, const char *path, const struct rec_header *h,
	       struct vp_err *err);
/* Append one frame in its own transaction. */
int rec_append(struct rec_writer *w, const struct collect_frame *f, struct vp_err *err);
/* Frames written so far. */
unsigned long rec_frames(const struct rec_writer *w);
/* Checkpoint and close; w is freed whatever the result. */
int rec_close(struct rec_writer *w, struct vp_err *err);
/*
 * A consistent copy of a recording being written, at path dest (created;
 * SQLite's online backup, every frame appended so far, no write-ahead log
 * beside it).  The caller keeps w from being written meanwhile.
 */
int rec_snapshot(struct rec_writer *w, const char *dest, struct vp_err *err);

/* A recording read back. */
struct rec_cursor;

struct rec_cpu_id {
	int cpu, package, core;
};

struct recording {
	char *path;
	int schema;
	char *vmmprof_version;
	char *model_name;
	char *command;
	char *created;                   /* ISO 8601 UTC */
	double interval_s;
	struct platform plat;            /* topology only (CPUs, nodes, packages, SMT) */
	char **input_names;              /* as recorded */
	char **input_reason;             /* NULL when it was counted */
	size_t n_inputs;
	char *node_inputs;               /* inputs counted per node, "a,b" (schema 3); NULL none */
	struct rec_cpu_id *cpu_ids;      /* meta topology_cpus: each online CPU's package and core
					    (SMT siblings share both; -1 unknown), for the HTML
					    report's placement map; NULL in files before it */
	size_t n_cpu_ids;
	struct cache_domain *llc;        /* meta topology_llc: the last-level caches; NULL before.
					    Kept apart from plat.topo, which the diagnosis of a
					    recording reads as it always did */
	int n_llc;
	struct calib cal;
	bool have_cal;
	struct collect_frame *frames;    /* rec_read() only: every frame */
	size_t n_frames;
	size_t n_read;                   /* frames rec_next_frame() has yielded since the start */
	bool scaling_kept;               /* the file keeps each interval's running shares
					    (frame scaling; files before it have none) */
	struct rec_cursor *cur;          /* rec_open(): the file, open for rec_next_frame() */
};

/*
 * Open a recording and read its header (meta, nodes, inputs, calibration);
 * frames are then read one at a time with rec_next_frame(), so a reader
 * holds one frame in memory whatever the length of the recording.  A file
 * that is not SQLite, not a vmmprof recording, of a newer schema, or
 * damaged in its header gives VP_EFORMAT with a message naming the file
 * and what is wrong.  Release with rec_release() whatever the result.
 */
int rec_open(const char *path, struct recording *r, struct vp_err *err);

/*
 * The next frame in recorded order (seq 0, 1, ...) into *f (caller-owned:
 * collect_frame_release()); bound to the model when rec_bind_model() was
 * called first.  Returns 1 with a frame, 0 at the end, or VP_EFORMAT when
 * the file is damaged there: the message names the file and the frame,
 * frames yielded before stay valid, and every later call gives the same
 * error.  r->n_read counts the frames yielded.
 */
int rec_next_frame(struct recording *r, struct collect_frame *f, struct vp_err *err);

/* Start again at frame 0 (a second pass); r->n_read goes back to 0. */
int rec_rewind(struct recording *r, struct vp_err *err);

/*
 * Read a whole recording into r->frames: rec_open() and every frame.  For
 * small recordings and tests; reports and diagnose stream instead.
 */
int rec_read(const char *path, struct recording *r, struct vp_err *err);
void rec_release(struct recording *r);

/*
 * Map a recording onto model m (loaded by the recorded name): each frame's
 * row inputs are reordered to m's inputs by name (an input m has and the
 * recording lacks is NaN), metrics and factors evaluated, and av says what
 * was available when it was recorded.  Applies to the frames rec_read()
 * loaded and to every frame rec_next_frame() yields afterwards; m must
 * outlive r.  Release av with model_avail_release().
 */
int rec_bind_model(struct recording *r, const struct model *m, struct model_avail *av,
		   struct vp_err *err);

/*
 * The whole run as one frame, accumulated frame by frame in memory bounded
 * by the number of entities: event inputs and counters summed over the
 * frames, per-entity ratios averaged, placement and memory the latest,
 * rows matched by key in order of first appearance; evaluated with m.
 */
struct rec_total;

struct rec_total *rec_total_new(const struct recording *r, const struct model *m);
/* Add one frame bound to m. */
void rec_total_add(struct rec_total *t, const struct collect_frame *f);
/* The evaluated total into *out (collect_frame_release()); frees t. */
void rec_total_finish(struct rec_total *t, struct collect_frame *out);

/* The same over the frames rec_read() loaded. */
void rec_total_frame(const struct recording *r, const struct model *m, struct collect_frame *out);

#endif
