/* cli.c - help and man rendering, error printing and output for subcommands */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
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

static void help_synopsis(struct sbuf *out, const char *line, size_t len)
{
	sbuf_addf(out, "  vmmprof %.*s\n", (int)len, line);
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
	each_line(c->synopsis, out, help_synopsis);
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

static void man_synopsis(struct sbuf *out, const char *line, size_t len)
{
	sbuf_addstr(out, ".br\n\\fBvmmprof\\fR ");
	man_text(out, line, len);
	sbuf_addch(out, '\n');
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
	each_line(c->synopsis, out, man_synopsis);
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

int cli_usage_error(const struct cmd *c, const char *fmt, ...)
{
	va_list ap;
	struct sbuf sb = SBUF_INIT;

	fprintf(stderr, "error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	sbuf_addstr(&sb, "usage:\n");
	each_line(c->synopsis, &sb, help_synopsis);
	fprintf(stderr, "%s\nSee 'vmmprof help %s'.\n", sbuf_str(&sb), c->name);
	sbuf_release(&sb);
	return 2;
}

int cli_error(const struct vp_err *err)
{
	fprintf(stderr, "vmmprof: error: %s\n",
		err && err->msg[0] ? err->msg : vp_strerror(err ? err->code : 0));
	return 1;
}

int cli_errorf(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vmmprof: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vmmprof: warning: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		vp_err_errno(err, errno, "cannot open '%s' for writing", path);
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
