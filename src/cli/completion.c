/*
 * completion.c - `vmmprof help --completion bash`: a bash completion script
 * generated from the commands' own option tables, so that it never lists a
 * flag a command does not take nor misses one it does.
 *
 * Each command's options text ("FLAGS\tTEXT" lines) gives its flags and
 * whether a flag takes a value.  The value is completed from its metavar:
 * lower-case alternatives ("none|token") are the words themselves; FILE,
 * OUT and HTML complete file names, DIR directories; the flags that name an
 * event, a model, a VM or a process complete from vmmprof itself (list
 * --raw-dump, model list --raw-dump) or from /proc.  cmd->args gives the
 * positional arguments ("WORDS|WORDS": the first argument, then the rest).
 */
#include "cli/cli.h"

#include <ctype.h>
#include <string.h>

/* One flag parsed from an options line. */
struct flag {
	char name[48];      /* "-e" or "--event" */
	char value[96];     /* what completes its value: "" = it takes none */
};

/* What completes the value of a flag whose metavar is upper case. */
static void value_kind(const char *longname, const char *metavar, char *out, size_t len)
{
	static const struct {
		const char *flag, *kind;
	} by_flag[] = {
		{ "--event", "@events" }, { "--model", "@models @files" }, { "--vm", "@vms" },
		{ "--pid", "@pids" }, { "--tid", "@pids" }, { "--user", "@users" },
		{ "--cgroup", "@cgroups" },
	};
	size_t i;

	for (i = 0; i < sizeof(by_flag) / sizeof(by_flag[0]); i++)
		if (!strcmp(longname, by_flag[i].flag)) {
			snprintf(out, len, "%s", by_flag[i].kind);
			return;
		}
	if (!strncmp(metavar, "FILE", 4) || !strncmp(metavar, "OUT", 3) ||
	    !strncmp(metavar, "HTML", 4))
		snprintf(out, len, "@files");
	else if (!strncmp(metavar, "DIR", 3))
		snprintf(out, len, "@dirs");
	else
		snprintf(out, len, "@none");
}

/*
 * Parse "-e, --event EVENTS" (or "--metrics-auth none|token",
 * "--xen-numa-dump[=SECS]") into up to two flags; returns how many.
 */
static int parse_flags(const char *s, size_t len, struct flag *f)
{
	char buf[160], *tok, *save = NULL, *metavar = NULL, *sp, longname[48] = "";
	int n = 0, i;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (tok = strtok_r(buf, ",", &save); tok && n < 2; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (tok[0] != '-')
			continue;
		if ((sp = strchr(tok, ' '))) {
			*sp = '\0';
			metavar = sp + 1;
		}
		if ((sp = strchr(tok, '[')))   /* an optional value: completed as a flag */
			*sp = '\0';
		snprintf(f[n].name, sizeof(f[n].name), "%s", tok);
		f[n].value[0] = '\0';
		if (tok[1] == '-')
			snprintf(longname, sizeof(longname), "%s", tok);
		n++;
	}
	if (!metavar)
		return n;
	for (i = 0; i < n; i++) {
		if (islower((unsigned char)metavar[0])) {     /* the words themselves */
			char *w = f[i].value;

			snprintf(w, sizeof(f[i].value), "%s", metavar);
			for (; *w; w++)
				if (*w == '|')
					*w = ' ';
		} else {
			value_kind(longname, metavar, f[i].value, sizeof(f[i].value));
		}
	}
	return n;
}

/* Every flag of c, each with what completes its value. */
static size_t cmd_flags(const struct cmd *c, struct flag *f, size_t max)
{
	const char *p = c->options, *nl;
	size_t n = 0;

	while (p && *p && n + 2 <= max) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (*p == '-') {
			const char *tab = memchr(p, '\t', (size_t)(nl - p));

			n += (size_t)parse_flags(p, (size_t)((tab ? tab : nl) - p), f + n);
		}
		p = *nl ? nl + 1 : nl;
	}
	return n;
}

/* The shell function's body: words and kinds are expanded at completion time. */
static const char body[] =
	"# _vmmprof_words KIND...: the candidate words of each kind, one string\n"
	"_vmmprof_words() {\n"
	"\tlocal k\n"
	"\tfor k; do\n"
	"\t\tcase $k in\n"
	"\t\t@events) \"$_vmmprof_bin\" list events --raw-dump 2>/dev/null ;;\n"
	"\t\t@models) \"$_vmmprof_bin\" model list --raw-dump 2>/dev/null ;;\n"
	"\t\t@vms) \"$_vmmprof_bin\" list vms --raw-dump 2>/dev/null ;;\n"
	"\t\t@commands) echo \"$_vmmprof_cmds\" ;;\n"
	"\t\t@pids) (cd /proc 2>/dev/null && echo [0-9]*) ;;\n"
	"\t\t@users) compgen -u ;;\n"
	"\t\t@programs) compgen -c ;;\n"
	"\t\t@*) ;;\n"
	"\t\t*) printf \"%s\\n\" \"$k\" ;;   # not echo: a word may be -e or -n\n"
	"\t\tesac\n"
	"\tdone\n"
	"}\n"
	"\n"
	"# _vmmprof_reply VALUE KINDS: COMPREPLY for VALUE (a comma-separated list\n"
	"# completes its last item), trimmed of what bash keeps before the word it\n"
	"# replaces (COMP_WORDBREAKS splits sched:sched_switch and --event=x)\n"
	"_vmmprof_reply() {\n"
	"\tlocal cur=$1 kinds=$2 pre=\"\" brk i\n"
	"\tcase \" $kinds \" in\n"
	"\t*\" @events \"*|*\" @pids \"*|*\" @vms \"*) case $cur in *,*) pre=${cur%,*},; cur=${cur##*,} ;; esac ;;\n"
	"\tesac\n"
	"\tCOMPREPLY=($(compgen -W \"$(_vmmprof_words $kinds)\" -- \"$cur\"))\n"
	"\tcase \" $kinds \" in\n"
	"\t*\" @files \"*) COMPREPLY+=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null ;;\n"
	"\t*\" @dirs \"*) COMPREPLY+=($(compgen -d -- \"$cur\")); compopt -o filenames 2>/dev/null ;;\n"
	"\t*\" @cgroups \"*) COMPREPLY+=($(cd /sys/fs/cgroup 2>/dev/null && compgen -d -- \"$cur\")) ;;\n"
	"\tesac\n"
	"\tbrk=${pre}${cur}\n"
	"\t# right after a break (--sort=, sched:) bash's word is the break itself, and\n"
	"\t# what it replaces is the empty word after it\n"
	"\tcase ${COMP_WORDS[COMP_CWORD]} in =|:) ;; *) brk=${brk%\"${COMP_WORDS[COMP_CWORD]}\"} ;; esac\n"
	"\tfor i in \"${!COMPREPLY[@]}\"; do\n"
	"\t\tCOMPREPLY[i]=${pre}${COMPREPLY[i]}\n"
	"\t\tCOMPREPLY[i]=${COMPREPLY[i]#\"$brk\"}\n"
	"\tdone\n"
	"}\n"
	"\n"
	"_vmmprof() {\n"
	"\tlocal line=${COMP_LINE:0:COMP_POINT} cmd=\"\" cur want=\"\" i nargs=0 w dashdash=0\n"
	"\tlocal -a words\n"
	"\t_vmmprof_bin=${COMP_WORDS[0]}\n"
	"\tread -ra words <<<\"$line\"\n"
	"\tcase $line in *[[:space:]]) words+=(\"\") ;; esac\n"
	"\t[ ${#words[@]} -ge 1 ] || return 0\n"
	"\tcur=${words[${#words[@]}-1]}\n"
	"\t# vmmprofd is the daemon: never run it to list something\n"
	"\tcase ${words[0]##*/} in vmmprofd) cmd=serve; _vmmprof_bin=${_vmmprof_bin%d} ;; esac\n"
	"\tfor ((i = 1; i < ${#words[@]} - 1; i++)); do\n"
	"\t\tw=${words[i]}\n"
	"\t\tif [ -n \"$want\" ]; then want=\"\"; continue; fi\n"
	"\t\tif [ $dashdash = 1 ] || [[ $w != -* ]]; then\n"
	"\t\t\tif [ -z \"$cmd\" ]; then cmd=$w; else nargs=$((nargs + 1)); fi\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\t[ \"$w\" = \"--\" ] && { dashdash=1; continue; }\n"
	"\t\t[[ $w == *=* ]] && continue\n"
	"\t\twant=$(_vmmprof_value \"${cmd:-vmmprof}\" \"$w\")\n"
	"\tdone\n"
	"\tif [ -z \"$cmd\" ]; then\n"
	"\t\tif [[ $cur == -* ]]; then _vmmprof_reply \"$cur\" \"--help --version --remote --token-file --cacert\"\n"
	"\t\telse _vmmprof_reply \"$cur\" @commands; fi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t# a command after -- (stat -- CMD) takes the rest of the line\n"
	"\tif [ $dashdash = 1 ] && [ $nargs -ge 1 ]; then _vmmprof_reply \"$cur\" @files; return 0; fi\n"
	"\tif [ $dashdash = 1 ]; then COMPREPLY=($(compgen -c -- \"$cur\")); return 0; fi\n"
	"\tif [ -n \"$want\" ] && [ \"$want\" != \"@none\" ]; then _vmmprof_reply \"$cur\" \"$want\"; return 0; fi\n"
	"\t[ -n \"$want\" ] && return 0\n"
	"\tif [[ $cur == --*=* ]]; then\n"
	"\t\twant=$(_vmmprof_value \"$cmd\" \"${cur%%=*}\")\n"
	"\t\t[ -n \"$want\" ] && [ \"$want\" != \"@none\" ] && _vmmprof_reply \"${cur#*=}\" \"$want\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [[ $cur == -* ]]; then _vmmprof_reply \"$cur\" \"$(_vmmprof_flags \"$cmd\")\"; return 0; fi\n"
	"\t_vmmprof_reply \"$cur\" \"$(_vmmprof_args \"$cmd\" \"$nargs\")\"\n"
	"}\n"
	"complete -F _vmmprof vmmprof vmmprofd\n";

/* "a|b c|d": the words for the first argument, then for every later one. */
static void args_case(const struct cmd *c, struct sbuf *out)
{
	const char *a = c->args, *bar;

	if (!a)
		return;
	bar = strchr(a, '|');
	sbuf_addf(out, "\t%s) if [ \"$2\" = 0 ]; then echo \"%.*s\"; else echo \"%s\"; fi ;;\n",
		  c->name, (int)(bar ? bar - a : (long)strlen(a)), a, bar ? bar + 1 : "");
}

void cli_render_completion(struct sbuf *out)
{
	const struct cmd *const *c;
	struct flag f[96];
	size_t n, i;

	sbuf_addstr(out, "# bash completion for vmmprof and vmmprofd, made by "
			 "'vmmprof help --completion bash'\n"
			 "# (installed as share/bash-completion/completions/vmmprof; or source it)\n\n");
	sbuf_addstr(out, "_vmmprof_cmds=\"");
	for (c = vp_cmds; *c; c++)
		sbuf_addf(out, "%s%s", c == vp_cmds ? "" : " ", (*c)->name);
	sbuf_addstr(out, "\"\n\n# _vmmprof_flags CMD: every flag of CMD\n_vmmprof_flags() {\n\tcase $1 in\n");
	for (c = vp_cmds; *c; c++) {
		n = cmd_flags(*c, f, sizeof(f) / sizeof(f[0]));
		sbuf_addf(out, "\t%s) echo \"", (*c)->name);
		for (i = 0; i < n; i++)
			sbuf_addf(out, "%s ", f[i].name);
		sbuf_addstr(out, "-h --help\" ;;\n");
	}
	sbuf_addstr(out, "\tesac\n}\n\n"
			 "# _vmmprof_value CMD FLAG: what completes FLAG's value (nothing: it takes none)\n"
			 "_vmmprof_value() {\n\tcase \"$1 $2\" in\n"
			 "\t\"vmmprof --remote\") echo \"@none\" ;;\n"   /* the options before a command */
			 "\t\"vmmprof --token-file\"|\"vmmprof --cacert\") echo \"@files\" ;;\n");
	for (c = vp_cmds; *c; c++) {
		n = cmd_flags(*c, f, sizeof(f) / sizeof(f[0]));
		for (i = 0; i < n; i++)
			if (f[i].value[0])
				sbuf_addf(out, "\t\"%s %s\") echo \"%s\" ;;\n", (*c)->name, f[i].name,
					  f[i].value);
	}
	sbuf_addstr(out, "\tesac\n}\n\n"
			 "# _vmmprof_args CMD N: what completes CMD's argument N (0 = first)\n"
			 "_vmmprof_args() {\n\tcase $1 in\n");
	for (c = vp_cmds; *c; c++)
		args_case(*c, out);
	sbuf_addstr(out, "\tesac\n}\n\n");
	sbuf_addstr(out, body);
}
