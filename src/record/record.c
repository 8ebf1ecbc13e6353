/* record.c - recordings: collector frames in an SQLite file, read back for report and diagnose */
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/vms_view.h"
#include "model/swsource.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"
#include "util/strmap.h"
#include "version.h"

/* Reorder a row's recorded inputs to m's and evaluate it. */
static void bind_row(const struct recording *r, const int *map, double *scratch,
		     const struct model *m, struct collect_frame *f, struct collect_row *row)
{
	size_t k;

	for (k = 0; k < m->n_inputs; k++)
		scratch[k] = map[k] >= 0 ? row->inputs[map[k]] : NAN;
	memcpy(row->inputs, scratch, m->n_inputs * sizeof(double));
	frame_eval_row(m, &r->plat, r->have_cal ? &r->cal : NULL, f->cpu_mhz, row, f->duration);
}

/* Whether the recording says m's input i was counted per node (meta node_inputs). */
static bool node_input_of(const struct recording *r, const struct model *m, size_t i)
{
	const char *p = r->node_inputs, *name = m->inputs[i].name;
	size_t len = strlen(name);

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == len && !strncmp(p, name, len))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/*
 * Bind a frame's rows (entities and nodes) to m, then label what was
 * counted per node: the frame's masks, and each VM or vCPU row that holds a
 * share of a node count (as the live collector flags it).
 */
static void bind_frame(const struct recording *r, const int *map, double *scratch,
		       const struct model *m, struct collect_frame *f, struct cost_solo *solo)
{
	bool *node_input = NULL;
	size_t i, k;

	for (i = 0; i < f->n_rows; i++)
		bind_row(r, map, scratch, m, f, &f->rows[i]);
	for (i = 0; i < f->n_nodes; i++)
		bind_row(r, map, scratch, m, f, &f->nodes[i]);
	/* the running shares, recorded by the recorded input's index: the model's index */
	for (i = k = 0; i < f->n_scaling; i++) {
		size_t j;

		for (j = 0; j < m->n_inputs && map[j] != (int)f->scaling[i].input; j++)
			;
		if (j == m->n_inputs) {
			free(f->scaling[i].event);
			continue;
		}
		f->scaling[k] = f->scaling[i];
		f->scaling[k++].input = j;
	}
	f->n_scaling = k;
	/* the LLC cost's solo rates, from the intervals each row was alone so far, as live */
	frame_cost(m, r->have_cal ? &r->cal : NULL, f, solo);
	if (!r->node_inputs)
		return;
	node_input = xcalloc(m->n_inputs + 1, sizeof(bool));
	for (k = 0; k < m->n_inputs; k++)
		node_input[k] = node_input_of(r, m, k);
	frame_mark_node_inputs(m, node_input, f);
	for (i = 0; i < f->n_rows; i++)
		for (k = 0; k < m->n_inputs && !f->rows[i].apportioned; k++)
			f->rows[i].apportioned = node_input[k] && isfinite(f->rows[i].inputs[k]);
	free(node_input);
}

#ifdef HAVE_SQLITE
#include <sqlite3.h>

#define VP_STR2(x) #x
#define VP_STR(x) VP_STR2(x)

/*
 * Schema 2: rows, row_mem and vals are clustered on their keys (WITHOUT
 * ROWID), so each is one B-tree that a reader scans front to back in frame
 * order and a writer appends to; schema 1 had them as rowid tables with a
 * separate key index (none on row_mem), the same columns.  Added within
 * schema 3 (readers of the first schema 3 files read the named columns and
 * tables only, so they read these files the same): rows.mem_reason and
 * frames.rdt_why (ids into texts, which holds each distinct text once: the
 * same reason on every VM row of every frame costs a byte or two), and
 * node_rdt (--resctrl's per-node sums, by node id).  Schema 4 (the lifecycle,
 * issue 20): rows.started (the process's start, s after boot: with pid the
 * incarnation), rows.state (NULL running, 'paused', 'ended': the interval
 * it ended in, counted up to its end) and rows.llc_alone (1 its LLC had no
 * other busy tenant, 0 it had, NULL not known: the LLC cost's solo rate).
 * Added within schema 4 (readers of the first schema 4 files read the named
 * columns only, so they read these files the same): rows.persist
 * ('persistent' or 'transient' for a libvirt domain, NULL not known), so
 * that advice from a recording writes virsh's --config where the domain
 * has a configuration (issue 17); then rows.numa_mode ('strict' or
 * 'restrictive': the domain's memory mode, NULL not known), so that advice
 * from a recording changes a running domain's nodeset where libvirt can,
 * and rows.iothreads (its IOThread ids, "1,3"; "" none; NULL not known),
 * so that moving a whole domain from a recording pins its IOThreads too;
 * then the scaling table (each counted input's enabled and running time in
 * the interval, perf's multiplexing), so that a recording's cost intervals
 * are widened as live ones are (issue 16).  Schema 5 (issue 22): a row's
 * inputs are one column of its row, rows.vals (vals_pack() below), instead
 * of one vals entry per input: one insert per row and interval instead of
 * about fifteen; the vals table is gone (files of schema 1 to 4 are read
 * through it).  Added within schema 5: rows.sched_window (a vCPU's run-queue
 * wait window), then rows.vm_topo: a KVM VM row's I/O threads and virtual
 * NUMA nodes, the "io_threads" and "vnuma" of list vms --json as one JSON
 * object (NULL none or not known), so that pin-io-threads and
 * vnuma-fidelity work on a recording; files from before read as not known.
 */
static const char *const schema_sql =
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE nodes (id INTEGER PRIMARY KEY, cpus TEXT NOT NULL, mem_total INTEGER);"
	"CREATE TABLE inputs (idx INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,"
	"  spec TEXT NOT NULL, reason TEXT);"
	"CREATE TABLE frames (seq INTEGER PRIMARY KEY, t_ns INTEGER NOT NULL, duration REAL NOT NULL,"
	"  cpu_mhz REAL, notes TEXT, rdt_why INTEGER);"
	"CREATE TABLE rows (seq INTEGER NOT NULL, pos INTEGER NOT NULL, kind TEXT NOT NULL,"
	"  key TEXT, name TEXT, vm_pos INTEGER, adapter TEXT, libvirt INTEGER, pid INTEGER,"
	"  domid INTEGER, idx INTEGER, tid INTEGER, cpu INTEGER, node INTEGER, remote REAL,"
	"  remote_quality TEXT, mem_reason INTEGER, started REAL, state TEXT, llc_alone INTEGER,"
	"  persist TEXT, numa_mode TEXT, iothreads TEXT, vals BLOB, sched_window REAL,"
	"  vm_topo TEXT, PRIMARY KEY (seq, pos))"
	"  WITHOUT ROWID;"
	"CREATE TABLE row_mem (seq INTEGER NOT NULL, pos INTEGER NOT NULL, node INTEGER NOT NULL,"
	"  bytes INTEGER NOT NULL, PRIMARY KEY (seq, pos, node)) WITHOUT ROWID;"
	"CREATE TABLE node_rdt (seq INTEGER NOT NULL, node INTEGER NOT NULL, llc REAL,"
	"  mbm_total REAL, mbm_local REAL, PRIMARY KEY (seq, node)) WITHOUT ROWID;"
	"CREATE TABLE texts (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"
	"CREATE TABLE scaling (seq INTEGER NOT NULL, input INTEGER NOT NULL, enabled REAL,"
	"  running REAL, PRIMARY KEY (seq, input)) WITHOUT ROWID;";

/*
 * Open the file PATH names.  SQLite gives some names other meanings (""
 * and ":memory:" are databases in memory, "file:..." a URI that can say
 * mode=memory): a relative name is given as "./NAME", which it takes for
 * the file, so a recording never goes anywhere but where it was asked to.
 */
static int open_file(const char *path, sqlite3 **db, int flags)
{
	char *p = xmalloc(strlen(path) + 3);
	int ret;

	strcpy(p, path[0] == '/' ? "" : "./");
	strcat(p, path);
	ret = sqlite3_open_v2(p, db, flags, NULL);
	free(p);
	return ret;
}

struct rec_writer {
	sqlite3 *db;
	char *path;
	size_t n_inputs;
	char *names;                /* the model's input names, comma-joined, for meta node_inputs */
	bool node_meta;             /* meta node_inputs written */
	unsigned long seq;
	int *node_ids;              /* the topology's node ids, by index (node_rdt) */
	int n_node_ids;
	struct strmap texts;        /* text -> id in texts, those committed or in this frame */
	size_t n_texts;             /* ids handed out (never reused, even after a rollback) */
	sqlite3_stmt *st_frame, *st_row, *st_mem, *st_rdt, *st_text, *st_scal;
	uint8_t *packed;            /* one row's inputs packed (vals_pack()), VALS_MAX bytes */
};

/*
 * A row's inputs in rows.vals (schema 5), in the recorded inputs' order:
 * first a code of 2 bits per input, four to a byte, input k in byte k / 4
 * at bits 2 * (k % 4): 0 not available (no bytes follow for it), 1 an
 * integer from 0 to 2^53 as an unsigned LEB128 varint (7 bits a byte, low
 * first; counts are integers), 2 an IEEE-754 double in 8 bytes, little
 * endian; 3 is not used.  Then the values of the inputs that have one, in
 * order.  A row with no value at all has NULL.  A count of ~10^9 takes 5
 * bytes, a ratio 8.
 */
#define VALS_MAX(n) ((n) / 4 + 1 + 9 * (n))

static size_t vals_pack(const double *v, size_t n, uint8_t *out)
{
	size_t head = (n + 3) / 4, len = head, k;
	bool any = false;

	memset(out, 0, head);
	for (k = 0; k < n; k++) {
		double x = v[k];

		if (!isfinite(x))
			continue;
		any = true;
		if (x >= 0 && x <= 9007199254740992.0 && x == floor(x) && !(x == 0 && signbit(x))) {
			uint64_t u = (uint64_t)x;

			out[k / 4] |= (uint8_t)(1u << (2 * (k % 4)));
			do {
				out[len++] = (uint8_t)((u & 0x7f) | (u > 0x7f ? 0x80 : 0));
				u >>= 7;
			} while (u);
		} else {
			uint64_t u;
			int b;

			memcpy(&u, &x, sizeof(u));
			out[k / 4] |= (uint8_t)(2u << (2 * (k % 4)));
			for (b = 0; b < 8; b++)
				out[len++] = (uint8_t)(u >> (8 * b));
		}
	}
	return any ? len : 0;
}

/*
 * Unpack rows.vals (len bytes; NULL: no values) into v[0..n) (left NaN where
 * not available).  -1 when it is not what vals_pack() writes for n inputs.
 */
static int vals_unpack(const uint8_t *p, size_t len, double *v, size_t n)
{
	size_t head = (n + 3) / 4, at = head, k;

	if (!p || !len)
		return 0;
	if (len < head)
		return -1;
	for (k = 0; k < n; k++) {
		unsigned code = (p[k / 4] >> (2 * (k % 4))) & 3;
		uint64_t u = 0;
		int b;

		if (code == 0)
			continue;
		if (code == 3)
			return -1;
		if (code == 1) {
			for (b = 0; ; b++) {
				if (at >= len || b > 7)
					return -1;
				u |= (uint64_t)(p[at] & 0x7f) << (7 * b);
				if (!(p[at++] & 0x80))
					break;
			}
			if (u > (1ull << 53))
				return -1;
			v[k] = (double)u;
		} else {
			double x;

			if (len - at < 8)
				return -1;
			for (b = 0; b < 8; b++)
				u |= (uint64_t)p[at++] << (8 * b);
			memcpy(&x, &u, sizeof(x));
			if (!isfinite(x))
				return -1;
			v[k] = x;
		}
	}
	/* the codes of inputs past n (the last byte's spare pairs) are 0, and nothing is left */
	if (n % 4 && p[head - 1] >> (2 * (n % 4)))
		return -1;
	return at == len ? 0 : -1;
}

static int db_error(struct vp_err *err, sqlite3 *db, const char *path, const char *what)
{
	return vp_err_set(err, VP_EFORMAT, "%s '%s': %s", what, path,
			  db ? sqlite3_errmsg(db) : "out of memory");
}

static int exec(sqlite3 *db, const char *sql, const char *path, struct vp_err *err)
{
	char *msg = NULL;
	int ret = 0;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		ret = vp_err_set(err, VP_EFORMAT, "cannot write '%s': %s", path,
				 msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return ret;
}

static int put_meta(sqlite3 *db, const char *key, const char *value, const char *path,
		    struct vp_err *err)
{
	sqlite3_stmt *st;
	int ret = 0;

	if (sqlite3_prepare_v2(db, "INSERT INTO meta VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		return db_error(err, db, path, "cannot write");
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = db_error(err, db, path, "cannot write");
	sqlite3_finalize(st);
	return ret;
}

static const char *kind_name(enum ent_kind k)
{
	return ent_kind_name(k);
}

static enum ent_kind kind_parse(const char *s)
{
	static const enum ent_kind all[] = { ENT_HOST, ENT_NODE, ENT_CPU, ENT_VM, ENT_VCPU,
					     ENT_PROCESS, ENT_THREAD };
	size_t i;

	for (i = 0; s && i < VP_ARRAY_SIZE(all); i++)
		if (!strcmp(ent_kind_name(all[i]), s))
			return all[i];
	return ENT_THREAD;
}

static enum hv_adapter_id adapter_parse(const char *s)
{
	static const enum hv_adapter_id all[] = { HVA_KVM, HVA_XEN, HVA_GUEST, HVA_NATIVE };
	size_t i;

	for (i = 0; s && i < VP_ARRAY_SIZE(all); i++)
		if (!strcmp(hv_adapter_name(all[i]), s))
			return all[i];
	return HVA_NATIVE;
}

/*
 * meta topology_cpus "CPU:PACKAGE:CORE,..." (each online CPU; -1 unknown) and
 * topology_llc "LEVEL:CPULIST;..." (the last-level caches), when the probe
 * knew them: the HTML report's placement map groups SMT siblings and caches.
 */
static int write_cpu_topology(struct rec_writer *w, const struct topology *t, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; t->cpu_package && t->cpu_core && i < t->online.n; i++) {
		int c = t->online.ids[i];

		if (c >= 0 && c < t->max_cpu)
			sbuf_addf(&sb, "%s%d:%d:%d", sb.len ? "," : "", c, t->cpu_package[c], t->cpu_core[c]);
	}
	if (sb.len)
		ret = put_meta(w->db, "topology_cpus", sbuf_str(&sb), w->path, err);
	sbuf_reset(&sb);
	for (i = 0; !ret && i < (size_t)(t->n_llc > 0 ? t->n_llc : 0); i++) {
		sbuf_addf(&sb, "%s%d:", i ? ";" : "", t->llc[i].level);
		cpulist_format(&t->llc[i].cpus, &sb);
	}
	if (!ret && sb.len)
		ret = put_meta(w->db, "topology_llc", sbuf_str(&sb), w->path, err);
	sbuf_release(&sb);
	return ret;
}

static int write_header(struct rec_writer *w, const struct rec_header *h, struct vp_err *err)
{
	const struct topology *t = &h->plat->topo;
	const struct model *m = h->model;
	char buf[64], when[32];
	time_t now = time(NULL);
	struct tm tm;
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, sizeof(buf), "%d", REC_SCHEMA_VERSION);
	if ((ret = put_meta(w->db, "schema_version", buf, w->path, err)) ||
	    (ret = put_meta(w->db, "vmmprof_version", VMMPROF_VERSION, w->path, err)) ||
	    (ret = put_meta(w->db, "model", m->name, w->path, err)) ||
	    (ret = put_meta(w->db, "created", when, w->path, err)) ||
	    (ret = put_meta(w->db, "command", h->command ? h->command : "", w->path, err)))
		return ret;
	snprintf(buf, sizeof(buf), "%.17g", h->interval_s);
	if ((ret = put_meta(w->db, "interval_s", buf, w->path, err)))
		return ret;
	snprintf(buf, sizeof(buf), "%d %d %d %d", t->n_cpus, t->n_packages, t->n_cores,
		 t->smt_on ? 1 : 0);
	if ((ret = put_meta(w->db, "topology", buf, w->path, err)))
		return ret;
	if ((ret = write_cpu_topology(w, t, err)))
		return ret;
	if (h->cal) {
		struct sbuf sb = SBUF_INIT;

		calib_format(h->cal, &sb);
		ret = put_meta(w->db, "calibration", sbuf_str(&sb), w->path, err);
		sbuf_release(&sb);
		if (ret)
			return ret;
	}
	if (sqlite3_prepare_v2(w->db, "INSERT INTO nodes VALUES (?, ?, ?)", -1, &st, NULL))
		return db_error(err, w->db, w->path, "cannot write");
	for (i = 0; i < (size_t)(t->n_nodes > 0 ? t->n_nodes : 0); i++) {
		struct sbuf sb = SBUF_INIT;

		cpulist_format(&t->nodes[i].cpus, &sb);
		sqlite3_reset(st);
		sqlite3_bind_int(st, 1, t->nodes[i].id);
		sqlite3_bind_text(st, 2, sbuf_str(&sb), -1, SQLITE_TRANSIENT);
		if (t->nodes[i].mem_known)
			sqlite3_bind_int64(st, 3, (sqlite3_int64)t->nodes[i].mem_total);
		else
			sqlite3_bind_null(st, 3);
		sbuf_release(&sb);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_error(err, w->db, w->path, "cannot write");
		}
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(w->db, "INSERT INTO inputs VALUES (?, ?, ?, ?, ?)", -1, &st, NULL))
		return db_error(err, w->db, w->path, "cannot write");
	for (i = 0; i < m->n_inputs; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int(st, 1, (int)i);
		sqlite3_bind_text(st, 2, m->inputs[i].name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, m->inputs[i].kind == INPUT_EVENT ? "event" : "source", -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(st, 4, m->inputs[i].spec, -1, SQLITE_TRANSIENT);
		if (h->input_reason && h->input_reason[i])
			sqlite3_bind_text(st, 5, h->input_reason[i], -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, 5);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_error(err, w->db, w->path, "cannot write");
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int rec_create(struct rec_writer **out, const char *path, const struct rec_header *h,
	       struct vp_err *err)
{
	struct rec_writer *w;
	struct stat made;
	int ret, fd;

	if (!*path)
		return vp_err_set(err, VP_EINVAL, "the recording's file name is empty");
	/* created here, a new file of mode 0600 (recordings name processes and VMs), never
	 * through a symbolic link, dangling or not; SQLite then opens the empty file by
	 * name, and fd, kept until the header is written, says it was this file */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST)
		return vp_err_set(err, -EEXIST, "'%s' exists: not overwriting a recording", path);
	if (fd < 0)
		return vp_err_errno(err, errno, "cannot create '%s'", path);
	w = xcalloc(1, sizeof(*w));
	w->path = xstrdup(path);
	w->n_inputs = h->model->n_inputs;
	w->packed = xmalloc(VALS_MAX(w->n_inputs));
	strmap_init(&w->texts);
	if (h->plat->topo.n_nodes > 0) {
		int i;

		w->n_node_ids = h->plat->topo.n_nodes;
		w->node_ids = xcalloc((size_t)w->n_node_ids, sizeof(int));
		for (i = 0; i < w->n_node_ids; i++)
			w->node_ids[i] = h->plat->topo.nodes[i].id;
	}
	{
		struct sbuf sb = SBUF_INIT;
		size_t i;

		for (i = 0; i < w->n_inputs; i++)
			sbuf_addf(&sb, "%s%s", i ? "," : "", h->model->inputs[i].name);
		w->names = sbuf_detach(&sb);
	}
	/* the file just made, not created again by SQLite, and not through a link that
	 * someone who can write the directory put in its place meanwhile */
	if (open_file(path, &w->db, SQLITE_OPEN_READWRITE
#ifdef SQLITE_OPEN_NOFOLLOW
		      | SQLITE_OPEN_NOFOLLOW
#endif
		      )) {
		ret = db_error(err, w->db, path, "cannot create");
		goto fail;
	}
	if ((ret = exec(w->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", path, err)) ||
	    (ret = exec(w->db, "BEGIN", path, err)) ||
	    (ret = exec(w->db, schema_sql, path, err)) ||
	    (ret = write_header(w, h, err)) ||
	    (ret = exec(w->db, "PRAGMA user_version=" VP_STR(REC_SCHEMA_VERSION) "; COMMIT", path,
			 err)))
		goto fail;
	/* the header went into the file made above: it is not empty now (WAL mode is set
	 * on page 1 of the main file), else SQLite wrote another file put at path */
	if (fstat(fd, &made) || made.st_size == 0) {
		ret = vp_err_set(err, VP_EINVAL, "'%s' was replaced while it was being created: "
				 "not recording there", path);
		rec_close(w, NULL);
		close(fd);
		return ret;   /* path is someone else's file now: left alone */
	}
	close(fd);
	fd = -1;
	if (sqlite3_prepare_v2(w->db, "INSERT INTO frames VALUES (?, ?, ?, ?, ?, ?)", -1,
			       &w->st_frame, NULL) ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
			       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &w->st_row, NULL) ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO node_rdt VALUES (?, ?, ?, ?, ?)", -1,
			       &w->st_rdt, NULL) ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO texts VALUES (?, ?)", -1, &w->st_text, NULL) ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO row_mem VALUES (?, ?, ?, ?)", -1, &w->st_mem,
			       NULL) ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO scaling VALUES (?, ?, ?, ?)", -1, &w->st_scal,
			       NULL)) {
		ret = db_error(err, w->db, path, "cannot write");
		goto fail;
	}
	*out = w;
	return 0;
fail:
	rec_close(w, NULL);
	if (fd >= 0)
		close(fd);
	unlink(path);
	return ret;
}

static void bind_int_or_null(sqlite3_stmt *st, int col, long long v, bool null)
{
	if (null)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

static void bind_double(sqlite3_stmt *st, int col, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, col, v);
	else
		sqlite3_bind_null(st, col);
}

static int step(struct rec_writer *w, sqlite3_stmt *st, struct vp_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_error(err, w->db, w->path, "cannot write");
}

/* The names of the inputs counted per node, "a,b" (heap). */
static char *node_names(const struct rec_writer *w, const bool *node_input)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = w->names;
	size_t i;

	for (i = 0; i < w->n_inputs && p; i++) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (node_input[i])
			sbuf_addf(&sb, "%s%.*s", sb.len ? "," : "", (int)len, p);
		p = e ? e + 1 : NULL;
	}
	return sbuf_detach(&sb);
}

/*
 * Bind text's id in texts to column col of st (NULL for NULL or ""), adding
 * it to texts in the frame's transaction the first time it is seen.
 */
static int bind_text_id(struct rec_writer *w, sqlite3_stmt *st, int col, const char *text,
			struct vp_err *err)
{
	size_t id;
	int ret;

	if (!text || !text[0]) {
		sqlite3_bind_null(st, col);
		return 0;
	}
	if (!strmap_get(&w->texts, text, &id)) {
		id = w->n_texts++;
		sqlite3_bind_int64(w->st_text, 1, (sqlite3_int64)id);
		sqlite3_bind_text(w->st_text, 2, text, -1, SQLITE_STATIC);
		if ((ret = step(w, w->st_text, err)))
			return ret;
		strmap_put(&w->texts, text, id);
	}
	sqlite3_bind_int64(st, col, (sqlite3_int64)id);
	return 0;
}

/* One row at position pos: identity and inputs, then memory per node. */
static int append_row(struct rec_writer *w, const struct collect_row *r, size_t i,
		      struct vp_err *err)
{
	sqlite3_stmt *st = w->st_row;
	size_t k, packed;
	int ret;

	sqlite3_bind_int64(st, 1, (sqlite3_int64)w->seq);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
	sqlite3_bind_text(st, 3, kind_name(r->kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, r->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)r->vm_row);
	sqlite3_bind_text(st, 7, hv_adapter_name(r->adapter), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 8, r->libvirt);
	bind_int_or_null(st, 9, r->pid, r->pid < 0);
	bind_int_or_null(st, 10, r->domid, r->domid < 0);
	bind_int_or_null(st, 11, r->index, r->index < 0);
	bind_int_or_null(st, 12, r->tid, r->tid < 0);
	bind_int_or_null(st, 13, r->cpu, r->cpu < 0);
	bind_int_or_null(st, 14, r->node, r->node < 0);
	bind_double(st, 15, r->remote.v);
	/* a node row has no placement estimate: its column holds the node counts' label */
	sqlite3_bind_text(st, 16, r->kind == ENT_NODE ?
			  vp_quality_name(r->apportioned ? VQ_APPORTIONED : VQ_MEASURED) :
			  vp_quality_name(r->remote.q), -1, SQLITE_STATIC);
	bind_double(st, 18, r->kind != ENT_NODE && r->started > 0 ? r->started : NAN);
	if (r->state == RS_RUNNING || r->kind == ENT_NODE)
		sqlite3_bind_null(st, 19);
	else
		sqlite3_bind_text(st, 19, row_state_name(r->state), -1, SQLITE_STATIC);
	if (r->llc_alone)
		sqlite3_bind_int(st, 20, r->llc_alone > 0);
	else
		sqlite3_bind_null(st, 20);
	if (r->persist == DP_UNKNOWN || r->kind != ENT_VM)
		sqlite3_bind_null(st, 21);
	else
		sqlite3_bind_text(st, 21, r->persist == DP_PERSISTENT ? "persistent" : "transient",
				  -1, SQLITE_STATIC);
	if (r->numa_mode == DN_UNKNOWN || r->kind != ENT_VM)
		sqlite3_bind_null(st, 22);
	else
		sqlite3_bind_text(st, 22, r->numa_mode == DN_RESTRICTIVE ? "restrictive" : "strict",
				  -1, SQLITE_STATIC);
	if (r->kind != ENT_VM || !r->libvirt || r->n_iothreads < 0) {
		sqlite3_bind_null(st, 23);
	} else {
		char ids[DIAG_MAX_IOTHREADS * 12] = "";
		size_t len = 0;

		for (k = 0; k < (size_t)r->n_iothreads && k < DIAG_MAX_IOTHREADS; k++)
			len += (size_t)snprintf(ids + len, sizeof(ids) - len, "%s%d", k ? "," : "",
						r->iothread_ids[k]);
		sqlite3_bind_text(st, 23, ids, -1, SQLITE_TRANSIENT);
	}
	/* the window of its run-queue wait when longer than the interval (a mean over it) */
	bind_double(st, 25, r->kind == ENT_VCPU && r->sched_window_s > 0 ? r->sched_window_s : NAN);
	/* a KVM VM's I/O threads and virtual nodes, as list vms --json has them */
	if (r->kind == ENT_VM && (r->n_io || r->n_vnodes)) {
		struct sbuf topo = SBUF_INIT;
		struct jw jw;

		jw_init(&jw, &topo, false);
		jw_obj_begin(&jw);
		vms_json_io_vnuma(&jw, r->io, r->n_io, r->vnodes, r->n_vnodes);
		jw_obj_end(&jw);
		sqlite3_bind_text(st, 26, sbuf_str(&topo), -1, SQLITE_TRANSIENT);
		sbuf_release(&topo);
	} else {
		sqlite3_bind_null(st, 26);
	}
	/* the inputs, packed in one column (a value not available takes 2 bits) */
	packed = vals_pack(r->inputs, w->n_inputs, w->packed);
	if (packed)
		sqlite3_bind_blob(st, 24, w->packed, (int)packed, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 24);
	if ((ret = bind_text_id(w, st, 17, r->kind == ENT_VM ? r->mem_reason : NULL, err)) ||
	    (ret = step(w, st, err)))
		return ret;
	for (k = 0; r->mem_node && k < (size_t)r->n_mem_nodes; k++) {
		sqlite3_bind_int64(w->st_mem, 1, (sqlite3_int64)w->seq);
		sqlite3_bind_int64(w->st_mem, 2, (sqlite3_int64)i);
		sqlite3_bind_int64(w->st_mem, 3, (sqlite3_int64)k);
		sqlite3_bind_int64(w->st_mem, 4, (sqlite3_int64)r->mem_node[k]);
		if ((ret = step(w, w->st_mem, err)))
			return ret;
	}
	return 0;
}

int rec_append(struct rec_writer *w, const struct collect_frame *f, struct vp_err *err)
{
	size_t i;
	int ret;

	if ((ret = exec(w->db, "BEGIN", w->path, err)))
		return ret;
	if (!w->node_meta && f->node_input) {
		char *names = node_names(w, f->node_input);

		ret = put_meta(w->db, "node_inputs", names, w->path, err);
		free(names);
		if (ret)
			goto fail;
		w->node_meta = true;
	}
	sqlite3_bind_int64(w->st_frame, 1, (sqlite3_int64)w->seq);
	sqlite3_bind_int64(w->st_frame, 2, (sqlite3_int64)f->t_ns);
	sqlite3_bind_double(w->st_frame, 3, f->duration);
	bind_double(w->st_frame, 4, f->cpu_mhz);
	sqlite3_bind_text(w->st_frame, 5, sbuf_str(&f->notes), -1, SQLITE_STATIC);
	if ((ret = bind_text_id(w, w->st_frame, 6, f->rdt_node ? sbuf_str(&f->rdt_why) : NULL, err)) ||
	    (ret = step(w, w->st_frame, err)))
		goto fail;
	/* --resctrl's node sums: one row per node (NULL values: not measured) */
	for (i = 0; f->rdt_node && i < (size_t)f->n_rdt_nodes && i < (size_t)w->n_node_ids; i++) {
		sqlite3_bind_int64(w->st_rdt, 1, (sqlite3_int64)w->seq);
		sqlite3_bind_int(w->st_rdt, 2, w->node_ids[i]);
		bind_double(w->st_rdt, 3, f->rdt_node[3 * i]);
		bind_double(w->st_rdt, 4, f->rdt_node[3 * i + 1]);
		bind_double(w->st_rdt, 5, f->rdt_node[3 * i + 2]);
		if ((ret = step(w, w->st_rdt, err)))
			goto fail;
	}
	/* how long each counted input ran of the time it was enabled (multiplexing) */
	for (i = 0; i < f->n_scaling; i++) {
		if (f->scaling[i].input >= w->n_inputs)
			continue;
		sqlite3_bind_int64(w->st_scal, 1, (sqlite3_int64)w->seq);
		sqlite3_bind_int64(w->st_scal, 2, (sqlite3_int64)f->scaling[i].input);
		bind_double(w->st_scal, 3, f->scaling[i].enabled_s);
		bind_double(w->st_scal, 4, f->scaling[i].running_s);
		if ((ret = step(w, w->st_scal, err)))
			goto fail;
	}
	/* the entity rows, then the node rows (kind 'node', their own position as vm_pos) */
	for (i = 0; i < f->n_rows; i++)
		if ((ret = append_row(w, &f->rows[i], i, err)))
			goto fail;
	for (i = 0; i < f->n_nodes; i++) {
		struct collect_row r = f->nodes[i];

		r.vm_row = f->n_rows + i;
		if ((ret = append_row(w, &r, f->n_rows + i, err)))
			goto fail;
	}
	if ((ret = exec(w->db, "COMMIT", w->path, err)))
		goto fail;
	w->seq++;
	return 0;
fail:
	exec(w->db, "ROLLBACK", w->path, NULL);
	/* texts added in this frame were rolled back too: forget them all, so that
	 * they are written again (with new ids) when next used */
	strmap_release(&w->texts);
	strmap_init(&w->texts);
	return ret;
}

unsigned long rec_frames(const struct rec_writer *w)
{
	return w->seq;
}

int rec_snapshot(struct rec_writer *w, const char *dest, struct vp_err *err)
{
	sqlite3 *db = NULL;
	sqlite3_backup *b;
	int rc, ret = 0;

	if (sqlite3_open_v2(dest, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		ret = db_error(err, db, dest, "cannot create");
		goto out;
	}
	b = sqlite3_backup_init(db, "main", w->db, "main");
	if (!b) {
		ret = db_error(err, db, dest, "cannot copy the recording into");
		goto out;
	}
	/* all pages in one step: the caller holds the writer, nothing changes meanwhile */
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		ret = vp_err_set(err, -EIO, "cannot copy '%s' into '%s': %s", w->path, dest,
				 sqlite3_errstr(rc));
		goto out;
	}
	/* one self-contained file, as rec_close() leaves it */
	ret = exec(db, "PRAGMA journal_mode=DELETE;", dest, err);
out:
	if (db)
		sqlite3_close(db);
	return ret;
}

int rec_close(struct rec_writer *w, struct vp_err *err)
{
	int ret = 0;

	if (!w)
		return 0;
	sqlite3_finalize(w->st_frame);
	sqlite3_finalize(w->st_row);
	sqlite3_finalize(w->st_mem);
	sqlite3_finalize(w->st_rdt);
	sqlite3_finalize(w->st_scal);
	sqlite3_finalize(w->st_text);
	if (w->db) {
		/* fold the WAL back so the recording is one self-contained file */
		sqlite3_exec(w->db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;",
			     NULL, NULL, NULL);
		if (sqlite3_close(w->db) != SQLITE_OK)
			ret = db_error(err, w->db, w->path, "cannot close");
	}
	free(w->path);
	free(w->names);
	free(w->packed);
	free(w->node_ids);
	strmap_release(&w->texts);
	free(w);
	return ret;
}

/* ---- reading ---- */

static char *col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? xstrdup((const char *)t) : NULL;
}

static int col_int(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? -1 : sqlite3_column_int(st, col);
}

static double col_double(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

static bool damaged_code(int code);

static int bad(struct vp_err *err, const char *path, sqlite3 *db, const char *what)
{
	if (db && damaged_code(sqlite3_extended_errcode(db)) &&
	    (sqlite3_errcode(db) & 0xff) != SQLITE_NOTADB)
		return vp_err_set(err, VP_EFORMAT, "'%s' is damaged (truncated or overwritten): %s: %s",
				  path, what, sqlite3_errmsg(db));
	return vp_err_set(err, VP_EFORMAT, "'%s' is not a readable vmmprof recording: %s%s%s", path,
			  what, db ? ": " : "", db ? sqlite3_errmsg(db) : "");
}

/* A meta field's value out of its range: the file, the field, the value (cut) and the range. */
static int meta_bad(struct vp_err *err, const char *path, const char *key, const char *v,
		    const char *range)
{
	return vp_err_set(err, VP_EFORMAT, "'%s' is not a readable vmmprof recording: its meta "
			  "field '%s' is '%.40s%s', not %s", path, key, v, strlen(v) > 40 ? "..." : "",
			  range);
}

/* meta topology_cpus: "CPU:PACKAGE:CORE,..."; -1 when v is not that (CPU 0 to
 * CPULIST_MAX - 1, package and core -1 to CPULIST_MAX - 1, at most CPULIST_MAX). */
static int read_cpu_ids(struct recording *r, const char *v)
{
	const char *p = v;

	while (*p) {
		struct rec_cpu_id id;
		int n = 0;

		if (sscanf(p, "%d:%d:%d%n", &id.cpu, &id.package, &id.core, &n) != 3 || n <= 0 ||
		    id.cpu < 0 || id.cpu >= CPULIST_MAX || id.package < -1 || id.package >= CPULIST_MAX ||
		    id.core < -1 || id.core >= CPULIST_MAX || r->n_cpu_ids >= CPULIST_MAX ||
		    (p[n] && p[n] != ',') || (p[n] == ',' && !p[n + 1]))
			return -1;
		r->cpu_ids = xrealloc(r->cpu_ids, (r->n_cpu_ids + 1) * sizeof(*r->cpu_ids));
		r->cpu_ids[r->n_cpu_ids++] = id;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* meta topology_llc: "LEVEL:CPULIST;..."; -1 when v is not that (level 1 to 9). */
static int read_llc(struct recording *r, const char *v)
{
	const char *p = v;

	while (*p) {
		const char *end = strchr(p, ';');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct cache_domain *c;
		char *list;
		int rc;

		if (len < 3 || p[0] < '1' || p[0] > '9' || p[1] != ':' || r->n_llc >= CPULIST_MAX)
			return -1;
		r->llc = xrealloc(r->llc, (size_t)(r->n_llc + 1) * sizeof(*r->llc));
		c = &r->llc[r->n_llc++];
		memset(c, 0, sizeof(*c));
		c->id = r->n_llc - 1;
		c->level = p[0] - '0';
		list = xstrndup(p + 2, len - 2);
		rc = cpulist_parse(&c->cpus, list, NULL);
		free(list);
		if (rc || !c->cpus.n || (end && !end[1]))
			return -1;
		p += len + (end != NULL);
	}
	return 0;
}

static int read_meta(sqlite3 *db, struct recording *r, struct vp_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT key, value FROM meta", -1, &st, NULL) != SQLITE_OK)
		return bad(err, r->path, db, "no meta table");
	r->schema = -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);

		if (!k || !v)
			continue;
		if (!strcmp(k, "schema_version"))
			r->schema = atoi(v);
		else if (!strcmp(k, "vmmprof_version"))
			r->vmmprof_version = xstrdup(v);
		else if (!strcmp(k, "model"))
			r->model_name = xstrdup(v);
		else if (!strcmp(k, "command"))
			r->command = xstrdup(v);
		else if (!strcmp(k, "created"))
			r->created = xstrdup(v);
		else if (!strcmp(k, "interval_s")) {
			char *end;

			/* what record -I and a daemon session take: 10 ms to 31 days (with room
			 * below for older recordings); 0 when absent */
			r->interval_s = strtod(v, &end);
			if (end == v || *end || !(r->interval_s > 0 && r->interval_s <= 2678400)) {
				/* k and v live until the statement is finalized */
				rc = meta_bad(err, r->path, k, v, "a number of seconds above 0 and at "
					      "most 2678400 (31 days)");
				sqlite3_finalize(st);
				return rc;
			}
		} else if (!strcmp(k, "node_inputs"))
			r->node_inputs = xstrdup(v);
		else if (!strcmp(k, "topology")) {
			struct topology *t = &r->plat.topo;
			int smt = -1, n = 0;

			/* "CPUs packages cores SMT" as record wrote it; 0 is unknown.  Each sizes
			 * or bounds what is read after it, so each is checked here, once. */
			if (sscanf(v, "%d %d %d %d %n", &t->n_cpus, &t->n_packages, &t->n_cores, &smt,
				   &n) != 4 || v[n] || t->n_cpus < 0 || t->n_cpus > CPULIST_MAX ||
			    t->n_packages < 0 || t->n_packages > CPULIST_MAX || t->n_cores < 0 ||
			    t->n_cores > CPULIST_MAX || (smt != 0 && smt != 1)) {
				t->n_cpus = t->n_packages = t->n_cores = 0;
				rc = meta_bad(err, r->path, k, v, "'CPUS PACKAGES CORES SMT' with "
					      "counts 0 to 65536 and SMT 0 or 1");
				sqlite3_finalize(st);
				return rc;
			}
			t->smt_on = smt;
			t->known = true;
		} else if (!strcmp(k, "topology_cpus") || !strcmp(k, "topology_llc")) {
			bool cpus = !strcmp(k, "topology_cpus");

			if (cpus ? read_cpu_ids(r, v) : read_llc(r, v)) {
				rc = meta_bad(err, r->path, k, v, cpus ?
					      "'CPU:PACKAGE:CORE,...' with CPUs 0 to 65535 and ids -1 to 65535" :
					      "'LEVEL:CPULIST;...' with levels 1 to 9");
				sqlite3_finalize(st);
				return rc;
			}
		} else if (!strcmp(k, "calibration")) {
			struct vp_err e;
			struct calib_checks chk;

			r->have_cal = !calib_parse(&r->cal, v, strlen(v), "recorded calibration", &e);
			if (r->have_cal && calib_check(&r->cal, &chk))  /* recorded before the checks */
				calib_quarantine(&r->cal, &chk);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return bad(err, r->path, db, "reading meta");
	if (r->schema < 0 || !r->model_name)
		return bad(err, r->path, NULL, "no schema version or model in its meta table");
	if (r->schema > REC_SCHEMA_VERSION)
		return vp_err_set(err, VP_EFORMAT, "'%s' has recording schema %d; this vmmprof reads "
				  "up to %d", r->path, r->schema, REC_SCHEMA_VERSION);
	return 0;
}

static int read_nodes_inputs(sqlite3 *db, struct recording *r, struct vp_err *err)
{
	struct topology *t = &r->plat.topo;
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT id, cpus, mem_total FROM nodes ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK)
		return bad(err, r->path, db, "no nodes table");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct numa_node *n;
		const char *cpus = (const char *)sqlite3_column_text(st, 1);
		sqlite3_int64 id = sqlite3_column_int64(st, 0);

		/* node ids index arrays downstream (per node memory, costs, advice):
		 * a damaged or forged header's id is refused here, once */
		if (id < 0 || id >= 4096) {
			char what[96];

			sqlite3_finalize(st);
			snprintf(what, sizeof(what), "node id %lld in its nodes table (ids are 0 to 4095)",
				 (long long)id);
			return bad(err, r->path, NULL, what);
		}
		t->nodes = xrealloc(t->nodes, (size_t)(t->n_nodes + 1) * sizeof(*t->nodes));
		n = &t->nodes[t->n_nodes++];
		memset(n, 0, sizeof(*n));
		n->id = (int)id;
		if (cpulist_parse(&n->cpus, cpus ? cpus : "", NULL)) {
			char what[128];

			/* CPU ids 0 to 65535 (CPULIST_MAX), as a list: not taken as no CPU */
			snprintf(what, sizeof(what), "node %d's CPUs '%.40s' in its nodes table (a CPU "
				 "list of ids 0 to %d)", n->id, cpus ? cpus : "", CPULIST_MAX - 1);
			sqlite3_finalize(st);
			return bad(err, r->path, NULL, what);
		}
		n->mem_known = sqlite3_column_type(st, 2) != SQLITE_NULL;
		n->mem_total = n->mem_known ? (uint64_t)sqlite3_column_int64(st, 2) : 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return bad(err, r->path, db, "reading nodes");
	if (sqlite3_prepare_v2(db, "SELECT name, reason FROM inputs ORDER BY idx", -1, &st,
			       NULL) != SQLITE_OK)
		return bad(err, r->path, db, "no inputs table");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		r->input_names = xrealloc(r->input_names, (r->n_inputs + 1) * sizeof(char *));
		r->input_reason = xrealloc(r->input_reason, (r->n_inputs + 1) * sizeof(char *));
		r->input_names[r->n_inputs] = col_text(st, 0);
		r->input_reason[r->n_inputs] = col_text(st, 1);
		if (!r->input_names[r->n_inputs])
			r->input_names[r->n_inputs] = xstrdup("?");
		r->n_inputs++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : bad(err, r->path, db, "reading inputs");
}

/* ---- streaming frames ---- */

enum { CUR_FRAMES, CUR_ROWS, CUR_MEM, CUR_VALS, CUR_RDT, CUR_SCAL, CUR_N };

/*
 * One ordered scan per table, walked in step with the frames: each frame
 * takes the rows, row_mem, vals and node_rdt entries of its seq from the
 * heads of the other scans.  Every scan follows the tables' key order: in
 * schema 2 each table is one B-tree on its key, read once from front to
 * back; schema 1 files go through the key index with a lookup per row,
 * and row_mem (no key there) is sorted when the scan starts.
 */
struct rec_cursor {
	sqlite3 *db;
	sqlite3_stmt *st[CUR_N];
	int rc[CUR_N];                   /* last sqlite3_step(): SQLITE_ROW = a pending row */
	const struct model *m;           /* bound model, NULL none */
	struct cost_solo *solo;          /* each row's solo LLC miss rate over the frames read */
	int *map;                        /* m's input k is recorded input map[k] (-1 none) */
	double *raw;                     /* one row's inputs in recorded order */
	size_t rows_hint;                /* rows of the last frame, for the first allocation */
	sqlite3_stmt *st_text;           /* a text by id; NULL: the file has no texts table */
	char **texts;                    /* texts looked up so far, by id (NULL: not yet) */
	size_t n_texts;
	int failed;                      /* sticky error code, 0 none */
	char failmsg[VP_ERR_MSG_MAX];
};

static const char *const cursor_sql[CUR_N] = {
	"SELECT seq, t_ns, duration, cpu_mhz, notes, rdt_why FROM frames ORDER BY seq",
	("SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	 "node, remote, remote_quality, mem_reason, started, state, llc_alone, persist, numa_mode, "
	 "iothreads, vals, sched_window, vm_topo FROM rows ORDER BY seq, pos"),
	"SELECT seq, pos, node, bytes FROM row_mem ORDER BY seq, pos",
	"SELECT 0, 0, 0, NULL WHERE 0", /* schema 5: the inputs are rows.vals */
	"SELECT seq, node, llc, mbm_total, mbm_local FROM node_rdt ORDER BY seq, node",
	"SELECT seq, input, enabled, running FROM scaling ORDER BY seq, input",
};

/*
 * The same for files written before rows.mem_reason, frames.rdt_why and
 * node_rdt (schema 1 to early schema 3): NULL for the columns, no node_rdt
 * rows.  NULL: the scan is the same.
 */
static const char *const cursor_sql_old[CUR_N] = {
	"SELECT seq, t_ns, duration, cpu_mhz, notes, NULL FROM frames ORDER BY seq",
	("SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	 "node, remote, remote_quality, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
	 "NULL FROM rows ORDER BY seq, pos"),
	NULL,
	NULL,
	"SELECT 0, 0, NULL, NULL, NULL WHERE 0",
	"SELECT 0, 0, NULL, NULL WHERE 0",
};

/* Schema 3 files with mem_reason: the lifecycle columns NULL (running, start unknown). */
static const char *const rows_sql_3 =
	"SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	"node, remote, remote_quality, mem_reason, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
	"NULL, NULL FROM rows ORDER BY seq, pos";

/*
 * Schema 5 files from before rows.vm_topo (I/O threads and virtual nodes not
 * known), and from before rows.sched_window (the run-queue wait's window not
 * known either).
 */
static const char *const rows_sql_5[] = {
	("SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	 "node, remote, remote_quality, mem_reason, started, state, llc_alone, persist, numa_mode, "
	 "iothreads, vals, sched_window, NULL FROM rows ORDER BY seq, pos"),
	("SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	 "node, remote, remote_quality, mem_reason, started, state, llc_alone, persist, numa_mode, "
	 "iothreads, vals, NULL, NULL FROM rows ORDER BY seq, pos"),
};

/* Schema 1 to 4: each row's inputs are entries of the vals table. */
static const char *const vals_sql_4 =
	"SELECT seq, pos, input, value FROM vals ORDER BY seq, pos, input";

/*
 * Schema 4 files (their inputs in vals): with rows.persist, numa_mode and
 * iothreads; from before rows.numa_mode and rows.iothreads; before rows.persist.
 */
static const char *const rows_sql_4[] = {
	("SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	 "node, remote, remote_quality, mem_reason, started, state, llc_alone, persist, numa_mode, "
	 "iothreads, NULL, NULL, NULL FROM rows ORDER BY seq, pos"),
	("SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	 "node, remote, remote_quality, mem_reason, started, state, llc_alone, persist, NULL, NULL, "
	 "NULL, NULL, NULL FROM rows ORDER BY seq, pos"),
	("SELECT seq, pos, kind, key, name, vm_pos, adapter, libvirt, pid, domid, idx, tid, cpu, "
	 "node, remote, remote_quality, mem_reason, started, state, llc_alone, NULL, NULL, NULL, "
	 "NULL, NULL, NULL FROM rows ORDER BY seq, pos"),
};

static const char *const cursor_table[CUR_N] = { "frames", "rows", "row_mem", "vals",
						 "node_rdt", "scaling" };

static bool damaged_code(int code)
{
	code &= 0xff;
	return code == SQLITE_CORRUPT || code == SQLITE_IOERR || code == SQLITE_NOTADB ||
	       code == SQLITE_FORMAT;
}

static void cursor_free(struct rec_cursor *c)
{
	size_t k;
	int i;

	if (!c)
		return;
	for (i = 0; i < CUR_N; i++)
		sqlite3_finalize(c->st[i]);
	sqlite3_finalize(c->st_text);
	for (k = 0; k < c->n_texts; k++)
		free(c->texts[k]);
	free(c->texts);
	sqlite3_close(c->db);
	cost_solo_free(c->solo);
	free(c->map);
	free(c->raw);
	free(c);
}

static int cursor_prime(struct recording *r, struct vp_err *err)
{
	struct rec_cursor *c = r->cur;
	int i;

	r->n_read = 0;
	c->failed = 0;
	cost_solo_free(c->solo); /* a second pass learns the solo rates again, in order */
	c->solo = cost_solo_new();
	for (i = 0; i < CUR_N; i++) {
		sqlite3_reset(c->st[i]);
		c->rc[i] = sqlite3_step(c->st[i]);
		if (c->rc[i] != SQLITE_ROW && c->rc[i] != SQLITE_DONE)
			return vp_err_set(err, VP_EFORMAT, "'%s' is damaged at frame 0 (table %s): %s",
					  r->path, cursor_table[i], sqlite3_errmsg(c->db));
	}
	return 0;
}

int rec_rewind(struct recording *r, struct vp_err *err)
{
	if (!r->cur)
		return vp_err_set(err, VP_EINVAL, "'%s' is not open for reading", r->path);
	return cursor_prime(r, err);
}

/* Step scan i past its current row; false (and the error in c) when it fails. */
static bool advance(struct rec_cursor *c, int i)
{
	c->rc[i] = sqlite3_step(c->st[i]);
	return c->rc[i] == SQLITE_ROW || c->rc[i] == SQLITE_DONE;
}

/*
 * The text of id in column col of st (texts table), NULL for NULL; owned by
 * the cursor.  Returns -1 when it cannot be read (damage), VP_EFORMAT when
 * the id is not in texts.
 */
static int text_of(struct rec_cursor *c, sqlite3_stmt *st, int col, const char **out)
{
	sqlite3_int64 id;
	int rc;

	*out = NULL;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	id = sqlite3_column_int64(st, col);
	/* ids are handed out from 0 up, one per distinct text */
	if (!c->st_text || id < 0 || id > 1000000)
		return VP_EFORMAT;
	if ((size_t)id < c->n_texts && c->texts[id]) {
		*out = c->texts[id];
		return 0;
	}
	sqlite3_reset(c->st_text);
	sqlite3_bind_int64(c->st_text, 1, id);
	rc = sqlite3_step(c->st_text);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? VP_EFORMAT : -1;
	if ((size_t)id >= c->n_texts) {
		c->texts = xrealloc(c->texts, ((size_t)id + 1) * sizeof(char *));
		memset(c->texts + c->n_texts, 0, ((size_t)id + 1 - c->n_texts) * sizeof(char *));
		c->n_texts = (size_t)id + 1;
	}
	c->texts[id] = col_text(c->st_text, 0);
	if (!c->texts[id])
		c->texts[id] = xstrdup("");
	*out = c->texts[id];
	return 0;
}

static void read_row(sqlite3_stmt *st, struct collect_row *row)
{
	const char *q;
	size_t k;

	memset(row, 0, sizeof(*row));
	row->ent = -1;
	row->kind = kind_parse((const char *)sqlite3_column_text(st, 2));
	row->key = col_text(st, 3);
	row->name = col_text(st, 4);
	row->vm_row = (size_t)sqlite3_column_int64(st, 5);
	row->adapter = adapter_parse((const char *)sqlite3_column_text(st, 6));
	row->libvirt = sqlite3_column_int(st, 7) != 0;
	row->pid = col_int(st, 8);
	row->domid = col_int(st, 9);
	row->index = col_int(st, 10);
	row->tid = col_int(st, 11);
	row->cpu = col_int(st, 12);
	row->node = col_int(st, 13);
	row->remote.v = col_double(st, 14);
	q = (const char *)sqlite3_column_text(st, 15);
	row->remote.q = VQ_UNAVAILABLE;
	for (k = 0; q && k <= VQ_UNAVAILABLE; k++)
		if (!strcmp(vp_quality_name((enum vp_quality)k), q))
			row->remote.q = (enum vp_quality)k;
	row->started = col_double(st, 17);
	q = (const char *)sqlite3_column_text(st, 18);
	row->state = RS_RUNNING;
	for (k = 0; q && k <= RS_ENDED; k++)
		if (!strcmp(row_state_name((enum row_state)k), q))
			row->state = (enum row_state)k;
	row->llc_alone = sqlite3_column_type(st, 19) == SQLITE_NULL ? 0 :
			 sqlite3_column_int(st, 19) ? 1 : -1;
	q = (const char *)sqlite3_column_text(st, 20);
	row->persist = !q ? DP_UNKNOWN : !strcmp(q, "persistent") ? DP_PERSISTENT :
		       !strcmp(q, "transient") ? DP_TRANSIENT : DP_UNKNOWN;
	q = (const char *)sqlite3_column_text(st, 21);
	row->numa_mode = !q ? DN_UNKNOWN : !strcmp(q, "restrictive") ? DN_RESTRICTIVE :
			 !strcmp(q, "strict") ? DN_STRICT : DN_UNKNOWN;
	row->sched_window_s = sqlite3_column_type(st, 24) == SQLITE_NULL ? 0 :
			      sqlite3_column_double(st, 24);
	if (!(row->sched_window_s > 0 && row->sched_window_s < 1e9))
		row->sched_window_s = 0;
	q = (const char *)sqlite3_column_text(st, 25);
	if (q && row->kind == ENT_VM) { /* not valid JSON: not known, as in an older file */
		struct jv doc;
		struct vp_err e;

		if (!jv_parse(&doc, q, strlen(q), "rows.vm_topo", &e)) {
			vms_io_vnuma_from_json(&doc, &row->io, &row->n_io, &row->vnodes,
					       &row->n_vnodes);
			jv_release(&doc);
		}
	}
	q = (const char *)sqlite3_column_text(st, 22);
	row->n_iothreads = -1;
	if (q) {
		/* "1,3": ids as written; anything else ends the list where it is */
		row->n_iothreads = 0;
		while (*q && row->n_iothreads < DIAG_MAX_IOTHREADS) {
			char *end;
			long id = strtol(q, &end, 10);

			if (end == q || id < 0 || id > INT_MAX || (*end && *end != ','))
				break;
			row->iothread_ids[row->n_iothreads++] = (int)id;
			q = *end ? end + 1 : end;
		}
	}
}

/* Fill frame f (seq n) from the scans; 0 or a message in msg. */
static int fill_frame(struct recording *r, struct collect_frame *f, sqlite3_int64 n,
		      const char **what)
{
	struct rec_cursor *c = r->cur;
	sqlite3_stmt *st;
	size_t cap = 0, i, k;
	size_t width = c->m && c->m->n_inputs > r->n_inputs ? c->m->n_inputs : r->n_inputs;

	/* rows */
	st = c->st[CUR_ROWS];
	while (c->rc[CUR_ROWS] == SQLITE_ROW && sqlite3_column_int64(st, 0) <= n) {
		struct collect_row *row;

		if (sqlite3_column_int64(st, 0) < n ||
		    sqlite3_column_int64(st, 1) != (sqlite3_int64)f->n_rows) {
			*what = "a row names a frame or position out of order";
			return VP_EFORMAT;
		}
		if (!cap) {
			cap = c->rows_hint ? c->rows_hint : 8;
			f->rows = xcalloc(cap, sizeof(*f->rows));
		}
		VP_GROW(f->rows, cap, f->n_rows + 1);
		row = &f->rows[f->n_rows++];
		read_row(st, row);
		{
			const char *mr;
			int ret = text_of(c, st, 16, &mr);

			if (ret) {
				*what = "a row's memory source names no text";
				return ret == -1 ? -1 : VP_EFORMAT;
			}
			row->mem_reason = mr ? xstrdup(mr) : NULL;
		}
		row->inputs = xcalloc(width ? width : 1, sizeof(double));
		for (k = 0; k < width; k++)
			row->inputs[k] = NAN;
		/* schema 5: its inputs (NULL in older files, which have them in vals) */
		if (vals_unpack(sqlite3_column_blob(st, 23), (size_t)sqlite3_column_bytes(st, 23),
				row->inputs, r->n_inputs)) {
			*what = "a row's values are not what vmmprof writes";
			return VP_EFORMAT;
		}
		if (row->vm_row >= f->n_rows) {
			*what = "a vCPU row names a VM row that does not exist";
			return VP_EFORMAT;
		}
		if (!advance(c, CUR_ROWS)) {
			*what = "reading rows";
			return -1;
		}
	}
	if (c->rc[CUR_ROWS] != SQLITE_ROW && c->rc[CUR_ROWS] != SQLITE_DONE) {
		*what = "reading rows";
		return -1;
	}
	c->rows_hint = f->n_rows;

	/* memory per node */
	st = c->st[CUR_MEM];
	while (c->rc[CUR_MEM] == SQLITE_ROW && sqlite3_column_int64(st, 0) <= n) {
		sqlite3_int64 pos = sqlite3_column_int64(st, 1);
		int node = sqlite3_column_int(st, 2);

		if (sqlite3_column_int64(st, 0) < n) {
			*what = "memory per node out of order";
			return VP_EFORMAT;
		}
		if (pos >= 0 && (size_t)pos < f->n_rows && node >= 0 && node <= 4096) {
			struct collect_row *row = &f->rows[pos];

			if (node >= row->n_mem_nodes) {
				row->mem_node = xrealloc(row->mem_node,
							 (size_t)(node + 1) * sizeof(uint64_t));
				for (i = (size_t)row->n_mem_nodes; i <= (size_t)node; i++)
					row->mem_node[i] = 0;
				row->n_mem_nodes = node + 1;
			}
			row->mem_node[node] = (uint64_t)sqlite3_column_int64(st, 3);
		}
		if (!advance(c, CUR_MEM)) {
			*what = "reading row_mem";
			return -1;
		}
	}

	/* values, in the recorded order (rows hold room for both orders) */
	st = c->st[CUR_VALS];
	while (c->rc[CUR_VALS] == SQLITE_ROW && sqlite3_column_int64(st, 0) <= n) {
		sqlite3_int64 pos = sqlite3_column_int64(st, 1), in = sqlite3_column_int64(st, 2);

		/* each scan is in key order: an entry of an earlier frame is damage */
		if (sqlite3_column_int64(st, 0) < n) {
			*what = "values out of order";
			return VP_EFORMAT;
		}
		if (pos >= 0 && (size_t)pos < f->n_rows && in >= 0 && (size_t)in < r->n_inputs)
			f->rows[pos].inputs[in] = col_double(st, 3);
		if (!advance(c, CUR_VALS)) {
			*what = "reading vals";
			return -1;
		}
	}

	/* --resctrl's node sums: a frame with any has them for every node (NaN: none) */
	st = c->st[CUR_RDT];
	while (c->rc[CUR_RDT] == SQLITE_ROW && sqlite3_column_int64(st, 0) <= n) {
		int idx = topology_node_index(&r->plat.topo, sqlite3_column_int(st, 1));

		if (sqlite3_column_int64(st, 0) < n) {
			*what = "resctrl node values out of order";
			return VP_EFORMAT;
		}
		if (!f->rdt_node && r->plat.topo.n_nodes > 0) {
			f->n_rdt_nodes = r->plat.topo.n_nodes;
			f->rdt_node = xcalloc(3 * (size_t)f->n_rdt_nodes, sizeof(double));
			for (i = 0; i < 3 * (size_t)f->n_rdt_nodes; i++)
				f->rdt_node[i] = NAN;
		}
		if (f->rdt_node && idx >= 0 && idx < f->n_rdt_nodes)
			for (k = 0; k < 3; k++)
				f->rdt_node[3 * (size_t)idx + k] = col_double(st, 2 + (int)k);
		if (!advance(c, CUR_RDT)) {
			*what = "reading node_rdt";
			return -1;
		}
	}

	/* the running shares, by recorded input (bind_frame() maps them to the model's) */
	st = c->st[CUR_SCAL];
	while (c->rc[CUR_SCAL] == SQLITE_ROW && sqlite3_column_int64(st, 0) <= n) {
		sqlite3_int64 in = sqlite3_column_int64(st, 1);

		if (sqlite3_column_int64(st, 0) < n) {
			*what = "running shares out of order";
			return VP_EFORMAT;
		}
		if (in >= 0 && (size_t)in < r->n_inputs) {
			struct collect_scaling *sc;

			f->scaling = xrealloc(f->scaling, (f->n_scaling + 1) * sizeof(*f->scaling));
			sc = &f->scaling[f->n_scaling++];
			sc->event = xstrdup(r->input_names[in]);
			sc->input = (size_t)in;
			sc->enabled_s = col_double(st, 2);
			sc->running_s = col_double(st, 3);
			sc->running_pct = sc->enabled_s > 0 && isfinite(sc->running_s) ?
					  100 * sc->running_s / sc->enabled_s : NAN;
		}
		if (!advance(c, CUR_SCAL)) {
			*what = "reading scaling";
			return -1;
		}
	}
	return 0;
}

int rec_next_frame(struct recording *r, struct collect_frame *f, struct vp_err *err)
{
	struct rec_cursor *c = r->cur;
	sqlite3_stmt *st;
	sqlite3_int64 n = (sqlite3_int64)r->n_read;
	const char *what = NULL;
	const char *notes;
	size_t i;
	int ret;

	memset(f, 0, sizeof(*f));
	if (!c)
		return vp_err_set(err, VP_EINVAL, "'%s' is not open for reading", r->path);
	if (c->failed)
		return vp_err_set(err, c->failed, "%s", c->failmsg);
	st = c->st[CUR_FRAMES];
	if (c->rc[CUR_FRAMES] == SQLITE_DONE) {
		/* rows left over name frames that do not exist */
		if (c->rc[CUR_ROWS] == SQLITE_ROW) {
			what = "a row names a frame or position out of order";
			ret = VP_EFORMAT;
			goto fail;
		}
		return 0;
	}
	if (c->rc[CUR_FRAMES] != SQLITE_ROW) {
		what = "reading frames";
		ret = -1;
		goto fail;
	}
	if (sqlite3_column_int64(st, 0) != n) {
		what = "frame numbers are not consecutive";
		ret = VP_EFORMAT;
		goto fail;
	}
	f->t_ns = (uint64_t)sqlite3_column_int64(st, 1);
	f->duration = sqlite3_column_double(st, 2);
	f->cpu_mhz = col_double(st, 3);
	notes = (const char *)sqlite3_column_text(st, 4);
	sbuf_set(&f->notes, notes ? notes : "");
	if ((ret = text_of(c, st, 5, &notes))) {
		what = "its resctrl reason names no text";
		goto fail;
	}
	if ((ret = fill_frame(r, f, n, &what)))
		goto fail;
	if (f->rdt_node)
		sbuf_set(&f->rdt_why, notes ? notes : "");
	if (!advance(c, CUR_FRAMES)) {
		what = "reading frames";
		ret = -1;
		goto fail;
	}
	/* node rows (schema 3) come after the entity rows: the frame's nodes */
	for (i = f->n_rows; i > 0 && f->rows[i - 1].kind == ENT_NODE; i--)
		;
	if (i < f->n_rows) {
		size_t k;

		f->n_nodes = f->n_rows - i;
		f->nodes = xcalloc(f->n_nodes, sizeof(*f->nodes));
		memcpy(f->nodes, f->rows + i, f->n_nodes * sizeof(*f->nodes));
		f->n_rows = i;
		for (k = 0; k < f->n_nodes; k++) {
			f->nodes[k].apportioned = f->nodes[k].remote.q == VQ_APPORTIONED;
			f->nodes[k].remote.q = VQ_UNAVAILABLE;
			f->nodes[k].vm_row = 0;
		}
	}
	if (c->m)
		bind_frame(r, c->map, c->raw, c->m, f, c->solo);
	r->n_read++;
	return 1;
fail:
	/* sqlite's own errors are damage (or I/O); ours are inconsistent contents */
	if (ret == -1)
		snprintf(c->failmsg, sizeof(c->failmsg), "'%s' is damaged at frame %lld (%s): %s",
			 r->path, (long long)n, what, sqlite3_errmsg(c->db));
	else
		snprintf(c->failmsg, sizeof(c->failmsg), "'%s' is damaged at frame %lld: %s",
			 r->path, (long long)n, what);
	c->failed = VP_EFORMAT;
	collect_frame_release(f);
	memset(f, 0, sizeof(*f));
	return vp_err_set(err, c->failed, "%s", c->failmsg);
}

int rec_open(const char *path, struct recording *r, struct vp_err *err)
{
	struct rec_cursor *c;
	sqlite3_stmt *st;
	struct stat sb;
	int ret, i;

	memset(r, 0, sizeof(*r));
	calib_init(&r->cal);
	r->path = xstrdup(path);
	if (stat(path, &sb))
		return vp_err_errno(err, errno, "cannot open recording '%s'", path);
	if (S_ISDIR(sb.st_mode))
		return vp_err_set(err, -EISDIR, "cannot open recording '%s': it is a directory", path);
	/* a FIFO or a device would block SQLite's open or feed it without end */
	if (!S_ISREG(sb.st_mode))
		return vp_err_set(err, VP_EINVAL, "cannot open recording '%s': it is %s, not a "
				  "regular file", path, vp_file_type(sb.st_mode));
	/* SQLite says "unable to open database file" for a file we may not read: say why */
	if (access(path, R_OK))
		return vp_err_errno(err, errno, "cannot open recording '%s'", path);
	c = r->cur = xcalloc(1, sizeof(*c));
	if (open_file(path, &c->db, SQLITE_OPEN_READONLY) != SQLITE_OK)
		return bad(err, path, c->db, "cannot open");
	/*
	 * A truncated file (a copy cut short, a full disk) has fewer pages than
	 * its header says, which SQLite refuses at once; with writable_schema
	 * (harmless on a read-only connection) it reads the pages there are and
	 * reports the damage where a missing page is needed, so the frames
	 * before it can still be read.
	 */
	sqlite3_exec(c->db, "PRAGMA writable_schema=ON", NULL, NULL, NULL);
	/* the first page: is it SQLite at all? */
	if (sqlite3_prepare_v2(c->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) !=
	    SQLITE_OK)
		return bad(err, path, c->db, "not an SQLite database");
	ret = sqlite3_step(st);
	sqlite3_finalize(st);
	if (ret != SQLITE_ROW)
		return bad(err, path, c->db, "not an SQLite database");
	if ((ret = read_meta(c->db, r, err)) || (ret = read_nodes_inputs(c->db, r, err)))
		return ret;
	/* a file from before texts and node_rdt: the old scans */
	if (sqlite3_prepare_v2(c->db, "SELECT text FROM texts WHERE id = ?", -1, &c->st_text,
			       NULL) != SQLITE_OK)
		c->st_text = NULL;
	for (i = 0; i < CUR_N; i++) {
		/* schema 5 has its inputs in rows.vals; before, in the vals table */
		const char *q = i == CUR_ROWS && r->schema < 4 ? rows_sql_3 :
				i == CUR_ROWS && r->schema < 5 ? rows_sql_4[0] :
				i == CUR_VALS && r->schema < 5 ? vals_sql_4 : cursor_sql[i];
		size_t k;
		int rc = sqlite3_prepare_v2(c->db, q, -1, &c->st[i], NULL);

		for (k = 1; rc != SQLITE_OK && i == CUR_ROWS && r->schema == 4 &&
			    k < VP_ARRAY_SIZE(rows_sql_4); k++)
			rc = sqlite3_prepare_v2(c->db, rows_sql_4[k], -1, &c->st[i], NULL);
		for (k = 0; rc != SQLITE_OK && i == CUR_ROWS && r->schema == 5 &&
			    k < VP_ARRAY_SIZE(rows_sql_5); k++)
			rc = sqlite3_prepare_v2(c->db, rows_sql_5[k], -1, &c->st[i], NULL);
		/* files before texts, node_rdt and scaling (a schema 5 file has every
		 * column of rows: without them it has no inputs either) */
		if (rc != SQLITE_OK && cursor_sql_old[i] && (i != CUR_ROWS || r->schema < 5))
			rc = sqlite3_prepare_v2(c->db, cursor_sql_old[i], -1, &c->st[i], NULL);
		if (rc != SQLITE_OK) {
			char what[32];

			snprintf(what, sizeof(what), "no %s table", cursor_table[i]);
			return bad(err, path, c->db, what);
		}
	}
	r->scaling_kept = !strcmp(sqlite3_sql(c->st[CUR_SCAL]), cursor_sql[CUR_SCAL]);
	return cursor_prime(r, err);
}

int rec_read(const char *path, struct recording *r, struct vp_err *err)
{
	struct collect_frame f;
	size_t cap = 0;
	int ret;

	if ((ret = rec_open(path, r, err)))
		return ret;
	while ((ret = rec_next_frame(r, &f, err)) > 0) {
		VP_GROW(r->frames, cap, r->n_frames + 1);
		r->frames[r->n_frames++] = f;
	}
	cursor_free(r->cur);
	r->cur = NULL;
	return ret;
}

#else /* !HAVE_SQLITE */

int rec_create(struct rec_writer **out, const char *path, const struct rec_header *h,
	       struct vp_err *err)
{
	(void)out; (void)h;
	return vp_err_set(err, VP_EDEP, "cannot write '%s': vmmprof was built without SQLite "
			  "(install libsqlite3-dev and rebuild)", path);
}

int rec_append(struct rec_writer *w, const struct collect_frame *f, struct vp_err *err)
{
	(void)w; (void)f;
	return vp_err_set(err, VP_EDEP, "built without SQLite");
}

unsigned long rec_frames(const struct rec_writer *w) { (void)w; return 0; }
int rec_close(struct rec_writer *w, struct vp_err *err) { (void)w; (void)err; return 0; }

int rec_open(const char *path, struct recording *r, struct vp_err *err)
{
	memset(r, 0, sizeof(*r));
	calib_init(&r->cal);
	return vp_err_set(err, VP_EDEP, "cannot read '%s': vmmprof was built without SQLite "
			  "(install libsqlite3-dev and rebuild)", path);
}

int rec_read(const char *path, struct recording *r, struct vp_err *err)
{
	return rec_open(path, r, err);
}

int rec_next_frame(struct recording *r, struct collect_frame *f, struct vp_err *err)
{
	(void)r;
	memset(f, 0, sizeof(*f));
	return vp_err_set(err, VP_EDEP, "built without SQLite");
}

int rec_rewind(struct recording *r, struct vp_err *err)
{
	(void)r;
	return vp_err_set(err, VP_EDEP, "built without SQLite");
}

struct rec_cursor {
	const struct model *m;
	int *map;
	double *raw;
};

static void cursor_free(struct rec_cursor *c)
{
	if (c) {
		free(c->map);
		free(c->raw);
		free(c);
	}
}

#endif /* HAVE_SQLITE */

void rec_release(struct recording *r)
{
	size_t i;

	cursor_free(r->cur);
	for (i = 0; i < r->n_frames; i++)
		collect_frame_release(&r->frames[i]);
	free(r->frames);
	for (i = 0; i < r->n_inputs; i++) {
		free(r->input_names[i]);
		free(r->input_reason[i]);
	}
	free(r->input_names);
	free(r->input_reason);
	free(r->node_inputs);
	free(r->cpu_ids);
	for (i = 0; i < (size_t)(r->n_llc > 0 ? r->n_llc : 0); i++)
		cpulist_release(&r->llc[i].cpus);
	free(r->llc);
	platform_release(&r->plat);
	calib_release(&r->cal);
	free(r->path);
	free(r->vmmprof_version);
	free(r->model_name);
	free(r->command);
	free(r->created);
	memset(r, 0, sizeof(*r));
}

/* ---- binding to a model ---- */

struct bind_ctx {
	const struct recording *r;
};

static int recorded_input(const struct recording *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_inputs; i++)
		if (!strcmp(r->input_names[i], name))
			return (int)i;
	return -1;
}

/* An input is available when it was recorded and counted. */
static int check_recorded(void *ctx, const struct model_input *in, char **reason)
{
	const struct bind_ctx *b = ctx;
	int i = recorded_input(b->r, in->name);

	if (i < 0) {
		*reason = xasprintf("not in the recording");
		return VP_EUNSUPP;
	}
	if (b->r->input_reason[i]) {
		*reason = xstrdup(b->r->input_reason[i]);
		return VP_EUNSUPP;
	}
	return 0;
}

int rec_bind_model(struct recording *r, const struct model *m, struct model_avail *av,
		   struct vp_err *err)
{
	struct bind_ctx b = { r };
	struct diags d;
	int *map;
	double *scratch;
	struct cost_solo *solo;
	size_t f, i, k;

	if (strcmp(m->name, r->model_name))
		return vp_err_set(err, VP_EINVAL, "'%s' was recorded with model '%s', not '%s'",
				  r->path, r->model_name, m->name);
	map = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(int));
	for (k = 0; k < m->n_inputs; k++)
		map[k] = recorded_input(r, m->inputs[k].name);
	scratch = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
	solo = cost_solo_new();
	for (f = 0; f < r->n_frames; f++) {
		struct collect_frame *fr = &r->frames[f];

		/* loaded rows hold the recorded inputs only: widen first */
		for (i = 0; m->n_inputs > r->n_inputs && i < fr->n_rows; i++)
			fr->rows[i].inputs = xrealloc(fr->rows[i].inputs, m->n_inputs * sizeof(double));
		for (i = 0; m->n_inputs > r->n_inputs && i < fr->n_nodes; i++)
			fr->nodes[i].inputs = xrealloc(fr->nodes[i].inputs, m->n_inputs * sizeof(double));
		bind_frame(r, map, scratch, m, fr, solo);
	}
	cost_solo_free(solo);
	if (r->cur) {
		/* frames read from now on are bound as they are read */
		free(r->cur->map);
		free(r->cur->raw);
		r->cur->m = m;
		r->cur->map = map;
		r->cur->raw = scratch;
	} else {
		free(map);
		free(scratch);
	}
	diags_init(&d);
	model_check_inputs(m, check_recorded, &b, av, &d);
	diags_release(&d);
	return 0;
}

/* Inputs that add up over time (counts); the rest (ratios) are averaged. */
static bool additive(const struct model_input *in)
{
	const struct swsource_def *def;

	if (in->kind == INPUT_EVENT)
		return true;
	def = swsource_find(in->spec);
	return def && def->cumulative;
}

/* An I/O thread's CPU time when a run's sum first saw it, and the run's seconds by then. */
struct io_seen {
	int tid;
	double cpu_s, at_s;
};

struct total_rows {            /* rows summed over frames, matched by key */
	size_t cap;               /* of the rows array */
	size_t *cnt;              /* per (row, input): frames with a value, for means; then remote */
	struct strmap keys;       /* row key -> index */
	struct io_seen **seen;    /* per row: its I/O threads as first seen (row io_busy) */
	size_t *n_seen;
};

struct rec_total {
	const struct recording *r;
	const struct model *m;
	struct collect_frame out;
	bool *add;                /* per input: it adds up over time (else averaged) */
	struct total_rows ents;   /* out.rows */
	struct total_rows nodes;  /* out.nodes */
	struct cost_solo *solo;   /* the rows' solo LLC miss rates, from the frames added */
	double *enabled, *running; /* per model input: summed over the frames' scaling */
	bool *counted;            /* per model input: some frame has its scaling */
};

struct rec_total *rec_total_new(const struct recording *r, const struct model *m)
{
	struct rec_total *t = xcalloc(1, sizeof(*t));
	size_t k;

	t->r = r;
	t->m = m;
	t->out.cpu_mhz = NAN;
	t->add = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(bool));
	for (k = 0; k < m->n_inputs; k++)
		t->add[k] = additive(&m->inputs[k]);
	strmap_init(&t->ents.keys);
	strmap_init(&t->nodes.keys);
	t->solo = cost_solo_new();
	t->enabled = xcalloc(m->n_inputs + 1, sizeof(double));
	t->running = xcalloc(m->n_inputs + 1, sizeof(double));
	t->counted = xcalloc(m->n_inputs + 1, sizeof(bool));
	return t;
}

/* Row j's I/O threads not seen before: their CPU time now, at the run's second at_s. */
static void io_seen_add(struct total_rows *tr, size_t j, const struct collect_row *src, double at_s)
{
	size_t t, k;

	for (t = 0; t < src->n_io; t++) {
		const struct hv_iothread *io = &src->io[t];

		for (k = 0; k < tr->n_seen[j] && tr->seen[j][k].tid != io->tid; k++)
			;
		if (k < tr->n_seen[j] || !isfinite(io->cpu_time_s))
			continue;
		tr->seen[j] = xrealloc(tr->seen[j], (tr->n_seen[j] + 1) * sizeof(**tr->seen));
		tr->seen[j][tr->n_seen[j]++] = (struct io_seen){ io->tid, io->cpu_time_s, at_s };
	}
}

/*
 * Each summed row's io_busy: what each I/O thread it ends with ran from when
 * it was first seen to the end of the run (end_s), in CPUs; NaN for one seen
 * only at the end.  Frees the first sightings.
 */
static void io_busy_finish(struct total_rows *tr, struct collect_row *rows, size_t n, double end_s)
{
	size_t j, t, k;

	for (j = 0; j < n && tr->seen; j++) {
		struct collect_row *r = &rows[j];

		for (t = 0; t < r->n_io && tr->n_seen[j]; t++) {
			const struct hv_iothread *io = &r->io[t];

			if (!r->io_busy)
				r->io_busy = xcalloc(r->n_io, sizeof(double));
			r->io_busy[t] = NAN;
			for (k = 0; k < tr->n_seen[j]; k++) {
				const struct io_seen *s = &tr->seen[j][k];

				if (s->tid == io->tid && end_s - s->at_s > 0 && isfinite(io->cpu_time_s))
					r->io_busy[t] = fmax(0, io->cpu_time_s - s->cpu_s) /
							(end_s - s->at_s);
			}
		}
		free(tr->seen[j]);
	}
	free(tr->seen);
	free(tr->n_seen);
}

/* Add one frame's rows (entity rows, or node rows) into *rows / *n. */
static void total_rows_add(struct rec_total *t, struct total_rows *tr, struct collect_row **rows,
			   size_t *n, const struct collect_frame *fr, const struct collect_row *src_rows,
			   size_t n_src)
{
	const struct model *m = t->m;
	size_t i, j, k, w = m->n_inputs + 1;

	for (i = 0; i < n_src; i++) {
		const struct collect_row *src = &src_rows[i];
		struct collect_row *dst;

		if (!strmap_get(&tr->keys, src->key, &j)) {
			/* a new entity, in order of first appearance */
			size_t old = tr->cap;

			VP_GROW(*rows, tr->cap, *n + 1);
			if (tr->cap != old) {
				tr->cnt = xrealloc(tr->cnt, tr->cap * w * sizeof(size_t));
				memset(tr->cnt + old * w, 0, (tr->cap - old) * w * sizeof(size_t));
				tr->seen = xrealloc(tr->seen, tr->cap * sizeof(*tr->seen));
				memset(tr->seen + old, 0, (tr->cap - old) * sizeof(*tr->seen));
				tr->n_seen = xrealloc(tr->n_seen, tr->cap * sizeof(*tr->n_seen));
				memset(tr->n_seen + old, 0, (tr->cap - old) * sizeof(*tr->n_seen));
			}
			j = (*n)++;
			dst = &(*rows)[j];
			*dst = *src;
			dst->key = src->key ? xstrdup(src->key) : NULL;
			dst->name = src->name ? xstrdup(src->name) : NULL;
			dst->metrics = NULL;
			dst->mem_node = NULL;
			dst->n_mem_nodes = 0;
			dst->mem_reason = NULL;
			dst->pci = NULL;
			dst->n_pci = 0;
			dst->io = NULL;
			dst->n_io = 0;
			dst->io_busy = NULL;
			dst->vnodes = NULL;
			dst->n_vnodes = 0;
			dst->inputs = xcalloc(m->n_inputs ? m->n_inputs : 1, sizeof(double));
			for (k = 0; k < m->n_inputs; k++)
				dst->inputs[k] = NAN;
			dst->remote.v = NAN;
			dst->vm_row = j;
			/* a vCPU's VM row: the total's row of the same key */
			if ((src->kind == ENT_VCPU || src->kind == ENT_THREAD) && src->vm_row < fr->n_rows)
				strmap_get(&tr->keys, fr->rows[src->vm_row].key, &dst->vm_row);
			strmap_put(&tr->keys, src->key, j);
		}
		dst = &(*rows)[j];
		dst->apportioned |= src->apportioned;
		/*
		 * The whole run: ended once it ended; paused only when it was paused in
		 * every interval (one that ran is rated over its run); tenancy is per
		 * interval (the solo rates).
		 */
		if (src->state == RS_ENDED || (dst->state == RS_PAUSED && src->state != RS_PAUSED))
			dst->state = src->state == RS_ENDED ? RS_ENDED : RS_RUNNING;
		dst->llc_alone = 0;
		/* placement and memory: the latest; so is what libvirt says of a domain */
		if (src->persist != DP_UNKNOWN)
			dst->persist = src->persist;
		if (src->numa_mode != DN_UNKNOWN)
			dst->numa_mode = src->numa_mode;
		if (src->n_iothreads >= 0) {
			dst->n_iothreads = src->n_iothreads;
			memcpy(dst->iothread_ids, src->iothread_ids, sizeof(dst->iothread_ids));
		}
		dst->cpu = src->cpu;
		dst->node = src->node;
		if (src->n_pci) {
			hv_pcidevs_free(dst->pci, dst->n_pci);
			dst->pci = hv_pcidevs_dup(src->pci, src->n_pci);
			dst->n_pci = src->n_pci;
		}
		if (src->n_io) { /* where they ran last (rows.vm_topo) */
			hv_iothreads_free(dst->io, dst->n_io);
			dst->io = hv_iothreads_dup(src->io, src->n_io);
			dst->n_io = src->n_io;
			io_seen_add(tr, j, src, t->out.duration);
		}
		if (src->n_vnodes) {
			hv_vnodes_free(dst->vnodes, dst->n_vnodes);
			dst->vnodes = hv_vnodes_dup(src->vnodes, src->n_vnodes);
			dst->n_vnodes = src->n_vnodes;
		}
		if (src->mem_node) {
			free(dst->mem_node);
			dst->n_mem_nodes = src->n_mem_nodes;
			dst->mem_node = xcalloc((size_t)src->n_mem_nodes, sizeof(uint64_t));
			memcpy(dst->mem_node, src->mem_node, (size_t)src->n_mem_nodes * sizeof(uint64_t));
		}
		if (src->mem_reason) {
			free(dst->mem_reason);
			dst->mem_reason = xstrdup(src->mem_reason);
		}
		if (isfinite(src->remote.v)) {
			size_t *c = &tr->cnt[j * w + m->n_inputs];

			dst->remote.v = (isfinite(dst->remote.v) ? dst->remote.v * (double)*c : 0) +
					src->remote.v;
			dst->remote.v /= (double)++*c;
			dst->remote.q = src->remote.q;
		}
		for (k = 0; k < m->n_inputs; k++) {
			double v = src->inputs[k];
			size_t *c = &tr->cnt[j * w + k];

			if (!isfinite(v))
				continue;
			if (t->add[k])
				dst->inputs[k] = (isfinite(dst->inputs[k]) ? dst->inputs[k] : 0) + v;
			else
				dst->inputs[k] = ((isfinite(dst->inputs[k]) ?
						   dst->inputs[k] * (double)*c : 0) + v) / (double)(*c + 1);
			++*c;
		}
	}
}

/*
 * --resctrl's node sums over the run, as the live collector's total frame
 * has them: LLC occupancy the latest frame's (a gauge), MBM bytes summed
 * over the frames that have them (NaN when none has); the reason the
 * latest frame gives, until some node has a value.
 */
static void total_rdt_add(struct collect_frame *out, const struct collect_frame *fr)
{
	int i;

	if (!fr->rdt_node)
		return;
	if (!out->rdt_node) {
		out->n_rdt_nodes = fr->n_rdt_nodes;
		out->rdt_node = xcalloc(3 * (size_t)out->n_rdt_nodes + 1, sizeof(double));
		for (i = 0; i < 3 * out->n_rdt_nodes; i++)
			out->rdt_node[i] = NAN;
	}
	for (i = 0; i < out->n_rdt_nodes && i < fr->n_rdt_nodes; i++) {
		double *o = &out->rdt_node[3 * i];
		const double *v = &fr->rdt_node[3 * i];
		int k;

		o[0] = v[0];
		for (k = 1; k < 3; k++)
			if (isfinite(v[k]))
				o[k] = (isfinite(o[k]) ? o[k] : 0) + v[k];
	}
	sbuf_set(&out->rdt_why, sbuf_str(&fr->rdt_why));
	for (i = 0; i < 3 * out->n_rdt_nodes; i++)
		if (isfinite(out->rdt_node[i]))
			sbuf_reset(&out->rdt_why); /* the nodes whose values are NaN say why themselves */
}

void rec_total_add(struct rec_total *t, const struct collect_frame *fr)
{
	struct collect_frame *out = &t->out;
	size_t i;

	out->duration += fr->duration;
	out->t_ns = fr->t_ns;
	if (isfinite(fr->cpu_mhz))
		out->cpu_mhz = fr->cpu_mhz;
	if (!out->node_input && fr->node_input)
		frame_mark_node_inputs(t->m, fr->node_input, out);
	total_rows_add(t, &t->ents, &out->rows, &out->n_rows, fr, fr->rows, fr->n_rows);
	total_rows_add(t, &t->nodes, &out->nodes, &out->n_nodes, fr, fr->nodes, fr->n_nodes);
	total_rdt_add(out, fr);
	cost_solo_update(t->solo, fr);
	/* the whole run's running share per input, as a live run's total has it */
	for (i = 0; i < fr->n_scaling; i++) {
		const struct collect_scaling *sc = &fr->scaling[i];

		if (sc->input >= t->m->n_inputs || !isfinite(sc->enabled_s) ||
		    !isfinite(sc->running_s))
			continue;
		t->enabled[sc->input] += sc->enabled_s;
		t->running[sc->input] += sc->running_s;
		t->counted[sc->input] = true;
	}
}

void rec_total_finish(struct rec_total *t, struct collect_frame *out)
{
	const struct recording *r = t->r;
	size_t i;

	*out = t->out;
	for (i = 0; i < t->m->n_inputs; i++) {
		struct collect_scaling *sc;

		if (!t->counted[i])
			continue;
		out->scaling = xrealloc(out->scaling, (out->n_scaling + 1) * sizeof(*out->scaling));
		sc = &out->scaling[out->n_scaling++];
		sc->event = xstrdup(t->m->inputs[i].spec);
		sc->input = i;
		sc->enabled_s = t->enabled[i];
		sc->running_s = t->running[i];
		sc->running_pct = t->enabled[i] > 0 ? 100 * t->running[i] / t->enabled[i] : NAN;
	}
	/* VM rows come before their vCPUs for the diagnosis input */
	for (i = 0; i < out->n_rows; i++)
		frame_eval_row(t->m, &r->plat, r->have_cal ? &r->cal : NULL, out->cpu_mhz,
			       &out->rows[i], out->duration);
	for (i = 0; i < out->n_nodes; i++)
		frame_eval_row(t->m, &r->plat, r->have_cal ? &r->cal : NULL, out->cpu_mhz,
			       &out->nodes[i], out->duration);
	io_busy_finish(&t->ents, out->rows, out->n_rows, out->duration);
	io_busy_finish(&t->nodes, out->nodes, out->n_nodes, out->duration);
	frame_cost(t->m, r->have_cal ? &r->cal : NULL, out, t->solo);
	cost_solo_free(t->solo);
	strmap_release(&t->ents.keys);
	strmap_release(&t->nodes.keys);
	free(t->ents.cnt);
	free(t->nodes.cnt);
	free(t->add);
	free(t->enabled);
	free(t->running);
	free(t->counted);
	free(t);
}

void rec_total_frame(const struct recording *r, const struct model *m, struct collect_frame *out)
{
	struct rec_total *t = rec_total_new(r, m);
	size_t f;

	for (f = 0; f < r->n_frames; f++)
		rec_total_add(t, &r->frames[f]);
	rec_total_finish(t, out);
}
