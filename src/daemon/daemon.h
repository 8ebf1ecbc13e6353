/* daemon.h - vmmprofd internals shared by its files: the server, requests, replies */
#ifndef VP_DAEMON_H
#define VP_DAEMON_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "srv/conf.h"
#include "srv/route.h"
#include "srv/users.h"
#include "util/dirs.h"
#include "util/err.h"
#include "util/sbuf.h"

#define VPD_MAX_BODY (64 * 1024)       /* larger request bodies get 413 */
#define VPD_MAX_HEADERS (32 * 1024)    /* request line and headers: larger get 431 (JSON) */
/*
 * libmicrohttpd's memory per connection, where it reads the request line and
 * headers.  A header block that does not fit never reaches the daemon's code:
 * libmicrohttpd answers 431 itself with its built-in HTML page (its
 * REQUEST_TOO_BIG, fixed when libmicrohttpd is compiled; no option or
 * callback replaces it).  So the pool is four times VPD_MAX_HEADERS and the
 * handler enforces VPD_MAX_HEADERS with the API's JSON error; only header
 * blocks that do not fit in 128 KiB get the HTML (docs/daemon.md,
 * tests/cli/t10323-daemon-header-limit.sh).
 */
#define VPD_CONNECTION_MEMORY (4 * VPD_MAX_HEADERS)

struct vpd_sessions;
struct vpd_guard;

/* The running daemon; one per process, owned by vpd_run(). */
struct vpd {
	struct srv_conf conf;               /* defaults filled in */
	char *model_path[1];                /* conf.model_path as model_dirs_build() takes it */
	size_t n_model_path;
	const struct vp_dirs *dirs;         /* the user's directories, as vpd_run() was given them */

	pthread_mutex_t users_lock;
	struct users users;                 /* reloaded when the file changes */
	struct stat users_st;               /* the file as last read (size -1: read again) */
	char users_error[VP_ERR_MSG_MAX];   /* not "": it cannot be read, no user is accepted */
	unsigned users_gen;                 /* bumped on every change of users (atomic reads) */

	pthread_mutex_t audit_lock;
	FILE *audit;                        /* NULL: standard error */

	struct vpd_sessions *sessions;      /* NULL until the collector runs */
	struct vpd_guard *guard;            /* connections (guard.c) */
	struct MHD_Daemon *mhd;
	volatile int stopping;              /* set once shutdown starts (read by streams) */
	uint64_t requests;                  /* requests served (atomic increments) */
};

/* One request in progress (MHD's per-connection context). */
struct vpd_req {
	struct vpd *d;
	struct MHD_Connection *conn;
	const char *method, *url;
	struct sbuf body;
	bool too_big;
	struct user user;                   /* copy of the authenticated user */
	bool authed;
	char users_error[VP_ERR_MSG_MAX];   /* why no user is accepted, when so */
};

/*
 * Read the users file again when it changed (or force); under users_lock.
 * A file that cannot be read or parsed fails closed: no user until it can,
 * said once on standard error and in every refused request.
 */
void vpd_users_refresh(struct vpd *d, bool force);
/* A copy of the users (for revocation); heap: users_release() it. */
void vpd_users_snapshot(struct vpd *d, struct users *out, unsigned *gen);

/* Reply helpers: each queues a response and returns MHD's result; body's buffer is
 * taken (body is left empty, releasing it is optional). */
enum MHD_Result vpd_reply(struct vpd_req *r, unsigned status, const char *type, struct sbuf *body);
/* Headers every reply carries: no sniffing, never framed, only this origin's scripts. */
void vpd_safe_headers(struct MHD_Response *resp);
enum MHD_Result vpd_reply_json(struct vpd_req *r, unsigned status, struct sbuf *body);
enum MHD_Result vpd_reply_error(struct vpd_req *r, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A vp_err as an HTTP error: VP_ENOTFOUND 404, VP_EINVAL/VP_EPARSE 400, others 500. */
enum MHD_Result vpd_reply_err(struct vpd_req *r, const struct vp_err *err);

/*
 * One audit line: time, client address (of the request this thread serves;
 * "-" for the collector), user, action, session, result; every field escaped
 * by srv_audit_escape() (src/srv/route.h), so that a line is one event.
 */
void vpd_audit(struct vpd *d, const char *user, const char *action, const char *session,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Endpoints (api.c). */
enum MHD_Result vpd_api_whoami(struct vpd_req *r);
enum MHD_Result vpd_api_info(struct vpd_req *r);
enum MHD_Result vpd_api_vms(struct vpd_req *r);
enum MHD_Result vpd_api_models(struct vpd_req *r, const char *name);
enum MHD_Result vpd_api_recordings(struct vpd_req *r, const char *name);
/* Whether the user may read recording name (its owner, OWNER+..., or an admin). */
bool vpd_rec_visible(const struct vpd_req *r, const char *name);
enum MHD_Result vpd_static(struct vpd_req *r, const char *rel);


/*
 * The connection guard (guard.c): libmicrohttpd's accept policy and
 * connection notifications (cls is the struct vpd), and its watchdog
 * thread, which shuts down connections that have not sent a whole request
 * within request_timeout_s and calls vpd_tick() about five times a second.
 */
int vpd_guard_start(struct vpd *d);
void vpd_guard_stop(struct vpd *d);
void vpd_guard_free(struct vpd *d);
enum MHD_Result vpd_guard_accept(void *cls, const struct sockaddr *addr, socklen_t len);
void vpd_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe);
/* A request on conn was received whole (waiting false), or its reply was sent (true). */
void vpd_guard_request(struct vpd *d, struct MHD_Connection *conn, bool waiting);
/* Periodic work of the watchdog thread (server.c): the users file, ended sessions. */
void vpd_tick(struct vpd *d);

/* Privileges (privs.c): drop to user keeping CAP_PERFMON; prints what it kept. */
int vpd_drop_privileges(const char *user, struct vp_err *err);

#endif
