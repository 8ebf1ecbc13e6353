/* cli.h - what every subcommand shares: its table entry, help, errors, output */
#ifndef VP_CLI_H
#define VP_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "util/dirs.h"
#include "util/err.h"
#include "util/sbuf.h"

#define CMD_STOP_AT_POSITIONAL 0x1 /* options end at the first non-option (stat -- cmd) */

/*
 * One subcommand.  The help page (`vmmprof help X`, `vmmprof X --help`)
 * and the man page (`vmmprof help --man X`) are both rendered from these
 * fields, so they cannot drift apart.
 */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command name; returns exit code */
	const char *summary;     /* one line, for `vmmprof help` */
	const char *synopsis;    /* usage lines, '\n'-separated, without "vmmprof ";
				  * a line starting with blanks continues the one above */
	const char *description; /* paragraphs separated by blank lines */
	const char *options;     /* lines "FLAGS\tTEXT" */
	const char *examples;    /* lines "COMMAND\tWHAT IT DOES" */
	const char *args;        /* shell completion of the arguments: "FIRST|LATER", each
				  * words, or @files @dirs @models @commands @programs (NULL: none) */
	unsigned flags;
};

/* Every command, in the order `vmmprof help` lists them; NULL-terminated. */
extern const struct cmd *const vp_cmds[];
const struct cmd *cli_find_cmd(const char *name);

/*
 * One flag of a command's options text ("-p, --pid PIDS\tTEXT"): the table
 * the help, the man page and completion are rendered from, read back so that
 * other code (the remote client) knows the same flags.  name points into
 * c->options (name_len bytes, without "--"; NULL for a flag with no long
 * spelling).
 */
struct cli_flag {
	char shortc;            /* 'p', or 0 */
	const char *name;
	size_t name_len;
	int arg;                /* 0 takes no value, 1 needs one, 2 an optional [=VALUE] */
};
/* Every flag of c's options text, in its order: a heap array (free()), *n set. */
struct cli_flag *cli_flags(const struct cmd *c, size_t *n);

void cli_render_help(const struct cmd *c, struct sbuf *out);
void cli_render_man(const struct cmd *c, struct sbuf *out);
/* vmmprof(1): the overview page, every command listed. */
void cli_render_man_overview(struct sbuf *out);
/* The bash completion script of every command (src/cli/completion.c). */
void cli_render_completion(struct sbuf *out);

/* Print "error: MSG" and the command's usage lines to stderr; returns 2. */
/*
 * The usage error of getopt_long()'s '?' (or ':'): one line, "unknown option
 * 'X'" or "option 'X' needs a value", from optopt and argv[optind - 1];
 * OPTSTRING is the one given to getopt_long().  Exit status 2.
 */
int cli_bad_option(const struct cmd *c, char **argv, const char *optstring);
/* record's file without -o, as perf record's perf.data. */
#define CLI_RECORD_DEFAULT "vmmprof.vmmdb"
/*
 * An existing PATH becomes PATH.old (replacing an older one), its SQLite
 * side files (-wal, -shm) with it, as perf record keeps perf.data.old.
 * Nothing there: nothing done.  0 or a negative errno with err set.
 */
int cli_keep_old(const char *path, struct vp_err *err);
int cli_usage_error(const struct cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * -p's PID[,PID...]: each pid appended to the heap array *pids (*n counts);
 * -1 on a word that is not a pid (1..4194304), 0 otherwise.  The one parser
 * of -p for the local commands and the remote client.
 */
int cli_parse_pids(const char *s, int **pids, size_t *n);
/* Print "vmmprof: error: MSG" to stderr; returns 1. */
/*
 * This process's directories, read once from its environment: $XDG_CONFIG_HOME,
 * $HOME (NULL when unset or empty) and the directory of /proc/self/exe.  What
 * the library takes as parameters (model/dirs.h, calib/file.h).
 */
const struct vp_dirs *cli_dirs(void);

int cli_error(const struct vp_err *err);
int cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "vmmprof: warning: MSG" to stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write a buffer to stdout; returns 0 or 1 after printing the error. */
int cli_write(const struct sbuf *sb);

/*
 * Open the output named by -o (NULL or "-" is stdout).  The caller closes
 * it with cli_close_output(), which reports write errors; returns exit code.
 */
FILE *cli_open_output(const char *path, struct vp_err *err);
int cli_close_output(FILE *f, const char *path);

#endif
