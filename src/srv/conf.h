/* conf.h - the daemon's configuration file (`key = value` lines) and listen addresses */
#ifndef VP_SRV_CONF_H
#define VP_SRV_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/sbuf.h"

#define SRV_DEFAULT_LISTEN "127.0.0.1:7767"

/*
 * Every setting; string fields are heap copies (NULL: not set).  The
 * command line overrides the file: srv_conf_set() is what both use.
 */
struct srv_conf {
	char *listen;          /* "ADDR:PORT", "[V6]:PORT" */
	char *users;           /* users file */
	char *tls_cert, *tls_key;
	bool allow_plain_http; /* plain HTTP on a non-loopback address */
	char *web_dir;         /* static web UI */
	char *recordings_dir;
	char *audit_log;       /* append-only; NULL: standard error */
	char *root;            /* fixture root ("/" live) */
	char *user;            /* drop to this user when started as root */
	char *calibration;     /* calibration file for the models' cal.* */
	char *model_path;      /* extra model directories, ':'-separated */
	bool metrics_auth_none;/* GET /metrics without a token */
	bool xen_numa_dump;    /* Xen: the collector asks for Xen's 'u' page dump (opt-in) */
	double xen_numa_every_s; /* at most this often (seconds, >= 0) when xen_numa_dump */
	bool xentrace;         /* Xen: exact residency from a running xentrace (opt-in) */
	bool xen_psr;          /* Xen: per-domain CMT/MBM through xl psr-cmt-* (opt-in) */
	bool xen_imc;          /* Xen dom0: the sessions' IMC counts from PCI config space
				  (src/source/imc_pci.h; opt-in) */
	/* resource limits (docs/reliability.md); -1 until set: srv_conf_defaults() */
	int max_connections;          /* connections at once, all addresses */
	int max_connections_per_address;
	int request_timeout_s;        /* a request's line, headers and body must arrive within this */
	int max_targets;              /* pids or VMs one session may name */
	int max_sessions;             /* sessions listed at once (running or ended), all users */
	int max_streams_per_user;     /* event streams one user may hold open */
	int session_keep_s;           /* an ended session (and its frames) is forgotten after this */
	int history_mib;              /* a session's history: at most this many MiB of frames */
};

/* The limits' defaults, for every limit still 0. */
void srv_conf_defaults(struct srv_conf *c);

void srv_conf_init(struct srv_conf *c);
void srv_conf_release(struct srv_conf *c);

/*
 * Set key to value (the config file's key names, '-' and '_' alike).
 * Returns VP_ENOTFOUND for an unknown key, VP_EINVAL for a bad value
 * (err says why, without a position: callers add it).
 */
int srv_conf_set(struct srv_conf *c, const char *key, const char *value, struct vp_err *err);

/*
 * Parse a configuration text: `key = value` lines, '#' comments, blank
 * lines; a value may be in double quotes.  Errors: "NAME:LINE:COL: message".
 */
int srv_conf_parse(struct srv_conf *c, const char *text, size_t len, const char *name,
		   struct vp_err *err);
/* A configuration file is a regular file of at most SRV_CONF_MAX_BYTES. */
#define SRV_CONF_MAX_BYTES ((size_t)1 << 20)
int srv_conf_load(struct srv_conf *c, const char *path, struct vp_err *err);
/* Every setting of c in the file's language (`key = "value"` lines, the
 * booleans too), which srv_conf_parse() reads back to the same settings. */
void srv_conf_format(const struct srv_conf *c, struct sbuf *out);

/*
 * Split "ADDR:PORT" ("[::1]:7767", "0.0.0.0:80", ":7767" = every address) into
 * host (NUL-terminated, brackets removed, "" for every address) and port.
 */
int srv_listen_parse(const char *s, char *host, size_t host_size, int *port, struct vp_err *err);
/* Whether host is a loopback address (127.0.0.0/8, ::1, "localhost"). */
bool srv_host_is_loopback(const char *host);

#endif
