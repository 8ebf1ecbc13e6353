/* route.c - the daemon's route table, path matching, percent-decoding, names, audit escaping */
#include "srv/route.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct srv_route srv_routes[SRV_ROUTE_N] = {
	[SRV_R_WHOAMI] = { "GET", "/api/v1/whoami", ROLE_VIEWER },
	[SRV_R_INFO] = { "GET", "/api/v1/info", ROLE_VIEWER },
	[SRV_R_VMS] = { "GET", "/api/v1/vms", ROLE_VIEWER },
	[SRV_R_MODELS] = { "GET", "/api/v1/models", ROLE_VIEWER },
	[SRV_R_MODEL] = { "GET", "/api/v1/models/**", ROLE_VIEWER },
	[SRV_R_RECS] = { "GET", "/api/v1/recordings", ROLE_VIEWER },
	[SRV_R_REC] = { "GET", "/api/v1/recordings/**", ROLE_VIEWER },
	[SRV_R_COLLECTOR] = { "GET", "/api/v1/collector", ROLE_VIEWER },
	[SRV_R_SESSIONS] = { "GET", "/api/v1/sessions", ROLE_VIEWER },
	[SRV_R_SESSION_NEW] = { "POST", "/api/v1/sessions", ROLE_OPERATOR },
	[SRV_R_SESSION] = { "GET", "/api/v1/sessions/*", ROLE_VIEWER },
	[SRV_R_SESSION_DEL] = { "DELETE", "/api/v1/sessions/*", ROLE_OPERATOR },
	[SRV_R_STREAM] = { "GET", "/api/v1/sessions/*/stream", ROLE_VIEWER },
	[SRV_R_HISTORY] = { "GET", "/api/v1/sessions/*/history", ROLE_VIEWER },
	[SRV_R_DIAGNOSIS] = { "GET", "/api/v1/sessions/*/diagnosis", ROLE_VIEWER },
	[SRV_R_TOP] = { "GET", "/api/v1/top/stream", ROLE_VIEWER },
};

/* Split path into at most max segments (modified in place); -1 when more. */
static int split(char *path, char **seg, int max)
{
	int n = 0;
	char *p = path;

	if (*p == '/')
		p++;
	while (*p || n == 0) {
		char *s = strchr(p, '/');

		if (n == max)
			return -1;
		seg[n++] = p;
		if (!s)
			break;
		*s = 0;
		p = s + 1;
		if (!*p) {               /* trailing slash: an empty last segment */
			if (n == max)
				return -1;
			seg[n++] = p;
			break;
		}
	}
	return n;
}

static bool route_match(const char *pattern, const char *url, char **args, int *nargs,
			char *buf, size_t size)
{
	char pat[128], *ps[12], *us[12];
	size_t pl = strlen(pattern);
	int np, nu, i;

	/* a pattern ending in a "**" segment: the rest of the path, slashes and all, is one argument */
	if (pl > 3 && !strcmp(pattern + pl - 3, "/**")) {
		if (strncmp(url, pattern, pl - 2) || !url[pl - 2])
			return false;
		snprintf(buf, size, "%s", url + pl - 2);
		args[0] = buf;
		*nargs = 1;
		return true;
	}
	snprintf(pat, sizeof(pat), "%s", pattern);
	snprintf(buf, size, "%s", url);
	np = split(pat, ps, 12);
	nu = split(buf, us, 12);
	if (np < 0 || nu != np)
		return false;
	*nargs = 0;
	for (i = 0; i < np; i++) {
		if (!strcmp(ps[i], "*")) {
			if (*nargs == SRV_ROUTE_ARGS)
				return false;
			args[(*nargs)++] = us[i];
		}
		else if (strcmp(ps[i], us[i]))
			return false;
	}
	return true;
}

enum srv_route_result srv_route_find(const char *method, const char *url, enum user_role role,
				     char *buf, size_t size, char **args, int *route)
{
	bool path_ok = false;
	int i, nargs;

	if (strlen(url) >= size)
		return SRV_ROUTE_NONE;
	for (i = 0; i < SRV_ROUTE_N; i++) {
		if (!route_match(srv_routes[i].path, url, args, &nargs, buf, size))
			continue;
		path_ok = true;
		if (strcmp(srv_routes[i].method, method))
			continue;
		*route = i;
		return role < srv_routes[i].min_role ? SRV_ROUTE_FORBIDDEN : SRV_ROUTE_OK;
	}
	return path_ok ? SRV_ROUTE_METHOD : SRV_ROUTE_NONE;
}

size_t srv_unescape(char *s)
{
	char *w = s, *p = s;

	while (*p) {
		if (p[0] == '%' && p[1] && p[2] && strchr("0123456789abcdefABCDEF", p[1]) &&
		    strchr("0123456789abcdefABCDEF", p[2])) {
			char hx[3] = { p[1], p[2], 0 };
			char ch = (char)strtol(hx, NULL, 16);

			*w++ = ch ? ch : '\x01';
			p += 3;
		} else {
			*w++ = *p++;
		}
	}
	*w = 0;
	return (size_t)(w - s);
}

bool srv_name_ok(const char *name)
{
	const char *p;

	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || name[0] == '.')
		return false;
	for (p = name; *p; p++)
		if (*p == '/' || *p == '\\' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return !strstr(name, "..");
}

/* Length of the valid UTF-8 sequence at p (2 to 4 bytes), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n, i;
	unsigned cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void srv_audit_escape(struct sbuf *sb, const char *s, bool quoted)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p >= 0x80 ? utf8_len(p) : 0;

		/* U+0080..U+009F are control characters too (C1: U+009B is a terminal's CSI) */
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
			n = 0;
		if (n) {
			sbuf_add(sb, p, n);
			p += n;
			continue;
		}
		if (quoted && (*p == '"' || *p == '\\'))
			sbuf_addf(sb, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\' ||
			 (!quoted && (*p == ' ' || *p == '=')))
			sbuf_addf(sb, "\\x%02x", *p);
		else
			sbuf_addch(sb, (char)*p);
		p++;
	}
}
