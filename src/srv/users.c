/* users.c - the daemon's users file: roles, salted token hashes, per-user limits */
#include "srv/users.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_NETTLE
#include <nettle/sha2.h>
#endif

#include "util/alloc.h"
#include "util/fs.h"

void users_init(struct users *u)
{
	memset(u, 0, sizeof(*u));
}

void users_release(struct users *u)
{
	if (u->v)
		memset(u->v, 0, u->cap * sizeof(*u->v));
	free(u->v);
	memset(u, 0, sizeof(*u));
}

static const char *const role_names[] = { "viewer", "operator", "admin" };

const char *user_role_name(enum user_role r)
{
	return (unsigned)r < VP_ARRAY_SIZE(role_names) ? role_names[r] : "?";
}

int user_role_parse(const char *s, enum user_role *r)
{
	size_t i;

	for (i = 0; i < VP_ARRAY_SIZE(role_names); i++) {
		if (!strcmp(s, role_names[i])) {
			*r = (enum user_role)i;
			return 0;
		}
	}
	return VP_EINVAL;
}

bool user_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n > USER_NAME_MAX)
		return false;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

bool mem_equal_ct(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

int token_hash(const uint8_t salt[USER_SALT_LEN], const char *token, size_t token_len,
	       uint8_t out[USER_HASH_LEN])
{
#ifdef HAVE_NETTLE
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, USER_SALT_LEN, salt);
	sha256_update(&ctx, token_len, (const uint8_t *)token);
	sha256_digest(&ctx, USER_HASH_LEN, out);
	return 0;
#else
	(void)salt;
	(void)token;
	(void)token_len;
	memset(out, 0, USER_HASH_LEN);
	return VP_EDEP;
#endif
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly 2*n hex digits into out; the offset of the first bad character, or -1. */
static int unhex(const char *s, size_t len, uint8_t *out, size_t n)
{
	size_t i;

	for (i = 0; i < len && i < 2 * n; i++)
		if (hexval(s[i]) < 0)
			return (int)i;
	if (len != 2 * n)
		return (int)(len < 2 * n ? len : 2 * n);
	for (i = 0; i < n; i++)
		out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
	return -1;
}

static void addhex(struct sbuf *sb, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sbuf_addf(sb, "%02x", p[i]);
}

/* A non-negative decimal limit of at most INT_MAX. */
static bool parse_limit(const char *s, size_t len, int *out)
{
	long long v = 0;
	size_t i;

	if (!len || len > 10)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > INT_MAX)
		return false;
	*out = (int)v;
	return true;
}

static int parse_line(struct users *u, const char *line, size_t len, const char *name, int lno,
		      struct vp_err *err)
{
	static const char *const what[] = { "user name", "role", "salt", "token hash",
					    "max_sessions", "max_events", "min_interval_ms" };
	const char *f[7];
	size_t fl[7], i, nf = 0, start = 0;
	struct user us;
	char tmp[USER_NAME_MAX + 16];
	int bad;

	for (i = 0; i <= len; i++) {
		if (i == len || line[i] == ':') {
			if (nf == 7)
				return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: too many fields "
						  "(expected 7 separated by ':')", name, lno, i + 1);
			f[nf] = line + start;
			fl[nf++] = i - start;
			start = i + 1;
		}
	}
	if (nf < 7)
		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: expected 7 fields separated by ':' "
				  "(name:role:salt:hash:max_sessions:max_events:min_interval_ms), "
				  "found %zu", name, lno, len + 1, nf);
	memset(&us, 0, sizeof(us));
#define COL(k) ((size_t)(f[k] - line) + 1)
	if (fl[0] > USER_NAME_MAX) {
		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: user name longer than %d characters",
				  name, lno, COL(0), USER_NAME_MAX);
	}
	memcpy(tmp, f[0], fl[0]);
	tmp[fl[0]] = 0;
	if (!user_name_ok(tmp))
		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: invalid user name '%s' (letters, digits, "
				  "'_', '.', '-')", name, lno, COL(0), tmp);
	if (users_find(u, tmp))
		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: user '%s' is listed twice", name, lno,
				  COL(0), tmp);
	memcpy(us.name, tmp, fl[0] + 1);
	snprintf(tmp, sizeof(tmp), "%.*s", (int)(fl[1] < 20 ? fl[1] : 20), f[1]);
	if (fl[1] >= 20 || user_role_parse(tmp, &us.role))
		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: unknown role '%s' (admin, operator, "
				  "viewer)", name, lno, COL(1), tmp);
	bad = unhex(f[2], fl[2], us.salt, USER_SALT_LEN);
	if (bad >= 0)
		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: %s must be %d hex digits", name, lno,
				  COL(2) + (size_t)bad, what[2], 2 * USER_SALT_LEN);
	bad = unhex(f[3], fl[3], us.hash, USER_HASH_LEN);
	if (bad >= 0)
		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: %s must be %d hex digits (SHA-256)",
				  name, lno, COL(3) + (size_t)bad, what[3], 2 * USER_HASH_LEN);
	if (!parse_limit(f[4], fl[4], &us.lim.max_sessions) ||
	    !parse_limit(f[5], fl[5], &us.lim.max_events) ||
	    !parse_limit(f[6], fl[6], &us.lim.min_interval_ms)) {
		int k = !parse_limit(f[4], fl[4], &us.lim.max_sessions) ? 4 :
			!parse_limit(f[5], fl[5], &us.lim.max_events) ? 5 : 6;

		return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: %s must be a non-negative integer "
				  "('%.*s')", name, lno, COL(k), what[k], (int)(fl[k] > 20 ? 20 : fl[k]),
				  f[k]);
	}
#undef COL
	VP_GROW(u->v, u->cap, u->n + 1);
	u->v[u->n++] = us;
	return 0;
}

int users_parse(struct users *u, const char *text, size_t len, const char *name,
		struct vp_err *err)
{
	size_t pos = 0;
	int lno = 0, ret;

	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;

		lno++;
		pos += ll + (nl ? 1 : 0);
		if (memchr(line, 0, ll))
			return vp_err_set(err, VP_EPARSE, "%s:%d:%zu: NUL byte in the line", name, lno,
					  (size_t)((const char *)memchr(line, 0, ll) - line) + 1);
		if (ll && line[ll - 1] == '\r')
			ll--;
		if (!ll || line[0] == '#')
			continue;
		ret = parse_line(u, line, ll, name, lno, err);
		if (ret)
			return ret;
	}
	return 0;
}

int users_load(struct users *u, const char *path, bool missing_ok, struct vp_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = vp_read_regular(path, USERS_FILE_MAX, &text, &len, err);
	if (ret == -ENOENT && missing_ok) {
		vp_err_clear(err);
		return 0;
	}
	if (ret)
		return ret;
	ret = users_parse(u, text, len, path, err);
	free(text);
	return ret;
}

int users_load_fd(struct users *u, int fd, const char *name, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	char buf[8192];
	int ret;

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = vp_err_errno(err, errno, "cannot read '%s'", name);
			goto out;
		}
		if (!n)
			break;
		if (sb.len + (size_t)n > USERS_FILE_MAX) {
			ret = vp_err_set(err, VP_ERANGE, "'%s' is larger than %d bytes", name,
					 USERS_FILE_MAX);
			goto out;
		}
		sbuf_add(&sb, buf, (size_t)n);
	}
	ret = users_parse(u, sb.buf ? sb.buf : "", sb.len, name, err);
out:
	sbuf_release(&sb);
	return ret;
}

void users_format(const struct users *u, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < u->n; i++) {
		const struct user *us = &u->v[i];

		sbuf_addf(out, "%s:%s:", us->name, user_role_name(us->role));
		addhex(out, us->salt, USER_SALT_LEN);
		sbuf_addch(out, ':');
		addhex(out, us->hash, USER_HASH_LEN);
		sbuf_addf(out, ":%d:%d:%d\n", us->lim.max_sessions, us->lim.max_events,
			  us->lim.min_interval_ms);
	}
}

int users_save(const struct users *u, const char *path, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT, tmp = SBUF_INIT;
	int fd = -1, ret = 0;
	size_t off = 0;
	struct stat old;
	bool have_old = !stat(path, &old) && S_ISREG(old.st_mode);

	sbuf_addstr(&sb, "# vmmprof users: name:role:salt:sha256(salt||token):max_sessions:"
			 "max_events:min_interval_ms (0 = no limit)\n");
	users_format(u, &sb);
	sbuf_addf(&tmp, "%s.tmp.%d", path, (int)getpid());
	unlink(sbuf_str(&tmp));		/* a leftover, or a planted link: never written through */
	fd = open(sbuf_str(&tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = vp_err_errno(err, errno, "cannot create '%s'", sbuf_str(&tmp));
		goto out;
	}
	/* a file the daemon's user owns (chown vmmprof: users) stays its own when root
	 * rewrites it, with its mode (never readable or writable by others) */
	if (have_old) {
		if ((old.st_uid != geteuid() || old.st_gid != getegid()) &&
		    fchown(fd, old.st_uid, old.st_gid)) {
			ret = vp_err_errno(err, errno, "cannot give '%s' the owner of '%s' (uid %d, "
					   "gid %d)", sbuf_str(&tmp), path, (int)old.st_uid,
					   (int)old.st_gid);
			goto out;
		}
		if (fchmod(fd, old.st_mode & 0770)) {
			ret = vp_err_errno(err, errno, "cannot set the mode of '%s'", sbuf_str(&tmp));
			goto out;
		}
	}
	while (off < sb.len) {
		ssize_t w = write(fd, sb.buf + off, sb.len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = vp_err_errno(err, w < 0 ? errno : EIO, "cannot write '%s'", sbuf_str(&tmp));
			goto out;
		}
		off += (size_t)w;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		ret = vp_err_errno(err, errno, "cannot write '%s'", sbuf_str(&tmp));
		goto out;
	}
	fd = -1;
	if (rename(sbuf_str(&tmp), path))
		ret = vp_err_errno(err, errno, "cannot rename '%s' to '%s'", sbuf_str(&tmp), path);
out:
	if (fd >= 0)
		close(fd);
	if (ret)
		unlink(sbuf_str(&tmp));
	sbuf_release(&sb);
	sbuf_release(&tmp);
	return ret;
}

const struct user *users_find(const struct users *u, const char *name)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].name, name))
			return &u->v[i];
	return NULL;
}

static int fill_random(void *buf, size_t n, struct vp_err *err)
{
	size_t off = 0;

	while (off < n) {
		ssize_t r = getrandom((char *)buf + off, n - off, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return vp_err_errno(err, errno, "cannot read random bytes");
		off += (size_t)r;
	}
	return 0;
}

int users_add(struct users *u, const char *name, enum user_role role,
	      const struct user_limits *lim, char token[USER_TOKEN_LEN + 1], struct vp_err *err)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	uint8_t raw[33];
	struct user us;
	int ret, i;

	if (!user_name_ok(name))
		return vp_err_set(err, VP_EINVAL, "invalid user name '%s' (1 to %d letters, digits, "
				  "'_', '.', '-')", name, USER_NAME_MAX);
	if (users_find(u, name))
		return vp_err_set(err, -EEXIST, "user '%s' already exists", name);
	memset(&us, 0, sizeof(us));
	snprintf(us.name, sizeof(us.name), "%s", name);
	us.role = role;
	us.lim = *lim;
	ret = fill_random(us.salt, sizeof(us.salt), err);
	if (!ret)
		ret = fill_random(raw, 32, err);
	if (ret)
		return ret;
	raw[32] = 0;
	/* 32 bytes = 256 bits as 43 base64url characters (6 bits each, the last 4) */
	for (i = 0; i < USER_TOKEN_LEN; i++) {
		int bit = i * 6, byte = bit / 8, sh = bit % 8;
		unsigned v = (unsigned)raw[byte] << 8 | raw[byte + 1];

		token[i] = b64[(v >> (10 - sh)) & 63];
	}
	token[USER_TOKEN_LEN] = 0;
	memset(raw, 0, sizeof(raw));
	ret = token_hash(us.salt, token, USER_TOKEN_LEN, us.hash);
	if (ret)
		return vp_err_set(err, ret, "cannot hash tokens: vmmprof was built without nettle");
	VP_GROW(u->v, u->cap, u->n + 1);
	u->v[u->n++] = us;
	return 0;
}

int users_remove(struct users *u, const char *name, struct vp_err *err)
{
	size_t i;

	for (i = 0; i < u->n; i++) {
		if (!strcmp(u->v[i].name, name)) {
			memmove(&u->v[i], &u->v[i + 1], (u->n - i - 1) * sizeof(*u->v));
			u->n--;
			return 0;
		}
	}
	return vp_err_set(err, VP_ENOTFOUND, "no user '%s'", name);
}

const struct user *users_auth(const struct users *u, const char *token)
{
	const struct user *found = NULL;
	uint8_t h[USER_HASH_LEN];
	size_t i, len = strlen(token);

	for (i = 0; i < u->n; i++) {
		bool eq;

		if (token_hash(u->v[i].salt, token, len, h))
			return NULL;
		eq = mem_equal_ct(h, u->v[i].hash, USER_HASH_LEN);
		/* no early exit: every user costs one hash whether or not it matched */
		if (eq && !found)
			found = &u->v[i];
	}
	memset(h, 0, sizeof(h));
	return found;
}
