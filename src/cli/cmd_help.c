/* cmd_help.c - `vmmprof help [--man] [COMMAND]` */
#include "cli/commands.h"

#include <string.h>

static int run_help(int argc, char **argv)
{
	const struct cmd *c;
	struct sbuf sb = SBUF_INIT;
	bool man = false;
	int i = 1, rc;

	if (i < argc && !strncmp(argv[i], "--man=", 6))
		return cli_usage_error(&cmd_help, "option '--man' takes no value");
	/* --completion bash, or --completion=bash as getopt spells it elsewhere */
	if (i < argc && (!strcmp(argv[i], "--completion") ||
			 !strncmp(argv[i], "--completion=", 13))) {
		const char *shell = argv[i][12] == '=' ? argv[i] + 13 : i + 1 < argc ? argv[++i] : "";

		if (strcmp(shell, "bash") || i + 1 < argc)
			return cli_usage_error(&cmd_help, "--completion takes one shell: bash");
		cli_render_completion(&sb);
		rc = cli_write(&sb);
		sbuf_release(&sb);
		return rc;
	}
	if (i < argc && !strcmp(argv[i], "--man")) {
		man = true;
		i++;
	}
	if (i >= argc) {
		const struct cmd *const *p;

		if (man) {
			cli_render_man_overview(&sb);
			rc = cli_write(&sb);
			sbuf_release(&sb);
			return rc;
		}
		sbuf_addstr(&sb, "usage: vmmprof [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
		for (p = vp_cmds; *p; p++)
			sbuf_addf(&sb, "  %-10s %s\n", (*p)->name, (*p)->summary);
		sbuf_addstr(&sb, "\nSee 'vmmprof help COMMAND' for the options of a command.\n");
	} else {
		if (argv[i][0] == '-')
			return cli_usage_error(&cmd_help, "unknown option '%s'", argv[i]);
		if (i + 1 < argc)
			return cli_usage_error(&cmd_help, "one COMMAND at a time, not '%s' too",
					       argv[i + 1]);
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
	.args = "@commands|",
	.fn = run_help,
	.summary = "show the help page of a command",
	.synopsis = "help [COMMAND]\nhelp --man [COMMAND]\nhelp --completion bash",
	.description = "Without a COMMAND, lists every command.  With one, prints the same page\n"
		       "as 'vmmprof COMMAND --help'.  With --man, prints the page as a man page;\n"
		       "'help --man' alone prints vmmprof(1), the overview every page cites.\n"
		       "\n"
		       "With --completion bash, prints a bash completion script made from every\n"
		       "command's options: flags, their values (event names, models, VMs, files,\n"
		       "the words a flag accepts) and the commands' arguments.",
	.options = "--man\tprint the page in man(7) format\n"
		   "--completion bash\tprint the bash completion script of every command (installed by\n"
		   "\tmake install; or: source <(vmmprof help --completion bash))",
	.examples = "vmmprof help stat\tthe options of 'vmmprof stat'\n"
		    "vmmprof help --man info | man -l -\tread the info page in man\n"
		    "source <(vmmprof help --completion bash)\tcomplete vmmprof's commands in this shell",
};
