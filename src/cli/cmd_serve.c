/* cmd_serve.c - `vmmprof serve` (also `vmmprofd`): the daemon's command line */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fronts.h"
#include "srv/conf.h"
#include "util/alloc.h"

/* web/ of the source tree for a built binary (build/vmmprof), else the installed copy. */
static char *default_web_dir(void)
{
	const char *exe = cli_dirs()->exe_dir;
	struct stat st;
	char *p;

	if (!exe)
		return NULL;
	p = xasprintf("%s/../web", exe);
	if (!stat(p, &st) && S_ISDIR(st.st_mode))
		return p;
	free(p);
	return xasprintf("%s/../share/vmmprof/web", exe);
}

static int run_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "users", required_argument, NULL, 'u' },
		{ "tls-cert", required_argument, NULL, 'C' },
		{ "tls-key", required_argument, NULL, 'K' },
		{ "allow-plain-http", no_argument, NULL, 'P' },
		{ "web-dir", required_argument, NULL, 'w' },
		{ "recordings-dir", required_argument, NULL, 'r' },
		{ "audit-log", required_argument, NULL, 'a' },
		{ "root", required_argument, NULL, 'R' },
		{ "user", required_argument, NULL, 'U' },
		{ "calibration", required_argument, NULL, 'L' },
		{ "model-path", required_argument, NULL, 'M' },
		{ "metrics-auth", required_argument, NULL, 'm' },
		{ "xen-numa-dump", optional_argument, NULL, 'X' },
		{ "xentrace", no_argument, NULL, 'T' },
		{ "xen-psr", no_argument, NULL, 'S' },
		{ "xen-imc", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL;
	const char **keys = xcalloc((size_t)argc + 1, sizeof(char *));
	const char **vals = xcalloc((size_t)argc + 1, sizeof(char *));
	struct srv_conf conf;
	struct vp_err err = { 0, "" };
	size_t n = 0, i;
	int c, rc = 0;

	srv_conf_init(&conf);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		const struct option *o;

		if (c == ':') {
			rc = cli_usage_error(&cmd_serve, "option '%s' needs a value", argv[optind - 1]);
			goto out;
		}
		if (c == '?') {
			rc = cli_bad_option(&cmd_serve, argv, ":");
			goto out;
		}
		if (c == 'c') {
			config = optarg;
			continue;
		}
		for (o = opts; o->name && o->val != c; o++)
			;
		keys[n] = o->name;
		vals[n++] = c == 'P' || c == 'T' || c == 'S' || c == 'I' ? "true" : c == 'X' && !optarg ? "on" : optarg;
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_serve, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!cli_fronts()->serve) {
		rc = cli_errorf("this vmmprof was built without libmicrohttpd, so it has no daemon "
				"(install libmicrohttpd-dev and rebuild)");
		goto out;
	}
	if (config && srv_conf_load(&conf, config, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (srv_conf_set(&conf, keys[i], vals[i], &err)) {
			rc = cli_usage_error(&cmd_serve, "--%s: %s", keys[i], err.msg);
			goto out;
		}
	}
	if (!conf.listen)
		conf.listen = xstrdup(SRV_DEFAULT_LISTEN);
	if (!conf.users)
		conf.users = xstrdup("/etc/vmmprof/users");
	if (!conf.root)
		conf.root = xstrdup("/");
	if (!conf.web_dir)
		conf.web_dir = default_web_dir();
	/* On a fixture tree the CPU is not this one: like `vmmprof model`, let
	 * libpfm4 encode the tables of CPUs it does not see, so that
	 * /api/v1/models/NAME answers what `model show NAME --root DIR` does.
	 * Set before any thread starts and before libpfm4 is initialised. */
	if (strcmp(conf.root, "/"))
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	rc = cli_fronts()->serve(&conf, cli_dirs());
out:
	srv_conf_release(&conf);
	free(keys);
	free(vals);
	return rc;
}

const struct cmd cmd_serve = {
	.name = "serve",
	.fn = run_serve,
	.summary = "run the daemon (vmmprofd): HTTP/JSON API, live sessions, web UI",
	.synopsis = "serve [--config FILE] [--listen ADDR:PORT] [--users FILE] [OPTION]...\n"
		    "serve --tls-cert FILE --tls-key FILE --listen 0.0.0.0:7767 [OPTION]...",
	.description =
		"Runs the vmmprof daemon: one collector shared by every session, an HTTP/JSON\n"
		"API under /api/v1/ (docs/api.md), live streams as server-sent events, and the\n"
		"web UI's files.  'vmmprofd' is the same program.  Every API request needs a\n"
		"token ('Authorization: Bearer TOKEN') of a user in the users file, managed\n"
		"with 'vmmprof user'; roles admin, operator and viewer decide what it may do.\n"
		"\n"
		"Settings come from the configuration file (lines 'key = value', '#'\n"
		"comments; the keys are the long option names with '_' or '-'), then the\n"
		"command line.  The default address is 127.0.0.1:7767.  Plain HTTP is refused\n"
		"on an address that is not loopback unless --allow-plain-http is given: use\n"
		"--tls-cert and --tls-key (PEM) to serve HTTPS.  Port 0 picks a free port; the\n"
		"address is printed on standard error.\n"
		"\n"
		"Started as root with --user NAME, it switches to that user keeping only\n"
		"CAP_PERFMON and CAP_SYS_PTRACE (docs/daemon.md; contrib/vmmprofd.service).\n"
		"SIGTERM or SIGINT stops it cleanly: sessions end, recordings are closed.\n"
		"SIGHUP rereads the users file (it is also reread when it changes).",
	.options = "--config FILE\tread settings from FILE first\n"
		   "--listen ADDR:PORT\taddress to listen on (default 127.0.0.1:7767; [::1]:PORT for IPv6)\n"
		   "--users FILE\tthe users file (default /etc/vmmprof/users)\n"
		   "--tls-cert FILE\tPEM certificate: serve HTTPS\n"
		   "--tls-key FILE\tPEM private key of the certificate\n"
		   "--allow-plain-http\tallow plain HTTP on an address that is not loopback\n"
		   "--web-dir DIR\tthe web UI's files (default: web/ next to the build, or share/vmmprof/web)\n"
		   "--recordings-dir DIR\twhere sessions with \"record\": true write, and downloads come from\n"
		   "--audit-log FILE\tappend who started and stopped what to FILE (default: standard error)\n"
		   "--root DIR\tread /proc and /sys under DIR (fixture trees: sessions count\n"
		   "\tno thread, whose ids are not this machine's)\n"
		   "--user NAME\twhen started as root, run as NAME keeping CAP_PERFMON\n"
		   "--calibration FILE\tcalibration file for the models' cal.* values\n"
		   "--model-path DIR\tlook for models in DIR first (':'-separated)\n"
		   "--metrics-auth none|token\twhether GET /metrics needs a token (default token)\n"
		   "--xen-numa-dump[=SECS]\tXen: the collector asks Xen for every domain's memory\n"
		   "\tper node (its 'u' debug key) at most every SECS (default 60); off by\n"
		   "\tdefault: it writes to Xen's console ring (docs/xen.md)\n"
		   "--xentrace\tXen: each vCPU's residency per node exact, from a xentrace that\n"
		   "\truns as long as the daemon (needs Xen's trace buffers: tbuf_size= or\n"
		   "\t'xentrace -S'); off by default: sampled from xl vcpu-list\n"
		   "--xen-psr\tXen with psr=cmt: each domain's LLC occupancy and memory bandwidth\n"
		   "\t(Intel CMT/MBM, xl psr-cmt-*) for every session and the top stream; the\n"
		   "\tdomains are attached for the daemon's life and detached when it stops\n"
		   "--xen-imc\tXen dom0 on an Intel Xeon Sandy Bridge-EP to Cascade Lake: the\n"
		   "\tsessions' memory-controller counts (CAS, RPQ) per node from the IMC\n"
		   "\tchannels' PCI configuration space, programmed once for every session\n"
		   "\tand cleared when the last one ends (docs/xen.md)",
	.examples = "vmmprof user add alice --role admin --users users\tcreate the first user\n"
		    "vmmprof serve --users users\tserve on 127.0.0.1:7767\n"
		    "curl -H \"Authorization: Bearer $TOKEN\" localhost:7767/api/v1/info\task it\n"
		    "vmmprofd --config /etc/vmmprof/vmmprofd.conf\tas the systemd unit runs it",
};
