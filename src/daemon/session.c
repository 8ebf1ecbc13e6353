/* session.c - profiling sessions: one collector thread shared by all, history, streams */
#include "daemon/session.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/cost_ci.h"
#include "compose/diag_render.h"
#include "analysis/vms_view.h"
#include "compose/diagnosis.h"
#include "compose/pipeline.h"
#include "collect/frame_json.h"
#include "collect/hub.h"
#include "compose/prom.h"
#include "record/record.h"
#include "source/cpustat.h"
#include "source/numastat.h"
#include "top/toprender.h"
#include "util/alloc.h"
#include "util/json.h"
#include "util/jsonread.h"
#include "util/timeutil.h"
#include "version.h"

#define HISTORY_MAX 600                 /* frames kept per session */
#define HISTORY_BYTES(d) ((size_t)(d)->conf.history_mib << 20) /* and their size at most */
/* the diagnosis's cost intervals: the newest hour of one-second frames (a bootstrap
 * over weeks of frames would take seconds, and their memory grows without end) */
#define COST_CI_MAX 3600
#define KEEPALIVE_NS (15ull * 1000000000ull)
#define INTERVAL_MIN_MS 100
#define INTERVAL_MAX_MS 3600000
#define INTERVAL_DEFAULT_MS 1000

struct session {
	int refs;                       /* the list's and each stream's; under the lock */
	bool listed;                    /* in the session list (not yet deleted) */
	char id[16];
	char owner[USER_NAME_MAX + 1];
	struct model *model;
	char **vms;
	size_t n_vms;
	int *pids;
	size_t n_pids;
	int interval_ms;
	bool resctrl;                   /* one resctrl monitoring group per VM */
	char *resctrl_why;              /* why groups do not measure, when it started; NULL: they do */
	double started;                 /* Unix time */
	bool running;                   /* its hub view exists */
	char *ended_why;                /* stopped on its own: why */
	uint64_t ended_ns;              /* when it stopped running (monotonic), 0 while it runs */
	int view;                       /* hub view id */
	size_t targets;
	size_t n_events;                /* event inputs of its model */
	uint64_t seq;                   /* frames so far */
	uint64_t next_ns;               /* next sample (monotonic) */
	char *hist[HISTORY_MAX];        /* frame JSON lines, a ring: oldest at hist_head */
	size_t hist_len[HISTORY_MAX];
	uint64_t hist_seq[HISTORY_MAX];
	size_t hist_n, hist_head;
	size_t hist_bytes;              /* of the lines held: at most history_mib MiB (but one) */
	struct collect_frame last;      /* the newest frame (for /metrics and events) */
	bool have_last;
	struct cost_ci_set ci;          /* each VM's costs frame by frame: the diagnosis's
					   intervals, over the newest COST_CI_MAX frames */
	struct rec_writer *rec;
	char *rec_name;
	uint64_t rec_frames;            /* frames the recording holds */
	char *rec_error;                /* the recording failed: why (it stopped with it) */
	char *replay;                   /* a replayed session: the recording its frames come
					   from (no hub view; it is "ended" from the start) */
	char *replay_diag;              /* its diagnosis: `diagnose --json` of the recording */
};

struct vpd_sessions {
	pthread_mutex_t lock;           /* everything below, and every hub call */
	pthread_cond_t wake;            /* the collector: sessions changed, or stop */
	pthread_cond_t frames;          /* streams: a new frame, a session ended, stop */
	struct pipeline pl;             /* platform, model registry, calibration */
	bool have_pl;
	struct hub *hub;
	char hub_error[VP_ERR_MSG_MAX];
	/* xen_numa_dump: one rate limit for every scan that reads Xen's dump (the
	 * hub's, /api/v1/vms, top streams), taken under the lock; NULL off */
	struct hv_xen_numa xen_numa_state;
	struct hv_xen_numa *xen_numa;
	struct hv_xen_tracer *xen_tracer; /* xentrace = on: read by every scan, under the lock */
	struct hv_xen_psr *xen_psr;     /* xen_psr = on: domains attached for the daemon's life,
					   read by every scan under the lock */
	struct session **v;
	size_t n, cap;
	unsigned next_id;
	pthread_t thread;
	bool have_thread;
	bool stop;
	size_t clients;                 /* streams connected */
	struct stream *streams;         /* every stream, for revocation and per-user caps */
	unsigned users_gen;             /* the users generation revocation last looked at */
	double start_time;
	double scrape_s;                /* the previous /metrics render */
	struct cpustat cs_prev;         /* /proc/stat at the previous /metrics (node busy share) */
};

/* One event stream (a connection's response). */
struct stream {
	struct stream *prev, *next;     /* ss->streams, under the lock */
	char user[USER_NAME_MAX + 1];   /* who opened it, with the hash of its token then */
	uint8_t user_hash[USER_HASH_LEN];
	bool revoked;                   /* its user was removed or got a new token */
	struct vpd *d;
	struct session *s;              /* NULL: a top stream */
	uint64_t sent;                  /* last frame sequence sent */
	struct sbuf out;                /* what is still to be written */
	size_t off;
	bool ended;
	uint64_t last_ns;               /* when something was last written */
	/* top */
	struct top_state top;
	bool have_top;
	bool top_rdt;                   /* resctrl=1: meters on the hub's groups, used under the lock */
	uint64_t top_start, top_next, top_iv;
};

/* ---- sessions ---- */

static void session_unref(struct session *s)
{
	size_t i;

	if (--s->refs > 0)
		return;
	for (i = 0; i < HISTORY_MAX; i++)
		free(s->hist[i]);
	if (s->have_last)
		collect_frame_release(&s->last);
	cost_ci_release(&s->ci);
	for (i = 0; i < s->n_vms; i++)
		free(s->vms[i]);
	free(s->vms);
	free(s->pids);
	free(s->rec_name);
	free(s->rec_error);
	free(s->replay);
	free(s->replay_diag);
	free(s->ended_why);
	free(s->resctrl_why);
	model_free(s->model);
	free(s);
}

/* End a session's collection: view removed, recording closed.  Under the lock. */
static void session_end(struct vpd *d, struct session *s, const char *why)
{
	struct vpd_sessions *ss = d->sessions;
	struct vp_err err = { 0, "" };

	if (!s->running)
		return;
	hub_view_remove(ss->hub, s->view);
	s->running = false;
	s->ended_ns = vp_now_ns();
	if (why && !s->ended_why)
		s->ended_why = xstrdup(why);
	if (s->rec && rec_close(s->rec, &err)) {
		if (!s->rec_error) {
			s->rec_error = xstrdup(err.msg);
			fprintf(stderr, "vmmprofd: error: session %s: recording '%s': %s\n", s->id,
				s->rec_name, err.msg);
		}
	}
	s->rec = NULL;
	pthread_cond_broadcast(&ss->frames);
}

static struct session *find(struct vpd_sessions *ss, const char *id)
{
	size_t i;

	for (i = 0; i < ss->n; i++)
		if (!strcmp(ss->v[i]->id, id))
			return ss->v[i];
	return NULL;
}

static bool may_read(const struct vpd_req *r, const struct session *s)
{
	return r->user.role != ROLE_OPERATOR || !strcmp(s->owner, r->user.name);
}

static bool may_stop(const struct vpd_req *r, const struct session *s)
{
	return r->user.role == ROLE_ADMIN ||
	       (r->user.role == ROLE_OPERATOR && !strcmp(s->owner, r->user.name));
}

static void session_json(struct jw *w, const struct vpd_sessions *ss, const struct session *s)
{
	size_t i;

	jw_obj_begin(w);
	jw_kstr(w, "id", s->id);
	jw_kstr(w, "owner", s->owner);
	jw_kstr(w, "model", s->model->name);
	jw_key(w, "vms");
	jw_arr_begin(w);
	for (i = 0; i < s->n_vms; i++)
		jw_str(w, s->vms[i]);
	jw_arr_end(w);
	jw_key(w, "pids");
	jw_arr_begin(w);
	for (i = 0; i < s->n_pids; i++)
		jw_int(w, s->pids[i]);
	jw_arr_end(w);
	jw_kint(w, "interval_ms", s->interval_ms);
	jw_kbool(w, "resctrl", s->resctrl);
	jw_kstr(w, "resctrl_why", s->resctrl_why);
	jw_kdouble(w, "started", s->started);
	jw_kstr(w, "state", s->running ? "running" : s->listed ? "ended" : "stopped");
	jw_kstr(w, "ended_because", s->ended_why);
	jw_kuint(w, "seq", s->seq);
	jw_kuint(w, "targets", s->targets);
	jw_key(w, "events");
	jw_arr_begin(w);
	if (s->have_last && s->last.n_scaling) {
		for (i = 0; i < s->last.n_scaling; i++) {
			jw_obj_begin(w);
			jw_kstr(w, "name", s->last.scaling[i].event);
			jw_kdouble(w, "running_pct", s->last.scaling[i].running_pct);
			jw_obj_end(w);
		}
	} else {
		for (i = 0; i < s->model->n_inputs; i++) {
			if (s->model->inputs[i].kind != INPUT_EVENT)
				continue;
			jw_obj_begin(w);
			jw_kstr(w, "name", s->model->inputs[i].spec);
			jw_kdouble(w, "running_pct", NAN);
			if (s->running && hub_view_input_reason(ss->hub, s->view, i))
				jw_kstr(w, "why", hub_view_input_reason(ss->hub, s->view, i));
			jw_obj_end(w);
		}
	}
	jw_arr_end(w);
	jw_kstr(w, "recording", s->rec_name);
	if (s->rec_name)
		jw_kuint(w, "recorded", s->rec_frames);
	jw_kstr(w, "recording_error", s->rec_error);
	jw_kstr(w, "replay", s->replay);
	jw_obj_end(w);
}

static enum MHD_Result reply_session(struct vpd_req *r, unsigned status, const struct session *s)
{
	struct sbuf sb = SBUF_INIT;
	struct jw w;

	jw_init(&w, &sb, false);
	session_json(&w, r->d->sessions, s);
	sbuf_addch(&sb, '\n');
	return vpd_reply_json(r, status, &sb);
}

/* ---- the collector thread ---- */

/*
 * The newest HISTORY_MAX frames, or fewer when they would take more than
 * max_bytes (the newest is always kept): at 1,000 vCPUs a frame is some
 * 1.5 MB, and 600 of them per session would be 900 MB.
 */
static void history_push(struct session *s, char *line, size_t len, size_t max_bytes)
{
	size_t slot;

	while (s->hist_n && (s->hist_n == HISTORY_MAX || s->hist_bytes + len > max_bytes)) {
		slot = s->hist_head;
		s->hist_head = (s->hist_head + 1) % HISTORY_MAX;
		s->hist_n--;
		s->hist_bytes -= s->hist_len[slot];
		free(s->hist[slot]);
		s->hist[slot] = NULL;
	}
	slot = (s->hist_head + s->hist_n++) % HISTORY_MAX;
	s->hist[slot] = line;
	s->hist_len[slot] = len;
	s->hist_seq[slot] = s->seq;
	s->hist_bytes += len;
}

static void sample(struct vpd *d, struct session *s)
{
	struct vpd_sessions *ss = d->sessions;
	struct collect_frame f;
	struct vp_err err = { 0, "" };
	struct frame_meta meta;
	struct sbuf sb = SBUF_INIT;
	struct jw w;
	size_t len;

	memset(&f, 0, sizeof(f));
	if (hub_sample(ss->hub, s->view, &f, &err)) {
		char why[VP_ERR_MSG_MAX + 32];

		snprintf(why, sizeof(why), "sampling failed: %s", err.msg);
		vpd_audit(d, s->owner, "session.end", s->id, "%s", why);
		collect_frame_release(&f);
		session_end(d, s, why);
		return;
	}
	s->seq++;
	cost_ci_add(&s->ci, &f);
	meta.session = s->id;
	meta.seq = s->seq;
	meta.time = (double)vp_wall_ns() / 1e9;
	meta.av = hub_view_avail(ss->hub, s->view);
	jw_init(&w, &sb, false);
	frame_json_write(&w, &meta, s->model, &f);
	len = sb.len;
	history_push(s, sbuf_detach(&sb), len, HISTORY_BYTES(d));
	if (s->rec && rec_append(s->rec, &f, &err)) {
		/* a recording that cannot be written (a full disk) is not claimed: the session
		 * stops with the reason, said once; the frames it holds are rec_frames */
		char why[VP_ERR_MSG_MAX + 64];

		s->rec_error = xstrdup(err.msg);
		fprintf(stderr, "vmmprofd: error: session %s: recording '%s': %s (the session stops; "
				"the recording holds %llu frames)\n", s->id, s->rec_name, err.msg,
			(unsigned long long)s->rec_frames);
		snprintf(why, sizeof(why), "its recording failed: %s", err.msg);
		vpd_audit(d, s->owner, "session.end", s->id, "%s", why);
		if (s->have_last)
			collect_frame_release(&s->last);
		s->last = f;
		s->have_last = true;
		session_end(d, s, why);
		return;
	} else if (s->rec) {
		s->rec_frames++;
	}
	if (s->have_last)
		collect_frame_release(&s->last);
	s->last = f;
	s->have_last = true;
	s->targets = hub_view_n_targets(ss->hub, s->view);
	/* named targets all gone: nothing more will ever be counted */
	if ((s->n_pids || s->n_vms) && !f.n_rows) {
		const char *why = s->n_pids ? "every process it counted has exited" :
					      "every VM it counted has ended";

		vpd_audit(d, s->owner, "session.end", s->id, "%s", why);
		session_end(d, s, why);
	}
}

static void *collector(void *arg)
{
	struct vpd *d = arg;
	struct vpd_sessions *ss = d->sessions;

	pthread_mutex_lock(&ss->lock);
	while (!ss->stop) {
		uint64_t now = vp_now_ns(), next = UINT64_MAX;
		bool any = false;
		size_t i;

		for (i = 0; i < ss->n; i++) {
			struct session *s = ss->v[i];
			uint64_t iv = (uint64_t)s->interval_ms * 1000000ull;

			if (!s->running)
				continue;
			if (__atomic_load_n(&d->stopping, __ATOMIC_RELAXED))
				break;          /* SIGTERM: no more samples */
			if (s->next_ns <= now) {
				sample(d, s);
				any = true;
				s->next_ns += iv;
				/* fell behind (a sample that took longer than the interval: xl under
				 * load): skip from when it ended, do not burst */
				if (s->next_ns <= vp_now_ns())
					s->next_ns = vp_now_ns() + iv;
			}
			if (s->running && s->next_ns < next)
				next = s->next_ns;
		}
		if (any)
			pthread_cond_broadcast(&ss->frames);
		if (ss->stop)
			break;
		if (next == UINT64_MAX) {
			pthread_cond_wait(&ss->wake, &ss->lock);
		} else {
			/* the lock is let go between passes even when behind, for at least 10 ms:
			 * the requests and top streams that wait for it are never starved by a
			 * collector whose samples take longer than their interval */
			uint64_t floor = vp_now_ns() + 10000000ull;
			struct timespec ts;

			if (next < floor)
				next = floor;
			ts.tv_sec = (time_t)(next / 1000000000ull);
			ts.tv_nsec = (long)(next % 1000000000ull);
			pthread_cond_timedwait(&ss->wake, &ss->lock, &ts);
		}
	}
	pthread_mutex_unlock(&ss->lock);
	return NULL;
}

/* End the streams and sessions of users that are not in us (or whose token changed); under the lock. */
static void revoke_users(struct vpd *d, const struct users *us)
{
	struct vpd_sessions *ss = d->sessions;
	struct stream *st;
	size_t i;

	for (st = ss->streams; st; st = st->next) {
		const struct user *u = users_find(us, st->user);

		if (!st->revoked && (!u || memcmp(u->hash, st->user_hash, USER_HASH_LEN))) {
			st->revoked = true;
			vpd_audit(d, st->user, "stream.revoke", st->s ? st->s->id : NULL,
				  "the user was removed or given a new token");
		}
	}
	for (i = 0; i < ss->n; i++) {
		struct session *s = ss->v[i];
		const struct user *u = users_find(us, s->owner);

		if (s->running && (!u || u->role < ROLE_OPERATOR)) {
			vpd_audit(d, s->owner, "session.revoke", s->id, "%s, %llu frames",
				  u ? "its owner may no longer run sessions" : "its owner was removed",
				  (unsigned long long)s->seq);
			session_end(d, s, u ? "its owner may no longer run sessions" :
					      "its owner was removed from the users file");
		}
	}
	pthread_cond_broadcast(&ss->frames);
}

void vpd_sessions_tick(struct vpd *d)
{
	struct vpd_sessions *ss = d->sessions;
	uint64_t keep = (uint64_t)d->conf.session_keep_s * 1000000000ull, now;
	size_t i = 0;

	struct users us;
	unsigned gen = 0;
	bool revoke;

	if (!ss)
		return;
	revoke = __atomic_load_n(&d->users_gen, __ATOMIC_SEQ_CST) != ss->users_gen;
	users_init(&us);
	if (revoke)
		vpd_users_snapshot(d, &us, &gen);
	/* never wait here: the watchdog's other work (deadlines) must go on */
	if (pthread_mutex_trylock(&ss->lock)) {
		users_release(&us);
		return;
	}
	/* a file that cannot be read refuses every request, but does not stop what runs:
	 * only a file read without some user ends that user's streams and sessions */
	if (revoke && !d->users_error[0])
		revoke_users(d, &us);
	if (revoke)
		ss->users_gen = gen;
	users_release(&us);
	now = vp_now_ns();              /* after revocation: the sessions it ended are not older */
	while (i < ss->n) {
		struct session *s = ss->v[i];

		if (s->running || s->ended_ns > now || now - s->ended_ns < keep) {
			i++;
			continue;
		}
		vpd_audit(d, s->owner, "session.forget", s->id, "ended %d s ago, %llu frames",
			  d->conf.session_keep_s, (unsigned long long)s->seq);
		s->listed = false;
		memmove(&ss->v[i], &ss->v[i + 1], (ss->n - i - 1) * sizeof(*ss->v));
		ss->n--;
		pthread_cond_broadcast(&ss->frames);
		session_unref(s);
	}
	pthread_mutex_unlock(&ss->lock);
}

int vpd_sessions_start(struct vpd *d)
{
	struct vpd_sessions *ss = xcalloc(1, sizeof(*ss));
	struct pipe_opts o;
	struct hub_opts ho;
	struct vp_err err = { 0, "" };
	pthread_condattr_t ca;

	d->sessions = ss;
	pthread_mutex_init(&ss->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ss->wake, &ca);
	pthread_cond_init(&ss->frames, &ca);
	pthread_condattr_destroy(&ca);
	ss->start_time = (double)vp_wall_ns() / 1e9;
	ss->scrape_s = NAN;

	memset(&o, 0, sizeof(o));
	o.root = d->conf.root;
	o.cal_path = d->conf.calibration;
	o.model_paths = d->model_path;
	o.n_model_paths = d->n_model_path;
	o.dirs = d->dirs;
	if (pipeline_open(&ss->pl, &o, &err)) {
		fprintf(stderr, "vmmprofd: error: %s\n", err.msg);
		pipeline_close(&ss->pl);
		return -1;
	}
	ss->have_pl = true;
	memset(&ho, 0, sizeof(ho));
	ho.root = d->conf.root;
	ho.plat = &ss->pl.plat;
	ho.cal = ss->pl.have_cal ? &ss->pl.cal : NULL;
	/* Xen page dumps are opt-in (xen_numa_dump, as the CLI's --xen-numa-dump) */
	if (d->conf.xen_numa_dump) {
		ss->xen_numa_state.every_ns = (uint64_t)(d->conf.xen_numa_every_s * 1e9);
		ss->xen_numa = &ss->xen_numa_state;
		fprintf(stderr, "vmmprofd: Xen's memory per node: 'xl debug-keys u' at most every "
				"%g s\n", d->conf.xen_numa_every_s);
	}
	ho.xen_numa = ss->xen_numa;
	if (d->conf.xentrace) {
		struct vp_err terr = { 0, "" };

		/* a start that fails leaves residency sampled; the notes say why */
		if (hv_xen_tracer_start(&ss->xen_tracer, d->conf.root, &terr))
			fprintf(stderr, "vmmprofd: warning: xentrace: %s (Xen residency sampled)\n",
				terr.msg);
		else
			fprintf(stderr, "vmmprofd: Xen residency from a running xentrace\n");
		ho.xen_tracer = ss->xen_tracer;
	}
	if (d->conf.xen_psr) {
		ss->xen_psr = hv_xen_psr_new();
		ho.xen_psr = ss->xen_psr;
		fprintf(stderr, "vmmprofd: Xen PSR per domain (xl psr-cmt-*): domains attached "
				"for the daemon's life\n");
	}
	if (d->conf.xen_imc)
		fprintf(stderr, "vmmprofd: Xen IMC counters from PCI config space (xen_imc): the "
				"channels programmed once for every session, cleared after the last\n");
	if (hub_new(&ss->hub, &ho, &err)) {
		snprintf(ss->hub_error, sizeof(ss->hub_error), "no collector here: %s", err.msg);
		fprintf(stderr, "vmmprofd: warning: %s (sessions are refused)\n", ss->hub_error);
		ss->hub = NULL;
	}
	if (pthread_create(&ss->thread, NULL, collector, d)) {
		fprintf(stderr, "vmmprofd: error: cannot start the collector thread\n");
		return -1;
	}
	ss->have_thread = true;
	fprintf(stderr, "vmmprofd: default model '%s' (%s); %s\n", ss->pl.model->name, ss->pl.why,
		sbuf_str(&ss->pl.cal_note));
	return 0;
}

void vpd_sessions_shutdown(struct vpd *d)
{
	struct vpd_sessions *ss = d->sessions;
	size_t i;

	if (!ss)
		return;
	pthread_mutex_lock(&ss->lock);
	ss->stop = true;
	for (i = 0; i < ss->n; i++) {
		if (ss->v[i]->running) {
			session_end(d, ss->v[i], "the daemon stopped");
			vpd_audit(d, ss->v[i]->owner, "session.stop", ss->v[i]->id,
				  "daemon stopping, %llu frames%s%s", (unsigned long long)ss->v[i]->seq,
				  ss->v[i]->rec_name ? ", recording " : "",
				  ss->v[i]->rec_name ? ss->v[i]->rec_name : "");
		}
	}
	pthread_cond_broadcast(&ss->wake);
	pthread_cond_broadcast(&ss->frames);
	pthread_mutex_unlock(&ss->lock);
	if (ss->have_thread)
		pthread_join(ss->thread, NULL);
	ss->have_thread = false;
}

void vpd_sessions_free(struct vpd *d)
{
	struct vpd_sessions *ss = d->sessions;
	size_t i;

	if (!ss)
		return;
	vpd_sessions_shutdown(d);
	for (i = 0; i < ss->n; i++)
		session_unref(ss->v[i]);
	free(ss->v);
	hub_free(ss->hub);
	hv_xen_tracer_stop(ss->xen_tracer);
	{
		struct hv_ctx ctx = { d->conf.root, NULL, NULL, NULL };

		hv_xen_psr_stop(ss->xen_psr, &ctx); /* detaches what it attached */
	}
	cpustat_release(&ss->cs_prev);
	if (ss->have_pl)
		pipeline_close(&ss->pl);
	pthread_cond_destroy(&ss->wake);
	pthread_cond_destroy(&ss->frames);
	pthread_mutex_destroy(&ss->lock);
	free(ss);
	d->sessions = NULL;
}

/* ---- endpoints ---- */

enum MHD_Result vpd_collector(struct vpd_req *r)
{
	struct vpd_sessions *ss = r->d->sessions;
	struct hub_event *ev = NULL;
	struct sbuf sb = SBUF_INIT;
	struct jw w;
	size_t n = 0, i, j, k;

	pthread_mutex_lock(&ss->lock);
	if (!ss->hub) {
		pthread_mutex_unlock(&ss->lock);
		return vpd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "%s", ss->hub_error);
	}
	hub_events(ss->hub, &ev, &n);
	jw_init(&w, &sb, false);
	jw_obj_begin(&w);
	jw_key(&w, "events");
	jw_arr_begin(&w);
	for (i = 0; i < n; i++) {
		jw_obj_begin(&w);
		jw_kstr(&w, "name", ev[i].name);
		jw_kstr(&w, "encoding", ev[i].encoding);
		jw_key(&w, "sessions");
		jw_arr_begin(&w);
		for (j = 0; j < ev[i].n_views; j++)
			for (k = 0; k < ss->n; k++)
				if (ss->v[k]->running && ss->v[k]->view == ev[i].views[j])
					jw_str(&w, ss->v[k]->id);
		jw_arr_end(&w);
		jw_kdouble(&w, "enabled_s", ev[i].enabled_s);
		jw_kdouble(&w, "running_s", ev[i].running_s);
		jw_kdouble(&w, "running_pct", ev[i].enabled_s > 0 ?
			   100.0 * ev[i].running_s / ev[i].enabled_s : NAN);
		jw_kbool(&w, "open", ev[i].open);
		jw_kstr(&w, "why", ev[i].why);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_kuint(&w, "targets", hub_n_targets(ss->hub));
	jw_obj_end(&w);
	sbuf_addch(&sb, '\n');
	hub_events_release(ev, n);
	pthread_mutex_unlock(&ss->lock);
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}

enum MHD_Result vpd_session_list(struct vpd_req *r)
{
	struct vpd_sessions *ss = r->d->sessions;
	struct sbuf sb = SBUF_INIT;
	struct jw w;
	size_t i;

	jw_init(&w, &sb, false);
	jw_obj_begin(&w);
	jw_key(&w, "sessions");
	jw_arr_begin(&w);
	pthread_mutex_lock(&ss->lock);
	for (i = 0; i < ss->n; i++)
		if (may_read(r, ss->v[i]))
			session_json(&w, ss, ss->v[i]);
	pthread_mutex_unlock(&ss->lock);
	jw_arr_end(&w);
	jw_obj_end(&w);
	sbuf_addch(&sb, '\n');
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}

/* What a POST asks for, checked field by field. */
struct create_req {
	const char *model;
	const char **vms;
	size_t n_vms;
	int *pids;
	size_t n_pids;
	int interval_ms;
	bool record;
	bool resctrl;
	bool wait;                 /* a VM named that is not there yet is accepted */
	const char *recording;     /* replay this recording instead of counting */
	const char *other;         /* a field a replay does not take (the first given) */
};

static int parse_create(const struct jv *v, struct create_req *c, int max_targets,
			struct vp_err *err)
{
	size_t i, j, m;

	memset(c, 0, sizeof(*c));
	c->interval_ms = INTERVAL_DEFAULT_MS;
	if (v->type != JV_OBJ)
		return vp_err_set(err, VP_EINVAL, "body:%d:%d: expected an object, not %s", v->line,
				  v->col, jv_type_name(v->type));
	for (i = 0; i < v->n; i++) {
		const char *k = v->keys[i];
		const struct jv *x = &v->items[i];

		if (strcmp(k, "recording") && !c->other)
			c->other = k;
		if (!strcmp(k, "recording")) {
			if (x->type != JV_STR)
				goto type;
			c->recording = x->str;
		} else if (!strcmp(k, "model")) {
			if (x->type == JV_NULL)
				continue;
			if (x->type != JV_STR)
				goto type;
			c->model = x->str;
		} else if (!strcmp(k, "vms")) {
			if (x->type != JV_ARR)
				goto type;
			c->vms = xcalloc(x->n + 1, sizeof(char *));
			for (j = 0; j < x->n; j++) {
				if (x->items[j].type != JV_STR || !x->items[j].str[0])
					return vp_err_set(err, VP_EINVAL, "body:%d:%d: \"vms\" holds VM "
							  "names (strings)", x->items[j].line,
							  x->items[j].col);
				/* named twice: counted once (each name is a scan per interval) */
				for (m = 0; m < c->n_vms && strcmp(c->vms[m], x->items[j].str); m++)
					;
				if (m == c->n_vms)
					c->vms[c->n_vms++] = x->items[j].str;
				if (c->n_vms > (size_t)max_targets)
					goto too_many;
			}
		} else if (!strcmp(k, "pids")) {
			if (x->type != JV_ARR)
				goto type;
			c->pids = xcalloc(x->n + 1, sizeof(int));
			for (j = 0; j < x->n; j++) {
				double p = x->items[j].num;

				if (x->items[j].type != JV_NUM || p != floor(p) || p < 1 || p > 4194304)
					return vp_err_set(err, VP_EINVAL, "body:%d:%d: \"pids\" holds "
							  "process ids (positive integers)",
							  x->items[j].line, x->items[j].col);
				for (m = 0; m < c->n_pids && c->pids[m] != (int)p; m++)
					;
				if (m == c->n_pids)
					c->pids[c->n_pids++] = (int)p;
				if (c->n_pids > (size_t)max_targets)
					goto too_many;
			}
		} else if (!strcmp(k, "interval_ms")) {
			if (x->type != JV_NUM)
				goto type;
			if (x->num != floor(x->num) || x->num < INTERVAL_MIN_MS ||
			    x->num > INTERVAL_MAX_MS)
				return vp_err_set(err, VP_EINVAL, "body:%d:%d: \"interval_ms\" must be an "
						  "integer from %d to %d", x->line, x->col,
						  INTERVAL_MIN_MS, INTERVAL_MAX_MS);
			c->interval_ms = (int)x->num;
		} else if (!strcmp(k, "record")) {
			if (x->type != JV_BOOL)
				goto type;
			c->record = x->b;
		} else if (!strcmp(k, "resctrl")) {
			if (x->type != JV_BOOL)
				goto type;
			c->resctrl = x->b;
		} else if (!strcmp(k, "wait")) {
			if (x->type != JV_BOOL)
				goto type;
			c->wait = x->b;
		} else {
			return vp_err_set(err, VP_EINVAL, "body:%d:%d: unknown field '%s' (model, vms, "
					  "pids, interval_ms, record, resctrl, wait, recording)", x->line, x->col, k);
		}
		continue;
type:
		return vp_err_set(err, VP_EINVAL, "body:%d:%d: \"%s\" cannot be %s", x->line, x->col, k,
				  jv_type_name(x->type));
	}
	if (c->n_vms && c->n_pids)
		return vp_err_set(err, VP_EINVAL, "a session counts VMs or processes, not both "
				  "(\"vms\" and \"pids\")");
	if (c->recording && c->other)
		return vp_err_set(err, VP_EINVAL, "a replayed session takes its model, targets and "
				  "interval from the recording: \"%s\" does not go with \"recording\"",
				  c->other);
	return 0;
too_many:
	return vp_err_set(err, VP_EINVAL, "a session names at most %d %s (max_targets; each "
			  "counted once)", max_targets, c->n_vms ? "VMs" : "processes");
}

/* Distinct event specs over the owner's running sessions, plus model m's. */
static size_t events_of_user(const struct vpd_sessions *ss, const char *owner, const struct model *m)
{
	const char **specs = NULL;
	size_t n = 0, cap = 0, i, j, k;

	for (i = 0; i <= ss->n; i++) {
		const struct model *mm = i < ss->n ? ss->v[i]->model : m;

		if (i < ss->n && (!ss->v[i]->running || strcmp(ss->v[i]->owner, owner)))
			continue;
		for (j = 0; j < mm->n_inputs; j++) {
			if (mm->inputs[j].kind != INPUT_EVENT)
				continue;
			for (k = 0; k < n && strcmp(specs[k], mm->inputs[j].spec); k++)
				;
			if (k == n) {
				VP_GROW(specs, cap, n + 1);
				specs[n++] = mm->inputs[j].spec;
			}
		}
	}
	free(specs);
	return n;
}

static unsigned create_status(int code)
{
	switch (code) {
	case VP_ENOTFOUND:
	case VP_EINVAL:
	case VP_EUNSUPP:
	case VP_EPARSE:
	case -ESRCH:
	case -ENOENT:
		return MHD_HTTP_BAD_REQUEST;
	case -EACCES:
	case -EPERM:
		return MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	return MHD_HTTP_INTERNAL_SERVER_ERROR;
}

/* Open the session's recording: OWNER+YYYYMMDD-HHMMSS-ID.vmmdb in --recordings-dir. */
static int open_recording(struct vpd *d, struct session *s, struct vp_err *err)
{
	struct vpd_sessions *ss = d->sessions;
	struct rec_header h;
	const char **reasons = xcalloc(s->model->n_inputs + 1, sizeof(char *));
	char stamp[32], cmd[160];
	time_t now = time(NULL);
	struct tm tm;
	char *path;
	size_t i;
	int ret;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	s->rec_name = xasprintf("%s+%s-%s.vmmdb", s->owner, stamp, s->id);
	path = xasprintf("%s/%s", d->conf.recordings_dir, s->rec_name);
	for (i = 0; i < s->model->n_inputs; i++)
		reasons[i] = hub_view_input_reason(ss->hub, s->view, i);
	snprintf(cmd, sizeof(cmd), "vmmprofd session %s of %s", s->id, s->owner);
	memset(&h, 0, sizeof(h));
	h.plat = &ss->pl.plat;
	h.model = s->model;
	h.input_reason = reasons;
	h.cal = ss->pl.have_cal ? &ss->pl.cal : NULL;
	h.interval_s = s->interval_ms / 1000.0;
	h.command = cmd;
	ret = rec_create(&s->rec, path, &h, err);
	if (ret) {
		s->rec = NULL;
		free(s->rec_name);
		s->rec_name = NULL;
	}
	free(path);
	free(reasons);
	return ret;
}

/* Unix time of a recording's ISO 8601 "created" (UTC), NaN when it cannot be read. */
static double created_time(const char *iso)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if (!iso || !(end = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm)) || (*end && *end != 'Z'))
		return NAN;
	return (double)timegm(&tm);
}

/* The owner's sessions and the daemon's against their limits; under the lock.  0 or a reply. */
static int over_limits(struct vpd_req *r, enum MHD_Result *ret)
{
	struct vpd *d = r->d;
	struct vpd_sessions *ss = d->sessions;
	size_t i, n_mine = 0;

	/* ended sessions count too: they keep their frames until deleted or forgotten */
	for (i = 0; i < ss->n; i++)
		n_mine += !strcmp(ss->v[i]->owner, r->user.name);
	if (r->user.lim.max_sessions && n_mine >= (size_t)r->user.lim.max_sessions) {
		vpd_audit(d, r->user.name, "session.start", NULL, "429 %zu sessions", n_mine);
		*ret = vpd_reply_error(r, MHD_HTTP_TOO_MANY_REQUESTS, "user '%s' already has %zu "
				       "session%s (running or ended), the limit; ended sessions are "
				       "forgotten %d s after they end, or when deleted", r->user.name,
				       n_mine, n_mine == 1 ? "" : "s", d->conf.session_keep_s);
		return 1;
	}
	if (ss->n >= (size_t)d->conf.max_sessions) {
		vpd_audit(d, r->user.name, "session.start", NULL, "429 %zu sessions in all", ss->n);
		*ret = vpd_reply_error(r, MHD_HTTP_TOO_MANY_REQUESTS, "the daemon already has %zu "
				       "sessions (running or ended), its limit (max_sessions)", ss->n);
		return 1;
	}
	return 0;
}

/*
 * POST {"recording": NAME}: a session whose frames are a recording's (in
 * --recordings-dir, the user's own or any for an admin), read once, with
 * the recorded model: its history, stream, /metrics series and diagnosis
 * come from the file, evaluated by the same code as report and diagnose.
 * It needs no collector, and it is ended from the start (nothing more will
 * come); it is forgotten as ended sessions are.
 */
static enum MHD_Result replay_create(struct vpd_req *r, const char *name)
{
	struct vpd *d = r->d;
	struct vpd_sessions *ss = d->sessions;
	struct recording rec;
	struct model *m = NULL;
	struct model_avail av;
	struct collect_frame fr, total;
	struct rec_total *acc;
	struct cost_ci_set ci = { 0 };
	struct session *s = NULL;
	struct vp_err err = { 0, "" }, ferr = { 0, "" };
	struct diags dg;
	struct sbuf sb = SBUF_INIT;
	struct stat st;
	enum MHD_Result ret;
	double t0, at;
	char *path = NULL;
	int more;

	memset(&rec, 0, sizeof(rec));
	if (!d->conf.recordings_dir)
		return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "this daemon has no recordings: it "
				       "was started without --recordings-dir");
	if (!srv_name_ok(name))
		return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "invalid recording name '%s'", name);
	path = xasprintf("%s/%s", d->conf.recordings_dir, name);
	/* a FIFO or a device would hang the open; a link could lead out of the directory */
	if (!vpd_rec_visible(r, name) || lstat(path, &st)) {
		ret = vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no recording '%s'", name);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "recording '%s' is not a regular file",
				      name);
		goto out;
	}
	if (rec_open(path, &rec, &err)) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s", err.msg);
		goto out;
	}
	pthread_mutex_lock(&ss->lock);
	if (ss->stop) {
		ret = vpd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "the daemon is stopping");
		pthread_mutex_unlock(&ss->lock);
		goto out;
	}
	if (over_limits(r, &ret)) {
		pthread_mutex_unlock(&ss->lock);
		goto out;
	}
	if (!rec.model_name || !model_registry_find(&ss->pl.reg, rec.model_name)) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "recording '%s' was made with model "
				      "'%s', which this daemon does not have (GET /api/v1/models "
				      "lists them; --model-path adds a directory)", name,
				      rec.model_name ? rec.model_name : "?");
		pthread_mutex_unlock(&ss->lock);
		goto out;
	}
	diags_init(&dg);
	if (model_registry_open(&ss->pl.reg, rec.model_name, &m, &dg, &err)) {
		diags_release(&dg);
		ret = vpd_reply_err(r, &err);
		pthread_mutex_unlock(&ss->lock);
		goto out;
	}
	diags_release(&dg);
	s = xcalloc(1, sizeof(*s));
	s->refs = 1;
	snprintf(s->id, sizeof(s->id), "s%u", ++ss->next_id);
	pthread_mutex_unlock(&ss->lock);

	/* the frames, outside the lock: a long recording takes a while */
	if (rec_bind_model(&rec, m, &av, &err)) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s", err.msg);
		goto out;
	}
	snprintf(s->owner, sizeof(s->owner), "%s", r->user.name);
	s->model = m;
	s->vms = xcalloc(1, sizeof(char *));
	s->pids = xcalloc(1, sizeof(int));
	s->interval_ms = (int)(rec.interval_s * 1000 + 0.5);
	s->replay = xstrdup(name);
	t0 = created_time(rec.created);
	at = t0;
	acc = rec_total_new(&rec, m);
	while ((more = rec_next_frame(&rec, &fr, &ferr)) > 0) {
		struct frame_meta meta;
		struct jw w;
		size_t i, n;

		s->seq++;
		at += fr.duration;
		meta.session = s->id;
		meta.seq = s->seq;
		meta.time = at;
		meta.av = &av;
		jw_init(&w, &sb, false);
		frame_json_write(&w, &meta, m, &fr);
		n = sb.len;
		history_push(s, sbuf_detach(&sb), n, HISTORY_BYTES(r->d));
		rec_total_add(acc, &fr);
		cost_ci_add(&ci, &fr);
		s->targets = 0;
		for (i = 0; i < fr.n_rows; i++)
			s->targets += fr.rows[i].kind == ENT_VCPU || fr.rows[i].kind == ENT_THREAD;
		if (s->have_last)
			collect_frame_release(&s->last);
		s->last = fr;
		s->have_last = true;
	}
	rec_total_finish(acc, &total);
	/* the diagnosis as `diagnose --json FILE` gives it (a damaged file: what was read) */
	if (rec.n_read && diagnosis_recorded(&rec, m, &av, &total, rec.n_read, &ci, true, more < 0,
					     &sb, &err) == 0)
		s->replay_diag = sbuf_detach(&sb);
	collect_frame_release(&total);
	cost_ci_release(&ci);
	model_avail_release(m, &av);
	s->started = isfinite(t0) ? t0 : (double)vp_wall_ns() / 1e9;
	s->ended_why = more < 0 ? xasprintf("replayed recording '%s' up to its damage: %s", name,
					    ferr.msg) :
		       xasprintf("replayed recording '%s': %llu intervals", name,
				 (unsigned long long)s->seq);
	if (!s->replay_diag && rec.n_read)
		fprintf(stderr, "vmmprofd: warning: session %s: no diagnosis of recording '%s': %s\n",
			s->id, name, err.msg);

	pthread_mutex_lock(&ss->lock);
	if (ss->stop || over_limits(r, &ret)) {
		if (ss->stop)
			ret = vpd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "the daemon is stopping");
		pthread_mutex_unlock(&ss->lock);
		goto out;
	}
	s->listed = true;
	s->ended_ns = vp_now_ns();
	VP_GROW(ss->v, ss->cap, ss->n + 1);
	ss->v[ss->n++] = s;
	pthread_cond_broadcast(&ss->frames);
	vpd_audit(d, r->user.name, "session.replay", s->id, "201 recording %s, model %s, %llu "
		  "frames", name, s->model->name, (unsigned long long)s->seq);
	ret = reply_session(r, MHD_HTTP_CREATED, s);
	s = NULL;
	pthread_mutex_unlock(&ss->lock);
out:
	if (s) {
		/* refused after the model was opened: the session takes it, and frees it */
		s->model = m;
		session_unref(s);
	}
	rec_release(&rec);
	sbuf_release(&sb);
	free(path);
	return ret;
}

enum MHD_Result vpd_session_create(struct vpd_req *r)
{
	struct vpd *d = r->d;
	struct vpd_sessions *ss = d->sessions;
	struct create_req c;
	struct jv v;
	struct vp_err err = { 0, "" };
	struct session *s = NULL;
	struct hub_view_opts vo;
	struct model *m = NULL;
	struct diags dg;
	const char *model_name;
	enum MHD_Result ret;
	size_t i;

	if (jv_parse(&v, r->body.buf ? r->body.buf : "", r->body.len, "body", &err))
		return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s", err.msg);
	if (parse_create(&v, &c, d->conf.max_targets, &err)) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s", err.msg);
		goto out_json;
	}
	if (c.recording) {
		ret = replay_create(r, c.recording);
		goto out_json;
	}
	if (r->user.lim.min_interval_ms && c.interval_ms < r->user.lim.min_interval_ms) {
		vpd_audit(d, r->user.name, "session.start", NULL, "429 interval %d ms", c.interval_ms);
		ret = vpd_reply_error(r, MHD_HTTP_TOO_MANY_REQUESTS, "interval %d ms is below user "
				      "'%s''s floor of %d ms", c.interval_ms, r->user.name,
				      r->user.lim.min_interval_ms);
		goto out_json;
	}
	if (c.record && !d->conf.recordings_dir) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "this daemon records nothing: it was "
				      "started without --recordings-dir");
		goto out_json;
	}
	if (c.model && !srv_name_ok(c.model)) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "invalid model name '%s'", c.model);
		goto out_json;
	}

	pthread_mutex_lock(&ss->lock);
	if (!ss->hub || ss->stop) {
		ret = vpd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "%s",
				      ss->hub ? "the daemon is stopping" : ss->hub_error);
		goto out_unlock;
	}
	if (over_limits(r, &ret))
		goto out_unlock;
	model_name = c.model ? c.model : ss->pl.model->name;
	if (!model_registry_find(&ss->pl.reg, model_name)) {
		ret = vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "no model '%s' (GET /api/v1/models "
				      "lists them)", model_name);
		goto out_unlock;
	}
	diags_init(&dg);
	if (model_registry_open(&ss->pl.reg, model_name, &m, &dg, &err)) {
		diags_release(&dg);
		ret = vpd_reply_err(r, &err);
		goto out_unlock;
	}
	diags_release(&dg);
	if (r->user.lim.max_events) {
		size_t ne = events_of_user(ss, r->user.name, m);

		if (ne > (size_t)r->user.lim.max_events) {
			vpd_audit(d, r->user.name, "session.start", NULL, "429 %zu events", ne);
			ret = vpd_reply_error(r, MHD_HTTP_TOO_MANY_REQUESTS, "user '%s''s sessions "
					      "would count %zu distinct events, over the limit of %d",
					      r->user.name, ne, r->user.lim.max_events);
			goto out_unlock;
		}
	}
	s = xcalloc(1, sizeof(*s));
	s->refs = 1;
	s->ci.max_s = COST_CI_MAX;
	s->ci.skip_vcpus = true;     /* docs/api.md: VMs and nodes */
	snprintf(s->id, sizeof(s->id), "s%u", ++ss->next_id);
	snprintf(s->owner, sizeof(s->owner), "%s", r->user.name);
	s->model = m;
	m = NULL;
	s->vms = xcalloc(c.n_vms + 1, sizeof(char *));
	for (i = 0; i < c.n_vms; i++)
		s->vms[i] = xstrdup(c.vms[i]);
	s->n_vms = c.n_vms;
	s->pids = xcalloc(c.n_pids + 1, sizeof(int));
	if (c.n_pids) /* c.pids is NULL without "pids": memcpy must not see it */
		memcpy(s->pids, c.pids, c.n_pids * sizeof(int));
	s->n_pids = c.n_pids;
	s->interval_ms = c.interval_ms;
	s->resctrl = c.resctrl;
	s->started = (double)vp_wall_ns() / 1e9;

	memset(&vo, 0, sizeof(vo));
	vo.model = s->model;
	vo.vm_names = (const char *const *)s->vms;
	vo.n_vm_names = s->n_vms;
	vo.pids = s->pids;
	vo.n_pids = s->n_pids;
	/* a pid or VM that is not there: 400, not a session that ends at once or counts nothing
	 * ("wait": true accepts a VM that is still to come) */
	vo.strict = s->n_pids > 0 || (s->n_vms > 0 && !c.wait);
	vo.resctrl = s->resctrl;
	vo.xen_imc = d->conf.xen_imc; /* the hub's one set of IMC channels, for every session */
	if (hub_view_add(ss->hub, &vo, &s->view, &err)) {
		vpd_audit(d, r->user.name, "session.start", NULL, "%u %s",
			  create_status(err.code), err.msg);
		ret = vpd_reply_error(r, create_status(err.code), "%s", err.msg);
		goto out_unlock;
	}
	s->running = true;
	s->targets = hub_view_n_targets(ss->hub, s->view);
	if (s->resctrl) {
		/* groups are made when the view is added: a refusal is said now, not only in
		 * the frames' notes (a daemon running as a user other than root cannot) */
		struct sbuf why = SBUF_INIT;

		hub_view_resctrl_why(ss->hub, s->view, &why);
		if (why.len && geteuid())
			sbuf_addf(&why, " (vmmprofd runs as uid %d, not root)", (int)geteuid());
		if (why.len) {
			s->resctrl_why = sbuf_detach(&why);
			fprintf(stderr, "vmmprofd: warning: session %s: resctrl: %s\n", s->id,
				s->resctrl_why);
		}
		sbuf_release(&why);
	}
	if (c.record && open_recording(d, s, &err)) {
		hub_view_remove(ss->hub, s->view);
		s->running = false;
		ret = vpd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err.msg);
		goto out_unlock;
	}
	s->listed = true;
	s->next_ns = vp_now_ns() + (uint64_t)s->interval_ms * 1000000ull;
	VP_GROW(ss->v, ss->cap, ss->n + 1);
	ss->v[ss->n++] = s;
	pthread_cond_broadcast(&ss->wake);
	vpd_audit(d, r->user.name, "session.start", s->id, "201 model %s, %zu target%s, %d ms%s%s%s",
		  s->model->name, s->targets, s->targets == 1 ? "" : "s", s->interval_ms,
		  s->rec_name ? ", recording " : "", s->rec_name ? s->rec_name : "",
		  s->resctrl_why ? ", resctrl not measuring" : "");
	ret = reply_session(r, MHD_HTTP_CREATED, s);
	s = NULL;
out_unlock:
	pthread_mutex_unlock(&ss->lock);
	if (s)
		session_unref(s);
	model_free(m);
out_json:
	free(c.vms);
	free(c.pids);
	jv_release(&v);
	return ret;
}

int vpd_recording_snapshot(struct vpd *d, const char *name, int *fd, struct vp_err *err)
{
	struct vpd_sessions *ss = d->sessions;
	char *tmp;
	int ret = 0, tfd;
	size_t i;

	*fd = -1;
	if (!ss)
		return 0;
	tmp = xasprintf("%s/.vmmprofd-download-XXXXXX", d->conf.recordings_dir);
	pthread_mutex_lock(&ss->lock);
	for (i = 0; i < ss->n; i++) {
		struct session *s = ss->v[i];

		if (!s->rec || !s->rec_name || strcmp(s->rec_name, name))
			continue;
		tfd = mkostemp(tmp, O_CLOEXEC);
		if (tfd < 0) {
			ret = vp_err_errno(err, errno, "cannot create '%s'", tmp);
			break;
		}
		close(tfd);
		/* under the lock: the collector does not append meanwhile */
		ret = rec_snapshot(s->rec, tmp, err);
		if (!ret) {
			*fd = open(tmp, O_RDONLY | O_CLOEXEC);
			if (*fd < 0)
				ret = vp_err_errno(err, errno, "cannot open '%s'", tmp);
			else
				ret = 1;
		}
		unlink(tmp);
		break;
	}
	pthread_mutex_unlock(&ss->lock);
	free(tmp);
	return ret;
}

/* The session id names, if the user may read it; under the lock.  NULL: reply 404. */
static struct session *lookup(struct vpd_req *r, const char *id)
{
	struct session *s = find(r->d->sessions, id);

	return s && may_read(r, s) ? s : NULL;
}

enum MHD_Result vpd_session_get(struct vpd_req *r, const char *id)
{
	struct vpd_sessions *ss = r->d->sessions;
	struct session *s;
	enum MHD_Result ret;

	pthread_mutex_lock(&ss->lock);
	s = lookup(r, id);
	ret = s ? reply_session(r, MHD_HTTP_OK, s) :
		  vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no session '%s'", id);
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

enum MHD_Result vpd_session_delete(struct vpd_req *r, const char *id)
{
	struct vpd *d = r->d;
	struct vpd_sessions *ss = d->sessions;
	struct session *s;
	struct sbuf sb = SBUF_INIT;
	struct jw w;
	size_t i;

	pthread_mutex_lock(&ss->lock);
	s = find(ss, id);
	if (!s || !may_stop(r, s)) {
		pthread_mutex_unlock(&ss->lock);
		vpd_audit(d, r->user.name, "session.stop", id, "404");
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no session '%s'", id);
	}
	session_end(d, s, NULL);
	s->listed = false;
	for (i = 0; i < ss->n && ss->v[i] != s; i++)
		;
	memmove(&ss->v[i], &ss->v[i + 1], (ss->n - i - 1) * sizeof(*ss->v));
	ss->n--;
	jw_init(&w, &sb, false);
	jw_obj_begin(&w);
	jw_kstr(&w, "id", s->id);
	jw_kstr(&w, "state", "stopped");
	jw_kuint(&w, "frames", s->seq);
	jw_kstr(&w, "recording", s->rec_name);
	if (s->rec_name)
		jw_kuint(&w, "recorded", s->rec_frames);
	jw_kstr(&w, "recording_error", s->rec_error);
	jw_obj_end(&w);
	sbuf_addch(&sb, '\n');
	vpd_audit(d, r->user.name, "session.stop", s->id, "200 owner %s, %llu frames%s%s", s->owner,
		  (unsigned long long)s->seq, s->rec_name ? ", recording " : "",
		  s->rec_name ? s->rec_name : "");
	pthread_cond_broadcast(&ss->wake);
	session_unref(s);
	pthread_mutex_unlock(&ss->lock);
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}

enum MHD_Result vpd_session_history(struct vpd_req *r, const char *id)
{
	struct vpd_sessions *ss = r->d->sessions;
	const char *since_s = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "since");
	unsigned long long since = 0;
	struct session *s;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	if (since_s) {
		char *end;

		errno = 0;
		since = strtoull(since_s, &end, 10);
		if (!*since_s || *end || errno || since_s[0] == '-')
			return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "'since' must be a frame "
					       "sequence number, not '%s'", since_s);
	}
	pthread_mutex_lock(&ss->lock);
	s = lookup(r, id);
	if (!s) {
		pthread_mutex_unlock(&ss->lock);
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no session '%s'", id);
	}
	sbuf_addstr(&sb, "{\"frames\":[");
	for (i = 0; i < s->hist_n; i++) {
		size_t slot = (s->hist_head + i) % HISTORY_MAX;

		if (s->hist_seq[slot] <= since)
			continue;
		if (sb.buf[sb.len - 1] != '[')
			sbuf_addch(&sb, ',');
		sbuf_add(&sb, s->hist[slot], s->hist_len[slot]);
	}
	sbuf_addstr(&sb, "]}\n");
	pthread_mutex_unlock(&ss->lock);
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}

enum MHD_Result vpd_session_diagnosis(struct vpd_req *r, const char *id)
{
	struct vpd_sessions *ss = r->d->sessions;
	struct session *s;
	struct collect_frame fr;
	struct diag_input din;
	struct diag_result res;
	struct dview dv;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	const char **reasons = NULL;
	const char *hard;
	enum MHD_Result ret;
	size_t i;

	pthread_mutex_lock(&ss->lock);
	s = lookup(r, id);
	if (!s) {
		ret = vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no session '%s'", id);
		goto out;
	}
	if (s->replay) {
		/* a replayed recording: diagnose --json of the file, made when it was read */
		if (s->replay_diag) {
			sbuf_addstr(&sb, s->replay_diag);
			ret = vpd_reply_json(r, MHD_HTTP_OK, &sb);
		} else {
			ret = vpd_reply_error(r, MHD_HTTP_CONFLICT, "session '%s' (%s): no diagnosis",
					      id, s->ended_why ? s->ended_why : "replayed");
		}
		goto out;
	}
	if (!s->running) {
		ret = vpd_reply_error(r, MHD_HTTP_CONFLICT, "session '%s' ended (%s): no diagnosis",
				      id, s->ended_why ? s->ended_why : "stopped");
		goto out;
	}
	memset(&fr, 0, sizeof(fr));
	if (hub_total(ss->hub, s->view, &fr, &err)) {
		collect_frame_release(&fr);
		ret = vpd_reply_err(r, &err);
		goto out;
	}
	reasons = xcalloc(s->model->n_inputs + 1, sizeof(char *));
	for (i = 0; i < s->model->n_inputs; i++)
		reasons[i] = hub_view_input_reason(ss->hub, s->view, i);
	hub_diag_input(ss->hub, s->view, &fr, &din);
	/* ?xen_hard_pin=1: Xen advice pins hard, as diagnose --xen-hard-pin */
	hard = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "xen_hard_pin");
	din.params.xen_hard_pin = hard && (!strcmp(hard, "1") || !strcmp(hard, "true"));
	if (diagnose(&din, &res, &err)) {
		ret = vpd_reply_err(r, &err);
	} else {
		memset(&dv, 0, sizeof(dv));
		dv.m = s->model;
		dv.av = hub_view_avail(ss->hub, s->view);
		dv.input_reason = reasons;
		dv.targets = hub_view_n_targets(ss->hub, s->view);
		dv.fr = &fr;
		dv.cal_note = sbuf_str(&ss->pl.cal_note);
		dv.in = &din;
		dv.r = &res;
		{
			/* the session's frames as a local live diagnose takes its samples */
			struct cost_ci_ctx cx;

			cost_ci_ctx_init(&cx, s->model, &fr, ss->pl.have_cal);
			if (s->interval_ms != 1000)
				cx.samples = "the session's intervals";
			cost_ci_finish(&s->ci, &cx);
			cost_ci_attach(&s->ci, &din, &res);
			dv.ci = &s->ci;
		}
		diag_render_json(&dv, &sb);
		diag_result_release(&res);
		ret = vpd_reply_json(r, MHD_HTTP_OK, &sb);
	}
	collect_diag_release(&din);
	collect_frame_release(&fr);
out:
	pthread_mutex_unlock(&ss->lock);
	free(reasons);
	sbuf_release(&sb);
	return ret;
}

/* ---- server-sent events ---- */


/* Wait on the frames condition until deadline (monotonic ns); under the lock. */
static void wait_until(struct vpd_sessions *ss, uint64_t deadline)
{
	struct timespec ts = { (time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull) };

	pthread_cond_timedwait(&ss->frames, &ss->lock, &ts);
}

/* The last event of a stream whose user was removed. */
static void revoked_event(struct stream *st)
{
	struct jw w;
	char why[USER_NAME_MAX + 64];

	snprintf(why, sizeof(why), "user '%s' was removed or given a new token", st->user);
	sbuf_addstr(&st->out, "event: end\ndata: ");
	jw_init(&w, &st->out, false);
	jw_obj_begin(&w);
	jw_kstr(&w, "state", "revoked");
	jw_kstr(&w, "why", why);
	jw_obj_end(&w);
	sbuf_addstr(&st->out, "\n\n");
	st->ended = true;
}

/* Fill st->out with the next events of a session stream; under the lock. */
static void session_events(struct stream *st)
{
	struct vpd_sessions *ss = st->d->sessions;
	struct session *s = st->s;

	for (;;) {
		size_t i;

		if (ss->stop || st->d->stopping) {
			sbuf_addstr(&st->out, "event: end\ndata: {\"state\":\"stopped\",\"why\":"
					      "\"the daemon stopped\"}\n\n");
			st->ended = true;
			return;
		}
		if (st->revoked) {
			revoked_event(st);
			return;
		}
		for (i = 0; i < s->hist_n; i++) {
			size_t slot = (s->hist_head + i) % HISTORY_MAX;

			if (s->hist_seq[slot] > st->sent) {
				/* a frame is megabytes at 1,000 vCPUs: no printf over it */
				sbuf_addstr(&st->out, "event: frame\ndata: ");
				sbuf_add(&st->out, s->hist[slot], s->hist_len[slot]);
				sbuf_addstr(&st->out, "\n\n");
				st->sent = s->hist_seq[slot];
			}
		}
		if (st->out.len)
			return;
		if (!s->running) {
			struct jw w;

			sbuf_addstr(&st->out, "event: end\ndata: ");
			jw_init(&w, &st->out, false);
			jw_obj_begin(&w);
			jw_kstr(&w, "state", s->listed ? "ended" : "stopped");
			jw_kstr(&w, "why", s->ended_why);
			jw_obj_end(&w);
			sbuf_addstr(&st->out, "\n\n");
			st->ended = true;
			return;
		}
		if (vp_now_ns() >= st->last_ns + KEEPALIVE_NS) {
			sbuf_addstr(&st->out, ": keepalive\n\n");
			return;
		}
		wait_until(ss, st->last_ns + KEEPALIVE_NS);
	}
}

/* Fill st->out with the next top sample; takes the lock only to wait. */
static void top_events(struct stream *st)
{
	struct vpd_sessions *ss = st->d->sessions;
	struct vp_err err = { 0, "" };
	int ret;

	pthread_mutex_lock(&ss->lock);
	while (!ss->stop && !st->d->stopping && !st->revoked && vp_now_ns() < st->top_next)
		wait_until(ss, st->top_next);
	if (st->revoked) {
		pthread_mutex_unlock(&ss->lock);
		revoked_event(st);
		return;
	}
	if (ss->stop || st->d->stopping) {
		pthread_mutex_unlock(&ss->lock);
		sbuf_addstr(&st->out, "event: end\ndata: {\"state\":\"stopped\",\"why\":"
				      "\"the daemon stopped\"}\n\n");
		st->ended = true;
		return;
	}
	/* the Xen dump's rate limit, the resctrl groups and the xentrace are shared
	 * with the collector: sample under the lock */
	st->top.xen_numa = ss->xen_numa;
	st->top.xen_tracer = ss->xen_tracer;   /* the collector reads it too */
	st->top.xen_psr = ss->xen_psr;         /* and this */
	if (ss->xen_psr)
		st->top.rdt_on = true;
	if (!ss->xen_numa && !st->top_rdt && !ss->xen_tracer && !ss->xen_psr)
		pthread_mutex_unlock(&ss->lock);
	ret = top_sample(&st->top, &err);
	if (ss->xen_numa || st->top_rdt || ss->xen_tracer || ss->xen_psr)
		pthread_mutex_unlock(&ss->lock);
	if (ret) {
		struct jw w;

		sbuf_addstr(&st->out, "event: error\ndata: ");
		jw_init(&w, &st->out, false);
		jw_obj_begin(&w);
		jw_kstr(&w, "message", err.msg);
		jw_obj_end(&w);
		sbuf_addstr(&st->out, "\n\n");
		st->ended = true;
		return;
	}
	if (!st->top_start)
		st->top_start = st->top.t_ns;
	top_sort(&st->top, TOP_SORT_NAME);
	sbuf_addstr(&st->out, "event: sample\ndata: ");
	top_render_json(&st->top, st->top_start, &st->out);
	while (st->out.len && st->out.buf[st->out.len - 1] == '\n')
		st->out.buf[--st->out.len] = 0;
	sbuf_addstr(&st->out, "\n\n");
	st->top_next += st->top_iv;
	if (st->top_next < vp_now_ns())
		st->top_next = vp_now_ns() + st->top_iv;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct stream *st = cls;
	size_t n;

	(void)pos;
	if (st->off >= st->out.len) {
		sbuf_reset(&st->out);
		st->off = 0;
		if (st->ended)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (st->s) {
			pthread_mutex_lock(&st->d->sessions->lock);
			session_events(st);
			pthread_mutex_unlock(&st->d->sessions->lock);
		} else {
			top_events(st);
		}
		st->last_ns = vp_now_ns();
	}
	n = st->out.len - st->off;
	if (n > max)
		n = max;
	memcpy(buf, st->out.buf + st->off, n);
	st->off += n;
	return (ssize_t)n;
}

static void stream_free(void *cls)
{
	struct stream *st = cls;
	struct vpd_sessions *ss = st->d->sessions;

	pthread_mutex_lock(&ss->lock);
	ss->clients--;
	if (st->prev)
		st->prev->next = st->next;
	else
		ss->streams = st->next;
	if (st->next)
		st->next->prev = st->prev;
	if (st->s)
		session_unref(st->s);
	/* its resctrl meter lets go of groups the collector's views may hold */
	if (st->have_top && st->top_rdt)
		top_release(&st->top);
	pthread_mutex_unlock(&ss->lock);
	if (st->have_top && !st->top_rdt)
		top_release(&st->top);
	sbuf_release(&st->out);
	free(st);
}

/*
 * Whether r's user may open one more stream (max_streams_per_user); if so the
 * stream is registered (who opened it, for revocation).  Under the lock.
 */
static bool stream_register(struct vpd_req *r, struct stream *st)
{
	struct vpd_sessions *ss = r->d->sessions;
	struct stream *o;
	int n = 0;

	for (o = ss->streams; o; o = o->next)
		n += !strcmp(o->user, r->user.name);
	if (n >= r->d->conf.max_streams_per_user)
		return false;
	snprintf(st->user, sizeof(st->user), "%s", r->user.name);
	memcpy(st->user_hash, r->user.hash, USER_HASH_LEN);
	st->next = ss->streams;
	if (ss->streams)
		ss->streams->prev = st;
	ss->streams = st;
	ss->clients++;
	return true;
}

static enum MHD_Result too_many_streams(struct vpd_req *r)
{
	vpd_audit(r->d, r->user.name, "stream", NULL, "429 %d streams open", r->d->conf.max_streams_per_user);
	return vpd_reply_error(r, MHD_HTTP_TOO_MANY_REQUESTS, "user '%s' already has %d streams "
			       "open, the limit (max_streams_per_user)", r->user.name,
			       r->d->conf.max_streams_per_user);
}

static enum MHD_Result start_stream(struct vpd_req *r, struct stream *st)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	st->last_ns = vp_now_ns();
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_read, st,
						 stream_free);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Accel-Buffering", "no");
	vpd_safe_headers(resp);    /* as every other reply (t10400) */
	ret = MHD_queue_response(r->conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result vpd_session_stream(struct vpd_req *r, const char *id)
{
	struct vpd_sessions *ss = r->d->sessions;
	struct session *s;
	struct stream *st;

	pthread_mutex_lock(&ss->lock);
	s = lookup(r, id);
	if (!s) {
		pthread_mutex_unlock(&ss->lock);
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no session '%s'", id);
	}
	st = xcalloc(1, sizeof(*st));
	if (!stream_register(r, st)) {
		pthread_mutex_unlock(&ss->lock);
		free(st);
		return too_many_streams(r);
	}
	st->d = r->d;
	st->s = s;
	s->refs++;
	st->sent = s->seq ? s->seq - 1 : 0;     /* the newest frame first */
	sbuf_init(&st->out);
	sbuf_addf(&st->out, "retry: 2000\n: session %s\n\n", s->id);
	pthread_mutex_unlock(&ss->lock);
	return start_stream(r, st);
}

enum MHD_Result vpd_top_stream(struct vpd_req *r)
{
	struct vpd_sessions *ss = r->d->sessions;
	const char *iv = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "interval_ms");
	const char *rdt = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "resctrl");
	long ms = INTERVAL_DEFAULT_MS;
	bool resctrl = false;
	struct stream *st;
	struct vp_err err = { 0, "" };

	if (iv) {
		char *end;

		ms = strtol(iv, &end, 10);
		if (!*iv || *end || ms < INTERVAL_MIN_MS || ms > INTERVAL_MAX_MS)
			return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "'interval_ms' must be an integer "
					       "from %d to %d", INTERVAL_MIN_MS, INTERVAL_MAX_MS);
	}
	if (r->user.lim.min_interval_ms && ms < r->user.lim.min_interval_ms)
		return vpd_reply_error(r, MHD_HTTP_TOO_MANY_REQUESTS, "interval %ld ms is below user "
				       "'%s''s floor of %d ms", ms, r->user.name,
				       r->user.lim.min_interval_ms);
	if (rdt) {
		if (!strcmp(rdt, "1") || !strcmp(rdt, "true"))
			resctrl = true;
		else if (strcmp(rdt, "0") && strcmp(rdt, "false"))
			return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "'resctrl' must be 1, true, 0 "
					       "or false, not '%s'", rdt);
	}
	/* groups change the host's resctrl tree and cost RMIDs: as for a session */
	if (resctrl && r->user.role < ROLE_OPERATOR)
		return vpd_reply_error(r, MHD_HTTP_FORBIDDEN, "role '%s' may not make resctrl groups "
				       "(resctrl=1 needs operator or admin)", user_role_name(r->user.role));
	st = xcalloc(1, sizeof(*st));
	st->d = r->d;
	sbuf_init(&st->out);
	if (top_init(&st->top, r->d->conf.root, &err)) {
		free(st);
		return vpd_reply_err(r, &err);
	}
	st->have_top = true;
	st->top_iv = (uint64_t)ms * 1000000ull;
	st->top_next = vp_now_ns();
	sbuf_addstr(&st->out, "retry: 2000\n: top\n\n");
	pthread_mutex_lock(&ss->lock);
	if (resctrl && (!ss->hub || ss->stop)) {
		pthread_mutex_unlock(&ss->lock);
		top_release(&st->top);
		sbuf_release(&st->out);
		free(st);
		return vpd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "resctrl: %s",
				       ss->hub ? "the daemon is stopping" : ss->hub_error);
	}
	if (!stream_register(r, st)) {
		pthread_mutex_unlock(&ss->lock);
		top_release(&st->top);
		sbuf_release(&st->out);
		free(st);
		return too_many_streams(r);
	}
	if (resctrl) {
		/* the collector's groups (one set per process): a VM's group is shared with
		 * the sessions, and made here if none has it yet */
		top_resctrl_share(&st->top, hub_resctrl(ss->hub));
		st->top_rdt = true;
		vpd_audit(r->d, r->user.name, "top.resctrl", NULL, "200 interval %ld ms", ms);
	}
	pthread_mutex_unlock(&ss->lock);
	return start_stream(r, st);
}

int vpd_vms_scan(struct vpd *d, struct vms_view *v, struct vp_err *err)
{
	struct vpd_sessions *ss = d->sessions;
	int ret;

	if (!ss || !ss->xen_numa)
		return vms_scan(v, d->conf.root, err);
	pthread_mutex_lock(&ss->lock);
	ret = vms_scan_xen(v, d->conf.root, ss->xen_numa, err);
	pthread_mutex_unlock(&ss->lock);
	return ret;
}

/* ---- Prometheus ---- */

/*
 * Node figures for /metrics: memory from the nodes' meminfo, the busy share
 * of each node's CPUs since the previous scrape (NaN on the first); under the
 * lock (cs_prev).  *out is a heap array: free() it.
 */
static size_t node_figures(struct vpd_sessions *ss, const char *root, struct prom_node **out)
{
	const struct topology *t = &ss->pl.plat.topo;
	struct node_stat *ns = NULL;
	struct cpustat cs = { 0 };
	struct prom_node *pn;
	size_t n_ns = 0, i, j;
	int k;

	*out = pn = xcalloc((size_t)t->n_nodes + 1, sizeof(*pn));
	node_stat_read_all(root, &ns, &n_ns, NULL);
	cpustat_read(root, &cs, NULL);
	for (k = 0; k < t->n_nodes; k++) {
		const struct numa_node *nd = &t->nodes[k];
		double busy = 0;
		size_t nb = 0;

		pn[k].node = nd->id;
		pn[k].mem_total_bytes = pn[k].mem_used_bytes = pn[k].cpu_busy_ratio = NAN;
		for (j = 0; j < n_ns; j++) {
			uint32_t need = 1u << NM_MEM_TOTAL | 1u << NM_MEM_FREE;

			if (ns[j].node != nd->id || (ns[j].mem_have & need) != need)
				continue;
			pn[k].mem_total_bytes = (double)ns[j].mem[NM_MEM_TOTAL];
			pn[k].mem_used_bytes = (double)(ns[j].mem[NM_MEM_TOTAL] - ns[j].mem[NM_MEM_FREE]);
		}
		for (i = 0; i < nd->cpus.n; i++) {
			double b = cpustat_busy(&ss->cs_prev, &cs, nd->cpus.ids[i]);

			if (!isnan(b)) {
				busy += b;
				nb++;
			}
		}
		if (nb)
			pn[k].cpu_busy_ratio = busy / (double)nb;
	}
	cpustat_release(&ss->cs_prev);
	ss->cs_prev = cs;
	free(ns);
	return (size_t)t->n_nodes;
}

enum MHD_Result vpd_metrics(struct vpd_req *r)
{
	struct vpd_sessions *ss = r->d->sessions;
	struct prom_input in;
	struct prom_view *views;
	struct prom_node *nodes = NULL;
	struct hub_event *ev = NULL;
	struct sbuf sb = SBUF_INIT;
	char host[256] = "";
	size_t i, n_ev = 0;
	uint64_t t0 = vp_now_ns();
	enum MHD_Result ret;

	gethostname(host, sizeof(host) - 1);
	memset(&in, 0, sizeof(in));
	in.host = host;
	in.version = VMMPROF_VERSION;
	pthread_mutex_lock(&ss->lock);
	views = xcalloc(ss->n + 1, sizeof(*views));
	for (i = 0; i < ss->n; i++) {
		struct session *s = ss->v[i];

		/* a replayed session: its recording's last interval */
		if (!s->running && !s->replay)
			continue;
		views[in.n_views].session = s->id;
		views[in.n_views].model = s->model;
		views[in.n_views].frame = s->have_last ? &s->last : NULL;
		in.n_views++;
		if (s->replay)
			continue;
		in.self.sessions++;
		in.self.targets += s->targets;
	}
	in.views = views;
	in.n_nodes = node_figures(ss, r->d->conf.root, &nodes);
	in.nodes = nodes;
	in.self.start_time_s = ss->start_time;
	in.self.clients = ss->clients;
	in.self.requests_total = r->d->requests;
	in.self.scrape_duration_s = ss->scrape_s;
	if (ss->hub && !hub_events(ss->hub, &ev, &n_ev)) {
		for (i = 0; i < n_ev; i++) {
			if (ev[i].open)
				in.self.events_open++;
			else
				in.self.events_failed++;
		}
	}
	prom_render(&sb, &in);
	ss->scrape_s = (double)(vp_now_ns() - t0) / 1e9;
	pthread_mutex_unlock(&ss->lock);
	hub_events_release(ev, n_ev);
	free(views);
	free(nodes);
	ret = vpd_reply(r, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", &sb);
	sbuf_release(&sb);
	return ret;
}
