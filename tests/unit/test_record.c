/* test_record.c - recordings: write frames, read them back whole or one at a time, sum a run,
 * refuse damaged files and keep what was read before the damage */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "record/record.h"
#include "record/synth.h"
#include "util/alloc.h"

static struct model *load_model(void)
{
	struct model *m = NULL;
	struct vp_err err;

	if (rec_synth_model(&m, &err))
		test_fail(__FILE__, __LINE__, "model: %s", err.msg);
	return m;
}

/* A fresh path for rec_create (which refuses an existing file). */
static void temp_path(char *path)
{
	int fd = mkstemp(path);

	close(fd);
	unlink(path);
}

/*
 * Write frames frames of one VM and vcpus vCPUs: frame k has t_ns (k + 1) s,
 * tclk (k + 1) * 1e8 and place k / 10 (0.5 + k / 1000 for k >= 5).
 */
static double place_of(size_t k)
{
	return k < 5 ? (double)k / 10 : 0.5 + (double)k / 1000;
}

static int write_recording(const char *path, const struct model *m, size_t frames, size_t vcpus)
{
	struct platform plat;
	struct rec_writer *w = NULL;
	struct collect_frame f;
	struct vp_err err;
	size_t k;
	int ret;

	rec_synth_platform(&plat);
	rec_synth_frame(&f, vcpus);
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record -o x" };

		ret = rec_create(&w, path, &h, &err);
	}
	for (k = 0; !ret && k < frames; k++) {
		rec_synth_set(&f, (k + 1) * 1000000000ull, (double)(k + 1) * 1e8, place_of(k));
		ret = rec_append(w, &f, &err);
	}
	if (w && rec_close(w, &err) && !ret)
		ret = -1;
	if (ret)
		test_fail(__FILE__, __LINE__, "writing '%s': %s", path, err.msg);
	collect_frame_release(&f);
	platform_release(&plat);
	return ret;
}

TEST(record_round_trip_and_total)
{
	char path[] = "/tmp/vmmprof-rec-XXXXXX";
	struct model *m = load_model();
	struct collect_frame total;
	struct recording rec;
	struct model_avail av;
	struct vp_err err;

	if (!m)
		return;
	temp_path(path);
	/* frames 0 and 1: tclk 1e8 and 2e8, place 0.0 and 0.1 */
	if (write_recording(path, m, 2, 1))
		goto out;

	CHECK_INT(rec_read(path, &rec, &err), 0);
	CHECK_STR(rec.model_name, "software");
	CHECK_INT((int)rec.n_frames, 2);
	CHECK_INT(rec.plat.topo.n_nodes, 1);
	CHECK_INT(rec.plat.topo.n_cpus, 2);
	CHECK_INT((int)rec.frames[1].n_rows, 2);
	CHECK_STR(rec.frames[1].rows[0].name, "vm1");
	CHECK_INT(rec.frames[1].rows[1].tid, 44);
	CHECK_INT(rec.frames[1].rows[1].cpu, 1);
	CHECK_INT(rec.frames[1].rows[1].node, 0);
	CHECK_INT(rec.frames[1].rows[0].n_mem_nodes, 1);
	CHECK_U64(rec.frames[1].rows[0].mem_node[0], 1 << 20);
	CHECK_NEAR(rec.frames[1].rows[1].inputs[0], 2e8, 0);
	/* no resctrl, no memory source given: none read back */
	CHECK(!rec.frames[1].rdt_node);
	CHECK(!rec.frames[1].rows[0].mem_reason);

	CHECK_INT(rec_bind_model(&rec, m, &av, &err), 0);
	/* metric busy = tclk / (duration * 1e9): 2e8 ns of 1 s = 0.2 */
	CHECK_NEAR(rec.frames[1].rows[1].metrics[0], 0.2, 1e-12);
	/* cycles from task-clock: 2e8 ns x 2000 MHz / 1000 = 4e8 */
	CHECK_NEAR(rec.frames[1].rows[1].cycles, 4e8, 1);
	CHECK(rec.frames[1].rows[1].cycles_proxy);

	rec_total_frame(&rec, m, &total);
	CHECK_INT((int)total.n_rows, 2);
	CHECK_NEAR(total.duration, 2.0, 1e-12);
	/* the count adds up: 1e8 + 2e8; the ratio is averaged: (0.0 + 0.1) / 2 */
	CHECK_NEAR(total.rows[1].inputs[0], 3e8, 0);
	CHECK_NEAR(total.rows[1].inputs[1], 0.05, 1e-12);
	CHECK_NEAR(total.rows[1].fv[FACTOR_LOCALITY].score, 0.05, 1e-12);
	CHECK_INT(total.rows[1].fv[FACTOR_LOCALITY].sev, SEV_OK);
	/* busy over the run: 3e8 ns in 2 s */
	CHECK_NEAR(total.rows[1].metrics[0], 0.15, 1e-12);
	CHECK_INT((int)total.rows[1].vm_row, 0);

	collect_frame_release(&total);
	model_avail_release(m, &av);
	rec_release(&rec);

	/* damaged: the first 3000 bytes of the file (less than its first page) */
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "head -c 3000 %s > %s.cut", path, path);
		CHECK_INT(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "%s.cut", path);
		CHECK(rec_read(cmd, &rec, &err) == VP_EFORMAT);
		CHECK_CONTAINS(err.msg, cmd);
		rec_release(&rec);
		unlink(cmd);
	}
out:
	unlink(path);
	model_free(m);
}

/* The same inputs as the recording in the other order, plus one it lacks. */
static const char reversed_model[] =
	"model software\n"
	"description \"the recorded inputs reversed, and one more\"\n"
	"match software\n"
	"source place_rem = placement.remote_fraction optional\n"
	"event cs = context-switches\n"
	"event tclk = task-clock\n"
	"metric busy = tclk / (duration * 1e9)\n"
	"factor locality\n"
	"    score = place_rem\n"
	"    warning = 0.2\n"
	"    critical = 0.5\n"
	"    quality = proxy\n"
	"factor llc unavailable \"none\"\n"
	"factor sharing unavailable \"none\"\n"
	"factor imc unavailable \"none\"\n"
	"factor queue unavailable \"none\"\n";

TEST(record_streams_frames_in_order)
{
	char path[] = "/tmp/vmmprof-recit-XXXXXX";
	struct model *m = load_model(), *rm = NULL;
	struct recording rec;
	struct model_avail av;
	struct collect_frame f, total;
	struct rec_total *acc;
	struct diags d;
	struct vp_err err;
	size_t k;
	int ret;

	if (!m)
		return;
	temp_path(path);
	if (write_recording(path, m, 5, 2))
		goto out;
	diags_init(&d);
	CHECK_INT(model_load_text(&rm, reversed_model, "rev.model", NULL, 0, &d, &err), 0);
	diags_release(&d);
	if (!rm)
		goto out;

	CHECK_INT(rec_open(path, &rec, &err), 0);
	/* the header only: no frame is loaded */
	CHECK(rec.frames == NULL);
	CHECK_INT((int)rec.n_inputs, 2);
	CHECK_STR(rec.input_names[0], "tclk");
	CHECK_STR(rec.input_names[1], "place_rem");
	CHECK_INT(rec_bind_model(&rec, rm, &av, &err), 0);
	acc = rec_total_new(&rec, rm);
	for (k = 0; k < 5; k++) {
		ret = rec_next_frame(&rec, &f, &err);
		CHECK_INT(ret, 1);
		if (ret != 1)
			break;
		CHECK_INT((int)rec.n_read, (int)k + 1);
		CHECK_U64(f.t_ns, (k + 1) * 1000000000ull);
		CHECK_INT((int)f.n_rows, 3);
		CHECK_INT(f.rows[2].index, 1);
		CHECK_STR(f.rows[2].key, "vcpu:kvm:42:1");
		/* inputs in the bound model's order: place_rem, cs (not recorded), tclk */
		CHECK_NEAR(f.rows[2].inputs[0], place_of(k), 1e-15);
		CHECK_NAN(f.rows[2].inputs[1]);
		CHECK_NEAR(f.rows[2].inputs[2], (double)(k + 1) * 1e8, 0);
		/* evaluated as it is read: busy = (k + 1) * 1e8 ns of 1 s */
		CHECK_NEAR(f.rows[2].metrics[0], (double)(k + 1) * 0.1, 1e-12);
		CHECK_NEAR(f.rows[2].fv[FACTOR_LOCALITY].score, place_of(k), 1e-15);
		rec_total_add(acc, &f);
		collect_frame_release(&f);
	}
	/* the end, and it stays the end */
	CHECK_INT(rec_next_frame(&rec, &f, &err), 0);
	CHECK_INT(rec_next_frame(&rec, &f, &err), 0);
	CHECK_INT((int)rec.n_read, 5);

	rec_total_finish(acc, &total);
	CHECK_INT((int)total.n_rows, 3);
	CHECK_NEAR(total.duration, 5.0, 1e-12);
	/* tclk: (1 + 2 + 3 + 4 + 5) * 1e8; place: (0 + .1 + .2 + .3 + .4) / 5 */
	CHECK_NEAR(total.rows[2].inputs[2], 15e8, 0);
	CHECK_NEAR(total.rows[2].inputs[0], 0.2, 1e-12);
	CHECK_NAN(total.rows[2].inputs[1]);
	CHECK_INT((int)total.rows[2].vm_row, 0);
	CHECK_U64(total.t_ns, 5000000000ull);
	collect_frame_release(&total);

	/* a second pass starts again at frame 0 */
	CHECK_INT(rec_rewind(&rec, &err), 0);
	CHECK_INT((int)rec.n_read, 0);
	CHECK_INT(rec_next_frame(&rec, &f, &err), 1);
	CHECK_U64(f.t_ns, 1000000000ull);
	CHECK_NEAR(f.rows[0].inputs[2], 1e8, 0);
	collect_frame_release(&f);

	model_avail_release(rm, &av);
	rec_release(&rec);
out:
	unlink(path);
	model_free(rm);
	model_free(m);
}

#ifdef HAVE_SQLITE
static int sql(const char *path, const char *stmt)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, stmt, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}
#endif

/* Read every frame; returns how many came before the end or the error (*ret). */
static size_t read_all(struct recording *rec, int *ret, struct vp_err *err, size_t vcpus)
{
	struct collect_frame f;
	size_t k = 0;

	while ((*ret = rec_next_frame(rec, &f, err)) > 0) {
		/* every frame before the damage is whole and in order */
		CHECK_U64(f.t_ns, (k + 1) * 1000000000ull);
		CHECK_INT((int)f.n_rows, (int)vcpus + 1);
		CHECK_NEAR(f.rows[f.n_rows - 1].inputs[0], (double)(k + 1) * 1e8, 0);
		CHECK_NEAR(f.rows[f.n_rows - 1].inputs[1], place_of(k), 1e-15);
		collect_frame_release(&f);
		k++;
	}
	return k;
}

TEST(record_damage_mid_stream_keeps_what_was_read)
{
#ifndef HAVE_SQLITE
	SKIP("built without SQLite");
#else
	char path[] = "/tmp/vmmprof-recdmg-XXXXXX", cut[64], want[128];
	struct model *m = load_model();
	struct recording rec;
	struct vp_err err;
	struct stat st;
	size_t k;
	int ret;

	if (!m)
		return;
	temp_path(path);
	if (write_recording(path, m, 6, 1))
		goto out;

	/* frame 3 missing: frames 0-2 come, then an error naming the file and frame 3 */
	CHECK_INT(sql(path, "DELETE FROM frames WHERE seq = 3"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	k = read_all(&rec, &ret, &err, 1);
	CHECK_INT((int)k, 3);
	CHECK_INT(ret, VP_EFORMAT);
	snprintf(want, sizeof(want), "'%s' is damaged at frame 3", path);
	CHECK_CONTAINS(err.msg, want);
	CHECK_CONTAINS(err.msg, "not consecutive");
	CHECK_INT((int)rec.n_read, 3);
	/* the error stays */
	{
		struct collect_frame f;

		CHECK_INT(rec_next_frame(&rec, &f, &err), VP_EFORMAT);
		CHECK_CONTAINS(err.msg, want);
	}
	rec_release(&rec);
	unlink(path);

	/* rows of a frame that is not there (the frame list ends before them) */
	if (write_recording(path, m, 6, 1))
		goto out;
	CHECK_INT(sql(path, "DELETE FROM frames WHERE seq = 5"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK_INT((int)read_all(&rec, &ret, &err, 1), 5);
	CHECK_INT(ret, VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "frame 5");
	rec_release(&rec);
	unlink(path);

	/*
	 * Truncated to 90 %: pages are allocated as frames are committed, so
	 * the last tenth of the file holds leaves of the last frames' rows and
	 * values only (the frames table, ~150 frames a page, last split near
	 * frame 150: its pages come before).  Some frames come whole, then the
	 * damage is named.
	 */
	if (write_recording(path, m, 300, 19))
		goto out;
	CHECK_INT(stat(path, &st), 0);
	snprintf(cut, sizeof(cut), "%s.cut", path);
	snprintf(want, sizeof(want), "head -c %lld %s > %s", (long long)st.st_size * 9 / 10, path,
		 cut);
	CHECK_INT(system(want), 0);
	CHECK_INT(rec_open(cut, &rec, &err), 0);
	k = read_all(&rec, &ret, &err, 19);
	CHECK(k > 0 && k < 300);
	CHECK_INT(ret, VP_EFORMAT);
	snprintf(want, sizeof(want), "'%s' is damaged at frame %zu", cut, k);
	CHECK_CONTAINS(err.msg, want);
	rec_release(&rec);
	unlink(cut);
out:
	unlink(path);
	model_free(m);
#endif
}

#ifdef HAVE_SQLITE
/*
 * A schema 1 recording as vmmprof 0.x wrote it (rowid tables, row_mem
 * without a key), written by hand: two frames of VM "old" and its vCPU 0,
 * rows inserted out of key order to show the reader sorts by key.
 */
static const char schema1_sql[] =
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE nodes (id INTEGER PRIMARY KEY, cpus TEXT NOT NULL, mem_total INTEGER);"
	"CREATE TABLE inputs (idx INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,"
	"  spec TEXT NOT NULL, reason TEXT);"
	"CREATE TABLE frames (seq INTEGER PRIMARY KEY, t_ns INTEGER NOT NULL, duration REAL NOT NULL,"
	"  cpu_mhz REAL, notes TEXT);"
	"CREATE TABLE rows (seq INTEGER NOT NULL, pos INTEGER NOT NULL, kind TEXT NOT NULL,"
	"  key TEXT, name TEXT, vm_pos INTEGER, adapter TEXT, libvirt INTEGER, pid INTEGER,"
	"  domid INTEGER, idx INTEGER, tid INTEGER, cpu INTEGER, node INTEGER, remote REAL,"
	"  remote_quality TEXT, PRIMARY KEY (seq, pos));"
	"CREATE TABLE row_mem (seq INTEGER NOT NULL, pos INTEGER NOT NULL, node INTEGER NOT NULL,"
	"  bytes INTEGER NOT NULL);"
	"CREATE TABLE vals (seq INTEGER NOT NULL, pos INTEGER NOT NULL, input INTEGER NOT NULL,"
	"  value REAL, PRIMARY KEY (seq, pos, input));"
	"INSERT INTO meta VALUES ('schema_version', '1'), ('vmmprof_version', '0.1'),"
	"  ('model', 'software'), ('created', '2026-01-01T00:00:00Z'), ('command', 'old'),"
	"  ('interval_s', '0.5'), ('topology', '2 1 2 0');"
	"INSERT INTO nodes VALUES (0, '0-1', NULL);"
	"INSERT INTO inputs VALUES (0, 'tclk', 'event', 'task-clock', NULL),"
	"  (1, 'place_rem', 'source', 'placement.remote_fraction', NULL);"
	"INSERT INTO frames VALUES (1, 2000000000, 0.5, 1000, ''), (0, 1500000000, 0.5, 1000, '');"
	"INSERT INTO rows VALUES (1, 1, 'vcpu', 'vcpu:kvm:7:0', NULL, 0, 'kvm', 0, 7, NULL, 0, 8,"
	"  1, 0, 0.5, 'estimate');"
	"INSERT INTO rows VALUES (1, 0, 'vm', 'vm:kvm:7', 'old', 0, 'kvm', 1, 7, NULL, NULL, NULL,"
	"  NULL, NULL, NULL, 'unavailable');"
	"INSERT INTO rows VALUES (0, 0, 'vm', 'vm:kvm:7', 'old', 0, 'kvm', 1, 7, NULL, NULL, NULL,"
	"  NULL, NULL, NULL, 'unavailable');"
	"INSERT INTO rows VALUES (0, 1, 'vcpu', 'vcpu:kvm:7:0', NULL, 0, 'kvm', 0, 7, NULL, 0, 8,"
	"  0, 0, 0.25, 'estimate');"
	"INSERT INTO row_mem VALUES (1, 0, 0, 4096), (0, 0, 0, 2048);"
	"INSERT INTO vals VALUES (1, 1, 1, 0.5), (1, 1, 0, 4e8), (0, 1, 0, 1e8), (0, 1, 1, 0.25),"
	"  (0, 0, 0, 1e8), (1, 0, 0, 4e8), (0, 0, 1, NULL), (1, 0, 1, NULL);"
	"PRAGMA user_version=1;";
#endif

TEST(record_reads_schema_1)
{
#ifndef HAVE_SQLITE
	SKIP("built without SQLite");
#else
	char path[] = "/tmp/vmmprof-rec1-XXXXXX";
	struct recording rec;
	struct collect_frame f;
	struct vp_err err;

	temp_path(path);
	CHECK_INT(sql(path, schema1_sql), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK_INT(rec.schema, 1);
	CHECK_STR(rec.command, "old");
	CHECK_NEAR(rec.interval_s, 0.5, 0);
	CHECK_INT(rec_next_frame(&rec, &f, &err), 1);
	CHECK_U64(f.t_ns, 1500000000ull);
	CHECK_INT((int)f.n_rows, 2);
	CHECK_STR(f.rows[0].name, "old");
	CHECK(f.rows[0].libvirt);
	CHECK_INT(f.rows[0].n_mem_nodes, 1);
	CHECK_U64(f.rows[0].mem_node[0], 2048);
	CHECK_INT(f.rows[1].tid, 8);
	CHECK_INT(f.rows[1].cpu, 0);
	CHECK_NEAR(f.rows[1].remote.v, 0.25, 0);
	CHECK_INT(f.rows[1].remote.q, VQ_ESTIMATE);
	CHECK_NEAR(f.rows[1].inputs[0], 1e8, 0);
	CHECK_NEAR(f.rows[1].inputs[1], 0.25, 0);
	CHECK_NAN(f.rows[0].inputs[1]);
	/* before memory sources and resctrl node values were recorded: unknown */
	CHECK(!f.rows[0].mem_reason);
	CHECK(!f.rdt_node);
	collect_frame_release(&f);
	CHECK_INT(rec_next_frame(&rec, &f, &err), 1);
	CHECK_U64(f.t_ns, 2000000000ull);
	CHECK_U64(f.rows[0].mem_node[0], 4096);
	CHECK_INT(f.rows[1].cpu, 1);
	CHECK_NEAR(f.rows[1].inputs[0], 4e8, 0);
	CHECK_NEAR(f.rows[1].inputs[1], 0.5, 0);
	collect_frame_release(&f);
	CHECK_INT(rec_next_frame(&rec, &f, &err), 0);
	rec_release(&rec);

	/* a node id outside 0..4095 in the header is refused at open, naming it
	 * (it would index per-node arrays downstream; issue 21) */
	CHECK_INT(sql(path, "UPDATE nodes SET id = -1"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "node id -1 in its nodes table");
	rec_release(&rec);
	CHECK_INT(sql(path, "UPDATE nodes SET id = 4096"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "node id 4096 in its nodes table");
	rec_release(&rec);
	CHECK_INT(sql(path, "UPDATE nodes SET id = 4095"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	rec_release(&rec);

	/* the meta fields that size or bound what follows are refused out of range, naming the
	 * file, the field and its value (they were taken as sscanf/strtod left them) */
	{
		static const struct { const char *key, *value, *want; } bad_meta[] = {
			{ "topology", "-5 1 2 0", "meta field 'topology' is '-5 1 2 0', not" },
			{ "topology", "2 1 70000 0", "'2 1 70000 0'" },
			{ "topology", "2 1 2 7", "SMT 0 or 1" },
			{ "topology", "2 1", "'2 1'" },
			{ "topology", "2 1 2 0 junk", "'2 1 2 0 junk'" },
			{ "interval_s", "-1", "meta field 'interval_s' is '-1', not a number of seconds" },
			{ "interval_s", "nan", "'nan'" },
			{ "interval_s", "0", "'0'" },
			{ "interval_s", "1e9", "at most 2678400" },
			{ "interval_s", "0.5s", "'0.5s'" },
		};
		size_t i;

		for (i = 0; i < VP_ARRAY_SIZE(bad_meta); i++) {
			char *q = xasprintf("UPDATE meta SET value = '%s' WHERE key = '%s'",
					    bad_meta[i].value, bad_meta[i].key);

			CHECK_INT(sql(path, q), SQLITE_OK);
			CHECK_INT(rec_open(path, &rec, &err), VP_EFORMAT);
			CHECK_CONTAINS(err.msg, path);
			CHECK_CONTAINS(err.msg, bad_meta[i].want);
			rec_release(&rec);
			free(q);
		}
		CHECK_INT(sql(path, "UPDATE meta SET value = '65536 2 32768 1' WHERE key = 'topology';"
				    "UPDATE meta SET value = '2678400' WHERE key = 'interval_s'"), SQLITE_OK);
		CHECK_INT(rec_open(path, &rec, &err), 0);
		CHECK_INT(rec.plat.topo.n_cpus, 65536);
		CHECK(rec.plat.topo.smt_on);
		rec_release(&rec);
		/* a node's CPU list that is no list (or names CPU 65536) is refused, not taken
		 * as a node without CPUs */
		CHECK_INT(sql(path, "UPDATE nodes SET cpus = '0-1x'"), SQLITE_OK);
		CHECK_INT(rec_open(path, &rec, &err), VP_EFORMAT);
		CHECK_CONTAINS(err.msg, "node 4095's CPUs '0-1x' in its nodes table");
		rec_release(&rec);
		CHECK_INT(sql(path, "UPDATE nodes SET cpus = '65536'"), SQLITE_OK);
		CHECK_INT(rec_open(path, &rec, &err), VP_EFORMAT);
		rec_release(&rec);
		CHECK_INT(sql(path, "UPDATE nodes SET cpus = '0-1'; UPDATE meta SET value = '2 1 2 0' "
				    "WHERE key = 'topology'; UPDATE meta SET value = '0.5' WHERE key = "
				    "'interval_s'"), SQLITE_OK);
		CHECK_INT(rec_open(path, &rec, &err), 0);
		rec_release(&rec);
	}

	/* a newer schema than this vmmprof reads is refused with both numbers */
	CHECK_INT(sql(path, "UPDATE meta SET value = '99' WHERE key = 'schema_version'"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "schema 99");
	rec_release(&rec);
	unlink(path);
#endif
}

TEST(record_refuses_what_is_not_a_recording)
{
	char path[] = "/tmp/vmmprof-notrec-XXXXXX";
	struct recording rec;
	struct vp_err err;
	int fd = mkstemp(path);

	CHECK(write(fd, "this is not SQLite at all, just text that is long enough\n", 58) == 58);
	close(fd);
	CHECK_INT(rec_read(path, &rec, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "is not a readable vmmprof recording");
	rec_release(&rec);
	CHECK_INT(rec_open(path, &rec, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "is not a readable vmmprof recording");
	rec_release(&rec);
	unlink(path);
	CHECK(rec_read("/nonexistent/x.vmmdb", &rec, &err) < 0);
	CHECK_CONTAINS(err.msg, "cannot open recording '/nonexistent/x.vmmdb'");
	rec_release(&rec);
}

/*
 * Schema 3: node rows and the inputs counted per node survive a recording.
 * Two frames of one VM with one vCPU, tclk marked as counted per node;
 * node 0 counted 5e8 and 6e8 ns of it (its own), node 1 1e8 and 2e8 as a
 * split package's share.  Read back: the node rows are the frame's nodes
 * (not entity rows), with their values and labels; bound to the model,
 * busy (tclk / 1e9 / duration) is the node's, the VM and vCPU rows are
 * apportioned (their tclk is finite) and busy is marked as read from a
 * per-node input; the whole run sums each node: 1.1e9 and 3e8.
 */
TEST(record_node_rows_round_trip)
{
	char path[] = "/tmp/vmmprof-rec-XXXXXX";
	struct model *m = load_model();
	struct platform plat;
	struct rec_writer *w = NULL;
	struct collect_frame f, total;
	struct recording rec;
	struct model_avail av;
	struct vp_err err = { 0, "" };
	bool node_input[2] = { true, false };
	size_t k, i;

	memset(&rec, 0, sizeof(rec));
	memset(&total, 0, sizeof(total));
	if (!m)
		return;
	temp_path(path);
	rec_synth_platform(&plat);
	rec_synth_frame(&f, 1);
	frame_mark_node_inputs(m, node_input, &f);
	f.n_nodes = 2;
	f.nodes = xcalloc(2, sizeof(*f.nodes));
	for (i = 0; i < 2; i++) {
		f.nodes[i].kind = ENT_NODE;
		f.nodes[i].key = xasprintf("node:%zu", i);
		f.nodes[i].name = xasprintf("node %zu", i);
		f.nodes[i].node = (int)i;
		f.nodes[i].pid = f.nodes[i].domid = f.nodes[i].index = f.nodes[i].tid = -1;
		f.nodes[i].cpu = -1;
		f.nodes[i].apportioned = i == 1;
		f.nodes[i].remote.v = NAN;
		f.nodes[i].inputs = xcalloc(2, sizeof(double));
		f.nodes[i].inputs[1] = NAN;
	}
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record" };

		CHECK_INT(rec_create(&w, path, &h, &err), 0);
	}
	for (k = 0; w && k < 2; k++) {
		rec_synth_set(&f, (k + 1) * 1000000000ull, 1e8, 0.1);
		f.nodes[0].inputs[0] = (double)(5 + k) * 1e8;
		f.nodes[1].inputs[0] = (double)(1 + k) * 1e8;
		CHECK_INT(rec_append(w, &f, &err), 0);
	}
	if (w)
		CHECK_INT(rec_close(w, &err), 0);
	CHECK_INT(rec_read(path, &rec, &err), 0);
	CHECK_INT(rec.schema, REC_SCHEMA_VERSION);
	CHECK_STR(rec.node_inputs ? rec.node_inputs : "(none)", "tclk");
	CHECK_INT((int)rec.n_frames, 2);
	if (rec.n_frames != 2)
		goto out;
	CHECK_INT((int)rec.frames[1].n_rows, 2);
	CHECK_INT((int)rec.frames[1].n_nodes, 2);
	if (rec.frames[1].n_nodes == 2) {
		CHECK_INT(rec.frames[1].nodes[1].kind, ENT_NODE);
		CHECK_INT(rec.frames[1].nodes[1].node, 1);
		CHECK(!rec.frames[1].nodes[0].apportioned);
		CHECK(rec.frames[1].nodes[1].apportioned);
		CHECK_NEAR(rec.frames[1].nodes[0].inputs[0], 6e8, 0);
	}
	CHECK_INT(rec_bind_model(&rec, m, &av, &err), 0);
	model_avail_release(m, &av);
	CHECK(rec.frames[1].metric_node && rec.frames[1].metric_node[0]);
	CHECK(rec.frames[1].rows[0].apportioned && rec.frames[1].rows[1].apportioned);
	if (rec.frames[1].n_nodes == 2)
		CHECK_NEAR(rec.frames[1].nodes[0].metrics[0], 0.6, 1e-12);
	rec_total_frame(&rec, m, &total);
	CHECK_INT((int)total.n_rows, 2);
	CHECK_INT((int)total.n_nodes, 2);
	if (total.n_nodes == 2) {
		CHECK_NEAR(total.nodes[0].inputs[0], 1.1e9, 0);
		CHECK_NEAR(total.nodes[1].inputs[0], 3e8, 0);
		/* busy over the run: 1.1e9 ns in 2 s */
		CHECK_NEAR(total.nodes[0].metrics[0], 0.55, 1e-12);
		CHECK(total.nodes[1].apportioned);
	}
	CHECK(total.rows[0].apportioned);
out:
	collect_frame_release(&total);
	rec_release(&rec);
	collect_frame_release(&f);
	platform_release(&plat);
	model_free(m);
	unlink(path);
}

#ifdef HAVE_SQLITE
/*
 * A schema 5 file of rec_synth_set(f, t, TCLK, PLACE) frames made the schema 4
 * file an earlier vmmprof wrote: each row's two inputs as entries of the vals
 * table (TCLK and PLACE for every row, as rec_synth_set() sets them), rows.vals
 * dropped, the number set back.
 */
#define TO_SCHEMA_4(TCLK, PLACE)							\
	"CREATE TABLE vals (seq INTEGER NOT NULL, pos INTEGER NOT NULL, input INTEGER NOT NULL,"	\
	"  value REAL, PRIMARY KEY (seq, pos, input)) WITHOUT ROWID;"			\
	"INSERT INTO vals SELECT seq, pos, 0, " TCLK " FROM rows;"			\
	"INSERT INTO vals SELECT seq, pos, 1, " PLACE " FROM rows;"			\
	"ALTER TABLE rows DROP COLUMN vals;"						\
	"UPDATE meta SET value = '4' WHERE key = 'schema_version'; PRAGMA user_version = 4;"

/* The single integer a query returns, -1 on error. */
static long long sql_int(const char *path, const char *query)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long v = -1;

	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, query, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/*
 * Schema 5: a row's inputs are one column of its row (rows.vals), packed as
 * docs/record-format.md says, and a value not available (NaN) takes no
 * bytes; it reads back as not available, as a missing or NULL vals entry of
 * older files does.  One VM with one vCPU, tclk 1e8 and placement 0.25, the
 * vCPU's placement NaN.  By hand: 1e8 = 47 * 128^3 + 87 * 128^2 + 66 * 128
 * + 0 is the varint 80 c2 d7 2f (7 bits a byte, low first, 0x80 = more);
 * 0.25 is the double 0x3fd0000000000000, little endian 00 00 00 00 00 00 d0
 * 3f.  The VM row: codes tclk 1 (an integer) and place 2 (a double), one
 * byte 0x01 | 0x02 << 2 = 0x09, then both values; the vCPU row: codes 0x01
 * (place 0: none), then tclk.  One row each in rows, no vals table.  The
 * vCPU's run-queue wait window (5 s) is kept with it (rows.sched_window).
 */
TEST(record_nan_values_have_no_entry)
{
	char path[] = "/tmp/vmmprof-recnan-XXXXXX";
	struct model *m = load_model();
	struct platform plat;
	struct rec_writer *w = NULL;
	struct collect_frame f;
	struct recording rec;
	struct vp_err err = { 0, "" };

	memset(&rec, 0, sizeof(rec));
	if (!m)
		return;
	temp_path(path);
	rec_synth_platform(&plat);
	rec_synth_frame(&f, 1);
	rec_synth_set(&f, 1000000000ull, 1e8, 0.25);
	f.rows[1].inputs[1] = NAN;
	f.rows[1].sched_window_s = 5;   /* its run-queue wait a mean over 5 s */
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record" };

		CHECK_INT(rec_create(&w, path, &h, &err), 0);
	}
	if (w) {
		CHECK_INT(rec_append(w, &f, &err), 0);
		CHECK_INT(rec_close(w, &err), 0);
	}
	CHECK_INT((int)sql_int(path, "SELECT count(*) FROM rows"), 2);
	CHECK_INT((int)sql_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'vals'"), 0);
	CHECK_INT((int)sql_int(path, "SELECT hex(vals) = '0980C2D72F000000000000D03F' FROM rows "
			       "WHERE pos = 0"), 1);
	CHECK_INT((int)sql_int(path, "SELECT hex(vals) = '0180C2D72F' FROM rows WHERE pos = 1"), 1);
	CHECK_INT(rec_read(path, &rec, &err), 0);
	CHECK_INT((int)rec.n_frames, 1);
	if (rec.n_frames == 1 && rec.frames[0].n_rows == 2) {
		CHECK_NEAR(rec.frames[0].rows[1].inputs[0], 1e8, 0);
		CHECK_NAN(rec.frames[0].rows[1].inputs[1]);
		CHECK_NEAR(rec.frames[0].rows[0].inputs[1], 0.25, 0);
		CHECK_NEAR(rec.frames[0].rows[1].sched_window_s, 5, 0);
		CHECK_NEAR(rec.frames[0].rows[0].sched_window_s, 0, 0); /* a VM row: none */
	}
	rec_release(&rec);
	/* a schema 5 file from before rows.sched_window: the window not known */
	CHECK_INT(sql(path, "ALTER TABLE rows DROP COLUMN sched_window"), SQLITE_OK);
	CHECK_INT(rec_read(path, &rec, &err), 0);
	CHECK_INT((int)rec.n_frames, 1);
	if (rec.n_frames == 1 && rec.frames[0].n_rows == 2) {
		CHECK_NEAR(rec.frames[0].rows[1].sched_window_s, 0, 0);
		CHECK_NEAR(rec.frames[0].rows[1].inputs[0], 1e8, 0);
	}
	rec_release(&rec);
	collect_frame_release(&f);
	platform_release(&plat);
	model_free(m);
	unlink(path);
}
#endif

/*
 * The VM's memory source and --resctrl's node sums survive a recording.
 * Two nodes with ids 0 and 2 (not their positions: the file keys node_rdt
 * by id).  Frame 0: node 0 holds 3 MiB and moved 1e9 bytes (5e8 local),
 * node 2 n/a; frame 1: node 0 2 MiB, 3e9 (1e9 local); node 2 1 MiB, its
 * traffic n/a.  Over the run, by hand: node 0 holds 2 MiB (the last),
 * moved 4e9 (1.5e9 local); node 2 holds 1 MiB, traffic still n/a.  The
 * memory source is the same text in both frames: one row in texts.  A
 * frame whose node values are all n/a keeps its reason.
 */
TEST(record_resctrl_nodes_and_memory_sources)
{
#ifndef HAVE_SQLITE
	SKIP("built without SQLite");
#else
	static const char src[] = "resident pages of 1 guest RAM mapping (numa_maps)";
	static const double v[2][6] = {
		{ 3145728, 1e9, 5e8, NAN, NAN, NAN },
		{ 2097152, 3e9, 1e9, 1048576, NAN, NAN },
	};
	char path[] = "/tmp/vmmprof-rec-XXXXXX";
	struct model *m = load_model();
	struct platform plat;
	struct rec_writer *w = NULL;
	struct collect_frame f, total;
	struct recording rec;
	struct vp_err err = { 0, "" };
	size_t k, i;

	memset(&rec, 0, sizeof(rec));
	memset(&total, 0, sizeof(total));
	if (!m)
		return;
	temp_path(path);
	rec_synth_platform(&plat);
	plat.topo.nodes = xrealloc(plat.topo.nodes, 2 * sizeof(*plat.topo.nodes));
	memset(&plat.topo.nodes[1], 0, sizeof(plat.topo.nodes[1]));
	plat.topo.nodes[1].id = 2;
	cpulist_parse(&plat.topo.nodes[1].cpus, "2-3", NULL);
	plat.topo.n_nodes = 2;
	plat.topo.n_cpus = 4;
	rec_synth_frame(&f, 1);
	f.rows[0].mem_reason = xstrdup(src);
	f.n_rdt_nodes = 2;
	f.rdt_node = xcalloc(6, sizeof(double));
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record --resctrl" };

		CHECK_INT(rec_create(&w, path, &h, &err), 0);
	}
	for (k = 0; w && k < 3; k++) {
		rec_synth_set(&f, (k + 1) * 1000000000ull, 1e8, 0.1);
		for (i = 0; i < 6; i++)
			f.rdt_node[i] = k < 2 ? v[k][i] : NAN;
		sbuf_set(&f.rdt_why, k < 2 ? "" : "VM 'vm1': no values yet");
		CHECK_INT(rec_append(w, &f, &err), 0);
	}
	if (w)
		CHECK_INT(rec_close(w, &err), 0);
	CHECK_INT((int)sql_int(path, "SELECT count(*) FROM texts"), 2);
	CHECK_INT((int)sql_int(path, "SELECT count(*) FROM node_rdt WHERE node = 2"), 3);

	CHECK_INT(rec_read(path, &rec, &err), 0);
	CHECK_INT((int)rec.n_frames, 3);
	if (rec.n_frames != 3)
		goto out;
	for (k = 0; k < 3; k++) {
		CHECK_STR(rec.frames[k].rows[0].mem_reason ? rec.frames[k].rows[0].mem_reason : "(null)",
			  src);
		CHECK(!rec.frames[k].rows[1].mem_reason);
		CHECK_INT(rec.frames[k].n_rdt_nodes, 2);
		if (!rec.frames[k].rdt_node)
			continue;
		for (i = 0; i < 6; i++) {
			double want = k < 2 ? v[k][i] : NAN;

			if (isnan(want))
				CHECK_NAN(rec.frames[k].rdt_node[i]);
			else
				CHECK_NEAR(rec.frames[k].rdt_node[i], want, 0);
		}
	}
	CHECK_STR(sbuf_str(&rec.frames[1].rdt_why), "");
	CHECK_STR(sbuf_str(&rec.frames[2].rdt_why), "VM 'vm1': no values yet");

	/* the run: two frames (the third has no values) */
	rec.n_frames = 2;
	rec_total_frame(&rec, m, &total);
	rec.n_frames = 3;
	CHECK_STR(total.rows[0].mem_reason ? total.rows[0].mem_reason : "(null)", src);
	CHECK_INT(total.n_rdt_nodes, 2);
	if (total.rdt_node) {
		CHECK_NEAR(total.rdt_node[0], 2097152, 0);
		CHECK_NEAR(total.rdt_node[1], 4e9, 0);
		CHECK_NEAR(total.rdt_node[2], 1.5e9, 0);
		CHECK_NEAR(total.rdt_node[3], 1048576, 0);
		CHECK_NAN(total.rdt_node[4]);
		CHECK_NAN(total.rdt_node[5]);
	}
	CHECK_STR(sbuf_str(&total.rdt_why), "");
	collect_frame_release(&total);
	/* all three: the last frame's occupancy (n/a), the traffic still summed, no reason
	 * since some node has values */
	rec_total_frame(&rec, m, &total);
	if (total.rdt_node) {
		CHECK_NAN(total.rdt_node[0]);
		CHECK_NEAR(total.rdt_node[1], 4e9, 0);
	}
	CHECK_STR(sbuf_str(&total.rdt_why), "");
out:
	collect_frame_release(&total);
	rec_release(&rec);
	collect_frame_release(&f);
	platform_release(&plat);
	model_free(m);
	unlink(path);
#endif
}

/*
 * Schema 4: each row's incarnation start, state and LLC tenancy are written
 * and read back (frame 0: the VM running, its vCPU alone on its LLC; frame
 * 1: the VM paused, the vCPU sharing; frame 2: both ended); a paused row is
 * not rated (the locality score of place 0.1 would be 0.1).  The same file
 * made a schema 3 one (the columns dropped, the number set back) reads with
 * them unknown: running, start unknown, tenancy not known.
 */
TEST(record_lifecycle_round_trip_and_schema_3)
{
#ifndef HAVE_SQLITE
	SKIP("built without SQLite");
#else
	char path[] = "/tmp/vmmprof-rec4-XXXXXX";
	struct model *m = load_model();
	struct platform plat;
	struct rec_writer *w = NULL;
	struct collect_frame f, g;
	struct recording rec;
	struct model_avail av;
	struct vp_err err = { 0, "" };
	static const enum row_state vm_state[3] = { RS_RUNNING, RS_PAUSED, RS_ENDED };
	static const signed char alone[3] = { 1, -1, 0 };
	size_t k;

	if (!m)
		return;
	temp_path(path);
	rec_synth_platform(&plat);
	rec_synth_frame(&f, 1);
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record" };

		CHECK_INT(rec_create(&w, path, &h, &err), 0);
	}
	for (k = 0; w && k < 3; k++) {
		rec_synth_set(&f, (k + 1) * 1000000000ull, 1e8, 0.1);
		f.rows[0].started = f.rows[1].started = 4321.25;
		f.rows[0].state = f.rows[1].state = vm_state[k];
		f.rows[1].llc_alone = alone[k];
		CHECK_INT(rec_append(w, &f, &err), 0);
	}
	if (w)
		CHECK_INT(rec_close(w, &err), 0);
	collect_frame_release(&f);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK_INT(rec.schema, REC_SCHEMA_VERSION);
	CHECK_INT(rec_bind_model(&rec, m, &av, &err), 0);
	for (k = 0; k < 3; k++) {
		CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
		CHECK_INT((int)g.n_rows, 2);
		CHECK_NEAR(g.rows[0].started, 4321.25, 0);
		CHECK_NEAR(g.rows[1].started, 4321.25, 0);
		CHECK_INT(g.rows[0].state, vm_state[k]);
		CHECK_INT(g.rows[1].state, vm_state[k]);
		CHECK_INT(g.rows[1].llc_alone, alone[k]);
		if (vm_state[k] == RS_PAUSED) {
			CHECK_NAN(g.rows[1].fv[FACTOR_LOCALITY].score);
			CHECK_INT(g.rows[1].fv[FACTOR_LOCALITY].sev, SEV_NA);
		} else {
			CHECK_NEAR(g.rows[1].fv[FACTOR_LOCALITY].score, 0.1, 1e-12);
		}
		collect_frame_release(&g);
	}
	model_avail_release(m, &av);
	rec_release(&rec);

	CHECK_INT(sql(path, TO_SCHEMA_4("1e8", "0.1")), SQLITE_OK);
	CHECK_INT(sql(path, "ALTER TABLE rows DROP COLUMN started; ALTER TABLE rows DROP COLUMN state;"
		      "ALTER TABLE rows DROP COLUMN llc_alone; UPDATE meta SET value = '3' WHERE "
		      "key = 'schema_version'; PRAGMA user_version = 3"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK_INT(rec.schema, 3);
	for (k = 0; k < 3; k++) {
		CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
		CHECK_INT((int)g.n_rows, 2);
		CHECK(!(g.rows[0].started > 0));
		CHECK_INT(g.rows[1].state, RS_RUNNING);
		CHECK_INT(g.rows[1].llc_alone, 0);
		CHECK_NEAR(g.rows[1].inputs[0], 1e8, 0);
		collect_frame_release(&g);
	}
	CHECK_INT(rec_next_frame(&rec, &g, &err), 0);
	rec_release(&rec);
	platform_release(&plat);
	unlink(path);
	model_free(m);
#endif
}

/*
 * rows.persist, rows.numa_mode and rows.iothreads (within schema 4): what
 * libvirt says of a domain is written on its VM row and read back
 * (persistent, transient, not known; restrictive, strict, not known;
 * IOThreads 1 and 3, none, not known), so that advice from a recording
 * writes --config where the domain has a configuration, numatune --live
 * where its mode lets it, and pins its IOThreads.  A schema 4 file from
 * before the last two columns (dropped here) keeps persistence; one from
 * before persist too reads all three not known, its other columns intact.
 */
TEST(record_persist_round_trip_and_early_schema_4)
{
#ifndef HAVE_SQLITE
	SKIP("built without SQLite");
#else
	char path[] = "/tmp/vmmprof-recp-XXXXXX";
	struct model *m = load_model();
	struct platform plat;
	struct rec_writer *w = NULL;
	struct collect_frame f, g;
	struct recording rec;
	struct vp_err err = { 0, "" };
	static const enum diag_persist pers[3] = { DP_PERSISTENT, DP_TRANSIENT, DP_UNKNOWN };
	static const enum diag_numa_mode mode[3] = { DN_RESTRICTIVE, DN_UNKNOWN, DN_STRICT };
	static const int n_io[3] = { 2, 0, -1 };
	size_t k;

	if (!m)
		return;
	temp_path(path);
	rec_synth_platform(&plat);
	rec_synth_frame(&f, 1);
	CHECK_INT(f.rows[0].kind, ENT_VM);
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record" };

		CHECK_INT(rec_create(&w, path, &h, &err), 0);
	}
	for (k = 0; w && k < 3; k++) {
		rec_synth_set(&f, (k + 1) * 1000000000ull, 1e8, 0.1);
		f.rows[0].libvirt = true;
		f.rows[0].persist = pers[k];
		f.rows[0].numa_mode = mode[k];
		f.rows[0].n_iothreads = n_io[k];
		f.rows[0].iothread_ids[0] = 1;
		f.rows[0].iothread_ids[1] = 3;
		f.rows[0].started = 77.5;
		CHECK_INT(rec_append(w, &f, &err), 0);
	}
	if (w)
		CHECK_INT(rec_close(w, &err), 0);
	collect_frame_release(&f);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	for (k = 0; k < 3; k++) {
		CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
		CHECK_INT(g.rows[0].persist, pers[k]);
		CHECK_INT(g.rows[1].persist, DP_UNKNOWN);
		CHECK_INT(g.rows[0].numa_mode, mode[k]);
		CHECK_INT(g.rows[1].numa_mode, DN_UNKNOWN);
		CHECK_INT(g.rows[0].n_iothreads, n_io[k]);
		if (n_io[k] == 2) {
			CHECK_INT(g.rows[0].iothread_ids[0], 1);
			CHECK_INT(g.rows[0].iothread_ids[1], 3);
		}
		CHECK_INT(g.rows[1].n_iothreads, -1);
		collect_frame_release(&g);
	}
	rec_release(&rec);

	/* a schema 4 file (its inputs in vals) with every column: the same */
	CHECK_INT(sql(path, TO_SCHEMA_4("1e8", "0.1")), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK_INT(rec.schema, 4);
	for (k = 0; k < 3; k++) {
		CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
		CHECK_INT(g.rows[0].persist, pers[k]);
		CHECK_INT(g.rows[0].numa_mode, mode[k]);
		CHECK_INT(g.rows[0].n_iothreads, n_io[k]);
		CHECK_NEAR(g.rows[1].inputs[0], 1e8, 0);
		CHECK_NEAR(g.rows[1].inputs[1], 0.1, 0);
		collect_frame_release(&g);
	}
	rec_release(&rec);
	CHECK_INT(sql(path, "ALTER TABLE rows DROP COLUMN numa_mode"), SQLITE_OK);
	CHECK_INT(sql(path, "ALTER TABLE rows DROP COLUMN iothreads"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	for (k = 0; k < 3; k++) {
		CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
		CHECK_INT(g.rows[0].persist, pers[k]);
		CHECK_INT(g.rows[0].numa_mode, DN_UNKNOWN);
		CHECK_INT(g.rows[0].n_iothreads, -1);
		collect_frame_release(&g);
	}
	rec_release(&rec);

	CHECK_INT(sql(path, "ALTER TABLE rows DROP COLUMN persist"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK_INT(rec.schema, 4);
	for (k = 0; k < 3; k++) {
		CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
		CHECK_INT(g.rows[0].persist, DP_UNKNOWN);
		CHECK_NEAR(g.rows[0].started, 77.5, 0);
		collect_frame_release(&g);
	}
	rec_release(&rec);
	platform_release(&plat);
	unlink(path);
	model_free(m);
#endif
}

/*
 * The running shares (issue 16): tclk counted 0.5, 1 and 0.25 s of 1 s
 * enabled in three intervals.  Read back under reversed_model, where tclk
 * is input 2 (recorded as 0): each frame's scaling names input 2 with
 * 50, 100, 25 %; the whole run's is (0.5 + 1 + 0.25) / 3 = 58.33 %.  With
 * the table dropped (a file from before it), no frame has any and the
 * recording says it did not keep them.
 */
TEST(record_running_shares_round_trip)
{
#ifndef HAVE_SQLITE
	SKIP("built without SQLite");
#else
	char path[] = "/tmp/vmmprof-recsc-XXXXXX";
	static const double run[3] = { 0.5, 1.0, 0.25 };
	struct model *m = load_model(), *rm = NULL;
	struct platform plat;
	struct rec_writer *w = NULL;
	struct recording rec;
	struct model_avail av;
	struct collect_frame f, g, total;
	struct rec_total *acc;
	struct diags d;
	struct vp_err err;
	size_t k;

	if (!m)
		return;
	temp_path(path);
	rec_synth_platform(&plat);
	rec_synth_frame(&f, 1);
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record -o x" };

		CHECK_INT(rec_create(&w, path, &h, &err), 0);
	}
	f.scaling = xcalloc(1, sizeof(*f.scaling));
	f.n_scaling = 1;
	f.scaling[0].event = xstrdup("task-clock");
	f.scaling[0].input = 0; /* tclk in the synthetic model */
	for (k = 0; w && k < 3; k++) {
		rec_synth_set(&f, (k + 1) * 1000000000ull, 1e8, 0.1);
		f.scaling[0].enabled_s = 1;
		f.scaling[0].running_s = run[k];
		f.scaling[0].running_pct = 100 * run[k];
		CHECK_INT(rec_append(w, &f, &err), 0);
	}
	if (w)
		CHECK_INT(rec_close(w, &err), 0);
	collect_frame_release(&f);

	diags_init(&d);
	CHECK_INT(model_load_text(&rm, reversed_model, "rev.model", NULL, 0, &d, &err), 0);
	diags_release(&d);
	if (!rm)
		goto out;
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK(rec.scaling_kept);
	CHECK_INT(rec_bind_model(&rec, rm, &av, &err), 0);
	acc = rec_total_new(&rec, rm);
	for (k = 0; k < 3; k++) {
		CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
		CHECK_INT((int)g.n_scaling, 1);
		if (g.n_scaling == 1) {
			CHECK_INT((int)g.scaling[0].input, 2);
			CHECK_NEAR(g.scaling[0].running_pct, 100 * run[k], 1e-9);
		}
		rec_total_add(acc, &g);
		collect_frame_release(&g);
	}
	rec_total_finish(acc, &total);
	CHECK_INT((int)total.n_scaling, 1);
	if (total.n_scaling == 1) {
		CHECK_INT((int)total.scaling[0].input, 2);
		CHECK_NEAR(total.scaling[0].enabled_s, 3, 1e-12);
		CHECK_NEAR(total.scaling[0].running_pct, 100 * 1.75 / 3, 1e-9);
	}
	collect_frame_release(&total);
	model_avail_release(rm, &av);
	rec_release(&rec);

	CHECK_INT(sql(path, "DROP TABLE scaling"), SQLITE_OK);
	CHECK_INT(rec_open(path, &rec, &err), 0);
	CHECK(!rec.scaling_kept);
	CHECK_INT(rec_next_frame(&rec, &g, &err), 1);
	CHECK_INT((int)g.n_scaling, 0);
	collect_frame_release(&g);
	rec_release(&rec);
out:
	model_free(rm);
	platform_release(&plat);
	unlink(path);
	model_free(m);
#endif
}
