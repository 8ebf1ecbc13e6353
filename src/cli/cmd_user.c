/* cmd_user.c - `vmmprof user add|remove|list`: the daemon's users file */
#include "cli/commands.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv/users.h"
#include "util/json.h"
#include "util/table.h"

static int parse_int(const char *opt, const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < 0 || v > INT_MAX)
		return cli_usage_error(&cmd_user, "%s needs a non-negative integer, not '%s'", opt, s);
	*out = (int)v;
	return 0;
}

/* Write the token to path, created with mode 0600 (never an existing file). */
static int write_token(const char *path, const char *token)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t len = strlen(token);
	char buf[USER_TOKEN_LEN + 2];

	if (fd < 0)
		return cli_errorf("cannot create '%s': %s", path, strerror(errno));
	snprintf(buf, sizeof(buf), "%s\n", token);
	if (write(fd, buf, len + 1) != (ssize_t)(len + 1) || close(fd)) {
		int e = errno;

		unlink(path);
		return cli_errorf("cannot write '%s': %s", path, strerror(e));
	}
	memset(buf, 0, sizeof(buf));
	return 0;
}

static int run_user(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "users", required_argument, NULL, 'u' },
		{ "role", required_argument, NULL, 'r' },
		{ "token-out", required_argument, NULL, 't' },
		{ "max-sessions", required_argument, NULL, 's' },
		{ "max-events", required_argument, NULL, 'e' },
		{ "min-interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "/etc/vmmprof/users", *role_s = NULL, *token_out = NULL, *sub, *name = NULL;
	struct user_limits lim = { 4, 0, 100 };
	enum user_role role = ROLE_VIEWER;
	struct users u;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	char token[USER_TOKEN_LEN + 1];
	bool json = false;
	int c, rc = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j", opts, NULL)) != -1) {
		switch (c) {
		case 'u': path = optarg; break;
		case 'r': role_s = optarg; break;
		case 't': token_out = optarg; break;
		case 's': if (parse_int("--max-sessions", optarg, &lim.max_sessions)) return 2; break;
		case 'e': if (parse_int("--max-events", optarg, &lim.max_events)) return 2; break;
		case 'i': if (parse_int("--min-interval", optarg, &lim.min_interval_ms)) return 2; break;
		case 'j': json = true; break;
		case ':':
			return cli_usage_error(&cmd_user, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_bad_option(&cmd_user, argv, ":");
		}
	}
	if (optind >= argc)
		return cli_usage_error(&cmd_user, "'user' needs add, remove or list");
	sub = argv[optind++];
	if (strcmp(sub, "add") && strcmp(sub, "remove") && strcmp(sub, "list"))
		return cli_usage_error(&cmd_user, "unknown subcommand '%s' (add, remove, list)", sub);
	if (strcmp(sub, "list")) {
		if (optind >= argc)
			return cli_usage_error(&cmd_user, "'user %s' needs a user name", sub);
		name = argv[optind++];
	}
	if (optind < argc)
		return cli_usage_error(&cmd_user, "unexpected argument '%s'", argv[optind]);
	if (strcmp(sub, "add") && (role_s || token_out))
		return cli_usage_error(&cmd_user, "--role and --token-out go with 'user add'");
	if (!strcmp(sub, "add")) {
		if (!role_s)
			return cli_usage_error(&cmd_user, "'user add' needs --role admin|operator|viewer");
		if (user_role_parse(role_s, &role))
			return cli_usage_error(&cmd_user, "unknown role '%s' (admin, operator, viewer)",
					       role_s);
	}

	users_init(&u);
	if (users_load(&u, path, !strcmp(sub, "add"), &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if (!strcmp(sub, "list")) {
		size_t i;

		if (json) {
			struct jw w;

			jw_init(&w, &sb, true);
			jw_obj_begin(&w);
			jw_key(&w, "users");
			jw_arr_begin(&w);
			for (i = 0; i < u.n; i++) {
				jw_obj_begin(&w);
				jw_kstr(&w, "name", u.v[i].name);
				jw_kstr(&w, "role", user_role_name(u.v[i].role));
				jw_kint(&w, "max_sessions", u.v[i].lim.max_sessions);
				jw_kint(&w, "max_events", u.v[i].lim.max_events);
				jw_kint(&w, "min_interval_ms", u.v[i].lim.min_interval_ms);
				jw_obj_end(&w);
			}
			jw_arr_end(&w);
			jw_obj_end(&w);
			sbuf_addch(&sb, '\n');
		} else {
			static const char *const titles[] = { "NAME", "ROLE", ">MAX_SESSIONS",
							      ">MAX_EVENTS", ">MIN_INTERVAL_MS" };
			struct table t;

			table_init(&t, 5, titles);
			for (i = 0; i < u.n; i++) {
				table_row(&t);
				table_cell(&t, "%s", u.v[i].name);
				table_cell(&t, "%s", user_role_name(u.v[i].role));
#define LIM(v) table_cell(&t, (v) ? "%d" : "-", (v))
				LIM(u.v[i].lim.max_sessions);
				LIM(u.v[i].lim.max_events);
				LIM(u.v[i].lim.min_interval_ms);
#undef LIM
			}
			table_render(&t, &sb, 0, true);
			table_release(&t);
		}
		rc = cli_write(&sb);
		goto out;
	}
	if (!strcmp(sub, "remove")) {
		if (users_remove(&u, name, &err) || users_save(&u, path, &err)) {
			rc = cli_error(&err);
			goto out;
		}
		fprintf(stderr, "removed user '%s' from %s\n", name, path);
		goto out;
	}
	if (users_add(&u, name, role, &lim, token, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	if (token_out && write_token(token_out, token)) {
		rc = 1;
		goto out;
	}
	if (users_save(&u, path, &err)) {
		if (token_out)
			unlink(token_out);
		rc = cli_error(&err);
		goto out;
	}
	if (token_out) {
		fprintf(stderr, "added %s '%s' to %s; token written to %s\n", role_s, name, path,
			token_out);
	} else {
		fprintf(stderr, "added %s '%s' to %s; the token (shown only this once):\n", role_s,
			name, path);
		sbuf_addf(&sb, "%s\n", token);
		rc = cli_write(&sb);
	}
out:
	memset(token, 0, sizeof(token));
	sbuf_release(&sb);
	users_release(&u);
	return rc;
}

const struct cmd cmd_user = {
	.name = "user",
	.args = "add remove list|",
	.fn = run_user,
	.summary = "manage the daemon's users: add, remove, list",
	.synopsis = "user add NAME --role admin|operator|viewer [--users FILE]\n"
		    "    [--token-out FILE] [--max-sessions N] [--max-events N] [--min-interval MS]\n"
		    "user remove NAME [--users FILE]\n"
		    "user list [--users FILE] [--json]",
	.description =
		"Edits the users file the daemon ('vmmprof serve') reads.  Each line holds a\n"
		"user's name, role, a random salt and the SHA-256 of salt and token, and the\n"
		"user's limits: the file never holds a token.  'user add' makes a random\n"
		"token (256 bits, base64url) and prints it once on standard output, or writes\n"
		"it to a new file of mode 0600 with --token-out; it cannot be shown again\n"
		"(remove the user and add it again for a new one).\n"
		"\n"
		"Roles: admin may do everything, including stopping other users' sessions;\n"
		"operator starts and stops its own sessions; viewer reads streams, history\n"
		"and diagnoses.  Limits (0 = none): sessions at once (default 4), events over\n"
		"the user's sessions (default none), the shortest interval (default 100 ms);\n"
		"a request over a limit gets 429.  The file is written atomically with mode\n"
		"0600; a running daemon rereads it when it changes.",
	.options = "--users FILE\tthe users file (default /etc/vmmprof/users)\n"
		   "--role admin|operator|viewer\tadd: what the user may do (docs/api.md)\n"
		   "--token-out FILE\tadd: write the token to FILE (created, mode 0600) instead of printing it\n"
		   "--max-sessions N\tadd: sessions the user may run at once (0 = no limit; default 4)\n"
		   "--max-events N\tadd: distinct events over the user's sessions (0 = no limit)\n"
		   "--min-interval MS\tadd: the shortest sampling interval (default 100)\n"
		   "-j, --json\tlist: print JSON",
	.examples = "vmmprof user add alice --role operator --users /etc/vmmprof/users\tprints alice's token\n"
		    "vmmprof user add grafana --role viewer --token-out grafana.token\tthe token into a file\n"
		    "vmmprof user list\tnames, roles and limits",
};
