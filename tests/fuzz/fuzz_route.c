/* fuzz_route.c - libFuzzer harness for the daemon's handling of a request's
 * text (src/srv/route.c): the input, split at its first newline into a
 * method and a path, is percent-decoded as libmicrohttpd's unescape callback
 * does, routed for every role through the route table, its arguments
 * checked as the endpoints check them, and every part escaped as the audit
 * log writes it.  Checked: a '*' argument never holds a slash, a route is
 * forbidden only below its least role, an escaped field is one line of
 * printable ASCII or UTF-8 with no space or '=' outside the quotes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srv/route.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_escaped(const char *in, bool quoted)
{
	struct sbuf sb = SBUF_INIT;
	const unsigned char *p;

	srv_audit_escape(&sb, in, quoted);
	for (p = (const unsigned char *)sbuf_str(&sb); *p; p++) {
		if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
			abort();        /* a control character (C0, DEL, C1) would end or forge a line */
		if (!quoted && (*p == ' ' || *p == '=' || *p == '"'))
			abort();        /* a field would end early */
	}
	if (quoted) {               /* every '"' escaped: never a bare quote */
		for (p = (const unsigned char *)sbuf_str(&sb); *p; p++) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				abort();
		}
	}
	sbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *method, *url, *nl;
	char buf[1024], *args[SRV_ROUTE_ARGS];
	int role, route;

	memcpy(text, data, size);
	text[size] = 0;
	nl = strchr(text, '\n');
	if (nl) {
		*nl = 0;
		method = text;
		url = nl + 1;
	} else {
		method = (char *)"GET";
		url = text;
	}
	srv_unescape(url);
	check_escaped(method, false);
	check_escaped(url, true);
	for (role = ROLE_VIEWER; role <= ROLE_ADMIN; role++) {
		enum srv_route_result r = srv_route_find(method, url, (enum user_role)role, buf,
							 sizeof(buf), args, &route);

		if (r == SRV_ROUTE_OK || r == SRV_ROUTE_FORBIDDEN) {
			const struct srv_route *rt;
			size_t pl;

			if (route < 0 || route >= SRV_ROUTE_N)
				abort();
			rt = &srv_routes[route];
			if (strcmp(rt->method, method))
				abort();
			if ((r == SRV_ROUTE_FORBIDDEN) != (role < (int)rt->min_role))
				abort();
			pl = strlen(rt->path);
			if (r == SRV_ROUTE_OK && strchr(rt->path, '*')) {
				bool rest = pl > 3 && !strcmp(rt->path + pl - 3, "/**");

				if (!rest && strchr(args[0], '/'))
					abort();        /* one segment per '*' */
				if (!*args[0] && rest)
					abort();        /* "**" is never empty */
				(void)srv_name_ok(args[0]);
				check_escaped(args[0], false);
			}
		}
	}
	free(text);
	return 0;
}
