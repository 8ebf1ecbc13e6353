/* main.c - vmmprof entry point: global options and the subcommand table */
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/fronts.h"
#include "cli/remote.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "version.h"

const struct cmd *const vp_cmds[] = {
	&cmd_help,
	&cmd_info,
	&cmd_list,
	&cmd_model,
	&cmd_stat,
	&cmd_diagnose,
	&cmd_record,
	&cmd_report,
	&cmd_compare,
	&cmd_bench,
	&cmd_calibrate,
	&cmd_probe,
	&cmd_verify,
	&cmd_top,
	&cmd_serve,
	&cmd_user,
	NULL,
};

static void print_main_usage(FILE *f)
{
	const struct cmd *const *c;

	fprintf(f, "usage: vmmprof [--version] [--help] [--remote URL [--token-file FILE] "
		   "[--cacert FILE]] COMMAND [ARGS]\n\n"
		   "NUMA performance profiler for virtualized hosts.\n\ncommands:\n");
	for (c = vp_cmds; *c; c++)
		fprintf(f, "  %-10s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\n--remote URL runs info, list, model, stat, top, diagnose and record against a\n"
		   "vmmprofd (also VMMPROF_REMOTE, VMMPROF_TOKEN_FILE, VMMPROF_CACERT).\n"
		   "See 'vmmprof help COMMAND' for the options of a command.\n");
}

/* --help anywhere before "--" (or before the first positional for commands
 * that run a workload) means "show the help page". */
static bool wants_help(const struct cmd *c, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
		if ((c->flags & CMD_STOP_AT_POSITIONAL) && argv[i][0] != '-' &&
		    !(i > 1 && argv[i - 1][0] == '-' && !strchr(argv[i - 1], '=')))
			return false;
	}
	return false;
}

/* Flush stdout and report a failed write (full disk, closed pipe). */
static int finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "vmmprof: error: write failure on standard output: %s\n",
				strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

/* A global option "--NAME VALUE" or "--NAME=VALUE" at argv[*i]; advances *i. */
static int global_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
	} else if (!argv[*i][n]) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "vmmprof: error: '%s' needs a value\n", name);
			return -1;
		}
		*val = argv[++*i];
	} else {
		return 0;
	}
	++*i;
	return 1;
}

/* An environment variable, NULL when unset or empty. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static const struct cli_fronts *fronts;

const struct cli_fronts *cli_fronts(void)
{
	static const struct cli_fronts none;

	return fronts ? fronts : &none;
}

int cli_main(int argc, char **argv, const struct cli_fronts *f)
{
	const struct cmd *c;
	struct sbuf sb = SBUF_INIT;
	struct remote_conf remote = { env("VMMPROF_REMOTE"), env("VMMPROF_TOKEN_FILE"),
				      env("VMMPROF_CACERT") };
	bool remote_given = false;
	const char *base;
	int rc, i = 1, r = 0;

	fronts = f;
	/* vmmprofd is `vmmprof serve` */
	base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "vmmprofd")) {
		c = &cmd_serve;
		if (wants_help(c, argc, argv)) {
			cli_render_help(c, &sb);
			rc = cli_write(&sb);
			sbuf_release(&sb);
			return finish(rc);
		}
		optind = 1;
		return finish(c->fn(argc, argv));
	}
	/* global options before the command: where a daemon is */
	while (i < argc && r >= 0) {
		if ((r = global_opt(argc, argv, &i, "--remote", &remote.url)) > 0)
			remote_given = true;
		else if (!r && !(r = global_opt(argc, argv, &i, "--token-file", &remote.token_file)) &&
			 !(r = global_opt(argc, argv, &i, "--cacert", &remote.cacert)))
			break;
	}
	if (r < 0)
		return 2;
	argv[i - 1] = argv[0];
	argv += i - 1;
	argc -= i - 1;
	if (argc < 2) {
		print_main_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("vmmprof %s\n", VMMPROF_VERSION);
		return finish(0);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_main_usage(stdout);
		return finish(0);
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "vmmprof: error: unknown option '%s'\n", argv[1]);
		print_main_usage(stderr);
		return 2;
	}
	c = cli_find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "vmmprof: error: unknown command '%s'\n", argv[1]);
		print_main_usage(stderr);
		return 2;
	}
	if (wants_help(c, argc - 1, argv + 1)) {
		cli_render_help(c, &sb);
		rc = cli_write(&sb);
		sbuf_release(&sb);
		return finish(rc);
	}
	optind = 1;
	/* every command says what is wrong with an option itself (cli_bad_option()), in one line */
	opterr = 0;
	/* with VMMPROF_REMOTE set, commands that have no remote form still run here */
	if (remote.url && (remote_given || remote_supported(c)))
		rc = remote_run(&remote, c, argc - 1, argv + 1);
	else
		rc = c->fn(argc - 1, argv + 1);
	return finish(rc);
}
