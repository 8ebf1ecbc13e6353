/* cmd_calibrate.c - `vmmprof calibrate [-o FILE]`: measure the machine, write the calibration */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli/bench_report.h"
#include "calib/file.h"
#include "util/alloc.h"
#include "version.h"

/* Measurements in all: the first and the retries of what failed a check. */
#define CALIBRATE_TRIES 3

/*
 * Whether the calibration can be written to path (its directory exists and
 * is writable): said before the measurement, not after it, which would lose it.
 */
static int check_output(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int rc = 0;

	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK))
		rc = cli_errorf("cannot write the calibration to '%s': directory '%s': %s", path, dir,
				strerror(errno));
	free(dir);
	return rc;
}

static int run_calibrate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "time", required_argument, NULL, 't' },
		{ "quick", no_argument, NULL, 'Q' },
		{ "no-huge", no_argument, NULL, 'H' },
		{ "isa", required_argument, NULL, 'I' },
		{ "seed", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 'Z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "show", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o;
	struct bench_topo t;
	struct calib c;
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT;
	bool quiet = false, time_set = false, topo = false, force = false;
	struct calib_checks chk;
	char *path = NULL;
	const char *show = NULL;
	time_t now;
	int opt, rc = 0;

	bench_opts_default(&o);
	calib_init(&c);
	while ((opt = getopt_long(argc, argv, "o:t:q", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			free(path);
			path = xstrdup(optarg);
			break;
		case 'q':
			quiet = true;
			break;
		case 's':
			show = optarg;
			break;
		case 'F':
			force = true;
			break;
		case '?':
			free(path);
			return cli_bad_option(&cmd_calibrate, argv, "o:t:q");
		default:
			if ((rc = bench_cli_opt(&cmd_calibrate, opt, optarg, &o, &time_set))) {
				free(path);
				return rc;
			}
		}
	}
	if (optind < argc) {
		free(path);
		return cli_usage_error(&cmd_calibrate, "unexpected argument '%s'", argv[optind]);
	}
	if (bench_topo_probe(&t, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	topo = true;
	if (show) {   /* read one back and check it against this machine */
		if (calib_load(&c, show, &err)) {
			rc = cli_error(&err);
			goto out;
		}
		if (calib_match(&c, &t.machine, &err))
			cli_warn("%s", err.msg);
		sbuf_addf(&out, "calibration '%s', made %s by vmmprof %s on\n  ", show, c.created,
			  c.tool);
		calib_machine_format(&c.machine, &out);
		sbuf_addstr(&out, "\n\n");
		report_calib(&c, &out);
		report_calib_checks(&c, &out);
		rc = cli_write(&out);
		goto out;
	}
	if (!time_set)
		o.time_s = o.quick ? 6 : 30;
	o.progress = bench_report_progress;
	o.progress_ctx = &quiet;
	if (!path)
		path = calib_default_path(cli_dirs(), true);
	if (!path) {
		rc = cli_errorf("nowhere to write the calibration: neither HOME nor XDG_CONFIG_HOME "
				"is set (give -o FILE)");
		goto out;
	}
	if ((rc = check_output(path)))
		goto out;
	if (bench_calibrate(&t, &o, &c, CALIBRATE_TRIES, &chk, &err)) {
		bench_report_progress_end(&quiet);
		rc = cli_error(&err);
		goto out;
	}
	bench_report_progress_end(&quiet);
	if (chk.n) {
		struct sbuf why = SBUF_INIT;
		size_t i;

		for (i = 0; i < chk.n && i < CALIB_VIOLATION_MAX; i++)
			sbuf_addf(&why, "\n  %s", chk.v[i].why);
		if (!force) {
			rc = cli_errorf("the calibration is not plausible after %d tries, not written to "
					"'%s' (--force writes it, marked):%s", CALIBRATE_TRIES, path,
					sbuf_str(&why));
			sbuf_release(&why);
			goto out;
		}
		cli_warn("the calibration is not plausible after %d tries; written with --force, "
			 "marked, and those values are not used:%s", CALIBRATE_TRIES, sbuf_str(&why));
		sbuf_release(&why);
		c.forced = true;
	}
	now = time(NULL);
	strftime(c.created, sizeof(c.created), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(c.tool, sizeof(c.tool), "%s", VMMPROF_VERSION);
	if (calib_save(&c, path, &err)) {
		rc = cli_error(&err);
		goto out;
	}
	sbuf_addf(&out, "calibration written to '%s' for\n  ", path);
	calib_machine_format(&c.machine, &out);
	sbuf_addstr(&out, "\n\n");
	report_calib(&c, &out);
	report_calib_checks(&c, &out);
	rc = cli_write(&out);
out:
	if (topo)
		bench_topo_release(&t);
	calib_release(&c);
	sbuf_release(&out);
	free(path);
	return rc;
}

const struct cmd cmd_calibrate = {
	.name = "calibrate",
	.fn = run_calibrate,
	.summary = "measure this machine's memory system for the diagnosis",
	.synopsis = "calibrate [-o FILE] [--time SECS] [--quick] [--force]\ncalibrate --show FILE",
	.description =
		"Runs the parts of the benchmark that the diagnosis needs and writes a\n"
		"calibration file: the idle latency matrix (CPU node x memory node), read\n"
		"bandwidth per node pair and the peak per node, the loaded-latency curve,\n"
		"core-to-core latency within and across packages, cache-level latencies,\n"
		"the effective queue depth and the page migration rate between two nodes\n"
		"(move_pages, for diagnose's break-even of moving memory).  Models read\n"
		"these as cal.NAME values (docs/calibration.md).  What cannot be measured\n"
		"here (remote memory or page migration on a one-node machine, cross-socket\n"
		"latency with one package) is written as null with the reason.\n"
		"\n"
		"The result is checked against physics before it is written: loaded latency\n"
		"at or above idle, remote at or above local, the bandwidth knee inside the\n"
		"range measured under load, core-to-core latency below DRAM latency, a\n"
		"loaded-latency curve that does not fall as load grows.  What fails is\n"
		"measured again, sampling twice as long each time, three tries in all; a\n"
		"calibration that still fails is not written (exit 1, with what failed)\n"
		"unless --force, which writes it marked \"forced\" with those values'\n"
		"quality \"implausible\".  Every value carries a quality (good, noisy,\n"
		"implausible, unmeasured); commands that read a calibration leave\n"
		"implausible values out (n/a) and say so.\n"
		"\n"
		"The file is keyed to this machine's CPU and topology; commands that read\n"
		"it refuse one made elsewhere.  --show reads a file back, checks it and\n"
		"prints it (warning when it was made on another machine).",
	.options = "-o, --output FILE\twhere to write (default ~/.config/vmmprof/calibration.json,\n"
		   "\tor $XDG_CONFIG_HOME/vmmprof/calibration.json)\n"
		   "-t, --time SECS\ttotal seconds (default 30, 6 with --quick)\n"
		   "--quick\tfewer points and smaller working sets\n"
		   "--no-huge\tdo not advise transparent huge pages\n"
		   "--isa scalar|sse2|avx2|avx512\tbandwidth kernels (default: the best this CPU has)\n"
		   "--seed N\tseed of the random chains\n"
		   "--size SIZE\tthe working set that stands for DRAM (default 4x the LLC,\n"
		   "\tat least 64M); smaller for small or emulated guests\n"
		   "--force\twrite the calibration even when it fails the checks (marked)\n"
		   "--show FILE\tprint a calibration file, its checks and whether it fits this machine\n"
		   "-q, --quiet\tno progress on stderr",
	.examples = "vmmprof calibrate\tcalibrate, write the default file\n"
		    "vmmprof calibrate --quick -o cal.json\ta quick calibration into cal.json\n"
		    "vmmprof calibrate --show cal.json\tprint and check a calibration",
};
