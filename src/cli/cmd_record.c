/* cmd_record.c - `vmmprof record`: the live pipeline's frames into an SQLite recording */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/interrupt.h"
#include "cli/pipeline.h"
#include "record/record.h"
#include "util/alloc.h"
#include "util/timeutil.h"

/* A number from lo to hi (an 's' suffix allowed), else -1. */
static int parse_number(const char *s, double *out, double lo, double hi)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (*end == 's')
		end++;
	return (*end || errno || !(*out >= lo) || *out > hi) ? -1 : 0;
}

static int run_record(int argc, char **argv)
{
	bool rotate = false, kept = false;
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'I' },
		PIPE_LONGOPTS,
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct pipe_opts o = { .root = "/" };
	struct pipeline p;
	struct rec_writer *w = NULL;
	struct sbuf cmdline = SBUF_INIT;
	const char *out = NULL;
	double duration = INFINITY, interval = 1.0;
	bool opened = false, quiet = false, had_rows = false, gone = false;
	const char **reasons = NULL;
	struct vp_err err;
	int opt, rc = 0, r, i;
	uint64_t t0, next;

	while ((opt = getopt_long(argc, argv, "o:d:I:m:p:q", longopts, NULL)) != -1) {
		if ((r = pipe_opt(&cmd_record, &o, opt, optarg))) {
			if (r < 0) {
				rc = 2;
				goto out;
			}
			continue;
		}
		switch (opt) {
		case 'o': out = optarg; break;
		case 'd':
			if (parse_number(optarg, &duration, 0.001, 31 * 86400.0)) {
				rc = cli_usage_error(&cmd_record, "invalid duration '%s' (seconds, > 0 and "
						     "at most 31 days)", optarg);
				goto out;
			}
			break;
		case 'I': {
			double ms;

			if (parse_number(optarg, &ms, 10, 31 * 86400e3)) {
				rc = cli_usage_error(&cmd_record, "invalid interval '%s' (milliseconds, 10 "
						     "to 31 days: %.0f)", optarg, 31 * 86400e3);
				goto out;
			}
			interval = ms / 1000.0;
			break;
		}
		case 'q': quiet = true; break;
		default:
			rc = cli_bad_option(&cmd_record, argv, "o:d:I:m:p:q");
			goto out;
		}
	}
	/* as perf record writes perf.data: the default name, the one before kept as .old */
	if (!out) {
		out = CLI_RECORD_DEFAULT;
		rotate = true;
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_record, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	/* before the (possibly slow) set-up, so an early signal is not fatal */
	cli_catch_interrupts();
	opened = true;
	if ((rc = cli_pipeline_open(&p, &o, true)))
		goto out;
	reasons = xcalloc(p.model->n_inputs ? p.model->n_inputs : 1, sizeof(char *));
	for (i = 0; i < (int)p.model->n_inputs; i++)
		reasons[i] = collect_input_reason(p.col, (size_t)i);
	for (i = 0; i < argc; i++)
		sbuf_addf(&cmdline, "%s%s", i ? " " : "vmmprof ", argv[i]);
	{
		struct rec_header h = { &p.plat, p.model, reasons, p.have_cal ? &p.cal : NULL,
					interval, sbuf_str(&cmdline) };

		kept = rotate && !access(out, F_OK);
		if (rotate && cli_keep_old(out, &err)) {
			rc = cli_error(&err);
			goto out;
		}
		if (rec_create(&w, out, &h, &err)) {
			rc = cli_error(&err);
			goto out;
		}
	}
	if (!quiet)
		fprintf(stderr, "vmmprof record: '%s', model '%s', %zu thread(s), every %.3g s%s "
				"(Ctrl-C stops)\n", out, p.model->name, collect_n_targets(p.col), interval,
			isfinite(duration) ? "" : ", until stopped");
	if (!quiet && kept)  /* perf record moves perf.data aside without a word: say where */
		fprintf(stderr, "vmmprof record: the recording before is now '%s.old'\n", out);
	t0 = vp_now_ns();
	next = t0;
	while (!cli_interrupted()) {
		struct collect_frame fr;
		uint64_t now = vp_now_ns();
		double left = duration - (double)(now - t0) / 1e9;
		uint64_t step;

		next += (uint64_t)(interval * 1e9);
		if (left <= 0)
			break;
		step = next > now ? next - now : 0;
		if (left < (double)step / 1e9)
			step = (uint64_t)(left * 1e9);
		cli_sleep_ns(step);
		/* an interrupted interval is still written: nothing collected is lost */
		if (collect_sample(p.col, &fr, &err)) {
			rc = cli_error(&err);
			break;
		}
		if (rec_append(w, &fr, &err)) {
			collect_frame_release(&fr);
			rc = cli_error(&err);
			break;
		}
		/*
		 * every process or VM named is gone (its last interval, marked ended, was
		 * the frame before).  A process does not come back: say so and stop, as
		 * stat -p does.  A VM started again under its name is another
		 * incarnation of it, recorded from the next interval: go on, and say once
		 * per absence that nothing named runs.
		 */
		if ((o.n_pids || o.n_vms) && had_rows && !fr.n_rows && !gone) {
			gone = true;
			if (o.n_pids) {
				collect_frame_release(&fr);
				fprintf(stderr, "vmmprof record: every process recorded has exited: "
						"stopping after %lu intervals\n", rec_frames(w));
				break;
			}
			fprintf(stderr, "%svmmprof record: every VM named has ended (interval %lu); "
					"recording goes on: one started again under its name is "
					"recorded from the next interval\n",
				!quiet && isatty(2) ? "\n" : "", rec_frames(w));
		} else if (fr.n_rows) {
			gone = false;
		}
		had_rows = had_rows || fr.n_rows;
		collect_frame_release(&fr);
		if (!quiet && isatty(2))
			fprintf(stderr, "\r  %lu intervals, %.0f s", rec_frames(w),
				(double)(vp_now_ns() - t0) / 1e9);
	}
	if (!quiet && isatty(2))
		fprintf(stderr, "\n");
	if (!quiet)
		fprintf(stderr, "vmmprof record: %lu intervals written to '%s'%s\n", rec_frames(w), out,
			cli_interrupted() ? " (stopped by a signal)" : "");
	if (rec_close(w, &err) && !rc)
		rc = cli_error(&err);
	w = NULL;
out:
	rec_close(w, NULL);
	free(reasons);
	if (opened)
		pipeline_close(&p);
	sbuf_release(&cmdline);
	pipe_opts_release(&o);
	return rc;
}

const struct cmd cmd_record = {
	.name = "record",
	.fn = run_record,
	.summary = "record every interval of the live pipeline into a file",
	.synopsis = "record [-o FILE] [-d SECS] [-I MS] [--vm NAME]... [--wait[=SECS]] [-m NAME|FILE]\n"
		    "record [-o FILE] -p PID[,PID...] [-d SECS] [-I MS]",
	.description =
		"Runs the same collection as 'vmmprof diagnose' and writes every interval\n"
		"into an SQLite recording (the schema is docs/record-format.md): the\n"
		"machine's topology, the model and what it could not count here, the\n"
		"calibration, and per interval every VM's and vCPU's placement, memory per\n"
		"node and where it comes from, model inputs, and with --resctrl each node's\n"
		"LLC occupancy and memory traffic: one row per VM or vCPU and interval, its\n"
		"inputs packed in one column (schema 5).  'vmmprof report' and 'vmmprof\n"
		"diagnose FILE' read it back through the same analysis as live mode, and\n"
		"read recordings of schema 1 to 4 too.\n"
		"\n"
		"The recording follows the host: a VM (one named with --vm, or any without it)\n"
		"or vCPU that starts while it runs has rows from the interval it appears in and\n"
		"is counted from the next; one that ends has its last, partial interval,\n"
		"marked ended; a VM restarted under its name is another incarnation (pid,\n"
		"start); a paused VM is marked paused and not rated (docs/record-format.md).\n"
		"\n"
		"Each interval is committed on its own: Ctrl-C, SIGTERM, a VM that exits, or\n"
		"a crash leave a valid file holding every interval collected before.  With -p,\n"
		"the recording stops (exit 0) once every process named has exited, and says\n"
		"so; a process named with -p that does not exist is an error.  With --vm, a\n"
		"VM that ends may be started again under its name: the recording says that\n"
		"every VM named has ended and goes on to its duration (or Ctrl-C), recording\n"
		"a new incarnation from the interval after it appears.",
	.options =
		"-o, --output FILE\tthe recording to create (it must not exist); default\n"
		"\tvmmprof.vmmdb, an existing one kept as vmmprof.vmmdb.old (as perf.data)\n"
		"-d, --duration SECS\tstop after this long (default: until Ctrl-C)\n"
		"-I, --interval MS\tinterval length in milliseconds (default 1000)\n"
		VM_WAIT_HELP
		"-p, --pid PIDS\trecord these processes instead of VMs\n"
		"-m, --model NAME|FILE\tuse this model instead of the one chosen for the CPU\n"
		"--model-path DIR\talso look for models in DIR (repeatable)\n"
		"--calibration FILE\tthe machine's calibration (default ~/.config/vmmprof/calibration.json)\n"
		"-q, --quiet\tno progress on standard error\n"
		XEN_NUMA_HELP
		XENTRACE_HELP
		XEN_IMC_HELP
		"--resctrl\tone resctrl monitoring group per VM for its LLC occupancy and\n"
		"\tmemory traffic, removed at the end (docs/vms.md)\n"
		"--root DIR\tread /proc and /sys under DIR (fixture trees: per-thread counters\n"
		"\tare off and say so)",
	.examples =
		"vmmprof record -o run.vmmdb -d 60\tone minute of every VM\n"
		"vmmprof report run.vmmdb --html run.html\ta page with charts from it",
};
