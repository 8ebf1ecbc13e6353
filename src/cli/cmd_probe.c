/* cmd_probe.c - `vmmprof probe`: inside a guest, infer the physical layout from timings */
#include "cli/commands.h"

#include <getopt.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "cli/bench_report.h"
#include "util/alloc.h"
#include "util/json.h"

static int run_probe(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "time", required_argument, NULL, 't' },
		{ "quick", no_argument, NULL, 'Q' },
		{ "no-huge", no_argument, NULL, 'H' },
		{ "seed", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 'Z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o;
	struct bench_topo t;
	struct probe_result *r;
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT;
	struct jw w;
	bool json = false, quiet = false, time_set = false;
	int opt, rc = 0;

	bench_opts_default(&o);
	while ((opt = getopt_long(argc, argv, "t:qj", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case '?':
			return cli_bad_option(&cmd_probe, argv, "t:q");
		default:
			if ((rc = bench_cli_opt(&cmd_probe, opt, optarg, &o, &time_set)))
				return rc;
		}
	}
	if (optind < argc)
		return cli_usage_error(&cmd_probe, "unexpected argument '%s'", argv[optind]);
	if (!time_set)
		o.time_s = o.quick ? 3 : 15;
	o.progress = bench_report_progress;
	o.progress_ctx = &quiet;
	if (bench_topo_probe(&t, &err))
		return cli_error(&err);
	r = xcalloc(1, sizeof(*r));
	if (bench_probe(&t, &o, r, &err)) {
		bench_report_progress_end(&quiet);
		rc = cli_error(&err);
		goto out;
	}
	bench_report_progress_end(&quiet);
	if (json) {
		jw_init(&w, &out, true);
		jw_obj_begin(&w);
		bench_report_machine_json(&t, &o, &w);
		jw_key(&w, "probe");
		report_probe_json(&t, r, &w);
		jw_obj_end(&w);
		sbuf_addch(&out, '\n');
	} else {
		bench_report_machine(&t, &o, &out);
		report_probe(&t, r, &out);
	}
	rc = cli_write(&out);
out:
	free(r);
	bench_topo_release(&t);
	sbuf_release(&out);
	return rc;
}

const struct cmd cmd_probe = {
	.name = "probe",
	.fn = run_probe,
	.summary = "inside a guest: infer the physical layout the hypervisor hides",
	.synopsis = "probe [--json] [--time SECS] [--quick]",
	.description =
		"Measures what a guest can measure to learn what it cannot see.  The\n"
		"core-to-core latency of every vCPU pair is clustered: pairs far below the\n"
		"widest gap share a physical LLC or socket.  Each vCPU reads each virtual\n"
		"node's memory: a vCPU much slower than the fastest one on the same memory\n"
		"probably runs on another physical node.  The inferred layout is printed\n"
		"next to the virtual one, with the evidence.  Works natively too, where the\n"
		"two should agree.",
	.options = "-j, --json\tprint JSON instead of tables\n"
		   "-t, --time SECS\ttotal seconds (default 15, 3 with --quick)\n"
		   "--quick\tsmaller working sets\n"
		   "--no-huge\tdo not advise transparent huge pages\n"
		   "--seed N\tseed of the random chains\n"
		   "--size SIZE\tthe working set that stands for DRAM (default 4x the LLC,\n"
		   "\tat least 64M); smaller for small or emulated guests\n"
		   "-q, --quiet\tno progress on stderr",
	.examples = "vmmprof probe\tthe inferred layout of this guest\n"
		    "vmmprof probe --quick --json\ta quick probe as JSON",
};
