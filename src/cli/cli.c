/* cli.c - help and man rendering, error printing and output for subcommands */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdlib.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"
#include "version.h"

const struct cmd *cli_find_cmd(const char *name)
{
	const struct cmd *const *c;

	for (c = vp_cmds; *c; c++)
		if (!strcmp((*c)->name, name))
			return *c;
	return NULL;
}

/* Call fn for each '\n'-separated line of text. */
static void each_line(const char *text, struct sbuf *out,
		      void (*fn)(struct sbuf *out, const char *line, size_t len))
{
	const char *p = text, *nl;

	if (!text)
		return;
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		fn(out, p, (size_t)(nl - p));
		p = *nl ? nl + 1 : nl;
	}
}

/*
 * Synopses.  Each line of c->synopsis that starts at column 0 is one way to
 * call the command; a line that starts with blanks continues the one above
 * it.  Help prints a synopsis from "  vmmprof " and puts its continuations,
 * and any part that would pass column SYN_WIDTH, under the command's first
 * argument, breaking only between words outside brackets, so that
 * "[-m MODEL [--raw]]" stays whole.  The man page leaves filling to troff
 * and hangs the continuations the same way.
 */
#define SYN_WIDTH 80

/* The length of the next word of s: up to a blank outside [], (), {}. */
static size_t syn_word(const char *s, size_t len)
{
	size_t i;
	int depth = 0;

	for (i = 0; i < len; i++) {
		if (s[i] == '[' || s[i] == '(' || s[i] == '{')
			depth++;
		else if ((s[i] == ']' || s[i] == ')' || s[i] == '}') && depth > 0)
			depth--;
		else if ((s[i] == ' ' || s[i] == '\t') && !depth)
			break;
	}
	return i;
}

/* Append the words of line, wrapping at SYN_WIDTH to indent columns; *col is the column. */
static void syn_words(struct sbuf *out, const char *line, size_t len, size_t indent, size_t *col)
{
	size_t i = 0, w;
	bool first = true;

	while (i < len) {
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		w = syn_word(line + i, len - i);
		if (!first && *col + 1 + w > SYN_WIDTH && *col > indent) {
			sbuf_addf(out, "\n%*s", (int)indent, "");
			*col = indent;
		} else if (!first) {
			sbuf_addch(out, ' ');
			(*col)++;
		}
		sbuf_add(out, line + i, w);
		*col += w;
		i += w;
		first = false;
	}
}

static void render_synopsis(const struct cmd *c, struct sbuf *out)
{
	const char *p = c->synopsis, *nl;
	size_t indent = strlen("  vmmprof ") + strlen(c->name) + 1, col = 0, len;
	bool open = false;

	while (p && *p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && (*p == ' ' || *p == '\t') && open) {
			sbuf_addf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (len) {
			if (open)
				sbuf_addch(out, '\n');
			sbuf_addstr(out, "  vmmprof ");
			col = strlen("  vmmprof ");
			open = true;
		}
		syn_words(out, p, len, indent, &col);
		p = nl ? nl + 1 : p + len;
	}
	if (open)
		sbuf_addch(out, '\n');
}

static void help_para(struct sbuf *out, const char *line, size_t len)
{
	if (len)
		sbuf_addf(out, "  %.*s\n", (int)len, line);
	else
		sbuf_addch(out, '\n');
}

/* "FLAGS\tTEXT" as two aligned columns. */
static void help_option(struct sbuf *out, const char *line, size_t len)
{
	const char *tab = memchr(line, '\t', len);

	if (!tab) {
		sbuf_addf(out, "  %.*s\n", (int)len, line);
		return;
	}
	if (tab - line <= 24)
		sbuf_addf(out, "  %-24.*s  %.*s\n", (int)(tab - line), line,
			  (int)(len - (size_t)(tab - line) - 1), tab + 1);
	else
		sbuf_addf(out, "  %.*s\n  %-24s  %.*s\n", (int)(tab - line), line, "",
			  (int)(len - (size_t)(tab - line) - 1), tab + 1);
}

void cli_render_help(const struct cmd *c, struct sbuf *out)
{
	sbuf_addf(out, "vmmprof %s - %s\n\nusage:\n", c->name, c->summary);
	render_synopsis(c, out);
	if (c->description && *c->description) {
		sbuf_addch(out, '\n');
		each_line(c->description, out, help_para);
	}
	sbuf_addstr(out, "\noptions:\n");
	each_line(c->options, out, help_option);
	help_option(out, "-h, --help\tshow this help", strlen("-h, --help\tshow this help"));
	if (c->examples && *c->examples) {
		sbuf_addstr(out, "\nexamples:\n");
		each_line(c->examples, out, help_option);
	}
}

/* Escape text for troff: backslashes, and leading dots or quotes. */
static void man_text(struct sbuf *out, const char *s, size_t len)
{
	size_t i;

	if (len && (s[0] == '.' || s[0] == '\''))
		sbuf_addstr(out, "\\&");
	for (i = 0; i < len; i++) {
		if (s[i] == '\\')
			sbuf_addstr(out, "\\e");
		else if (s[i] == '-')
			sbuf_addstr(out, "\\-");
		else
			sbuf_addch(out, s[i]);
	}
}

/* Words as syn_word() cuts them, their inner blanks unbreakable for troff. */
static void man_syn_words(struct sbuf *out, const char *line, size_t len)
{
	size_t i = 0, j, w;

	while (i < len) {
		if (line[i] == ' ' || line[i] == '\t') {
			i++;
			continue;
		}
		w = syn_word(line + i, len - i);
		if (out->len && out->buf[out->len - 1] != '\n' && out->buf[out->len - 1] != ' ')
			sbuf_addch(out, ' ');
		for (j = 0; j < w; j++) {
			size_t k = j;

			while (k < w && line[i + k] != ' ' && line[i + k] != '\t')
				k++;
			man_text(out, line + i + j, k - j);
			if (k < w)
				sbuf_addstr(out, "\\ ");
			j = k;
		}
		i += w;
	}
}

/* Each synopsis on a new line, hanging: what troff wraps and the
 * continuation lines (filled into the same paragraph) sit under the
 * command's first argument. */
static void man_synopsis(const struct cmd *c, struct sbuf *out)
{
	const char *p = c->synopsis, *nl;
	size_t hang = strlen("vmmprof ") + strlen(c->name) + 1, len;

	sbuf_addf(out, ".nh\n.ad l\n.in +%zun\n", hang);
	while (p && *p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && *p != ' ' && *p != '\t')
			sbuf_addf(out, ".br\n.ti -%zun\n\\fBvmmprof\\fR ", hang);
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		if (len) {
			man_syn_words(out, p, len);
			sbuf_addch(out, '\n');
		}
		p += len + (nl ? 1 : 0);
		if (!nl)
			break;
	}
	sbuf_addstr(out, ".in\n.ad\n.hy\n");
}

static void man_para(struct sbuf *out, const char *line, size_t len)
{
	if (!len) {
		sbuf_addstr(out, ".PP\n");
		return;
	}
	man_text(out, line, len);
	sbuf_addch(out, '\n');
}

static void man_item(struct sbuf *out, const char *line, size_t len)
{
	const char *tab = memchr(line, '\t', len);

	sbuf_addstr(out, ".TP\n\\fB");
	man_text(out, line, tab ? (size_t)(tab - line) : len);
	sbuf_addstr(out, "\\fR\n");
	if (tab)
		man_text(out, tab + 1, len - (size_t)(tab - line) - 1);
	sbuf_addch(out, '\n');
}

void cli_render_man(const struct cmd *c, struct sbuf *out)
{
	char *upper = xasprintf("VMMPROF-%s", c->name);
	char *p;

	for (p = upper; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	sbuf_addf(out, ".TH %s 1 \"\" \"vmmprof %s\" \"vmmprof manual\"\n", upper, VMMPROF_VERSION);
	sbuf_addf(out, ".SH NAME\nvmmprof\\-%s \\- ", c->name);
	man_text(out, c->summary, strlen(c->summary));
	sbuf_addstr(out, "\n.SH SYNOPSIS\n");
	man_synopsis(c, out);
	if (c->description && *c->description) {
		sbuf_addstr(out, ".SH DESCRIPTION\n");
		each_line(c->description, out, man_para);
	}
	sbuf_addstr(out, ".SH OPTIONS\n");
	each_line(c->options, out, man_item);
	man_item(out, "-h, --help\tshow the help page", strlen("-h, --help\tshow the help page"));
	if (c->examples && *c->examples) {
		sbuf_addstr(out, ".SH EXAMPLES\n");
		each_line(c->examples, out, man_item);
	}
	sbuf_addstr(out, ".SH SEE ALSO\n\\fBvmmprof\\fR(1)\n");
	free(upper);
}

static const char overview_desc[] =
	"vmmprof finds what costs virtual machines time on NUMA hosts (KVM/QEMU, libvirt,\n"
	"Xen): per node, per VM and per vCPU, which of five factors costs how much, and what\n"
	"to change in vCPU and memory placement to fix it.  The factors are data locality\n"
	"(remote memory accesses), LLC contention (misses above the VM's solo rate), sharing\n"
	"(cache lines moved between cores), memory-controller (IMC) contention and contention\n"
	"of the shared uncore request trackers (queue).\n"
	"\n"
	"One pipeline serves every command: the platform is probed (CPU, topology, PMUs,\n"
	"hypervisor), a model (a text file per CPU family, see vmmprof-model(1)) says which\n"
	"hardware events and software sources measure each factor there, the collector counts\n"
	"them per CPU, VM, vCPU and node, the cost stage turns the counts into each factor's\n"
	"share of the cycles, and the diagnosis ranks the costs and gives placement advice\n"
	"with the commands that apply it.\n"
	"\n"
	"Every value is labelled with how it was obtained: measured (counted by hardware or\n"
	"the kernel), estimate (derived from counts and the calibration), apportioned (a\n"
	"shared count divided by residency), proxy (a related quantity standing in for the\n"
	"factor) or unavailable (n/a, always with the reason).  Unknown is never printed as 0.";

static const char overview_files[] =
	"~/.config/vmmprof/calibration.json\tthe machine's calibration written by\n"
	"\tvmmprof-calibrate(1) ($XDG_CONFIG_HOME/vmmprof/ when set)\n"
	"~/.config/vmmprof/models/\tthe user's models, searched before the installed ones\n"
	"PREFIX/share/vmmprof/models/\tthe models shipped with vmmprof\n"
	"/etc/vmmprof/users\tthe daemon's users and tokens (vmmprof-user(1), vmmprof-serve(1))";

static const char overview_env[] =
	"VMMPROF_REMOTE\tURL of a vmmprofd to run commands against, as --remote\n"
	"VMMPROF_TOKEN_FILE\tthe token for it, as --token-file\n"
	"VMMPROF_CACERT\tthe CA certificate that signs its TLS certificate, as --cacert\n"
	"XDG_CONFIG_HOME\twhere the calibration and the user's models are (default ~/.config)";

static const char overview_exit[] =
	"0\tsuccess\n"
	"1\tan error at run time, named with the thing and the place\n"
	"2\ta usage error (an unknown option, a bad value)\n"
	"N\tvmmprof stat COMMAND exits as COMMAND did, 127 when it cannot run it, as perf stat";

/* vmmprof(1): the page every command's page cites. */
void cli_render_man_overview(struct sbuf *out)
{
	const struct cmd *const *c;

	sbuf_addf(out, ".TH VMMPROF 1 \"\" \"vmmprof %s\" \"vmmprof manual\"\n", VMMPROF_VERSION);
	sbuf_addstr(out, ".SH NAME\nvmmprof \\- NUMA performance profiler for virtualized hosts\n"
			 ".SH SYNOPSIS\n\\fBvmmprof\\fR [\\-\\-version] [\\-\\-help] "
			 "[\\-\\-remote URL [\\-\\-token\\-file FILE] [\\-\\-cacert FILE]] "
			 "COMMAND [ARGS]\n.SH DESCRIPTION\n");
	each_line(overview_desc, out, man_para);
	sbuf_addstr(out, ".SH COMMANDS\n");
	for (c = vp_cmds; *c; c++) {
		sbuf_addf(out, ".TP\n\\fBvmmprof\\-%s\\fR(1)\n", (*c)->name);
		man_text(out, (*c)->summary, strlen((*c)->summary));
		sbuf_addch(out, '\n');
	}
	sbuf_addstr(out, ".SH OPTIONS\n");
	each_line("--version\tprint the version and exit\n"
		  "-h, --help\tlist the commands; COMMAND --help shows a command's page\n"
		  "--remote URL\trun info, list, model, stat, top, diagnose and record against the "
		  "vmmprofd at URL\n"
		  "--token-file FILE\tthe token for --remote\n"
		  "--cacert FILE\tthe CA certificate for --remote over TLS", out, man_item);
	sbuf_addstr(out, ".SH FILES\n");
	each_line(overview_files, out, man_item);
	sbuf_addstr(out, ".SH ENVIRONMENT\n");
	each_line(overview_env, out, man_item);
	sbuf_addstr(out, ".SH EXIT STATUS\n");
	each_line(overview_exit, out, man_item);
	sbuf_addstr(out, ".SH SEE ALSO\n");
	for (c = vp_cmds; *c; c++)
		sbuf_addf(out, "\\fBvmmprof\\-%s\\fR(1), ", (*c)->name);
	sbuf_addstr(out, "\\fBvmmprofd\\fR(1), \\fBperf\\fR(1), \\fBnumactl\\fR(8), "
			 "\\fBvirsh\\fR(1), \\fBxl\\fR(1)\n");
}

int cli_usage_error(const struct cmd *c, const char *fmt, ...)
{
	va_list ap;
	struct sbuf sb = SBUF_INIT;

	fprintf(stderr, "vmmprof: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	sbuf_addstr(&sb, "usage:\n");
	render_synopsis(c, &sb);
	fprintf(stderr, "%s\nSee 'vmmprof help %s'.\n", sbuf_str(&sb), c->name);
	sbuf_release(&sb);
	return 2;
}

int cli_parse_pids(const char *s, int **pids, size_t *n)
{
	char *copy = xstrdup(s), *tok, *save = NULL;
	int ret = *s ? 0 : -1;

	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (*end || end == tok || v <= 0 || v > 4194304) {
			ret = -1;
			break;
		}
		*pids = xrealloc(*pids, (*n + 1) * sizeof(**pids));
		(*pids)[(*n)++] = (int)v;
	}
	free(copy);
	return ret;
}

/* One options line's flags part ("-e, --event EVENTS", "--wait[=SECS]") into f. */
static void flags_of_line(const char *p, const char *end, struct cli_flag *f)
{
	const char *tok = p;

	memset(f, 0, sizeof(*f));
	while (tok < end) {
		const char *t = tok, *stop;

		while (t < end && *t == ' ')
			t++;
		if (t >= end || *t != '-')
			break;
		for (stop = t; stop < end && *stop != ',' && *stop != ' ' && *stop != '['; stop++)
			;
		if (t[1] == '-') {
			f->name = t + 2;
			f->name_len = (size_t)(stop - t - 2);
		} else {
			f->shortc = t[1];
		}
		if (stop < end && *stop == '[')
			f->arg = 2;
		else if (stop < end && *stop == ' ')
			f->arg = 1;
		/* the next ", -x" token, if any */
		tok = memchr(stop, ',', (size_t)(end - stop));
		if (!tok)
			break;
		tok++;
	}
}

struct cli_flag *cli_flags(const struct cmd *c, size_t *n)
{
	const char *p = c->options, *nl;
	struct cli_flag *f = NULL;

	*n = 0;
	while (p && *p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (*p == '-') {
			const char *tab = memchr(p, '\t', (size_t)(nl - p));

			f = xrealloc(f, (*n + 1) * sizeof(*f));
			flags_of_line(p, tab ? tab : nl, &f[*n]);
			(*n)++;
		}
		p = *nl ? nl + 1 : nl;
	}
	return f;
}

int cli_bad_option(const struct cmd *c, char **argv, const char *optstring)
{
	const char *arg = argv[optind - 1], *eq;
	char name[64];

	/* getopt's own messages are off (opterr = 0 in main): this is the one line */
	if (!strncmp(arg, "--", 2)) {
		eq = strchr(arg, '=');
		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
		/* a long option getopt knows has its value in optopt; an unknown one 0 */
		if (optopt && eq)
			return cli_usage_error(c, "option '%s' takes no value", name);
		if (optopt)
			return cli_usage_error(c, "option '%s' needs a value", name);
		return cli_usage_error(c, "unknown option '%s'", name);
	}
	if (optopt > 0 && optopt < 256 && optopt != ':' && optopt != '+' &&
	    strchr(optstring, optopt))
		return cli_usage_error(c, "option '-%c' needs a value", optopt);
	if (optopt > 32 && optopt < 127)
		return cli_usage_error(c, "unknown option '-%c'", optopt);
	return cli_usage_error(c, "unknown option '%s'", arg);
}

int cli_keep_old(const char *path, struct vp_err *err)
{
	static const char *const side[] = { "", "-wal", "-shm" };
	size_t i;

	if (access(path, F_OK))
		return 0;
	for (i = 0; i < VP_ARRAY_SIZE(side); i++) {
		char *from = xasprintf("%s%s", path, side[i]);
		char *to = xasprintf("%s.old%s", path, side[i]);
		int bad = 0;

		if (i == 0 || !access(from, F_OK))
			bad = rename(from, to);
		else
			unlink(to);
		if (bad)
			vp_err_set(err, -errno, "cannot keep '%s' as '%s': %s", from, to,
				   strerror(errno));
		free(from);
		free(to);
		if (bad)
			return err->code;
	}
	return 0;
}

/* One message on standard error as terminal text (a process or VM name it quotes may hold
 * an escape sequence): its own line breaks kept, nothing else of C0, C1 or DEL. */
static void say(const char *what, const char *fmt, va_list ap)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "vmmprof: %s: ", what);
	sbuf_vaddf(&sb, fmt, ap);
	sbuf_sanitize(&sb, 0, true);
	sbuf_addch(&sb, '\n');
	fputs(sbuf_str(&sb), stderr);
	sbuf_release(&sb);
}

static void sayf(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sayf(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(what, fmt, ap);
	va_end(ap);
}

const struct vp_dirs *cli_dirs(void)
{
	static struct vp_dirs d;
	static char exe[PATH_MAX];
	static bool done;
	const char *xdg, *home;
	ssize_t len;
	char *slash;

	if (done)
		return &d;
	done = true;
	xdg = getenv("XDG_CONFIG_HOME");
	home = getenv("HOME");
	d.xdg_config_home = xdg && *xdg ? xdg : NULL;
	d.home = home && *home ? home : NULL;
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			d.exe_dir = exe;
		}
	}
	return &d;
}

int cli_error(const struct vp_err *err)
{
	sayf("error", "%s", err && err->msg[0] ? err->msg : vp_strerror(err ? err->code : 0));
	return 1;
}

int cli_errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("error", fmt, ap);
	va_end(ap);
	return 1;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning", fmt, ap);
	va_end(ap);
}

int cli_write(const struct sbuf *sb)
{
	if (sb->len && fwrite(sb->buf, 1, sb->len, stdout) != sb->len)
		return cli_errorf("write failure on standard output: %s", strerror(errno));
	return 0;
}

FILE *cli_open_output(const char *path, struct vp_err *err)
{
	FILE *f;
	int fd;

	if (!path || !strcmp(path, "-"))
		return stdout;
	/* truncates what exists (/dev/stdout too); never creates through a dangling link */
	fd = vp_open_output(path, false, 0666, err);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		vp_err_errno(err, errno, "cannot open '%s' for writing", path);
		close(fd);
	}
	return f;
}

int cli_close_output(FILE *f, const char *path)
{
	int bad;

	if (f == stdout)
		return fflush(f) ? cli_errorf("write failure on standard output: %s",
					      strerror(errno)) : 0;
	bad = ferror(f);
	if (fclose(f) || bad)
		return cli_errorf("cannot write '%s': %s", path, strerror(errno));
	return 0;
}
