/* fuzz_recording.c - libFuzzer harness for recordings read back
 * (src/record/record.c), as `report` and `diagnose FILE` read them: open,
 * bind to the model, every frame into the timeline, the summary, the cost
 * intervals and the whole-run total, diagnosed and rendered.
 *
 * An input is either the bytes of the file itself (a recording cut short
 * or overwritten), or "SQL\n" and SQL statements run on a copy of a small
 * valid recording the harness writes first (3 frames of a VM with two vCPUs,
 * the synthetic "software" model of src/record/synth.h): damaged schema and
 * values (a node id of -1, a dropped table, a row pointing nowhere) that
 * mutating the bytes would rarely reach.  Files go to a directory of its
 * own under $TMPDIR (/dev/shm when it exists), removed at exit. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "collect/cost_ci.h"
#include "compose/diag_render.h"
#include "analysis/diagnose.h"
#include "compose/frame_text.h"
#include "record/record.h"
#include "record/synth.h"
#include "util/sbuf.h"
#include "util/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], path[300], base_path[300];
static struct model *model;
static char *base;               /* the valid recording's bytes */
static size_t base_len;

static void cleanup(void)
{
	unlink(path);
	unlink(base_path);
	rmdir(dir);
}

static int write_file(const char *p, const void *buf, size_t len)
{
	FILE *f = fopen(p, "wb");
	int ok = f && fwrite(buf, 1, len, f) == len;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/* The valid recording every "SQL" input starts from. */
static void setup(void)
{
	const struct rec_synth_vm vm = { "vm1", 42, 2 };
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
	struct rec_header h = { 0 };
	struct rec_writer *w;
	struct collect_frame f;
	struct platform plat;
	struct vp_err err;
	FILE *in;
	long n;
	int k;

	snprintf(dir, sizeof(dir), "%s/vmmprof-fuzz-rec.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || rec_synth_model(&model, &err))
		abort();
	snprintf(path, sizeof(path), "%s/in.vmmdb", dir);
	snprintf(base_path, sizeof(base_path), "%s/base.vmmdb", dir);
	atexit(cleanup);
	rec_synth_platform(&plat);
	rec_synth_frame_vms(&f, &vm, 1);
	h.plat = &plat;
	h.model = model;
	h.interval_s = 1.0;
	h.command = "fuzz";
	if (rec_create(&w, base_path, &h, &err))
		abort();
	for (k = 0; k < 3; k++) {
		rec_synth_set(&f, (uint64_t)(k + 1) * 1000000000ull, 1e8 + k, 0.25 * k);
		if (rec_append(w, &f, &err))
			abort();
	}
	if (rec_close(w, &err))
		abort();
	collect_frame_release(&f);
	platform_release(&plat);
	in = fopen(base_path, "rb");
	if (!in || fseek(in, 0, SEEK_END) || (n = ftell(in)) <= 0 || fseek(in, 0, SEEK_SET))
		abort();
	base = malloc((size_t)n);
	base_len = (size_t)n;
	if (!base || fread(base, 1, base_len, in) != base_len)
		abort();
	fclose(in);
}

/* The whole run diagnosed and rendered, as `diagnose FILE` prints it. */
static void diagnose_total(const struct recording *r, const struct model_avail *av,
			   const struct collect_frame *total, struct cost_ci_set *ci)
{
	struct diag_input din;
	struct diag_result res;
	struct dview dv;
	struct sbuf out = SBUF_INIT;
	const char *reasons[8] = { 0 };
	struct vp_err err;

	memset(&dv, 0, sizeof(dv));
	dv.m = model;
	dv.av = av;
	dv.input_reason = reasons;
	dv.fr = total;
	dv.cal_note = "fuzz";
	dv.recording = r->path;
	frame_diag_input(model, av->factor_ok, &r->plat.topo, r->have_cal ? &r->cal : NULL, total,
			 &din);
	if (diagnose(&din, &res, &err) == 0) {
		cost_ci_attach(ci, &din, &res);
		dv.in = &din;
		dv.r = &res;
		diag_render_text(&dv, "fuzz\n", &out);
		sbuf_reset(&out);
		diag_render_json(&dv, &out);
		diag_result_release(&res);
	} else if (!err.msg[0]) {
		abort();
	}
	collect_diag_release(&din);
	sbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recording r;
	struct model_avail av;
	struct collect_frame fr, total;
	struct rec_total *acc = NULL;
	struct frame_summary *sum;
	struct cost_ci_set ci = { 0 };
	struct table t, st;
	struct sbuf out = SBUF_INIT;
	struct vp_err err = { 0, "" };
	bool bound = false;
	int more, n = 0;

	if (!base)
		setup();
	unlink(path);
	if (size >= 4 && !memcmp(data, "SQL\n", 4)) {
		sqlite3 *db;
		char *sql = strndup((const char *)data + 4, size - 4);

		if (!sql || write_file(path, base, base_len) ||
		    sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
			abort();
		sqlite3_exec(db, sql, NULL, NULL, NULL);
		sqlite3_close(db);
		free(sql);
	} else if (write_file(path, data, size)) {
		abort();
	}
	if (rec_open(path, &r, &err)) {
		if (!err.msg[0] || !strstr(err.msg, path))
			abort(); /* a refusal names the file */
		rec_release(&r);
		return 0;
	}
	/* `report` and `diagnose` load the model the recording names */
	if (!strcmp(r.model_name, model->name)) {
		if (rec_bind_model(&r, model, &av, &err))
			goto out;
		bound = true;
		acc = rec_total_new(&r, model);
	}
	frame_text_table(&t);
	sum = frame_summary_new();
	while (n < 64 && (more = rec_next_frame(&r, &fr, &err)) > 0) {
		double t_s = (double)fr.t_ns / 1e9;

		if (bound) {
			frame_text_rows(&t, &fr, t_s, model);
			frame_summary_add(sum, model, &fr, t_s);
			rec_total_add(acc, &fr);
			cost_ci_add(&ci, &fr);
		}
		collect_frame_release(&fr);
		n++;
	}
	table_render(&t, &out, 2, true);
	table_release(&t);
	if (bound) {
		/* as diagnose_recorded_total(): counts stored already scaled, no running share */
		struct cost_ci_ctx cx = { NAN, NULL, r.have_cal, 200, 1 };

		frame_summary_table(sum, model, &st);
		table_render(&st, &out, 2, true);
		table_release(&st);
		rec_total_finish(acc, &total);
		cx.residency = total.residency;
		for (more = 0; more < FACTOR_N; more++)
			cx.running_f[more] = NAN;
		cost_ci_finish(&ci, &cx);
		diagnose_total(&r, &av, &total, &ci);
		collect_frame_release(&total);
		model_avail_release(model, &av);
	}
	frame_summary_free(sum);
	cost_ci_release(&ci);
out:
	sbuf_release(&out);
	rec_release(&r);
	return 0;
}
