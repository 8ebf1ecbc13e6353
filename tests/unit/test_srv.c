/* test_srv.c - unit tests for src/srv: the users file, token hashing, the daemon's configuration */
#include "test.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "srv/conf.h"
#include "srv/users.h"
#include "util/alloc.h"

static void hex(const uint8_t *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/*
 * FIPS 180-2 appendix B.2: SHA-256 of the 56-byte message
 * "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq" is
 * 248d6a61 d20638b8 e5c02693 0c3e6039 a33ce459 64ff2167 f6ecedd4 19db06c1.
 * Its first 16 bytes serve as the salt, the other 40 as the token.
 */
TEST(token_hash_fips_vector)
{
	const uint8_t *salt = (const uint8_t *)"abcdbcdecdefdefg";
	const char *token = "efghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t h[USER_HASH_LEN];
	char hx[2 * USER_HASH_LEN + 1];

	if (token_hash(salt, token, strlen(token), h) == VP_EDEP)
		SKIP("built without nettle");
	hex(h, sizeof(h), hx);
	CHECK_STR(hx, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(mem_equal_ct)
{
	CHECK(mem_equal_ct("abcd", "abcd", 4));
	CHECK(!mem_equal_ct("abcd", "abce", 4));
	CHECK(!mem_equal_ct("xbcd", "abcd", 4));
	CHECK(mem_equal_ct("a", "b", 0));
}

/* A line whose hash is the FIPS vector above: token "efgh...nopq" authenticates as carol. */
#define SALT_HEX "61626364626364656364656664656667"
#define HASH_HEX "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
#define GOOD "carol:operator:" SALT_HEX ":" HASH_HEX ":2:10:500"

static const struct {
	int line;
	const char *text;
	int ret;
	const char *msg;     /* expected message start (file:line:col: ...) */
} users_rows[] = {
	{ __LINE__, GOOD "\n", 0, NULL },
	{ __LINE__, "# comment\n\n" GOOD, 0, NULL },
	{ __LINE__, GOOD "\r\n", 0, NULL },
	{ __LINE__, "carol:operator", VP_EPARSE, "u:1:15: expected 7 fields" },
	{ __LINE__, "\n" GOOD ":x", VP_EPARSE, "u:2:" },
	{ __LINE__, "ca rol:operator:" SALT_HEX ":" HASH_HEX ":0:0:0", VP_EPARSE,
	  "u:1:1: invalid user name 'ca rol'" },
	{ __LINE__, "carol:root:" SALT_HEX ":" HASH_HEX ":0:0:0", VP_EPARSE,
	  "u:1:7: unknown role 'root'" },
	/* columns: "carol:operator:" is 15 characters, the salt starts at 16, the hash at 49,
	 * max_sessions at 114 */
	{ __LINE__, "carol:operator:61z23:" HASH_HEX ":0:0:0", VP_EPARSE,
	  "u:1:18: salt must be 32 hex digits" },
	{ __LINE__, "carol:operator:6162:" HASH_HEX ":0:0:0", VP_EPARSE,
	  "u:1:20: salt must be 32 hex digits" },
	{ __LINE__, "carol:operator:" SALT_HEX ":abc:0:0:0", VP_EPARSE,
	  "u:1:52: token hash must be 64 hex digits" },
	{ __LINE__, "carol:operator:" SALT_HEX ":" HASH_HEX ":-1:0:0", VP_EPARSE,
	  "u:1:114: max_sessions must be a non-negative integer" },
	{ __LINE__, "carol:operator:" SALT_HEX ":" HASH_HEX ":1:1:99999999999", VP_EPARSE,
	  "u:1:118: min_interval_ms must be a non-negative integer" },
	{ __LINE__, GOOD "\n" GOOD "\n", VP_EPARSE, "u:2:1: user 'carol' is listed twice" },
};

TEST(users_parse_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(users_rows); i++) {
		struct users u;
		struct vp_err err = { 0, "" };
		int ret;

		users_init(&u);
		ret = users_parse(&u, users_rows[i].text, strlen(users_rows[i].text), "u", &err);
		CHECK_INT_AT(users_rows[i].line, ret, users_rows[i].ret);
		if (users_rows[i].msg)
			CHECK_AT(users_rows[i].line, !strncmp(err.msg, users_rows[i].msg,
							      strlen(users_rows[i].msg)),
				 "message '%s', expected '%s...'", err.msg, users_rows[i].msg);
		if (!ret) {
			CHECK_INT_AT(users_rows[i].line, u.n, 1);
			CHECK_STR_AT(users_rows[i].line, u.v[0].name, "carol");
			CHECK_INT_AT(users_rows[i].line, u.v[0].role, ROLE_OPERATOR);
			CHECK_INT_AT(users_rows[i].line, u.v[0].lim.max_sessions, 2);
			CHECK_INT_AT(users_rows[i].line, u.v[0].lim.max_events, 10);
			CHECK_INT_AT(users_rows[i].line, u.v[0].lim.min_interval_ms, 500);
			CHECK_INT_AT(users_rows[i].line, u.v[0].salt[0], 'a');
			CHECK_INT_AT(users_rows[i].line, u.v[0].hash[31], 0xc1);
		}
		users_release(&u);
	}
}

TEST(users_auth_and_roundtrip)
{
	struct users u, u2;
	struct vp_err err = { 0, "" };
	struct user_limits lim = { 1, 2, 3 };
	struct sbuf sb = SBUF_INIT;
	char tok[USER_TOKEN_LEN + 1], tok2[USER_TOKEN_LEN + 1];
	const char *text = GOOD "\n";
	size_t i;

	uint8_t zero[USER_SALT_LEN] = { 0 }, h[USER_HASH_LEN];

	if (token_hash(zero, "", 0, h) == VP_EDEP)
		SKIP("built without nettle");
	users_init(&u);
	CHECK_INT(users_parse(&u, text, strlen(text), "u", &err), 0);
	/* the FIPS vector's second part is carol's token */
	CHECK(users_auth(&u, "efghfghighijhijkijkljklmklmnlmnomnopnopq") == &u.v[0]);
	CHECK(users_auth(&u, "efghfghighijhijkijkljklmklmnlmnomnopnopr") == NULL);
	CHECK(users_auth(&u, "") == NULL);
	CHECK_INT(users_add(&u, "dave", ROLE_VIEWER, &lim, tok, &err), 0);
	CHECK_INT(strlen(tok), USER_TOKEN_LEN);
	for (i = 0; i < USER_TOKEN_LEN; i++)
		CHECK(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", tok[i]));
	CHECK_INT(users_add(&u, "erin", ROLE_ADMIN, &lim, tok2, &err), 0);
	CHECK(strcmp(tok, tok2) != 0);
	CHECK_INT(users_add(&u, "dave", ROLE_ADMIN, &lim, tok2, &err), -EEXIST);
	CHECK_INT(users_add(&u, "../x", ROLE_ADMIN, &lim, tok2, &err), VP_EINVAL);
	CHECK(users_auth(&u, tok) == users_find(&u, "dave"));
	/* the salts differ, so do the hashes of one token for two users */
	CHECK(memcmp(users_find(&u, "dave")->salt, users_find(&u, "erin")->salt, USER_SALT_LEN));
	users_format(&u, &sb);
	CHECK(!strstr(sbuf_str(&sb), tok));
	users_init(&u2);
	CHECK_INT(users_parse(&u2, sb.buf, sb.len, "u2", &err), 0);
	CHECK_INT(u2.n, 3);
	CHECK(users_auth(&u2, tok) == users_find(&u2, "dave"));
	CHECK_INT(users_find(&u2, "dave")->lim.min_interval_ms, 3);
	CHECK_INT(users_remove(&u2, "dave", &err), 0);
	CHECK(users_auth(&u2, tok) == NULL);
	CHECK_INT(users_remove(&u2, "dave", &err), VP_ENOTFOUND);
	users_release(&u2);
	users_release(&u);
	sbuf_release(&sb);
}

static const struct {
	int line;
	const char *text;
	int ret;
	const char *msg;
} conf_rows[] = {
	{ __LINE__, "listen = 0.0.0.0:8080\n# c\n\nusers=/etc/u\n", 0, NULL },
	{ __LINE__, "  web-dir = \"/srv/web ui\"  \n", 0, NULL },
	{ __LINE__, "allow_plain_http = yes\nmetrics_auth = none\n", 0, NULL },
	{ __LINE__, "listen 1.2.3.4:80\n", VP_EPARSE, "c:1:8: expected '=' after 'listen'" },
	{ __LINE__, "\n  colour = red\n", VP_EPARSE, "c:2:3: unknown setting 'colour'" },
	{ __LINE__, "allow_plain_http = maybe\n", VP_EPARSE, "c:1:20: expected true or false" },
	{ __LINE__, "listen = 1.2.3.4\n", VP_EPARSE, "c:1:10: invalid listen address" },
	{ __LINE__, "listen = 1.2.3.4:70000\n", VP_EPARSE, "c:1:10: invalid port '70000'" },
	{ __LINE__, "listen = ::1:80\n", VP_EPARSE, "c:1:10: invalid listen address '::1:80' (an IPv6" },
	{ __LINE__, "users = \"/x\n", VP_EPARSE, "c:1:9: unterminated quoted value" },
	{ __LINE__, "users =\n", VP_EPARSE, "c:1:8: 'users' needs a value" },
	{ __LINE__, "= x\n", VP_EPARSE, "c:1:1: expected a setting name" },
	{ __LINE__, "metrics_auth = open\n", VP_EPARSE, "c:1:16: metrics_auth is 'token' or 'none'" },
	{ __LINE__, "xen_numa_dump = 30\nxen-numa-dump = off\n", 0, NULL },
	{ __LINE__, "xen_numa_dump = soon\n", VP_EPARSE,
	  "c:1:17: xen_numa_dump is seconds from 0 to 86400, on or off, not 'soon'" },
	{ __LINE__, "xen_numa_dump = -1\n", VP_EPARSE, "c:1:17: xen_numa_dump is seconds" },
	{ __LINE__, "xen_numa_dump = 86401\n", VP_EPARSE, "c:1:17: xen_numa_dump is seconds" },
	{ __LINE__, "xen_numa_dump = nan\n", VP_EPARSE, "c:1:17: xen_numa_dump is seconds" },
	{ __LINE__, "xen_numa_dump =\n", VP_EPARSE, "c:1:16: xen_numa_dump is seconds" },
};

/* xen_numa_dump: seconds as --xen-numa-dump=SECS (0 and 1 are seconds, not
 * booleans), on = the command line's default of 60 s, off */
static const struct {
	int line;
	const char *text;
	bool on;
	double every_s;
} xen_rows[] = {
	{ __LINE__, "", false, 0 },
	{ __LINE__, "xen_numa_dump = 0\n", true, 0 },
	{ __LINE__, "xen_numa_dump = 1\n", true, 1 },
	{ __LINE__, "xen_numa_dump = 2.5\n", true, 2.5 },
	{ __LINE__, "xen-numa-dump = on\n", true, 60 },
	{ __LINE__, "xen_numa_dump = \"yes\"\n", true, 60 },
	{ __LINE__, "xen_numa_dump = 5\nxen_numa_dump = off\n", false, 60 },
};

TEST(conf_xen_numa_dump)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(xen_rows); i++) {
		struct srv_conf c;
		struct vp_err err = { 0, "" };

		srv_conf_init(&c);
		CHECK_INT_AT(xen_rows[i].line, srv_conf_parse(&c, xen_rows[i].text,
							      strlen(xen_rows[i].text), "c", &err), 0);
		CHECK_AT(xen_rows[i].line, c.xen_numa_dump == xen_rows[i].on, "on %d", c.xen_numa_dump);
		if (c.xen_numa_dump)
			CHECK_AT(xen_rows[i].line, c.xen_numa_every_s == xen_rows[i].every_s,
				 "every %g s, expected %g", c.xen_numa_every_s, xen_rows[i].every_s);
		srv_conf_release(&c);
	}
}

TEST(conf_parse_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(conf_rows); i++) {
		struct srv_conf c;
		struct vp_err err = { 0, "" };
		int ret;

		srv_conf_init(&c);
		ret = srv_conf_parse(&c, conf_rows[i].text, strlen(conf_rows[i].text), "c", &err);
		CHECK_INT_AT(conf_rows[i].line, ret, conf_rows[i].ret);
		if (conf_rows[i].msg)
			CHECK_AT(conf_rows[i].line, !strncmp(err.msg, conf_rows[i].msg,
							     strlen(conf_rows[i].msg)),
				 "message '%s', expected '%s...'", err.msg, conf_rows[i].msg);
		srv_conf_release(&c);
	}
}

TEST(conf_values)
{
	struct srv_conf c;
	struct vp_err err = { 0, "" };
	const char *t = "listen = [::1]:7768\nweb-dir = \"/srv/web ui\"\nallow-plain-http = on\n"
			"metrics_auth = none\n";

	srv_conf_init(&c);
	CHECK_INT(srv_conf_parse(&c, t, strlen(t), "c", &err), 0);
	CHECK_STR(c.listen, "[::1]:7768");
	CHECK_STR(c.web_dir, "/srv/web ui");
	CHECK(c.allow_plain_http);
	CHECK(c.metrics_auth_none);
	CHECK(c.users == NULL);
	srv_conf_release(&c);
}

/* srv_conf_format(): the settings in the file's language, read back the same */
TEST(conf_format_roundtrip)
{
	struct srv_conf c, back;
	struct sbuf sb = SBUF_INIT, again = SBUF_INIT;
	struct vp_err err = { 0, "" };
	const char *t = "listen = [::1]:7768\nweb-dir = \"/srv/web ui\"\nallow-plain-http = on\n"
			"root = \"\"quoted\" \"\nxen-numa-dump = 0.25\nxentrace = yes\nxen_psr = on\n"
			"xen-imc = on\n";

	srv_conf_init(&c);
	srv_conf_init(&back);
	CHECK_INT(srv_conf_parse(&c, t, strlen(t), "c", &err), 0);
	srv_conf_format(&c, &sb);
	/* written by hand: the string settings in table order, quoted, then the booleans */
	CHECK_STR(sbuf_str(&sb), "listen = \"[::1]:7768\"\nweb_dir = \"/srv/web ui\"\n"
				 "root = \"\"quoted\" \"\nallow_plain_http = true\nmetrics_auth = token\n"
				 "xen_numa_dump = 0.25\nxentrace = on\nxen_psr = on\nxen_imc = on\n");
	CHECK_INT(srv_conf_parse(&back, sb.buf, sb.len, "back", &err), 0);
	CHECK_STR(back.root, "\"quoted\" ");
	srv_conf_format(&back, &again);
	CHECK_STR(sbuf_str(&again), sbuf_str(&sb));
	sbuf_release(&sb);
	sbuf_release(&again);
	srv_conf_release(&back);
	srv_conf_release(&c);
}

static const struct {
	int line;
	const char *in;
	int ret;
	const char *host;
	int port;
	bool loopback;
} listen_rows[] = {
	{ __LINE__, "127.0.0.1:7767", 0, "127.0.0.1", 7767, true },
	{ __LINE__, "127.1.2.3:1", 0, "127.1.2.3", 1, true },
	{ __LINE__, "[::1]:0", 0, "::1", 0, true },
	{ __LINE__, "localhost:80", 0, "localhost", 80, true },
	{ __LINE__, "0.0.0.0:80", 0, "0.0.0.0", 80, false },
	{ __LINE__, ":80", 0, "", 80, false },
	{ __LINE__, "[::]:80", 0, "::", 80, false },
	{ __LINE__, "10.0.0.1:65535", 0, "10.0.0.1", 65535, false },
	{ __LINE__, "10.0.0.1:65536", VP_EINVAL, NULL, 0, false },
	{ __LINE__, "10.0.0.1:", VP_EINVAL, NULL, 0, false },
	{ __LINE__, "example.com:80", VP_EINVAL, NULL, 0, false },
	{ __LINE__, "[::1]80", VP_EINVAL, NULL, 0, false },
	{ __LINE__, "1.2.3.4:8x", VP_EINVAL, NULL, 0, false },
};

TEST(listen_parse_table)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(listen_rows); i++) {
		char host[64] = "";
		int port = -1, ret = srv_listen_parse(listen_rows[i].in, host, sizeof(host), &port, NULL);

		CHECK_INT_AT(listen_rows[i].line, ret, listen_rows[i].ret);
		if (ret)
			continue;
		CHECK_STR_AT(listen_rows[i].line, host, listen_rows[i].host);
		CHECK_INT_AT(listen_rows[i].line, port, listen_rows[i].port);
		CHECK_INT_AT(listen_rows[i].line, srv_host_is_loopback(host), listen_rows[i].loopback);
	}
}
