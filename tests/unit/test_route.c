/* test_route.c - the daemon's route table and client text (src/srv/route.c):
 * expectations from docs/api.md's endpoint table and the audit format of
 * docs/daemon.md, written by hand */
#include "test.h"

#include <string.h>

#include "srv/route.h"
#include "util/sbuf.h"

static enum srv_route_result find(const char *method, const char *url, enum user_role role,
				  int *route, char *arg, size_t size)
{
	char buf[1024], *args[SRV_ROUTE_ARGS] = { 0 };
	enum srv_route_result r;

	*route = -1;
	r = srv_route_find(method, url, role, buf, sizeof(buf), args, route);
	snprintf(arg, size, "%s", r == SRV_ROUTE_OK && args[0] ? args[0] : "");
	return r;
}

TEST(route_table_as_api_md_says)
{
	char arg[256];
	int rt;

	CHECK_INT(find("GET", "/api/v1/whoami", ROLE_VIEWER, &rt, arg, sizeof(arg)), SRV_ROUTE_OK);
	CHECK_INT(rt, SRV_R_WHOAMI);
	CHECK_INT(find("GET", "/api/v1/sessions/s12/stream", ROLE_VIEWER, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_OK);
	CHECK_INT(rt, SRV_R_STREAM);
	CHECK_STR(arg, "s12");
	/* a viewer may list sessions but not start or stop one: 403 */
	CHECK_INT(find("POST", "/api/v1/sessions", ROLE_VIEWER, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_FORBIDDEN);
	CHECK_INT(find("DELETE", "/api/v1/sessions/s1", ROLE_VIEWER, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_FORBIDDEN);
	CHECK_INT(find("DELETE", "/api/v1/sessions/s1", ROLE_OPERATOR, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_OK);
	CHECK_INT(rt, SRV_R_SESSION_DEL);
	/* the path exists with other methods: 405 */
	CHECK_INT(find("PUT", "/api/v1/whoami", ROLE_ADMIN, &rt, arg, sizeof(arg)), SRV_ROUTE_METHOD);
	CHECK_INT(find("GET", "/api/v1/nothing", ROLE_ADMIN, &rt, arg, sizeof(arg)), SRV_ROUTE_NONE);
	/* one segment per '*': a session id never holds a slash */
	CHECK_INT(find("GET", "/api/v1/sessions/a/b", ROLE_ADMIN, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_NONE);
	CHECK_INT(find("GET", "/api/v1/sessions/s1/", ROLE_ADMIN, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_NONE);
	/* "**": the rest of the path is one argument, which the endpoint checks */
	CHECK_INT(find("GET", "/api/v1/recordings/a/b", ROLE_VIEWER, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_OK);
	CHECK_INT(rt, SRV_R_REC);
	CHECK_STR(arg, "a/b");
	CHECK_INT(find("GET", "/api/v1/recordings/", ROLE_VIEWER, &rt, arg, sizeof(arg)),
		  SRV_ROUTE_NONE);
}

TEST(route_url_longer_than_buffer_is_no_route)
{
	char buf[8], *args[SRV_ROUTE_ARGS];   /* "/api/v1/whoami" is 14 bytes */
	int rt = -1;

	CHECK_INT(srv_route_find("GET", "/api/v1/whoami", ROLE_ADMIN, buf, sizeof(buf), args, &rt),
		  SRV_ROUTE_NONE);
}

TEST(route_unescape_keeps_names_whole)
{
	char s[] = "a%2fb%0A%00c%zz%4";

	/* a / b \n \x01 c % z z % 4: 11 bytes, the bad escapes kept as they are */
	CHECK_INT(srv_unescape(s), 11);
	CHECK(!memcmp(s, "a/b\n\x01" "c%zz%4", 12));
}

TEST(route_name_ok)
{
	CHECK(srv_name_ok("op+20260101-000000-s1.vmmdb"));
	CHECK(!srv_name_ok(""));
	CHECK(!srv_name_ok(".hidden"));
	CHECK(!srv_name_ok(".."));
	CHECK(!srv_name_ok("a..b"));
	CHECK(!srv_name_ok("a/b"));
	CHECK(!srv_name_ok("a\\b"));
	CHECK(!srv_name_ok("a\nb"));
	CHECK(!srv_name_ok("a\x7f"));
}

TEST(route_audit_escape)
{
	struct sbuf sb = SBUF_INIT;

	/* outside quotes: space, '=', newline, a lone 0xff byte, ESC escaped; UTF-8 kept */
	srv_audit_escape(&sb, "a b=c\n\xff\x1b]\xc3\xa9", false);
	CHECK_STR(sbuf_str(&sb), "a\\x20b\\x3dc\\x0a\\xff\\x1b]\xc3\xa9");
	sbuf_reset(&sb);
	/* inside quotes: quote and backslash as \" and \\, space kept */
	srv_audit_escape(&sb, "say \"x\\y\"\r", true);
	CHECK_STR(sbuf_str(&sb), "say \\\"x\\\\y\\\"\\x0d");
	sbuf_reset(&sb);
	/* C1 controls in UTF-8 (U+009B: a terminal's CSI) are escaped, U+00A0 kept */
	srv_audit_escape(&sb, "\xc2\x9b" "2J\xc2\xa0", true);
	CHECK_STR(sbuf_str(&sb), "\\xc2\\x9b" "2J\xc2\xa0");
	sbuf_reset(&sb);
	/* an overlong encoding and a surrogate are not UTF-8 */
	srv_audit_escape(&sb, "\xc0\xaf\xed\xa0\x80", true);
	CHECK_STR(sbuf_str(&sb), "\\xc0\\xaf\\xed\\xa0\\x80");
	sbuf_release(&sb);
}
