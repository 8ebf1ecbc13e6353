/* server.c - vmmprofd: the HTTP server (libmicrohttpd), authentication, routing, audit log */
#include "daemon/daemon.h"
#include "daemon/serve.h"
#include "daemon/session.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/timeutil.h"

/* ---- replies ---- */

void vpd_safe_headers(struct MHD_Response *resp)
{
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	/* the web UI's styles are set per element (chart legends): style attributes allowed */
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' "
				"data:; object-src 'none'; base-uri 'none'; form-action 'none'; "
				"frame-ancestors 'none'");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
}

enum MHD_Result vpd_reply(struct vpd_req *r, unsigned status, const char *type, struct sbuf *body)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len = body ? body->len : 0;
	char *buf = body ? sbuf_detach(body) : NULL;

	resp = MHD_create_response_from_buffer(len, buf ? buf : (char *)"",
					       buf ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	vpd_safe_headers(resp);
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"vmmprof\"");
	ret = MHD_queue_response(r->conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result vpd_reply_json(struct vpd_req *r, unsigned status, struct sbuf *body)
{
	return vpd_reply(r, status, "application/json", body);
}

enum MHD_Result vpd_reply_error(struct vpd_req *r, unsigned status, const char *fmt, ...)
{
	struct sbuf msg = SBUF_INIT, sb = SBUF_INIT;
	struct jw w;
	va_list ap;
	enum MHD_Result ret;

	va_start(ap, fmt);
	sbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	jw_init(&w, &sb, false);
	jw_obj_begin(&w);
	jw_key(&w, "error");
	jw_obj_begin(&w);
	jw_kint(&w, "status", status);
	jw_kstr(&w, "message", sbuf_str(&msg));
	jw_obj_end(&w);
	jw_obj_end(&w);
	sbuf_addch(&sb, '\n');
	ret = vpd_reply_json(r, status, &sb);
	sbuf_release(&sb);
	sbuf_release(&msg);
	return ret;
}

enum MHD_Result vpd_reply_err(struct vpd_req *r, const struct vp_err *err)
{
	unsigned st = MHD_HTTP_INTERNAL_SERVER_ERROR;

	switch (err->code) {
	case VP_ENOTFOUND:
	case -ENOENT:
		st = MHD_HTTP_NOT_FOUND;
		break;
	case VP_EINVAL:
	case VP_EPARSE:
	case VP_ERANGE:
		st = MHD_HTTP_BAD_REQUEST;
		break;
	case VP_EUNSUPP:
	case VP_EDEP:
		st = MHD_HTTP_NOT_IMPLEMENTED;
		break;
	case -EACCES:
	case -EPERM:
		st = MHD_HTTP_FORBIDDEN;
		break;
	}
	return vpd_reply_error(r, st, "%s", err->msg[0] ? err->msg : vp_strerror(err->code));
}

/* ---- audit ---- */

/* The client of the request this thread serves (a thread per connection), for audit lines. */
static __thread char audit_client[64];

void vpd_audit(struct vpd *d, const char *user, const char *action, const char *session,
	       const char *fmt, ...)
{
	struct sbuf sb = SBUF_INIT, res = SBUF_INIT;
	char ts[32];
	struct tm tm;
	time_t now = time(NULL);
	va_list ap;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	va_start(ap, fmt);
	sbuf_vaddf(&res, fmt, ap);
	va_end(ap);
	sbuf_addf(&sb, "%s client=", ts);
	srv_audit_escape(&sb, audit_client[0] ? audit_client : "-", false);
	sbuf_addstr(&sb, " user=");
	srv_audit_escape(&sb, user ? user : "-", false);
	sbuf_addstr(&sb, " action=");
	srv_audit_escape(&sb, action, false);
	sbuf_addstr(&sb, " session=");
	srv_audit_escape(&sb, session ? session : "-", false);
	sbuf_addstr(&sb, " result=\"");
	srv_audit_escape(&sb, sbuf_str(&res), true);
	sbuf_addstr(&sb, "\"\n");
	pthread_mutex_lock(&d->audit_lock);
	fputs(sbuf_str(&sb), d->audit ? d->audit : stderr);
	fflush(d->audit ? d->audit : stderr);
	pthread_mutex_unlock(&d->audit_lock);
	sbuf_release(&res);
	sbuf_release(&sb);
}

/* The client's address, for this thread's audit lines. */
static void audit_set_client(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
						MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	char a[INET6_ADDRSTRLEN] = "?";

	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, a, sizeof(a));
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, a, sizeof(a));
	snprintf(audit_client, sizeof(audit_client), "%s", a);
}

/* ---- users and authentication ---- */

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Fail closed: no user, the reason kept (and logged when it is new). */
static void users_fail(struct vpd *d, const char *why)
{
	if (strcmp(d->users_error, why) && d->mhd)
		fprintf(stderr, "vmmprofd: error: %s: no user is accepted until it can be read\n", why);
	snprintf(d->users_error, sizeof(d->users_error), "%s", why);
	if (d->users.n) {
		users_release(&d->users);
		users_init(&d->users);
		__atomic_add_fetch(&d->users_gen, 1, __ATOMIC_SEQ_CST);
	}
}

void vpd_users_refresh(struct vpd *d, bool force)
{
	struct stat st;
	struct users nu;
	struct vp_err err = { 0, "" };
	char why[VP_ERR_MSG_MAX + 64];
	int fd;

	/* open and fstat: the file read is the file seen (a rename in between is seen next time) */
	fd = open(d->conf.users, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, sizeof(why), "cannot read the users file '%s': %s", d->conf.users,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		memset(&d->users_st, 0, sizeof(d->users_st));
		users_fail(d, why);
		return;
	}
	if (!force && !d->users_error[0] && same_file(&st, &d->users_st)) {
		close(fd);
		return;
	}
	users_init(&nu);
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, sizeof(why), "the users file '%s' is not a regular file", d->conf.users);
		users_fail(d, why);
	} else if (st.st_size > USERS_FILE_MAX) {
		snprintf(why, sizeof(why), "the users file '%s' is larger than %d bytes", d->conf.users,
			 USERS_FILE_MAX);
		users_fail(d, why);
	} else if (st.st_mode & S_IWOTH) {
		/* anyone could add an admin: fail closed until it is fixed */
		snprintf(why, sizeof(why), "the users file '%s' is writable by every user (mode %04o): "
			 "'chmod o-w %s'", d->conf.users, (unsigned)(st.st_mode & 07777),
			 d->conf.users);
		users_fail(d, why);
	} else if (users_load_fd(&nu, fd, d->conf.users, &err)) {
		users_fail(d, err.msg);
	} else {
		if (d->users_error[0])
			fprintf(stderr, "vmmprofd: the users file '%s' is readable again (%zu user%s)\n",
				d->conf.users, nu.n, nu.n == 1 ? "" : "s");
		d->users_error[0] = 0;
		users_release(&d->users);
		d->users = nu;
		users_init(&nu);
		__atomic_add_fetch(&d->users_gen, 1, __ATOMIC_SEQ_CST);
	}
	users_release(&nu);
	close(fd);
	d->users_st = st;
}

void vpd_users_snapshot(struct vpd *d, struct users *out, unsigned *gen)
{
	size_t i;

	users_init(out);
	pthread_mutex_lock(&d->users_lock);
	for (i = 0; i < d->users.n; i++) {
		VP_GROW(out->v, out->cap, out->n + 1);
		out->v[out->n++] = d->users.v[i];
	}
	*gen = __atomic_load_n(&d->users_gen, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&d->users_lock);
}

static bool authenticate(struct vpd_req *r)
{
	const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_AUTHORIZATION);
	const char *tok = NULL;
	const struct user *u;

	if (h && !strncasecmp(h, "Bearer ", 7)) {
		tok = h + 7;
		while (*tok == ' ')
			tok++;
	} else if (!h && !strcmp(r->method, "GET")) {
		/* RFC 6750 2.3, for EventSource, which cannot set headers */
		tok = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "access_token");
	}
	if (!tok || !*tok)
		return false;
	pthread_mutex_lock(&r->d->users_lock);
	vpd_users_refresh(r->d, false);
	u = users_auth(&r->d->users, tok);
	if (u) {
		r->user = *u;
		r->authed = true;
	}
	snprintf(r->users_error, sizeof(r->users_error), "%s", r->d->users_error);
	pthread_mutex_unlock(&r->d->users_lock);
	return r->authed;
}

/* ---- routing ---- */

typedef enum MHD_Result (*route_fn)(struct vpd_req *r, char **args);


static enum MHD_Result r_whoami(struct vpd_req *r, char **a) { (void)a; return vpd_api_whoami(r); }
static enum MHD_Result r_info(struct vpd_req *r, char **a) { (void)a; return vpd_api_info(r); }
static enum MHD_Result r_vms(struct vpd_req *r, char **a) { (void)a; return vpd_api_vms(r); }
static enum MHD_Result r_models(struct vpd_req *r, char **a) { (void)a; return vpd_api_models(r, NULL); }
static enum MHD_Result r_model(struct vpd_req *r, char **a) { return vpd_api_models(r, a[0]); }
static enum MHD_Result r_recs(struct vpd_req *r, char **a) { (void)a; return vpd_api_recordings(r, NULL); }
static enum MHD_Result r_rec(struct vpd_req *r, char **a) { return vpd_api_recordings(r, a[0]); }
static enum MHD_Result r_coll(struct vpd_req *r, char **a) { (void)a; return vpd_collector(r); }
static enum MHD_Result r_slist(struct vpd_req *r, char **a) { (void)a; return vpd_session_list(r); }
static enum MHD_Result r_snew(struct vpd_req *r, char **a) { (void)a; return vpd_session_create(r); }
static enum MHD_Result r_sget(struct vpd_req *r, char **a) { return vpd_session_get(r, a[0]); }
static enum MHD_Result r_sdel(struct vpd_req *r, char **a) { return vpd_session_delete(r, a[0]); }
static enum MHD_Result r_sstream(struct vpd_req *r, char **a) { return vpd_session_stream(r, a[0]); }
static enum MHD_Result r_shist(struct vpd_req *r, char **a) { return vpd_session_history(r, a[0]); }
static enum MHD_Result r_sdiag(struct vpd_req *r, char **a) { return vpd_session_diagnosis(r, a[0]); }
static enum MHD_Result r_top(struct vpd_req *r, char **a) { (void)a; return vpd_top_stream(r); }

/* in the order of srv_routes[] (src/srv/route.c): the table's method, path and least role */
static const route_fn route_fns[SRV_ROUTE_N] = {
	r_whoami, r_info, r_vms, r_models, r_model, r_recs, r_rec, r_coll, r_slist, r_snew, r_sget,
	r_sdel, r_sstream, r_shist, r_sdiag, r_top,
};

static enum MHD_Result dispatch_api(struct vpd_req *r)
{
	char buf[1024], *args[SRV_ROUTE_ARGS];
	int route = 0;

	if (strlen(r->url) >= sizeof(buf))
		return vpd_reply_error(r, MHD_HTTP_URI_TOO_LONG, "request path too long");
	if (!authenticate(r)) {
		if (r->users_error[0]) {
			vpd_audit(r->d, NULL, "auth", NULL, "503 %s %s", r->method, r->url);
			return vpd_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "no user is accepted: %s",
					       r->users_error);
		}
		vpd_audit(r->d, NULL, "auth", NULL, "401 %s %s", r->method, r->url);
		return vpd_reply_error(r, MHD_HTTP_UNAUTHORIZED, "a valid token is required "
				       "('Authorization: Bearer TOKEN')");
	}
	if (r->too_big)
		return vpd_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "request body larger than %d bytes",
				       VPD_MAX_BODY);
	switch (srv_route_find(r->method, r->url, r->user.role, buf, sizeof(buf), args, &route)) {
	case SRV_ROUTE_OK:
		return route_fns[route](r, args);
	case SRV_ROUTE_FORBIDDEN:
		vpd_audit(r->d, r->user.name, "denied", NULL, "403 %s %s", r->method, r->url);
		return vpd_reply_error(r, MHD_HTTP_FORBIDDEN, "role '%s' may not %s '%s'",
				       user_role_name(r->user.role), r->method, r->url);
	case SRV_ROUTE_METHOD:
		return vpd_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, "method %s not allowed on '%s'",
				       r->method, r->url);
	default:
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no such endpoint '%s'", r->url);
	}
}

static enum MHD_Result dispatch(struct vpd_req *r)
{
	vpd_guard_request(r->d, r->conn, false);
	__atomic_add_fetch(&r->d->requests, 1, __ATOMIC_RELAXED);
	if (r->too_big && strncmp(r->url, "/api/", 5))
		return vpd_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "request body larger than %d bytes",
				       VPD_MAX_BODY);
	if (!strncmp(r->url, "/api/", 5))
		return dispatch_api(r);
	if (!strcmp(r->url, "/metrics")) {
		if (strcmp(r->method, "GET"))
			return vpd_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, "method %s not allowed "
					       "on '/metrics'", r->method);
		if (!r->d->conf.metrics_auth_none && !authenticate(r)) {
			vpd_audit(r->d, NULL, "auth", NULL, "401 %s %s", r->method, r->url);
			return vpd_reply_error(r, MHD_HTTP_UNAUTHORIZED, "a valid token is required "
					       "('Authorization: Bearer TOKEN'; or metrics_auth = none)");
		}
		return vpd_metrics(r);
	}
	if (!strcmp(r->url, "/") || !strncmp(r->url, "/ui/", 4)) {
		if (strcmp(r->method, "GET") && strcmp(r->method, "HEAD"))
			return vpd_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED, "method %s not allowed "
					       "on '%s'", r->method, r->url);
		return vpd_static(r, !strcmp(r->url, "/") ? "index.html" : r->url + 4);
	}
	return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no such path '%s'", r->url);
}

/* Adds the size of one header line ("Key: value\r\n") to *cls. */
static enum MHD_Result add_header_size(void *cls, enum MHD_ValueKind kind, const char *key,
				       const char *value)
{
	size_t *n = cls;

	(void)kind;
	*n += strlen(key) + (value ? strlen(value) : 0) + 4;
	return MHD_YES;
}

/* The request line and headers as the client sent them, near enough:
 * method, path, query arguments, each header line. */
static size_t header_size(struct MHD_Connection *conn, const char *method, const char *url)
{
	size_t n = strlen(method) + strlen(url) + strlen(" HTTP/1.1\r\n ");

	MHD_get_connection_values(conn, MHD_HEADER_KIND, add_header_size, &n);
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_header_size, &n);
	return n;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct vpd_req *r = *con_cls;

	(void)version;
	if (!r) {
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_LENGTH);

		audit_set_client(conn);
		r = xcalloc(1, sizeof(*r));
		r->d = cls;
		r->conn = conn;
		r->method = method;
		r->url = url;
		sbuf_init(&r->body);
		*con_cls = r;
		if (header_size(conn, method, url) > VPD_MAX_HEADERS) {
			/* before the body, and before authentication: a token may be in them */
			r->too_big = true;
			return vpd_reply_error(r, MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
					       "request headers larger than %d bytes", VPD_MAX_HEADERS);
		}
		if (cl && strtoull(cl, NULL, 10) > VPD_MAX_BODY) {
			/* refuse before reading it */
			r->too_big = true;
			return vpd_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE,
					       "request body larger than %d bytes", VPD_MAX_BODY);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		if (!r->too_big) {
			if (r->body.len + *upload_size > VPD_MAX_BODY) {
				r->too_big = true;
				sbuf_release(&r->body);
			} else {
				sbuf_add(&r->body, upload, *upload_size);
			}
		}
		*upload_size = 0;
		return MHD_YES;
	}
	return dispatch(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct vpd_req *r = *con_cls;

	(void)cls;
	(void)toe;
	if (!r)
		return;
	/* a kept-alive connection waits for its next request: the deadline starts again */
	vpd_guard_request(r->d, conn, true);
	sbuf_release(&r->body);
	memset(&r->user, 0, sizeof(r->user));
	free(r);
	*con_cls = NULL;
}

/* Percent-decoding that keeps %00 out of C strings: it becomes 0x01, which no name accepts. */
/*
 * libmicrohttpd's messages, with the daemon's prefix.  A client that goes
 * away (Ctrl-C on a stream, a closed browser tab) makes the library report
 * the send that failed; that is how streams end, not an error of the daemon,
 * so it is not logged.
 */
#define HTTP_LOG_BURST 10
static pthread_mutex_t http_log_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t http_log_start, http_log_n, http_log_dropped;

static void http_log(void *cls, const char *fmt, va_list ap)
{
	uint64_t now;
	static const char *const gone[] = {
		"Failed to send the ",                  /* headers, body, chunk or footers */
		"The connection was forcibly closed by remote peer",
		/* the connection guard shut it down (guard.c), and counts it itself */
		"Connection socket is closed when reading request due to the error",
	};
	char msg[512];
	size_t i, n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if (!strncmp(msg, gone[i], strlen(gone[i])))
			return;
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	/* at most HTTP_LOG_BURST lines a minute: a flood of refused or broken connections
	 * must not fill the disk */
	pthread_mutex_lock(&http_log_lock);
	now = vp_now_ns();
	if (now - http_log_start >= 60ull * 1000000000ull || !http_log_start) {
		if (http_log_dropped)
			fprintf(stderr, "vmmprofd: http: %llu more messages in the last minute not shown\n",
				(unsigned long long)http_log_dropped);
		http_log_start = now;
		http_log_n = http_log_dropped = 0;
	}
	if (http_log_n++ < HTTP_LOG_BURST)
		fprintf(stderr, "vmmprofd: http: %s\n", msg);
	else
		http_log_dropped++;
	pthread_mutex_unlock(&http_log_lock);
}

/* libmicrohttpd's unescaping of the path and query: srv_unescape() */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	(void)cls;
	(void)c;
	return srv_unescape(s);
}

/* ---- start and stop ---- */

void vpd_tick(struct vpd *d)
{
	/* the users file is watched, not only read on requests: a removed user's
	 * streams and sessions end even when nobody asks anything */
	pthread_mutex_lock(&d->users_lock);
	vpd_users_refresh(d, false);
	pthread_mutex_unlock(&d->users_lock);
	vpd_sessions_tick(d);
}

static int open_audit(struct vpd *d)
{
	int fd = open(d->conf.audit_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;

	if (!f) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	pthread_mutex_lock(&d->audit_lock);
	if (d->audit)
		fclose(d->audit);
	d->audit = f;
	pthread_mutex_unlock(&d->audit_lock);
	return 0;
}

/* SIGHUP: a rotated audit log is reopened; on failure the old one stays. */
static void reopen_audit(struct vpd *d)
{
	if (d->conf.audit_log && open_audit(d))
		fprintf(stderr, "vmmprofd: warning: cannot reopen the audit log '%s': %s\n",
			d->conf.audit_log, strerror(errno));
}

/*
 * A connection is a descriptor: the soft limit (often 1,024) is raised to
 * the hard one, so that max_connections are possible, or said when not.
 */
static void raise_fd_limit(struct vpd *d)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)d->conf.max_connections + (rlim_t)d->conf.max_connections / 4 + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < want)
		fprintf(stderr, "vmmprofd: warning: %llu descriptors at most (RLIMIT_NOFILE), not the "
				"%llu that max_connections %d needs\n", (unsigned long long)rl.rlim_cur,
			(unsigned long long)want, d->conf.max_connections);
}

/* After SIGTERM: if the daemon has not stopped within VPD_STOP_LIMIT_S, it exits anyway. */
#define VPD_STOP_LIMIT_S 10
static void *stop_deadline(void *arg)
{
	(void)arg;
	sleep(VPD_STOP_LIMIT_S);
	fprintf(stderr, "vmmprofd: error: did not stop within %d s; exiting without finishing\n",
		VPD_STOP_LIMIT_S);
	_exit(1);
	return NULL;
}

static int read_pem(const char *path, char **out, struct vp_err *err)
{
	return vp_read_regular(path, 1 << 20, out, NULL, err);	/* a PEM file is a few KiB */
}

int vpd_run(struct srv_conf *conf, const struct vp_dirs *dirs)
{
	struct vpd d;
	struct vp_err err = { 0, "" };
	char host[256], *cert = NULL, *key = NULL;
	int port = 0, rc = 1, sig;
	bool v6, tls;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct sockaddr *sa;
	unsigned flags, mhd_limit;
	sigset_t set;
	pthread_t deadline;
	const union MHD_DaemonInfo *info;
	struct stat st;

	memset(&d, 0, sizeof(d));
	d.conf = *conf;
	d.dirs = dirs;
	srv_conf_defaults(&d.conf);
	raise_fd_limit(&d);
	pthread_mutex_init(&d.users_lock, NULL);
	pthread_mutex_init(&d.audit_lock, NULL);
	users_init(&d.users);
	if (d.conf.model_path) {
		d.model_path[0] = d.conf.model_path;
		d.n_model_path = 1;
	}

	if (srv_listen_parse(d.conf.listen, host, sizeof(host), &port, &err)) {
		fprintf(stderr, "vmmprofd: error: %s\n", err.msg);
		goto out;
	}
	tls = d.conf.tls_cert || d.conf.tls_key;
	if (tls && !(d.conf.tls_cert && d.conf.tls_key)) {
		fprintf(stderr, "vmmprofd: error: TLS needs both a certificate and a key "
				"(--tls-cert and --tls-key)\n");
		goto out;
	}
	if (!tls && !srv_host_is_loopback(host) && !d.conf.allow_plain_http) {
		fprintf(stderr, "vmmprofd: error: refusing plain HTTP on '%s', which is not a loopback "
				"address: tokens would cross the network in clear (give --tls-cert and "
				"--tls-key, or --allow-plain-http)\n", d.conf.listen);
		goto out;
	}
	if (tls && (read_pem(d.conf.tls_cert, &cert, &err) || read_pem(d.conf.tls_key, &key, &err))) {
		fprintf(stderr, "vmmprofd: error: %s\n", err.msg);
		goto out;
	}
	if (stat(d.conf.users, &st)) {
		fprintf(stderr, "vmmprofd: error: cannot read the users file '%s': %s (create it with "
				"'vmmprof user add NAME --role admin --users %s')\n", d.conf.users,
			strerror(errno), d.conf.users);
		goto out;
	}
	vpd_users_refresh(&d, true);
	if (d.users_error[0]) {
		fprintf(stderr, "vmmprofd: error: %s\n", d.users_error);
		goto out;
	}
	if (d.conf.audit_log && open_audit(&d)) {
		fprintf(stderr, "vmmprofd: error: cannot open the audit log '%s': %s\n",
			d.conf.audit_log, strerror(errno));
		goto out;
	}
	if (d.conf.user && geteuid() == 0) {
		if (vpd_drop_privileges(d.conf.user, &err)) {
			fprintf(stderr, "vmmprofd: error: %s\n", err.msg);
			goto out;
		}
		/* it is read again on every change: as that user, or no user would be accepted */
		if (access(d.conf.users, R_OK)) {
			fprintf(stderr, "vmmprofd: error: user '%s' cannot read the users file '%s': %s "
					"(it is read again whenever it changes: 'chown %s %s', and every "
					"directory above it searchable)\n", d.conf.user, d.conf.users,
				strerror(errno), d.conf.user, d.conf.users);
			goto out;
		}
	} else if (d.conf.user) {
		fprintf(stderr, "vmmprofd: note: not root, so --user '%s' is ignored\n", d.conf.user);
	} else if (geteuid() == 0) {
		fprintf(stderr, "vmmprofd: warning: running as root: a flaw in the daemon would be "
				"root's (give --user vmmprof, docs/daemon.md)\n");
	}

	/* every thread started from here on inherits this mask: signals come to sigwait() */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* a file over RLIMIT_FSIZE: the write fails (EFBIG) and is reported, the daemon lives */
	signal(SIGXFSZ, SIG_IGN);

	if (vpd_sessions_start(&d))
		goto stop_sessions;

	v6 = strchr(host, ':') != NULL;
	if (v6) {
		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons((uint16_t)port);
		inet_pton(AF_INET6, host, &sin6.sin6_addr);
		sa = (struct sockaddr *)&sin6;
	} else {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons((uint16_t)port);
		if (!host[0])
			sin.sin_addr.s_addr = htonl(INADDR_ANY);
		else if (!strcmp(host, "localhost"))
			sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		else
			inet_pton(AF_INET, host, &sin.sin_addr);
		sa = (struct sockaddr *)&sin;
	}
	if (vpd_guard_start(&d))
		goto stop_sessions;
	/* poll(), not select(): select() cannot watch a descriptor above 1,023, so a
	 * thousand connections would make every later one fail (epoll cannot be
	 * combined with a thread per connection) */
	flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG |
		(v6 ? MHD_USE_IPv6 : 0) | (tls ? MHD_USE_TLS : 0);
	/* a backstop above the guard's own limits (max_connections and a quarter closing) */
	mhd_limit = (unsigned)d.conf.max_connections + (unsigned)d.conf.max_connections / 2 + 16;
	if (tls)
		d.mhd = MHD_start_daemon(flags, (uint16_t)port, vpd_guard_accept, &d, on_request, &d,
					 MHD_OPTION_EXTERNAL_LOGGER, http_log, NULL,
					 MHD_OPTION_SOCK_ADDR, sa,
					 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)VPD_CONNECTION_MEMORY,
					 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)300,
					 MHD_OPTION_CONNECTION_LIMIT, mhd_limit,
					 MHD_OPTION_NOTIFY_CONNECTION, vpd_guard_notify, &d,
					 MHD_OPTION_NOTIFY_COMPLETED, on_completed, &d,
					 MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
					 MHD_OPTION_HTTPS_MEM_CERT, cert,
					 MHD_OPTION_HTTPS_MEM_KEY, key,
					 MHD_OPTION_END);
	else
		d.mhd = MHD_start_daemon(flags, (uint16_t)port, vpd_guard_accept, &d, on_request, &d,
					 MHD_OPTION_EXTERNAL_LOGGER, http_log, NULL,
					 MHD_OPTION_SOCK_ADDR, sa,
					 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)VPD_CONNECTION_MEMORY,
					 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)300,
					 MHD_OPTION_CONNECTION_LIMIT, mhd_limit,
					 MHD_OPTION_NOTIFY_CONNECTION, vpd_guard_notify, &d,
					 MHD_OPTION_NOTIFY_COMPLETED, on_completed, &d,
					 MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
					 MHD_OPTION_END);
	if (!d.mhd) {
		fprintf(stderr, "vmmprofd: error: cannot listen on '%s'%s\n", d.conf.listen,
			tls ? " with TLS (is the certificate and key PEM, and do they match?)" :
			      " (address in use, or not an address of this machine?)");
		goto stop_sessions;
	}
	info = MHD_get_daemon_info(d.mhd, MHD_DAEMON_INFO_BIND_PORT);
	fprintf(stderr, "vmmprofd: listening on %s://%s%s%s:%u/ (users %s, %zu user%s)\n",
		tls ? "https" : "http", v6 ? "[" : "", host[0] ? host : "0.0.0.0", v6 ? "]" : "",
		info ? info->port : (unsigned)port, d.conf.users, d.users.n, d.users.n == 1 ? "" : "s");
	vpd_audit(&d, NULL, "start", NULL, "listening on %s port %u", host[0] ? host : "*",
		  info ? info->port : (unsigned)port);

	for (;;) {
		if (sigwait(&set, &sig))
			continue;
		if (sig == SIGHUP) {
			pthread_mutex_lock(&d.users_lock);
			vpd_users_refresh(&d, true);
			pthread_mutex_unlock(&d.users_lock);
			reopen_audit(&d);
			continue;
		}
		if (sig == SIGINT || sig == SIGTERM)
			break;
	}
	fprintf(stderr, "vmmprofd: %s: stopping\n", strsignal(sig));
	if (!pthread_create(&deadline, NULL, stop_deadline, NULL))
		pthread_detach(deadline);
	__atomic_store_n(&d.stopping, 1, __ATOMIC_SEQ_CST);
	vpd_guard_stop(&d);
	MHD_quiesce_daemon(d.mhd);
	vpd_sessions_shutdown(&d);      /* ends streams, closes recordings */
	MHD_stop_daemon(d.mhd);
	vpd_audit(&d, NULL, "stop", NULL, "%s", strsignal(sig));
	rc = 0;
stop_sessions:
	vpd_guard_free(&d);
	vpd_sessions_free(&d);
out:
	if (d.audit)
		fclose(d.audit);
	users_release(&d.users);
	free(cert);
	if (key) {
		memset(key, 0, strlen(key));
		free(key);
	}
	pthread_mutex_destroy(&d.users_lock);
	pthread_mutex_destroy(&d.audit_lock);
	return rc;
}
