/* cmd_help.c - `vmmprof help [--man] [COMMAND]` */
#include "cli/commands.h"

#include <string.h>

static int run_help(int argc, char **argv)
{
	const struct cmd *c;
	struct sbuf sb = SBUF_INIT;
	bool man = false;
	int i = 1, rc;

	if (i < argc && !strcmp(argv[i], "--man")) {
		man = true;
		i++;
	}
	if (i >= argc) {
		const struct cmd *const *p;

		if (man)
			return cli_usage_error(&cmd_help, "--man needs a COMMAND");
		sbuf_addstr(&sb, "usage: vmmprof [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
		for (p = vp_cmds; *p; p++)
			sbuf_addf(&sb, "  %-10s %s\n", (*p)->name, (*p)->summary);
		sbuf_addstr(&sb, "\nSee 'vmmprof help COMMAND' for the options of a command.\n");
	} else {
		if (argv[i][0] == '-')
			return cli_usage_error(&cmd_help, "unknown option '%s'", argv[i]);
		c = cli_find_cmd(argv[i]);
		if (!c)
			return cli_usage_error(&cmd_help, "unknown command '%s'", argv[i]);
		if (man)
			cli_render_man(c, &sb);
		else
			cli_render_help(c, &sb);
	}
	rc = cli_write(&sb);
	sbuf_release(&sb);
	return rc;
}

const struct cmd cmd_help = {
	.name = "help",
	.fn = run_help,
	.summary = "show the help page of a command",
	.synopsis = "help [COMMAND]\nhelp --man COMMAND",
	.description = "Without a COMMAND, lists every command.  With one, prints the same page\n"
		       "as 'vmmprof COMMAND --help'.  With --man, prints the page as a man page.",
	.options = "--man\tprint the page in man(7) format",
	.examples = "vmmprof help stat\tthe options of 'vmmprof stat'\n"
		    "vmmprof help --man info | man -l -\tread the info page in man",
};
