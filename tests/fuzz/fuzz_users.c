/* fuzz_users.c - libFuzzer harness for the daemon's users-file parser (src/srv/users.c) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srv/users.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct users u, back;
	struct sbuf sb = SBUF_INIT;
	struct vp_err err;
	char *tok;
	size_t i;

	users_init(&u);
	users_init(&back);
	if (users_parse(&u, (const char *)data, size, "fuzz", &err) == 0) {
		/* what users_format() writes must parse back to the same users */
		users_format(&u, &sb);
		if (users_parse(&back, sbuf_str(&sb), sb.len, "back", &err) || back.n != u.n)
			abort();
		for (i = 0; i < u.n; i++) {
			const struct user *a = &u.v[i], *b = &back.v[i];

			if (strcmp(a->name, b->name) || a->role != b->role ||
			    memcmp(a->salt, b->salt, sizeof(a->salt)) ||
			    memcmp(a->hash, b->hash, sizeof(a->hash)) ||
			    memcmp(&a->lim, &b->lim, sizeof(a->lim)) || !user_name_ok(a->name) ||
			    users_find(&u, a->name) != a || a->lim.max_sessions < 0 ||
			    a->lim.max_events < 0 || a->lim.min_interval_ms < 0)
				abort();
		}
		/* the input as a token: authentication must not fail in any other way */
		tok = xstrndup((const char *)data, size);
		(void)users_auth(&u, tok);
		free(tok);
	} else if (!err.msg[0] || strncmp(err.msg, "fuzz:", 5)) {
		abort(); /* every refusal says where: "fuzz:LINE:COL: ..." */
	}
	sbuf_release(&sb);
	users_release(&back);
	users_release(&u);
	return 0;
}
