/* conf.c - the daemon's configuration file (`key = value` lines) and listen addresses */
#include "srv/conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/fs.h"

void srv_conf_release(struct srv_conf *c)
{
	free(c->listen);
	free(c->users);
	free(c->tls_cert);
	free(c->tls_key);
	free(c->web_dir);
	free(c->recordings_dir);
	free(c->audit_log);
	free(c->root);
	free(c->user);
	free(c->calibration);
	free(c->model_path);
	srv_conf_init(c);
}

/* The string settings: their key and where they are kept. */
static const struct {
	const char *key;
	size_t off;
} strs[] = {
	{ "listen", offsetof(struct srv_conf, listen) },
	{ "users", offsetof(struct srv_conf, users) },
	{ "tls_cert", offsetof(struct srv_conf, tls_cert) },
	{ "tls_key", offsetof(struct srv_conf, tls_key) },
	{ "web_dir", offsetof(struct srv_conf, web_dir) },
	{ "recordings_dir", offsetof(struct srv_conf, recordings_dir) },
	{ "audit_log", offsetof(struct srv_conf, audit_log) },
	{ "root", offsetof(struct srv_conf, root) },
	{ "user", offsetof(struct srv_conf, user) },
	{ "calibration", offsetof(struct srv_conf, calibration) },
	{ "model_path", offsetof(struct srv_conf, model_path) },
};

/* The integer settings: key, where, smallest and largest value, default. */
static const struct {
	const char *key;
	size_t off;
	int min, max, def;
} ints[] = {
	{ "max_connections", offsetof(struct srv_conf, max_connections), 1, 100000, 512 },
	{ "max_connections_per_address", offsetof(struct srv_conf, max_connections_per_address),
	  1, 100000, 64 },
	{ "request_timeout_s", offsetof(struct srv_conf, request_timeout_s), 1, 3600, 10 },
	{ "max_targets", offsetof(struct srv_conf, max_targets), 1, 100000, 256 },
	{ "max_sessions", offsetof(struct srv_conf, max_sessions), 1, 100000, 64 },
	{ "max_streams_per_user", offsetof(struct srv_conf, max_streams_per_user), 1, 100000, 16 },
	{ "session_keep_s", offsetof(struct srv_conf, session_keep_s), 0, 31 * 86400, 600 },
	{ "history_mib", offsetof(struct srv_conf, history_mib), 1, 1 << 20, 64 },
};

static int *int_field(struct srv_conf *c, size_t i)
{
	return (int *)((char *)c + ints[i].off);
}

void srv_conf_init(struct srv_conf *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < VP_ARRAY_SIZE(ints); i++)
		*int_field(c, i) = -1;          /* unset: srv_conf_defaults() */
}

void srv_conf_defaults(struct srv_conf *c)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(ints); i++)
		if (*int_field(c, i) < 0)
			*int_field(c, i) = ints[i].def;
}

static char *const *str_field(const struct srv_conf *c, size_t i)
{
	return (char *const *)((const char *)c + strs[i].off);
}

void srv_conf_format(const struct srv_conf *c, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(strs); i++)
		if (*str_field(c, i))
			sbuf_addf(out, "%s = \"%s\"\n", strs[i].key, *str_field(c, i));
	sbuf_addf(out, "allow_plain_http = %s\n", c->allow_plain_http ? "true" : "false");
	sbuf_addf(out, "metrics_auth = %s\n", c->metrics_auth_none ? "none" : "token");
	for (i = 0; i < VP_ARRAY_SIZE(ints); i++)
		if (*int_field((struct srv_conf *)c, i) >= 0)
			sbuf_addf(out, "%s = %d\n", ints[i].key, *int_field((struct srv_conf *)c, i));
	if (c->xen_numa_dump)
		sbuf_addf(out, "xen_numa_dump = %.17g\n", c->xen_numa_every_s);
	else
		sbuf_addstr(out, "xen_numa_dump = off\n");
	sbuf_addf(out, "xentrace = %s\n", c->xentrace ? "on" : "off");
	sbuf_addf(out, "xen_psr = %s\n", c->xen_psr ? "on" : "off");
	sbuf_addf(out, "xen_imc = %s\n", c->xen_imc ? "on" : "off");
}

static int parse_bool(const char *v, bool *out, struct vp_err *err)
{
	if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return vp_err_set(err, VP_EINVAL, "expected true or false, not '%s'", v);
	return 0;
}

/*
 * xen_numa_dump: seconds between dumps (as --xen-numa-dump=SECS), or a
 * boolean: on is the command line's default of 60 s, off turns it off.
 */
static int parse_xen_numa(struct srv_conf *c, const char *v, struct vp_err *err)
{
	bool on;
	char *end;
	double s;

	if (!parse_bool(v, &on, NULL) && strcmp(v, "0") && strcmp(v, "1")) {
		c->xen_numa_dump = on;
		c->xen_numa_every_s = 60;
		return 0;
	}
	s = strtod(v, &end);
	if (!*v || *end || !(s >= 0) || s > 86400)
		return vp_err_set(err, VP_EINVAL, "xen_numa_dump is seconds from 0 to 86400, "
				  "on or off, not '%s'", v);
	c->xen_numa_dump = true;
	c->xen_numa_every_s = s;
	return 0;
}

int srv_conf_set(struct srv_conf *c, const char *key, const char *value, struct vp_err *err)
{
	char k[32];
	size_t i;

	snprintf(k, sizeof(k), "%s", key);
	for (i = 0; k[i]; i++)
		if (k[i] == '-')
			k[i] = '_';
	for (i = 0; i < VP_ARRAY_SIZE(strs); i++) {
		if (!strcmp(k, strs[i].key)) {
			char **p = (char **)str_field(c, i);

			if (!*value)
				return vp_err_set(err, VP_EINVAL, "'%s' needs a value", key);
			if (!strcmp(k, "listen")) {
				char host[256];
				int port, ret = srv_listen_parse(value, host, sizeof(host), &port, err);

				if (ret)
					return ret;
			}
			free(*p);
			*p = xstrdup(value);
			return 0;
		}
	}
	for (i = 0; i < VP_ARRAY_SIZE(ints); i++) {
		if (!strcmp(k, ints[i].key)) {
			char *end;
			long v;

			errno = 0;
			v = strtol(value, &end, 10);
			if (!*value || *end || errno || v < ints[i].min || v > ints[i].max)
				return vp_err_set(err, VP_EINVAL, "%s is an integer from %d to %d, not '%s'",
						  ints[i].key, ints[i].min, ints[i].max, value);
			*int_field(c, i) = (int)v;
			return 0;
		}
	}
	if (!strcmp(k, "allow_plain_http"))
		return parse_bool(value, &c->allow_plain_http, err);
	if (!strcmp(k, "xen_numa_dump"))
		return parse_xen_numa(c, value, err);
	if (!strcmp(k, "xentrace"))
		return parse_bool(value, &c->xentrace, err);
	if (!strcmp(k, "xen_psr"))
		return parse_bool(value, &c->xen_psr, err);
	if (!strcmp(k, "xen_imc"))
		return parse_bool(value, &c->xen_imc, err);
	if (!strcmp(k, "metrics_auth")) {
		if (!strcmp(value, "none"))
			c->metrics_auth_none = true;
		else if (!strcmp(value, "token"))
			c->metrics_auth_none = false;
		else
			return vp_err_set(err, VP_EINVAL, "metrics_auth is 'token' or 'none', not '%s'",
					  value);
		return 0;
	}
	return vp_err_set(err, VP_ENOTFOUND, "unknown setting '%s'", key);
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t';
}

int srv_conf_parse(struct srv_conf *c, const char *text, size_t len, const char *name,
		   struct vp_err *err)
{
	size_t pos = 0;
	int lno = 0, ret = 0;
	char *line = NULL;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - text - pos) : len - pos, i, ks, ke, vs, ve;

		lno++;
		free(line);
		line = xstrndup(text + pos, ll);
		pos += ll + (nl ? 1 : 0);
		if (strlen(line) != ll) {
			ret = vp_err_set(err, VP_EPARSE, "%s:%d:%zu: NUL byte in the line", name, lno,
					 strlen(line) + 1);
			goto out;
		}
		if (ll && line[ll - 1] == '\r')
			line[--ll] = 0;
		for (i = 0; i < ll && is_space(line[i]); i++)
			;
		if (i == ll || line[i] == '#')
			continue;
		ks = i;
		while (i < ll && (line[i] == '_' || line[i] == '-' || (line[i] >= 'a' && line[i] <= 'z') ||
				  (line[i] >= '0' && line[i] <= '9')))
			i++;
		ke = i;
		if (ke == ks) {
			ret = vp_err_set(err, VP_EPARSE, "%s:%d:%zu: expected a setting name", name, lno,
					 ks + 1);
			goto out;
		}
		while (i < ll && is_space(line[i]))
			i++;
		if (i == ll || line[i] != '=') {
			ret = vp_err_set(err, VP_EPARSE, "%s:%d:%zu: expected '=' after '%.*s'", name, lno,
					 i + 1, (int)(ke - ks), line + ks);
			goto out;
		}
		i++;
		while (i < ll && is_space(line[i]))
			i++;
		vs = i;
		ve = ll;
		while (ve > vs && is_space(line[ve - 1]))
			ve--;
		if (ve > vs && line[vs] == '"') {
			if (ve - vs < 2 || line[ve - 1] != '"') {
				ret = vp_err_set(err, VP_EPARSE, "%s:%d:%zu: unterminated quoted value", name,
						 lno, vs + 1);
				goto out;
			}
			vs++;
			ve--;
		}
		line[ke] = 0;
		line[ve] = 0;
		ret = srv_conf_set(c, line + ks, line + vs, err);
		if (ret) {
			vp_err_prefix(err, "%s:%d:%zu", name, lno, ret == VP_ENOTFOUND ? ks + 1 : vs + 1);
			ret = err ? err->code = VP_EPARSE : VP_EPARSE;
			goto out;
		}
	}
out:
	free(line);
	return ret;
}

int srv_conf_load(struct srv_conf *c, const char *path, struct vp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int ret = vp_read_regular(path, SRV_CONF_MAX_BYTES, &text, &len, err);

	if (ret)
		return ret;
	ret = srv_conf_parse(c, text, len, path, err);
	free(text);
	return ret;
}

int srv_listen_parse(const char *s, char *host, size_t host_size, int *port, struct vp_err *err)
{
	const char *colon, *h = s, *he;
	char *end;
	long p;

	if (s[0] == '[') {
		he = strchr(s, ']');
		if (!he || he[1] != ':')
			return vp_err_set(err, VP_EINVAL, "invalid listen address '%s' (expected "
					  "[ADDR]:PORT)", s);
		h = s + 1;
		colon = he + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return vp_err_set(err, VP_EINVAL, "invalid listen address '%s' (expected "
					  "ADDR:PORT)", s);
		he = colon;
		if (memchr(s, ':', (size_t)(colon - s)))
			return vp_err_set(err, VP_EINVAL, "invalid listen address '%s' (an IPv6 "
					  "address goes in brackets: [ADDR]:PORT)", s);
	}
	p = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || p < 0 || p > 65535)
		return vp_err_set(err, VP_EINVAL, "invalid port '%s' in listen address '%s'",
				  colon + 1, s);
	if ((size_t)(he - h) >= host_size)
		return vp_err_set(err, VP_EINVAL, "listen address '%s' is too long", s);
	memcpy(host, h, (size_t)(he - h));
	host[he - h] = 0;
	*port = (int)p;
	if (host[0] && strcmp(host, "localhost")) {
		unsigned char buf[16];

		if (inet_pton(s[0] == '[' ? AF_INET6 : AF_INET, host, buf) != 1)
			return vp_err_set(err, VP_EINVAL, "invalid address '%s' in listen address '%s' "
					  "(a numeric IPv4 or [IPv6] address)", host, s);
	}
	return 0;
}

bool srv_host_is_loopback(const char *host)
{
	unsigned char a[16];

	if (!strcmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	if (inet_pton(AF_INET6, host, a) == 1) {
		static const unsigned char lo[16] = { [15] = 1 };

		return !memcmp(a, lo, 16);
	}
	return false;
}
