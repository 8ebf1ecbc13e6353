/* users.h - the daemon's users file: roles, salted token hashes, per-user limits */
#ifndef VP_SRV_USERS_H
#define VP_SRV_USERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/sbuf.h"

/*
 * One line per user:
 *   name:role:salt_hex:sha256hex(salt||token):max_sessions:max_events:min_interval_ms
 * The token itself is never stored; a limit of 0 means "no limit".  Lines
 * starting with '#' and blank lines are ignored.
 */

#define USER_NAME_MAX 32
#define USER_SALT_LEN 16
#define USER_HASH_LEN 32                /* SHA-256 */
#define USER_TOKEN_LEN 43               /* 32 random bytes, base64url without padding */

enum user_role { ROLE_VIEWER, ROLE_OPERATOR, ROLE_ADMIN };

struct user_limits {
	int max_sessions;                   /* sessions running at once; 0 none */
	int max_events;                     /* distinct events over the user's sessions; 0 none */
	int min_interval_ms;                /* interval floor; 0 none */
};

struct user {
	char name[USER_NAME_MAX + 1];
	enum user_role role;
	uint8_t salt[USER_SALT_LEN];
	uint8_t hash[USER_HASH_LEN];
	struct user_limits lim;
};

/* Storage owned by the caller: users_init() ... users_release(). */
struct users {
	struct user *v;
	size_t n, cap;
};

void users_init(struct users *u);
void users_release(struct users *u);

/* "admin", "operator", "viewer"; role_parse returns VP_EINVAL for others. */
const char *user_role_name(enum user_role r);
int user_role_parse(const char *s, enum user_role *r);
/* Whether name is a valid user name ([A-Za-z0-9_.-], 1..32 characters). */
bool user_name_ok(const char *name);

/*
 * Parse the text of a users file (len bytes); name labels messages as
 * "NAME:LINE:COL: ...".  Returns 0 or VP_EPARSE; *u keeps what parsed.
 */
int users_parse(struct users *u, const char *text, size_t len, const char *name,
		struct vp_err *err);
/* Read and parse a file; a file that does not exist is an empty list when missing_ok. */
int users_load(struct users *u, const char *path, bool missing_ok, struct vp_err *err);
/* A users file larger than this is refused (a line is about 130 bytes). */
#define USERS_FILE_MAX (4 * 1024 * 1024)
/* Read and parse an open file (name labels messages); over USERS_FILE_MAX: VP_ERANGE. */
int users_load_fd(struct users *u, int fd, const char *name, struct vp_err *err);
/* The file's text, one line per user. */
void users_format(const struct users *u, struct sbuf *out);
/* Write atomically (temporary file, rename), mode 0600. */
int users_save(const struct users *u, const char *path, struct vp_err *err);

const struct user *users_find(const struct users *u, const char *name);
/*
 * Add a user with a fresh random salt and token; token receives the token
 * (USER_TOKEN_LEN characters and a NUL), which the caller shows once.
 * -EEXIST when the name is taken, VP_EDEP without a hash implementation.
 */
int users_add(struct users *u, const char *name, enum user_role role,
	      const struct user_limits *lim, char token[USER_TOKEN_LEN + 1], struct vp_err *err);
/* VP_ENOTFOUND when there is no such user. */
int users_remove(struct users *u, const char *name, struct vp_err *err);

/*
 * The user whose token this is, or NULL.  Every user's hash is computed and
 * compared in constant time, so the time taken does not depend on which
 * user, if any, matched or on how many bytes agreed.
 */
const struct user *users_auth(const struct users *u, const char *token);

/* SHA-256 of salt || token.  Returns VP_EDEP when built without nettle. */
int token_hash(const uint8_t salt[USER_SALT_LEN], const char *token, size_t token_len,
	       uint8_t out[USER_HASH_LEN]);
/* Constant-time equality of n bytes. */
bool mem_equal_ct(const void *a, const void *b, size_t n);

#endif
