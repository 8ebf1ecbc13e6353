/* remote.c - `vmmprof --remote URL CMD ...`: info, list, model, stat, top, diagnose, record against a vmmprofd */
#include "cli/remote.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "collect/cost_ci.h"
#include "compose/diag_render.h"
#include "analysis/vms_view.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "cli/interrupt.h"
#include "cli/list.h"
#include "model/model_json.h"
#include "plan/info_json.h"
#include "plan/info_text.h"
#include "compose/frame_text.h"
#include "top/toprender.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/jsonread.h"
#include "util/timeutil.h"

#ifdef HAVE_CURL
#include <curl/curl.h>

/* One connection to the daemon (a curl handle reused for every request). */
struct rconn {
	const struct remote_conf *conf;
	char *base;                     /* the URL without a trailing '/' */
	char *token;                    /* NULL: none given */
	CURL *h;
	struct curl_slist *hdrs;        /* requests: the token, Accept: application/json */
	struct curl_slist *shdrs;       /* streams: the token, Accept: text/event-stream */
	int abort_after;                /* the transfer ends once more signals than this came */
	char errbuf[CURL_ERROR_SIZE];
};

static int read_token(const char *path, char **out, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	char *text = NULL;
	size_t n = 0;
	/* a token is 64 characters; larger ones are let through to see the daemon refuse them */
	int ret = vp_read_regular(path, 1 << 20, &text, &n, err);

	if (ret) {
		char why[VP_ERR_MSG_MAX];

		snprintf(why, sizeof(why), "%s", err->msg);
		return vp_err_set(err, ret, "cannot read the token file: %s", why);
	}
	sbuf_add(&sb, text, n);
	free(text);
	while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r' ||
			  sb.buf[sb.len - 1] == ' ' || sb.buf[sb.len - 1] == '\t'))
		sb.buf[--sb.len] = '\0';
	if (!sb.len || strpbrk(sbuf_str(&sb), "\r\n")) {
		sbuf_release(&sb);
		return vp_err_set(err, VP_EINVAL, "the token file '%s' does not hold one token on one "
				  "line", path);
	}
	*out = sbuf_detach(&sb);
	return 0;
}

static int rc_open(struct rconn *c, const struct remote_conf *conf, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	size_t n;
	int ret;

	memset(c, 0, sizeof(*c));
	c->conf = conf;
	if (strncmp(conf->url, "http://", 7) && strncmp(conf->url, "https://", 8))
		return vp_err_set(err, VP_EINVAL, "'%s' is not an http:// or https:// URL", conf->url);
	c->base = xstrdup(conf->url);
	n = strlen(c->base);
	while (n > 8 && c->base[n - 1] == '/')
		c->base[--n] = '\0';
	if (conf->token_file && (ret = read_token(conf->token_file, &c->token, err)))
		return ret;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return vp_err_set(err, VP_EDEP, "cannot initialise libcurl");
	c->h = curl_easy_init();
	if (!c->h)
		return vp_err_set(err, VP_EDEP, "cannot initialise libcurl");
	if (c->token) {
		sbuf_addf(&sb, "Authorization: Bearer %s", c->token);
		c->hdrs = curl_slist_append(c->hdrs, sbuf_str(&sb));
		c->shdrs = curl_slist_append(c->shdrs, sbuf_str(&sb));
		sbuf_release(&sb);
	}
	c->hdrs = curl_slist_append(c->hdrs, "Accept: application/json");
	c->shdrs = curl_slist_append(c->shdrs, "Accept: text/event-stream");
	return 0;
}

static void rc_close(struct rconn *c)
{
	if (c->h)
		curl_easy_cleanup(c->h);
	curl_slist_free_all(c->hdrs);
	curl_slist_free_all(c->shdrs);
	if (c->token)
		memset(c->token, 0, strlen(c->token));
	free(c->token);
	free(c->base);
	memset(c, 0, sizeof(*c));
}

/* Ctrl-C ends a transfer: curl asks here, at least once a second. */
static int xfer_cb(void *p, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const struct rconn *c = p;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return cli_interrupt_count() > c->abort_after ? 1 : 0;
}

/*
 * abortable: Ctrl-C ends the transfer (streams).  Other requests outlive
 * the first Ctrl-C of the run and any that came before they started (the
 * POST that starts a session, the DELETE that stops it after Ctrl-C), so
 * that a session is not left behind; any later Ctrl-C ends them too: a
 * daemon that does not answer cannot keep the client.
 */
static void rc_setup(struct rconn *c, const char *method, const char *path, const char *body,
		     bool abortable, struct sbuf *url)
{
	sbuf_reset(url);
	sbuf_addf(url, "%s%s", c->base, path);
	curl_easy_reset(c->h);
	curl_easy_setopt(c->h, CURLOPT_URL, sbuf_str(url));
	curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, c->hdrs);
	curl_easy_setopt(c->h, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(c->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c->h, CURLOPT_USERAGENT, "vmmprof-remote");
	c->abort_after = abortable ? 0 : cli_interrupt_count() > 1 ? cli_interrupt_count() : 1;
	curl_easy_setopt(c->h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c->h, CURLOPT_XFERINFOFUNCTION, xfer_cb);
	curl_easy_setopt(c->h, CURLOPT_XFERINFODATA, c);
	if (c->conf->cacert)
		curl_easy_setopt(c->h, CURLOPT_CAINFO, c->conf->cacert);
	curl_easy_setopt(c->h, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c->h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	c->errbuf[0] = '\0';
}

/* A transport failure in words: refused, unresolvable, TLS. */
static int transport_error(struct rconn *c, CURLcode res, struct vp_err *err)
{
	long os = 0;
	const char *detail = c->errbuf[0] ? c->errbuf : curl_easy_strerror(res);

	curl_easy_getinfo(c->h, CURLINFO_OS_ERRNO, &os);
	switch (res) {
	case CURLE_COULDNT_CONNECT:
		if (os == ECONNREFUSED)
			return vp_err_set(err, -ECONNREFUSED, "cannot connect to '%s': connection refused "
					  "(is vmmprofd running there?)", c->base);
		return vp_err_set(err, -EHOSTUNREACH, "cannot connect to '%s': %s", c->base,
				  os ? strerror((int)os) : detail);
	case CURLE_COULDNT_RESOLVE_HOST:
		return vp_err_set(err, -EHOSTUNREACH, "cannot resolve the host of '%s': %s", c->base, detail);
	case CURLE_OPERATION_TIMEDOUT:
		return vp_err_set(err, -ETIMEDOUT, "'%s' did not answer in time: %s", c->base, detail);
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
		return vp_err_set(err, VP_EUNSUPP, "TLS with '%s' failed: %s%s", c->base, detail,
				  res == CURLE_PEER_FAILED_VERIFICATION ?
				  " (give the daemon's CA certificate with --cacert FILE)" : "");
	case CURLE_GOT_NOTHING:
		return vp_err_set(err, -EIO, "'%s' sent no reply%s", c->base,
				  strncmp(c->base, "http://", 7) ? "" : " (a daemon that serves https:// ?)");
	case CURLE_ABORTED_BY_CALLBACK:
		return vp_err_set(err, -EINTR, "interrupted");
	default:
		return vp_err_set(err, -EIO, "request to '%s' failed: %s", c->base, detail);
	}
}

/* The "message" of the daemon's {"error":{"status","message"}}, or the body itself. */
static char *error_message(const char *body, size_t len)
{
	struct jv v;
	struct vp_err e;
	char *msg = NULL;

	if (len && !jv_parse(&v, body, len, "response", &e)) {
		const struct jv *m = jv_get(jv_get(&v, "error"), "message");

		if (m && m->type == JV_STR)
			msg = xstrdup(m->str);
		jv_release(&v);
	}
	if (!msg && len > 6 && !strncasecmp(body, "<html>", 6)) {
		/* a page libmicrohttpd sends itself (a header block too large for it): its title */
		const char *t = strstr(body, "<title>"), *te = t ? strstr(t, "</title>") : NULL;

		if (te && (size_t)(te - body) < len)
			msg = xstrndup(t + 7, (size_t)(te - t - 7));
	}
	if (!msg) {
		size_t n = len > 200 ? 200 : len;

		while (n && (body[n - 1] == '\n' || body[n - 1] == '\r'))
			n--;
		msg = xstrndup(n ? body : "no message", n ? n : 10);
	}
	return msg;
}

static int rc_request(struct rconn *c, const char *method, const char *path, const char *body,
		      struct sbuf *out, struct vp_err *err);

/* An HTTP error status in words; 403 names the user's role (asked with /whoami). */
static int status_error(struct rconn *c, const char *method, const char *path, long status,
			const char *body, size_t len, struct vp_err *err)
{
	char *msg = error_message(body, len);
	int ret;

	if (status == 401 && !c->token) {
		ret = vp_err_set(err, -EACCES, "'%s' wants a token (401): give --token-file FILE or "
				 "set VMMPROF_TOKEN_FILE", c->base);
	} else if (status == 401) {
		ret = vp_err_set(err, -EACCES, "'%s' refused the token in '%s' (401): %s", c->base,
				 c->conf->token_file, msg);
	} else if (status == 403) {
		struct sbuf who = SBUF_INIT;
		struct vp_err e2;
		struct jv v;
		const char *user = "?", *role = "?";
		bool parsed = false;

		if (!rc_request(c, "GET", "/api/v1/whoami", NULL, &who, &e2) &&
		    !jv_parse(&v, who.buf, who.len, "whoami", &e2)) {
			const struct jv *u = jv_get(&v, "user"), *r = jv_get(&v, "role");

			parsed = true;
			if (u && u->type == JV_STR)
				user = u->str;
			if (r && r->type == JV_STR)
				role = r->str;
		}
		ret = vp_err_set(err, -EPERM, "%s %s: forbidden (403) for user '%s' with role '%s': %s",
				 method, path, user, role, msg);
		if (parsed)
			jv_release(&v);
		sbuf_release(&who);
	} else {
		ret = vp_err_set(err, status == 404 ? VP_ENOTFOUND : -EIO, "%s %s: %ld: %s", method,
				 path, status, msg);
	}
	free(msg);
	return ret;
}

/*
 * The largest answer read into memory, and the longest line of a stream:
 * a daemon (or anything at that URL) cannot make the client take the host's
 * memory.  The largest real answers (a recording is written to a file, not
 * here; a session's 600 frames of history) are a few MiB.
 */
#define RC_ANSWER_MAX (64u << 20)
#define RC_SSE_LINE_MAX (16u << 20)

struct collect {
	struct sbuf *out;
	size_t start;
	bool too_big;
};

static size_t collect_cb(char *p, size_t size, size_t n, void *ud)
{
	struct collect *cl = ud;

	if (cl->out->len - cl->start + size * n > RC_ANSWER_MAX) {
		cl->too_big = true;
		return 0;               /* ends the transfer */
	}
	sbuf_add(cl->out, p, size * n);
	return size * n;
}

/*
 * method path [body]: the response body into out (appended).  Returns 0 for
 * a 2xx status; a transport failure or another status is an error in words.
 */
static int rc_request(struct rconn *c, const char *method, const char *path, const char *body,
		      struct sbuf *out, struct vp_err *err)
{
	struct sbuf url = SBUF_INIT;
	size_t start = out->len;
	struct collect cl = { out, out->len, false };
	CURLcode res;
	long status = 0;
	int ret = 0;

	rc_setup(c, method, path, body, false, &url);
	curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, collect_cb);
	curl_easy_setopt(c->h, CURLOPT_WRITEDATA, &cl);
	res = curl_easy_perform(c->h);
	if (cl.too_big) {
		ret = vp_err_set(err, VP_ERANGE, "%s %s: the daemon's answer is malformed: larger than "
				 "%u MiB", method, path, RC_ANSWER_MAX >> 20);
		goto out;
	}
	if (res != CURLE_OK) {
		ret = transport_error(c, res, err);
		goto out;
	}
	curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299)
		ret = status_error(c, method, path, status, out->buf + start, out->len - start, err);
out:
	sbuf_release(&url);
	return ret;
}

/* ---- server-sent events ---- */

/* Called per event; returns 0 to go on, 1 to stop (done), negative to fail. */
typedef int (*sse_fn)(void *ctx, const char *event, const char *data, struct vp_err *err);

struct sse {
	struct rconn *c;
	sse_fn fn;
	void *ctx;
	long status;                    /* 0 until the first body bytes */
	struct sbuf line, event, data, errbody;
	unsigned long events;
	int stop;                       /* fn's 1 or negative */
	struct vp_err *err;
};

static void sse_line(struct sse *s)
{
	const char *l = sbuf_str(&s->line), *v;

	if (!*l) { /* blank line: dispatch */
		if (s->data.len || s->event.len) {
			if (s->data.len && s->data.buf[s->data.len - 1] == '\n')
				s->data.buf[--s->data.len] = '\0';
			s->events++;
			s->stop = s->fn(s->ctx, s->event.len ? sbuf_str(&s->event) : "message",
					sbuf_str(&s->data), s->err);
		}
		sbuf_reset(&s->event);
		sbuf_reset(&s->data);
		return;
	}
	if (*l == ':')
		return; /* a comment (keepalive) */
	v = strchr(l, ':');
	v = v ? v + 1 + (v[1] == ' ') : l + strlen(l);
	if (!strncmp(l, "data:", 5) || !strcmp(l, "data")) {
		sbuf_addstr(&s->data, v);
		sbuf_addch(&s->data, '\n');
	} else if (!strncmp(l, "event:", 6)) {
		sbuf_reset(&s->event);
		sbuf_addstr(&s->event, v);
	}
}

static size_t sse_cb(char *p, size_t size, size_t n, void *ud)
{
	struct sse *s = ud;
	size_t i, len = size * n;

	if (!s->status)
		curl_easy_getinfo(s->c->h, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->status < 200 || s->status > 299) {
		sbuf_add(&s->errbody, p, len);
		return len;
	}
	for (i = 0; i < len && !s->stop; i++) {
		if (p[i] == '\n') {
			if (s->line.len && s->line.buf[s->line.len - 1] == '\r')
				s->line.buf[--s->line.len] = '\0';
			sse_line(s);
			sbuf_reset(&s->line);
		} else if (s->line.len >= RC_SSE_LINE_MAX || s->data.len >= RC_SSE_LINE_MAX) {
			s->stop = vp_err_set(s->err, VP_ERANGE, "the daemon's answer is malformed: a "
					     "stream line or event over %u MiB", RC_SSE_LINE_MAX >> 20);
		} else {
			sbuf_addch(&s->line, p[i]);
		}
	}
	return s->stop ? 0 : len; /* 0 ends the transfer */
}

static void stream_setup(struct rconn *c, const char *path, struct sse *s, struct sbuf *url)
{
	rc_setup(c, "GET", path, NULL, true, url);
	curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, c->shdrs);
	curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, sse_cb);
	curl_easy_setopt(c->h, CURLOPT_WRITEDATA, s);
	/* keepalive comments come every few seconds: silence this long means it is gone */
	curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c->h, CURLOPT_LOW_SPEED_TIME, 60L);
}

/* How a finished stream transfer ended: 0 when fn or the user ended it. */
static int stream_end(struct rconn *c, const char *path, struct sse *s, CURLcode res,
		      struct vp_err *err)
{
	if (!s->status)
		curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &s->status);
	if (s->stop < 0)
		return s->stop;
	if (s->stop > 0 || (res == CURLE_ABORTED_BY_CALLBACK && cli_interrupted()))
		return 0;
	if (s->status && (s->status < 200 || s->status > 299))
		return status_error(c, "GET", path, s->status, s->errbody.buf ? s->errbody.buf : "",
				    s->errbody.len, err);
	if (res != CURLE_OK && !s->status)
		return transport_error(c, res, err);
	return vp_err_set(err, -EPIPE, "'%s' ended the stream after %lu event%s%s%s", c->base,
			  s->events, s->events == 1 ? "" : "s", res != CURLE_OK ? ": " : "",
			  res != CURLE_OK ? (c->errbuf[0] ? c->errbuf : curl_easy_strerror(res)) : "");
}

static void sse_release(struct sse *s)
{
	sbuf_release(&s->line);
	sbuf_release(&s->event);
	sbuf_release(&s->data);
	sbuf_release(&s->errbody);
}

/*
 * GET path as a server-sent event stream, fn per event until fn returns
 * non-zero or Ctrl-C.  A stream the daemon ends first is an error (it went
 * away).  Returns 0 when fn or the user ended it.
 */
static int rc_stream(struct rconn *c, const char *path, sse_fn fn, void *ctx, struct vp_err *err)
{
	struct sse s = { c, fn, ctx, 0, SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT, 0, 0, err };
	struct sbuf url = SBUF_INIT;
	int ret;

	stream_setup(c, path, &s, &url);
	ret = stream_end(c, path, &s, curl_easy_perform(c->h), err);
	sse_release(&s);
	sbuf_release(&url);
	return ret;
}

/*
 * The same stream read a little at a time (curl's multi interface), for a
 * caller with its own loop (the top screen): pull_next() hands over the
 * latest event of kind `want` that arrived, if any.
 */
struct pull {
	struct rconn *c;
	const char *path;
	const char *want;               /* event name */
	CURLM *m;
	struct sse s;
	struct sbuf url;
	char *latest;                   /* data of the newest event not yet taken, heap */
	bool done;
	int ret;
};

static int pull_event(void *ctx, const char *event, const char *data, struct vp_err *err)
{
	struct pull *p = ctx;

	(void)err;
	if (!strcmp(event, p->want)) {
		free(p->latest);
		p->latest = xstrdup(data);
	}
	return 0;
}

static void pull_open(struct pull *p, struct rconn *c, const char *path, const char *want,
		      struct vp_err *err)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->path = path;
	p->want = want;
	p->s.c = c;
	p->s.fn = pull_event;
	p->s.ctx = p;
	p->s.err = err;
	stream_setup(c, path, &p->s, &p->url);
	p->m = curl_multi_init();
	curl_multi_add_handle(p->m, c->h);
}

/*
 * Read what arrived (waiting up to wait_ms for something).  Returns 0 and
 * *data (free() it) for a new event, 1 when none yet, or a negative code
 * once the stream ended (err says how).
 */
static int pull_next(struct pull *p, int wait_ms, char **data, struct vp_err *err)
{
	int running = 0, left;
	CURLMsg *msg;

	*data = NULL;
	if (p->done)
		return p->ret;
	curl_multi_perform(p->m, &running);
	if (!p->latest && running && wait_ms > 0) {
		curl_multi_poll(p->m, NULL, 0, wait_ms, NULL);
		curl_multi_perform(p->m, &running);
	}
	if (p->latest) {
		*data = p->latest;
		p->latest = NULL;
		return 0;
	}
	if (running)
		return 1;
	p->done = true;
	p->ret = vp_err_set(err, -EPIPE, "'%s' ended the stream", p->c->base);
	while ((msg = curl_multi_info_read(p->m, &left)))
		if (msg->msg == CURLMSG_DONE)
			p->ret = stream_end(p->c, p->path, &p->s, msg->data.result, err);
	if (!p->ret)
		p->ret = vp_err_set(err, -EINTR, "interrupted");
	return p->ret;
}

static void pull_close(struct pull *p)
{
	if (p->m) {
		curl_multi_remove_handle(p->m, p->c->h);
		curl_multi_cleanup(p->m);
	}
	free(p->latest);
	sse_release(&p->s);
	sbuf_release(&p->url);
}

/* ---- sessions ---- */

struct target_opts {
	const char *model;
	const char **vms;
	size_t n_vms;
	int *pids;
	size_t n_pids;
	long interval_ms;               /* 0: the daemon's default */
	bool record;
	bool resctrl;                   /* --resctrl: the daemon makes the VMs' groups */
};

/* POST /api/v1/sessions; *id (heap) and, for a recording, *recording (heap or NULL). */
static int session_start(struct rconn *c, const struct target_opts *t, char **id,
			 char **recording, struct vp_err *err)
{
	struct sbuf body = SBUF_INIT, resp = SBUF_INIT;
	struct jw w;
	struct jv v;
	const struct jv *x;
	size_t i;
	int ret;

	jw_init(&w, &body, false);
	jw_obj_begin(&w);
	if (t->model)
		jw_kstr(&w, "model", t->model);
	if (t->n_vms) {
		jw_key(&w, "vms");
		jw_arr_begin(&w);
		for (i = 0; i < t->n_vms; i++)
			jw_str(&w, t->vms[i]);
		jw_arr_end(&w);
	}
	if (t->n_pids) {
		jw_key(&w, "pids");
		jw_arr_begin(&w);
		for (i = 0; i < t->n_pids; i++)
			jw_int(&w, t->pids[i]);
		jw_arr_end(&w);
	}
	if (t->interval_ms > 0)
		jw_kint(&w, "interval_ms", t->interval_ms);
	jw_kbool(&w, "record", t->record);
	if (t->resctrl)
		jw_kbool(&w, "resctrl", true);
	jw_obj_end(&w);
	ret = rc_request(c, "POST", "/api/v1/sessions", sbuf_str(&body), &resp, err);
	if (ret)
		goto out;
	if ((ret = jv_parse(&v, resp.buf ? resp.buf : "", resp.len, "session", err)))
		goto out;
	x = jv_get(&v, "id");
	if (!x || x->type != JV_STR) {
		ret = vp_err_set(err, VP_EFORMAT, "the daemon's new session has no \"id\"");
	} else {
		*id = xstrdup(x->str);
		/* the daemon could not make (all) the groups: say it here too */
		x = jv_get(&v, "resctrl_why");
		if (x && x->type == JV_STR)
			fprintf(stderr, "vmmprof: warning: resctrl: %s\n", x->str);
		if (recording) {
			x = jv_get(&v, "recording");
			*recording = x && x->type == JV_STR ? xstrdup(x->str) : NULL;
		}
	}
	jv_release(&v);
out:
	sbuf_release(&body);
	sbuf_release(&resp);
	return ret;
}

/* DELETE the session; a failure is a warning (the command's own result stands). */
static int session_stop(struct rconn *c, const char *id)
{
	struct sbuf path = SBUF_INIT, resp = SBUF_INIT;
	struct vp_err err;
	int ret;

	sbuf_addf(&path, "/api/v1/sessions/%s", id);
	ret = rc_request(c, "DELETE", sbuf_str(&path), NULL, &resp, &err);
	if (ret == -EINTR)
		cli_warn("cannot stop session '%s': interrupted (it runs on '%s' until stopped)", id,
			 c->base);
	else if (ret)
		cli_warn("cannot stop session '%s': %s", id, err.msg);
	sbuf_release(&path);
	sbuf_release(&resp);
	return ret;
}

/* Sleep until duration seconds passed or Ctrl-C. */
static void wait_for(double duration)
{
	uint64_t end = vp_now_ns() + (uint64_t)(duration * 1e9);

	while (!cli_interrupted()) {
		uint64_t now = vp_now_ns();

		if (now >= end || cli_sleep_ns(end - now))
			break;
	}
}

static int write_raw(const struct sbuf *sb)
{
	return cli_write(sb);
}

/* ---- option parsing shared by the collecting commands ---- */

enum { RO_VM = 2000, RO_JSON, RO_COUNT, RO_ROOT, RO_RESCTRL, RO_WAIT, RO_HARD_PIN, RO_APPLY,
       RO_LOCAL, RO_NO_BIG, RO_NO_COUNTERS, RO_VIEW };

static int parse_seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end != s && *end == 's')
		end++;
	return *end || errno || !(*out > 0) || *out > 31 * 86400.0 ? -1 : 0;
}

/* -m, --vm, -p: 1 when opt was one of them, -1 after a usage error. */
static int target_opt(const struct cmd *cmd, struct target_opts *t, int opt, const char *arg)
{
	switch (opt) {
	case 'm':
		t->model = arg;
		return 1;
	case RO_VM:
		t->vms = xrealloc(t->vms, (t->n_vms + 1) * sizeof(*t->vms));
		t->vms[t->n_vms++] = arg;
		return 1;
	case RO_RESCTRL:
		t->resctrl = true;
		return 1;
	case 'p':
		if (cli_parse_pids(arg, &t->pids, &t->n_pids)) {
			cli_usage_error(cmd, "invalid process list '%s'", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

static void target_release(struct target_opts *t)
{
	free(t->vms);
	free(t->pids);
}

static int local_only(const struct cmd *cmd, const char *opt)
{
	return cli_usage_error(cmd, "'%s' does not apply with --remote (the daemon has its own)", opt);
}

/* ---- the commands ---- */

static int models_text(struct rconn *c, const struct sbuf *body);
static int info_text_remote(struct rconn *c, const struct sbuf *body);
static int model_show_remote(struct rconn *c, const struct sbuf *body);

/* info, list models, model list, model show: one GET, --json as is; the
 * text is the document read back and printed by the local renderer. */
static int run_get(struct rconn *c, const struct cmd *cmd, int argc, char **argv, int first,
		   const char *path, int (*text)(struct rconn *c, const struct sbuf *body))
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, RO_JSON },
		{ "root", required_argument, NULL, RO_ROOT },
		{ NULL, 0, NULL, 0 },
	};
	struct sbuf out = SBUF_INIT;
	struct vp_err err;
	bool json = false;
	int opt, rc;

	optind = first;
	while ((opt = getopt_long(argc, argv, "j", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
		case RO_JSON: json = true; break;
		case RO_ROOT: return local_only(cmd, "--root");
		default: return cli_bad_option(cmd, argv, "");
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (with --remote)", argv[optind]);
	if (rc_request(c, "GET", path, NULL, &out, &err))
		rc = cli_error(&err);
	else if (json)
		rc = write_raw(&out);
	else
		rc = text(c, &out);
	sbuf_release(&out);
	return rc;
}

/* list vms [PATTERN]: --json is the daemon's document as is; the text comes
 * from it through the local renderer, filtered here by PATTERN. */
static int run_list_vms(struct rconn *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, RO_JSON },
		{ "root", required_argument, NULL, RO_ROOT },
		{ NULL, 0, NULL, 0 },
	};
	struct list_opts o = { "/", NULL, false };
	struct sbuf out = SBUF_INIT, text = SBUF_INIT;
	struct hv_vm_list l;
	struct vp_err err;
	struct jv doc;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "j", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
		case RO_JSON: o.json = true; break;
		case RO_ROOT: return local_only(&cmd_list, "--root");
		default: return cli_bad_option(&cmd_list, argv, "");
		}
	}
	if (optind < argc)
		o.pattern = argv[optind++];
	if (optind < argc)
		return cli_usage_error(&cmd_list, "unexpected argument '%s'", argv[optind]);
	if (o.json && o.pattern)
		return cli_usage_error(&cmd_list, "with --remote, 'list vms --json' prints the daemon's "
				       "whole list: no PATTERN");
	if (rc_request(c, "GET", "/api/v1/vms", NULL, &out, &err)) {
		rc = cli_error(&err);
	} else if (o.json) {
		rc = write_raw(&out);
	} else if (jv_parse(&doc, out.buf ? out.buf : "", out.len, "vms", &err)) {
		rc = cli_error(&err);
	} else {
		if (vms_from_json(&doc, &l, &err)) {
			rc = cli_error(&err);
		} else {
			vms_text(&l, vms_json_remote, &doc, list_keep_vm, &o, o.pattern, &text);
			rc = cli_write(&text);
		}
		hv_vm_list_release(&l);
		jv_release(&doc);
	}
	sbuf_release(&out);
	sbuf_release(&text);
	return rc;
}

static int run_list(struct rconn *c, int argc, char **argv)
{
	const char *kind = NULL;
	int i;

	/* the kind is the first argument that is not an option */
	for (i = 1; i < argc; i++)
		if (argv[i][0] != '-') {
			kind = argv[i];
			break;
		}
	if (!kind)
		return cli_usage_error(&cmd_list, "which list? (vms or models with --remote)");
	memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof(*argv));
	argc--;
	if (!strcmp(kind, "vms"))
		return run_list_vms(c, argc, argv);
	if (!strcmp(kind, "models"))
		return run_get(c, &cmd_list, argc, argv, 1, "/api/v1/models", models_text);
	return cli_usage_error(&cmd_list, "'list %s' is not available with --remote (vms, models)",
			       kind);
}

/*
 * Text from one of the daemon's documents through the local renderer
 * render(doc, where, out, err); where names the daemon: 'URL', and
 * "(root DIR)" when it reads a fixture tree ("root" of info, "machine" of
 * model show).
 */
static int doc_text(struct rconn *c, const struct sbuf *body, const char *name,
		    int (*render)(const struct jv *doc, const char *where, struct sbuf *out,
				  struct vp_err *err))
{
	struct sbuf text = SBUF_INIT, where = SBUF_INIT;
	struct vp_err err;
	struct jv doc;
	const char *root, *machine;
	int rc;

	if (jv_parse(&doc, body->buf ? body->buf : "", body->len, name, &err))
		return cli_error(&err);
	root = jv_str(&doc, "root");
	machine = jv_str(&doc, "machine");
	sbuf_addf(&where, "'%s'", c->base);
	if (root && strcmp(root, "/"))
		sbuf_addf(&where, " (root %s)", root);
	else if (machine && strcmp(machine, "this machine"))
		sbuf_addf(&where, " (root %s)", machine);
	if (render(&doc, sbuf_str(&where), &text, &err))
		rc = cli_error(&err);
	else
		rc = cli_write(&text);
	jv_release(&doc);
	sbuf_release(&text);
	sbuf_release(&where);
	return rc;
}

/* info's document read back into the structs the local page is printed from */
static int info_render(const struct jv *doc, const char *where, struct sbuf *out,
		       struct vp_err *err)
{
	struct platform p;
	struct coverage cv;
	int ret = info_from_json(doc, &p, &cv, err);

	if (!ret)
		info_text(&p, &cv, where, out);
	platform_release(&p);
	coverage_release(&cv);
	return ret;
}

static int models_text(struct rconn *c, const struct sbuf *body)
{
	return doc_text(c, body, "models", model_list_text);
}

static int model_show_remote(struct rconn *c, const struct sbuf *body)
{
	return doc_text(c, body, "model", model_show_text);
}

static int info_text_remote(struct rconn *c, const struct sbuf *body)
{
	return doc_text(c, body, "info", info_render);
}

static int run_model(struct rconn *c, int argc, char **argv)
{
	struct sbuf path = SBUF_INIT;
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "list"))
		return run_get(c, &cmd_model, argc, argv, 2, "/api/v1/models", models_text);
	if (argc >= 3 && !strcmp(argv[1], "show") && argv[2][0] != '-') {
		char *esc = curl_easy_escape(NULL, argv[2], 0);

		sbuf_addf(&path, "/api/v1/models/%s", esc);
		curl_free(esc);
		rc = run_get(c, &cmd_model, argc - 1, argv + 1, 2, sbuf_str(&path), model_show_remote);
		sbuf_release(&path);
		return rc;
	}
	return cli_usage_error(&cmd_model, "with --remote: 'model list' or 'model show NAME'");
}

/* stat: frames of a session as JSON lines, or as report's timeline table. */
struct frames_ctx {
	long left;                      /* frames still wanted; <= 0 no limit */
	FILE *out;                      /* -o, or stdout */
	bool json;
	uint64_t origin_ns;             /* the first frame: t(s) counts from its start */
	double origin_duration;
	bool have_origin;
};

/* One frame JSON line as the timeline rows `vmmprof report` prints. */
static int frame_text(struct frames_ctx *f, const char *data, struct sbuf *out, struct vp_err *err)
{
	struct collect_frame fr;
	struct model m = { 0 };
	bool unav[FACTOR_N];
	struct jv v;
	int k, ret;

	if ((ret = jv_parse(&v, data, strlen(data), "frame", err)))
		return ret;
	if (!(ret = frame_from_json(&v, &fr, unav, err))) {
		m.name = (char *)(jv_str(&v, "model") ? jv_str(&v, "model") : "?");
		for (k = 0; k < FACTOR_N; k++)
			m.factors[k].quality = unav[k] ? VQ_UNAVAILABLE : VQ_MEASURED;
		if (!f->have_origin) {
			f->origin_ns = fr.t_ns;
			f->origin_duration = fr.duration;
			f->have_origin = true;
		}
		{
			struct table t;

			frame_text_table(&t);
			frame_text_rows(&t, &fr, ((double)fr.t_ns - (double)f->origin_ns) / 1e9 +
					f->origin_duration, &m);
			table_render(&t, out, 2, true);
			table_release(&t);
		}
		if (fr.notes.len)
			sbuf_addf(out, "  notes: %s\n", sbuf_str(&fr.notes));
		sbuf_addch(out, '\n');
		collect_frame_release(&fr);
	}
	jv_release(&v);
	return ret;
}

static int frame_event(void *ctx, const char *event, const char *data, struct vp_err *err)
{
	struct frames_ctx *f = ctx;
	struct sbuf sb = SBUF_INIT;
	int rc;

	if (!strcmp(event, "end")) {
		/* the daemon stopped the session (its targets ended, an admin stopped it) */
		fprintf(stderr, "vmmprof stat: the daemon ended the session: %s\n", data);
		return 1;
	}
	if (strcmp(event, "frame"))
		return 0;
	if (f->json) {
		sbuf_addstr(&sb, data);
		sbuf_addch(&sb, '\n');
	} else if ((rc = frame_text(f, data, &sb, err))) {
		sbuf_release(&sb);
		return rc;
	}
	rc = sb.len && fwrite(sb.buf, 1, sb.len, f->out) != sb.len;
	sbuf_release(&sb);
	if (rc || fflush(f->out))
		return vp_err_set(err, -EPIPE, "cannot write the frames: %s", strerror(errno));
	if (f->left > 0 && --f->left == 0)
		return 1;
	return 0;
}

static int run_stat(struct rconn *c, int argc, char **argv)
{
	/* the flags remote_flags_check() lets through (src/cli/cmd_stat.c's table) */
	static const struct option opts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, 'p' },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "interval-count", required_argument, NULL, RO_COUNT },
		{ "output", required_argument, NULL, 'o' },
		{ "no-big-num", no_argument, NULL, RO_NO_BIG },
		{ "json", no_argument, NULL, RO_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct target_opts t = { 0 };
	struct frames_ctx f = { 0 };
	struct sbuf path = SBUF_INIT;
	struct vp_err err;
	const char *output = NULL;
	char *id = NULL, *end;
	bool json = false;
	int opt, r, rc = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+m:p:I:o:j", opts, NULL)) != -1) {
		if ((r = target_opt(&cmd_stat, &t, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		switch (opt) {
		case 'I':
			t.interval_ms = strtol(optarg, &end, 10);
			if (*end || end == optarg || t.interval_ms < 10 ||
			    t.interval_ms > 31L * 86400 * 1000) {
				rc = cli_usage_error(&cmd_stat, "-I '%s': the interval must be 10 ms to 31 "
						     "days (%ld ms)", optarg, 31L * 86400 * 1000);
				goto out;
			}
			break;
		case RO_COUNT:
			f.left = strtol(optarg, &end, 10);
			if (*end || end == optarg || f.left <= 0) {
				rc = cli_usage_error(&cmd_stat, "--interval-count '%s': a count of 1 or "
						     "more", optarg);
				goto out;
			}
			break;
		case 'o': output = optarg; break;
		case RO_NO_BIG: break;  /* a session's rows have no thousands separators */
		case 'j':
		case RO_JSON: json = true; break;
		default:
			rc = cli_bad_option(&cmd_stat, argv, "m:p:I:o:");
			goto out;
		}
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_stat, "with --remote stat runs no command: '%s' would run "
				     "here (count it without --remote)", argv[optind]);
		goto out;
	}
	/* what the local command needs, the same here: a model and a target */
	if (!t.model) {
		rc = cli_usage_error(&cmd_stat, "with --remote stat runs a model in a session of the "
				     "daemon: give -m MODEL (stat without -m counts events here)");
		goto out;
	}
	if (!t.n_pids) {
		rc = cli_usage_error(&cmd_stat, "nothing to count: give -p (with --remote; VMs: "
				     "top, diagnose or record)");
		goto out;
	}
	if (f.left > 0 && !t.interval_ms) {
		rc = cli_usage_error(&cmd_stat, "--interval-count counts the intervals of -I: give -I");
		goto out;
	}
	f.json = json;
	f.out = cli_open_output(output, &err);
	if (!f.out) {
		rc = cli_error(&err);
		goto out;
	}
	cli_catch_interrupts();
	if (session_start(c, &t, &id, NULL, &err)) {
		rc = cli_error(&err);
	} else {
		sbuf_addf(&path, "/api/v1/sessions/%s/stream", id);
		if (rc_stream(c, sbuf_str(&path), frame_event, &f, &err))
			rc = cli_error(&err);
		if (session_stop(c, id) && !rc)
			rc = 1;
	}
	r = cli_close_output(f.out, output);
	if (!rc)
		rc = r;
out:
	free(id);
	sbuf_release(&path);
	target_release(&t);
	return rc;
}

/* The daemon's diagnose --json, read back and printed by the local text renderer. */
static int diagnosis_text(struct rconn *c, const char *id, const struct sbuf *body)
{
	struct sbuf head = SBUF_INIT, text = SBUF_INIT;
	struct dview_json dj;
	struct vp_err err;
	struct jv doc;
	int rc;

	if (jv_parse(&doc, body->buf ? body->buf : "", body->len, "diagnosis", &err))
		return cli_error(&err);
	if (dview_from_json(&dj, &doc, &err)) {
		rc = cli_error(&err);
	} else {
		sbuf_addf(&head, "vmmprof diagnose: %.1f s, model '%s', session '%s' on '%s'\n",
			  dj.fr.duration, dj.m.name, id, c->base);
		sbuf_addf(&head, "  %s\n", dj.dv.cal_note);
		diag_render_text(&dj.dv, sbuf_str(&head), &text);
		if (dj.dv.ci)
			cost_ci_text(dj.dv.ci, &text);
		rc = cli_write(&text);
	}
	dview_json_release(&dj);
	jv_release(&doc);
	sbuf_release(&head);
	sbuf_release(&text);
	return rc;
}

/*
 * Start a session; with wait_s > 0, a VM named that is not there yet (the
 * daemon's 400 "no VM named ...") is asked for again every second until
 * wait_s have passed, as the local --wait does.
 */
static int session_start_wait(struct rconn *c, const struct target_opts *t, double wait_s,
			      char **id, char **recording, struct vp_err *err)
{
	uint64_t end = vp_now_ns() + (uint64_t)(wait_s * 1e9);
	int ret;

	while ((ret = session_start(c, t, id, recording, err)) && wait_s > 0 &&
	       strstr(err->msg, ": 400: no VM named ") && vp_now_ns() < end &&
	       !cli_interrupted())
		wait_for(1.0);
	return ret;
}

/* diagnose: a session, wait, its diagnosis, stop. */
static int run_diagnose(struct rconn *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "model", required_argument, NULL, 'm' },
		{ "vm", required_argument, NULL, RO_VM },
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, RO_JSON },
		{ "resctrl", no_argument, NULL, RO_RESCTRL },
		{ "wait", optional_argument, NULL, RO_WAIT },
		{ "xen-hard-pin", no_argument, NULL, RO_HARD_PIN },
		{ "apply", no_argument, NULL, RO_APPLY },
		{ "dry-run", no_argument, NULL, RO_APPLY },
		{ "yes", no_argument, NULL, RO_APPLY },
		{ "allow-low-confidence", no_argument, NULL, RO_APPLY },
		{ "balancing-baseline", no_argument, NULL, RO_APPLY },
		{ "root", required_argument, NULL, RO_LOCAL },
		{ "model-path", required_argument, NULL, RO_LOCAL },
		{ "calibration", required_argument, NULL, RO_LOCAL },
		{ "xentrace", no_argument, NULL, RO_LOCAL },
		{ "xen-numa-dump", optional_argument, NULL, RO_LOCAL },
		{ NULL, 0, NULL, 0 },
	};
	struct target_opts t = { 0 };
	struct sbuf path = SBUF_INIT, out = SBUF_INIT;
	struct vp_err err;
	double duration = 5.0, wait_s = 0;
	char *id = NULL, *end;
	bool json = false, hard_pin = false;
	char name[48];
	int opt, r, rc = 0, li = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "d:m:p:j", opts, &li)) != -1) {
		if ((r = target_opt(&cmd_diagnose, &t, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		switch (opt) {
		case 'd':
			if (parse_seconds(optarg, &duration)) {
				rc = cli_usage_error(&cmd_diagnose, "invalid duration '%s' (seconds, > 0)",
						     optarg);
				goto out;
			}
			break;
		case 'j':
		case RO_JSON: json = true; break;
		case RO_HARD_PIN: hard_pin = true; break;
		case RO_WAIT:
			wait_s = optarg ? strtod(optarg, &end) : 60;
			if (optarg && (*end || !(wait_s >= 0))) {
				rc = cli_usage_error(&cmd_diagnose, "invalid --wait '%s' (seconds, >= 0)",
						     optarg);
				goto out;
			}
			break;
		case RO_APPLY:
			/* the advice's commands act on the machine they run on */
			rc = cli_usage_error(&cmd_diagnose, "'--%s' does not apply with --remote: --apply "
					     "runs the advice's commands on the machine it runs on; "
					     "run 'vmmprof diagnose --apply' there", opts[li].name);
			goto out;
		case RO_LOCAL:
			snprintf(name, sizeof(name), "--%s", opts[li].name);
			rc = local_only(&cmd_diagnose, name);
			goto out;
		default:
			rc = cli_usage_error(&cmd_diagnose, "'%s' does not apply with --remote",
					     argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_diagnose, "with --remote diagnose reads no recording: '%s'",
				     argv[optind]);
		goto out;
	}
	cli_catch_interrupts();
	if (session_start_wait(c, &t, wait_s, &id, NULL, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	fprintf(stderr, "vmmprof diagnose: session '%s' on '%s' collecting for %.3g s (Ctrl-C ends "
			"early)...\n", id, c->base, duration);
	wait_for(duration);
	sbuf_addf(&path, "/api/v1/sessions/%s/diagnosis%s", id, hard_pin ? "?xen_hard_pin=1" : "");
	if (rc_request(c, "GET", sbuf_str(&path), NULL, &out, &err))
		rc = cli_error(&err);
	else if (json)
		rc = write_raw(&out);
	else
		rc = diagnosis_text(c, id, &out);
	if (session_stop(c, id) && !rc)
		rc = 1;
out:
	free(id);
	sbuf_release(&path);
	sbuf_release(&out);
	target_release(&t);
	return rc;
}

/* record: a recording session, stop it, download the file. */
static int run_record(struct rconn *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'I' },
		{ "model", required_argument, NULL, 'm' },
		{ "vm", required_argument, NULL, RO_VM },
		{ "pid", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "resctrl", no_argument, NULL, RO_RESCTRL },
		{ "wait", optional_argument, NULL, RO_WAIT },
		{ NULL, 0, NULL, 0 },
	};
	struct target_opts t = { .record = true };
	double wait_s = 0;
	struct sbuf path = SBUF_INIT, data = SBUF_INIT;
	struct vp_err err;
	const char *outpath = NULL;
	bool rotate = false, kept = false;
	double duration = 0;
	char *id = NULL, *name = NULL, *end;
	bool quiet = false;
	FILE *f;
	int opt, r, rc = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:d:I:m:p:q", opts, NULL)) != -1) {
		if ((r = target_opt(&cmd_record, &t, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		switch (opt) {
		case 'o': outpath = optarg; break;
		case 'q': quiet = true; break;
		case RO_WAIT:
			/* as diagnose: ask again while the daemon has no such VM yet */
			wait_s = optarg ? strtod(optarg, &end) : 60;
			if (optarg && (*end || end == optarg || !(wait_s >= 0))) {
				rc = cli_usage_error(&cmd_record, "invalid --wait '%s' (seconds, >= 0)",
						     optarg);
				goto out;
			}
			break;
		case 'd':
			if (parse_seconds(optarg, &duration)) {
				rc = cli_usage_error(&cmd_record, "invalid duration '%s' (seconds, > 0)", optarg);
				goto out;
			}
			break;
		case 'I':
			t.interval_ms = strtol(optarg, &end, 10);
			if (*end || t.interval_ms < 10) {
				rc = cli_usage_error(&cmd_record, "invalid interval '%s' (milliseconds, >= 10)",
						     optarg);
				goto out;
			}
			break;
		default:
			rc = cli_usage_error(&cmd_record, "'%s' does not apply with --remote",
					     argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_record, "with --remote record runs no command: '%s'",
				     argv[optind]);
		goto out;
	}
	/* as locally: vmmprof.vmmdb by default (the one before kept as .old), never over a file named */
	if (outpath && !strcmp(outpath, "-")) {
		rc = cli_usage_error(&cmd_record, "with --remote record writes a file, not '-'");
		goto out;
	}
	if (!outpath) {
		outpath = CLI_RECORD_DEFAULT;
		rotate = true;
	} else if (!access(outpath, F_OK)) {
		rc = cli_errorf("'%s' exists: not overwriting a recording", outpath);
		goto out;
	}
	cli_catch_interrupts();
	if (session_start_wait(c, &t, wait_s, &id, &name, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if (!name) {
		session_stop(c, id);
		rc = cli_errorf("the daemon at '%s' started session '%s' without a recording", c->base, id);
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "vmmprof record: session '%s' on '%s' recording '%s' for %s "
				"(Ctrl-C ends it)...\n", id, c->base, name,
			duration > 0 ? "the duration given" : "as long as it runs");
	wait_for(duration > 0 ? duration : 31 * 86400.0);
	if (session_stop(c, id)) {
		rc = 1;
		goto out;
	}
	{
		char *esc = curl_easy_escape(NULL, name, 0);

		sbuf_addf(&path, "/api/v1/recordings/%s", esc);
		curl_free(esc);
	}
	if (rc_request(c, "GET", sbuf_str(&path), NULL, &data, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	kept = rotate && !access(outpath, F_OK);
	if (rotate && cli_keep_old(outpath, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if (!quiet && kept)  /* as a local record says it */
		fprintf(stderr, "vmmprof record: the recording before is now '%s.old'\n", outpath);
	/* as a local recording: a new file, mode 0600, never through a symbolic link */
	{
		int fd = vp_open_output(outpath, true, 0600, &err);

		f = fd < 0 ? NULL : fdopen(fd, "wb");
		if (fd >= 0 && !f) {
			vp_err_errno(&err, errno, "cannot create '%s'", outpath);
			close(fd);
		}
	}
	if (!f) {
		rc = cli_error(&err);
		goto out;
	}
	if ((data.len && fwrite(data.buf, 1, data.len, f) != data.len) | fclose(f)) {
		vp_err_errno(&err, errno, "cannot write '%s'", outpath);
		rc = cli_error(&err);
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "vmmprof record: '%s' (%zu bytes) written to '%s'\n", name, data.len,
			outpath);
out:
	free(id);
	free(name);
	sbuf_release(&path);
	sbuf_release(&data);
	target_release(&t);
	return rc;
}

/* top: the daemon's top stream, as JSON lines or through the local text renderer. */
struct top_ctx {
	bool json;
	int view;                       /* --view: enum top_view, TOP_VIEW_ALL every row */
	long left;
	enum top_sort sort;
	struct top_state s;
	struct jv cur;                  /* the sample s points into */
	bool have;
};

static int top_event(void *ctx, const char *event, const char *data, struct vp_err *err)
{
	struct top_ctx *t = ctx;
	struct sbuf sb = SBUF_INIT;
	struct jv v;
	int rc;

	if (!strcmp(event, "end") || !strcmp(event, "error"))
		return vp_err_set(err, -EPIPE, "the daemon ended the top stream: %s", data);
	if (strcmp(event, "sample"))
		return 0;
	if (t->json) {
		sbuf_addstr(&sb, data);
		sbuf_addch(&sb, '\n');
	} else {
		if (jv_parse(&v, data, strlen(data), "sample", err))
			return err->code;
		if (top_from_json(&t->s, &v, err)) {
			jv_release(&v);
			return err->code;
		}
		if (t->have)
			jv_release(&t->cur);
		t->cur = v;
		t->have = true;
		top_sort(&t->s, t->sort);
		top_render_view(&t->s, (enum top_view)t->view, &sb);
	}
	rc = cli_write(&sb);
	sbuf_release(&sb);
	if (rc || fflush(stdout))
		return vp_err_set(err, -EPIPE, "cannot write to standard output");
	return t->left > 0 && --t->left == 0 ? 1 : 0;
}

/* The live screen's samples from the daemon's stream. */
struct top_pull {
	struct pull p;
	struct jv cur;                  /* the sample the screen's rows point into */
	bool have;
};

static int top_pull_sample(void *ctx, struct top_state *s, bool block, struct vp_err *err)
{
	struct top_pull *t = ctx;
	char *data;
	struct jv v;
	int r;

	do
		r = pull_next(&t->p, block ? 200 : 0, &data, err);
	while (r == 1 && block && !cli_interrupted());
	if (r)
		return r;
	r = jv_parse(&v, data, strlen(data), "sample", err);
	free(data);
	if (r)
		return r;
	if ((r = top_from_json(s, &v, err))) {
		jv_release(&v);
		return r;
	}
	if (t->have)
		jv_release(&t->cur);
	t->cur = v;
	t->have = true;
	return 0;
}

static int run_top(struct rconn *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, RO_JSON },
		{ "sort", required_argument, NULL, 's' },
		{ "no-counters", no_argument, NULL, RO_NO_COUNTERS },
		{ "resctrl", no_argument, NULL, RO_RESCTRL },
		{ "view", required_argument, NULL, RO_VIEW },
		{ NULL, 0, NULL, 0 },
	};
	struct top_ctx t = { 0 };
	struct sbuf path = SBUF_INIT;
	struct vp_err err;
	double delay = 2.0;
	bool batch = false, resctrl = false;
	char *end;
	int k, opt, rc = 0;

	optind = 1;
	t.sort = TOP_SORT_NAME;
	t.view = TOP_VIEW_ALL;
	while ((opt = getopt_long(argc, argv, "bn:d:s:j", opts, NULL)) != -1) {
		switch (opt) {
		case 'b': batch = true; break;
		case 'j':
		case RO_JSON: t.json = true; break;
		case RO_NO_COUNTERS: break;     /* the daemon's top stream opens no counter */
		case RO_RESCTRL: resctrl = true; break;
		case RO_VIEW:
			/* the node and process views are composed here from the stream's rows */
			if ((t.view = top_view_lookup(optarg)) < 0)
				return cli_usage_error(&cmd_top, "--view '%s': one of node, vm, vcpu, "
						       "process", optarg);
			break;
		case 'n':
			t.left = strtol(optarg, &end, 10);
			if (*end || t.left <= 0)
				return cli_usage_error(&cmd_top, "-n needs a positive count, not '%s'", optarg);
			break;
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay >= 0.1) || delay > 86400)
				return cli_usage_error(&cmd_top, "-d needs seconds >= 0.1, not '%s'", optarg);
			break;
		case 's':
			if ((k = top_sort_lookup(optarg)) < 0)
				return cli_usage_error(&cmd_top, "unknown sort key '%s' (name, cpu, remote, "
						       "memory, llc, sharing, imc, queue)", optarg);
			t.sort = (enum top_sort)k;
			break;
		default:
			return cli_bad_option(&cmd_top, argv, "bn:d:s:");
		}
	}
	if (optind < argc)
		return cli_usage_error(&cmd_top, "unexpected argument '%s'", argv[optind]);
	if (t.view != TOP_VIEW_ALL && t.json)
		return cli_usage_error(&cmd_top, "--view picks the rows of the --batch text; --json "
				       "lines hold every row (nodes, vms, vcpus)");
	if (t.json)
		batch = true;
	if (!batch && !isatty(1))
		return cli_errorf("standard output is not a terminal: use 'vmmprof top --batch'");
	top_init_remote(&t.s);
	/* with resctrl the daemon's collector groups (shared with its sessions) are read */
	sbuf_addf(&path, "/api/v1/top/stream?interval_ms=%ld%s", (long)(delay * 1000 + 0.5),
		  resctrl ? "&resctrl=1" : "");
	if (batch) {
		cli_catch_interrupts();
		if (rc_stream(c, sbuf_str(&path), top_event, &t, &err))
			rc = cli_error(&err);
	} else {
		struct top_pull tp = { 0 };

		pull_open(&tp.p, c, sbuf_str(&path), "sample", &err);
		if (cli_fronts()->screen(&t.s, delay, t.sort, t.view, top_pull_sample, &tp, &err))
			rc = cli_error(&err);
		pull_close(&tp.p);
		if (tp.have)
			jv_release(&tp.cur);
	}
	if (t.have)
		jv_release(&t.cur);
	top_release(&t.s);
	sbuf_release(&path);
	return rc;
}

static int run_info(struct rconn *c, int argc, char **argv)
{
	return run_get(c, &cmd_info, argc, argv, 1, "/api/v1/info", info_text_remote);
}

/*
 * ---- which of a command's options work against a daemon ----
 *
 * Every flag of every command that runs with --remote has its decision here:
 * sent (the client or the daemon does what the local command does with it)
 * or refused with the reason.  remote_flags_check() holds the command line
 * to the command's own options table (cli_flags()) before anything is sent:
 * a flag the local command does not take is an unknown option, as it is
 * locally; a flag without a decision here, or a decision for a flag the
 * table no longer has, is an error that names it (tests/cli/t10303 runs
 * every flag of every table, so a new flag without a decision fails it).
 */
enum rf_kind {
	RF_SEND,        /* forwarded: the same meaning as locally */
	RF_DAEMON,      /* the daemon's own setting (serve's flag or config) */
	RF_HERE,        /* acts on this machine, or reads what only a local run has */
};

struct rflag {
	const struct cmd *cmd;
	const char *flag;       /* long name, without "--" */
	enum rf_kind kind;
	const char *why;        /* RF_HERE: the reason */
};

#define RF_EVENTS "a daemon runs models on VMs and processes, not event lists: give -m MODEL " \
	"with -p, or count here without --remote"
#define RF_MODEL_CMD "model check, eval and test run here: without --remote"
#define RF_APPLY "--apply runs the advice's commands on the machine it runs on: run it there"
#define RF_TOP "the daemon's top stream covers every VM with its own model and sources"

static const struct rflag rflags[] = {
	{ &cmd_info, "json", RF_SEND, NULL },
	{ &cmd_info, "root", RF_DAEMON, NULL },
	{ &cmd_info, "model-path", RF_DAEMON, NULL },

	{ &cmd_list, "json", RF_SEND, NULL },
	{ &cmd_list, "root", RF_DAEMON, NULL },
	{ &cmd_list, "encode", RF_HERE, "event encodings are this machine's (list events runs "
	  "here: without --remote)" },
	{ &cmd_list, "raw-dump", RF_HERE, "the names for shell completion are this machine's "
	  "(without --remote)" },
	{ &cmd_list, "all", RF_HERE, "list events runs here: without --remote" },
	{ &cmd_list, "xen-numa-dump", RF_DAEMON, NULL },
	{ &cmd_list, "xentrace", RF_DAEMON, NULL },
	{ &cmd_list, "xen-psr", RF_DAEMON, NULL },

	{ &cmd_model, "root", RF_DAEMON, NULL },
	{ &cmd_model, "model-path", RF_DAEMON, NULL },
	{ &cmd_model, "json", RF_SEND, NULL },
	{ &cmd_model, "raw-dump", RF_HERE, "the names for shell completion are this machine's "
	  "(without --remote)" },
	{ &cmd_model, "parse-only", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "verbose", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "counts", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "perf-csv", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "calibration", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "set", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "row", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "duration", RF_HERE, RF_MODEL_CMD },
	{ &cmd_model, "ghz", RF_HERE, RF_MODEL_CMD },

	{ &cmd_stat, "event", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "all-cpus", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "cpu", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "pid", RF_SEND, NULL },
	{ &cmd_stat, "tid", RF_HERE, "a daemon's session follows processes (-p), not single threads" },
	{ &cmd_stat, "cgroup", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "interval-print", RF_SEND, NULL },
	{ &cmd_stat, "interval-count", RF_SEND, NULL },
	{ &cmd_stat, "field-separator", RF_HERE, "perf's CSV of event counts: a session's frames "
	  "print as text or --json" },
	{ &cmd_stat, "json", RF_SEND, NULL },
	{ &cmd_stat, "output", RF_SEND, NULL },
	{ &cmd_stat, "no-big-num", RF_SEND, NULL },      /* a session's rows have none */
	{ &cmd_stat, "model", RF_SEND, NULL },
	{ &cmd_stat, "raw", RF_HERE, "a session's frames carry the model's metrics and factors, "
	  "not its events' counts" },
	{ &cmd_stat, "model-path", RF_DAEMON, NULL },
	{ &cmd_stat, "calibration", RF_DAEMON, NULL },
	{ &cmd_stat, "repeat", RF_HERE, "-r repeats a command, which runs here" },
	{ &cmd_stat, "per-thread", RF_HERE, "a session's frames have VM, vCPU, process and node "
	  "rows, not per-thread counts" },
	{ &cmd_stat, "no-aggr", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "per-core", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "per-socket", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "per-node", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "per-die", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "per-cache", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "metrics", RF_HERE, "a session's frames carry every metric of its model: "
	  "--json and jq pick some" },
	{ &cmd_stat, "metric-only", RF_HERE, "a session's frames are printed as the daemon's rows: "
	  "--json and jq make one line of them" },
	{ &cmd_stat, "transaction", RF_HERE, RF_EVENTS },
	{ &cmd_stat, "timeout", RF_HERE, "--timeout ends a run of counters here: with --remote, "
	  "-I MS --interval-count N ends the session's stream" },
	{ &cmd_stat, "delay", RF_HERE, "-D delays counters opened here; a daemon's session counts "
	  "from its start" },
	{ &cmd_stat, "verbose", RF_HERE, "-v prints the raw counts of counters opened here; a "
	  "session's frames carry the model's values" },
	{ &cmd_stat, "null", RF_HERE, "-n times a command, which runs here" },
	{ &cmd_stat, "append", RF_HERE, "--append adds to the -o file of a run here; with --remote "
	  "-o FILE is written new" },

	{ &cmd_top, "batch", RF_SEND, NULL },
	{ &cmd_top, "iterations", RF_SEND, NULL },
	{ &cmd_top, "delay", RF_SEND, NULL },
	{ &cmd_top, "json", RF_SEND, NULL },
	{ &cmd_top, "sort", RF_SEND, NULL },
	{ &cmd_top, "view", RF_SEND, NULL },
	{ &cmd_top, "vm", RF_HERE, RF_TOP },
	{ &cmd_top, "wait", RF_HERE, RF_TOP },
	{ &cmd_top, "model", RF_HERE, RF_TOP },
	{ &cmd_top, "model-path", RF_DAEMON, NULL },
	{ &cmd_top, "calibration", RF_DAEMON, NULL },
	{ &cmd_top, "no-counters", RF_SEND, NULL },      /* the daemon's stream opens none */
	{ &cmd_top, "resctrl", RF_SEND, NULL },
	{ &cmd_top, "xen-numa-dump", RF_DAEMON, NULL },
	{ &cmd_top, "xentrace", RF_DAEMON, NULL },
	{ &cmd_top, "xen-psr", RF_DAEMON, NULL },
	{ &cmd_top, "xen-imc", RF_HERE, RF_TOP },
	{ &cmd_top, "root", RF_DAEMON, NULL },
	{ &cmd_top, "replay", RF_HERE, "it reads a recording on this machine (the daemon replays "
	  "one as a session: POST /api/v1/sessions {\"recording\":NAME})" },

	{ &cmd_diagnose, "duration", RF_SEND, NULL },
	{ &cmd_diagnose, "vm", RF_SEND, NULL },
	{ &cmd_diagnose, "wait", RF_SEND, NULL },
	{ &cmd_diagnose, "pid", RF_SEND, NULL },
	{ &cmd_diagnose, "model", RF_SEND, NULL },
	{ &cmd_diagnose, "model-path", RF_DAEMON, NULL },
	{ &cmd_diagnose, "calibration", RF_DAEMON, NULL },
	{ &cmd_diagnose, "json", RF_SEND, NULL },
	{ &cmd_diagnose, "xen-numa-dump", RF_DAEMON, NULL },
	{ &cmd_diagnose, "apply", RF_HERE, RF_APPLY },
	{ &cmd_diagnose, "dry-run", RF_HERE, RF_APPLY },
	{ &cmd_diagnose, "yes", RF_HERE, RF_APPLY },
	{ &cmd_diagnose, "allow-low-confidence", RF_HERE, RF_APPLY },
	{ &cmd_diagnose, "balancing-baseline", RF_HERE, RF_APPLY },
	{ &cmd_diagnose, "xentrace", RF_DAEMON, NULL },
	{ &cmd_diagnose, "xen-psr", RF_DAEMON, NULL },
	{ &cmd_diagnose, "xen-imc", RF_DAEMON, NULL },
	{ &cmd_diagnose, "xen-hard-pin", RF_SEND, NULL },
	{ &cmd_diagnose, "resctrl", RF_SEND, NULL },
	{ &cmd_diagnose, "root", RF_DAEMON, NULL },

	{ &cmd_record, "output", RF_SEND, NULL },
	{ &cmd_record, "duration", RF_SEND, NULL },
	{ &cmd_record, "interval", RF_SEND, NULL },
	{ &cmd_record, "vm", RF_SEND, NULL },
	{ &cmd_record, "wait", RF_SEND, NULL },
	{ &cmd_record, "pid", RF_SEND, NULL },
	{ &cmd_record, "model", RF_SEND, NULL },
	{ &cmd_record, "model-path", RF_DAEMON, NULL },
	{ &cmd_record, "calibration", RF_DAEMON, NULL },
	{ &cmd_record, "quiet", RF_SEND, NULL },
	{ &cmd_record, "xen-numa-dump", RF_DAEMON, NULL },
	{ &cmd_record, "xentrace", RF_DAEMON, NULL },
	{ &cmd_record, "xen-psr", RF_DAEMON, NULL },
	{ &cmd_record, "xen-imc", RF_DAEMON, NULL },
	{ &cmd_record, "resctrl", RF_SEND, NULL },
	{ &cmd_record, "root", RF_DAEMON, NULL },
};

static const struct rflag *rflag_find(const struct cmd *c, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(rflags); i++)
		if (rflags[i].cmd == c && strlen(rflags[i].flag) == len &&
		    !strncmp(rflags[i].flag, name, len))
			return &rflags[i];
	return NULL;
}

/* f's decision (its long name's), or an error that names it; 0 sent, 2 refused or none. */
static int rflag_decide(const struct cmd *c, const struct cli_flag *f, const char *given)
{
	const struct rflag *r = f->name ? rflag_find(c, f->name, f->name_len) : NULL;

	if (!r)
		return cli_usage_error(c, "option '%s' has no --remote decision (src/cli/remote.c "
				       "rflags[]): it cannot be sent to a daemon yet", given);
	if (r->kind == RF_DAEMON)
		return cli_usage_error(c, "'%s' does not apply with --remote (the daemon has its own)",
				       given);
	if (r->kind == RF_HERE)
		return cli_usage_error(c, "'%s' does not apply with --remote: %s", given, r->why);
	return 0;
}

/*
 * Hold argv[1..] to c's options table: each flag is one the local command
 * takes and one that is sent; 0 or the exit code of the usage error.
 */
static int remote_flags_check(const struct cmd *c, int argc, char **argv)
{
	struct cli_flag *f;
	size_t n, k;
	int i, rc = 0;

	f = cli_flags(c, &n);
	/* a decision for a flag the table no longer has is stale */
	for (k = 0; k < VP_ARRAY_SIZE(rflags) && !rc; k++) {
		size_t j;

		if (rflags[k].cmd != c)
			continue;
		for (j = 0; j < n; j++)
			if (f[j].name && strlen(rflags[k].flag) == f[j].name_len &&
			    !strncmp(rflags[k].flag, f[j].name, f[j].name_len))
				break;
		if (j == n)
			rc = cli_errorf("src/cli/remote.c: rflags[] decides '--%s' of '%s', which "
					"'%s' does not take", rflags[k].flag, c->name, c->name);
	}
	for (i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1]) {
			if (c->flags & CMD_STOP_AT_POSITIONAL)
				break;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			char *given = xasprintf("%.*s", (int)(len + 2), a);
			const struct cli_flag *hit = NULL;
			size_t matches = 0;

			/* exact, else a unique prefix (as getopt_long takes) */
			for (k = 0; k < n && !hit; k++)
				if (f[k].name && f[k].name_len == len && !strncmp(f[k].name, a + 2, len))
					hit = &f[k];
			for (k = 0; k < n && !hit; k++)
				if (f[k].name && f[k].name_len > len && !strncmp(f[k].name, a + 2, len))
					matches++;
			for (k = 0; k < n && !hit && matches == 1; k++)
				if (f[k].name && f[k].name_len > len && !strncmp(f[k].name, a + 2, len))
					hit = &f[k];
			if (!hit)
				rc = cli_usage_error(c, "unknown option '%s'", given);
			else if (!(rc = rflag_decide(c, hit, given)) && hit->arg == 1 && !eq)
				i++;
			free(given);
			continue;
		}
		for (a++; *a && !rc; a++) {
			char given[3] = { '-', *a, 0 };

			for (k = 0; k < n && f[k].shortc != *a; k++)
				;
			if (k == n) {
				rc = cli_usage_error(c, "unknown option '%s'", given);
				break;
			}
			if ((rc = rflag_decide(c, &f[k], given)))
				break;
			if (f[k].arg) {
				if (!a[1] && f[k].arg == 1)
					i++;
				break;
			}
		}
	}
	free(f);
	return rc;
}

static const struct {
	const struct cmd *c;
	int (*fn)(struct rconn *c, int argc, char **argv);
} remote_cmds[] = {
	{ &cmd_info, run_info },
	{ &cmd_list, run_list },
	{ &cmd_model, run_model },
	{ &cmd_stat, run_stat },
	{ &cmd_top, run_top },
	{ &cmd_diagnose, run_diagnose },
	{ &cmd_record, run_record },
};

bool remote_supported(const struct cmd *c)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(remote_cmds); i++)
		if (remote_cmds[i].c == c)
			return true;
	return false;
}

int remote_run(const struct remote_conf *rconf, const struct cmd *c, int argc, char **argv)
{
	struct rconn conn;
	struct vp_err err;
	size_t i;
	int rc;

	for (i = 0; i < VP_ARRAY_SIZE(remote_cmds) && remote_cmds[i].c != c; i++)
		;
	if (i == VP_ARRAY_SIZE(remote_cmds))
		return cli_usage_error(c, "'%s' does not run against a daemon (--remote: info, list, "
				       "model, stat, top, diagnose, record)", c->name);
	if ((rc = remote_flags_check(c, argc, argv)))
		return rc;
	if (rc_open(&conn, rconf, &err)) {
		rc_close(&conn);
		return cli_error(&err);
	}
	rc = remote_cmds[i].fn(&conn, argc, argv);
	rc_close(&conn);
	curl_global_cleanup();
	return rc;
}

#else /* !HAVE_CURL */

bool remote_supported(const struct cmd *c)
{
	(void)c;
	return false;
}

int remote_run(const struct remote_conf *rconf, const struct cmd *c, int argc, char **argv)
{
	(void)rconf;
	(void)c;
	(void)argc;
	(void)argv;
	return cli_errorf("built without libcurl: --remote is not available (run "
			  "scripts/install-deps.sh and rebuild)");
}

#endif
