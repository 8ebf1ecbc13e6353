/* cmd_bench.c - `vmmprof bench SCENARIO|all`: the five-factor benchmark */
#include "cli/commands.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench_report.h"
#include "cli/bench_tracker.h"
#include "cli/pipeline.h"
#include "util/alloc.h"
#include "util/json.h"

static const char *const scenarios[] = { "latency", "bandwidth", "llc", "sharing", "imc",
					  "queue" };

/* Shared by bench, calibrate and probe: the options every benchmark takes. */
int bench_cli_opt(const struct cmd *c, int opt, const char *arg, struct bench_opts *o,
		  bool *time_set)
{
	char *end;

	switch (opt) {
	case 't':
		o->time_s = strtod(arg, &end);
		if (*end || !(o->time_s > 0) || o->time_s > 86400)
			return cli_usage_error(c, "--time wants seconds (0 < s <= 86400), not '%s'", arg);
		*time_set = true;
		return 0;
	case 'Q':
		o->quick = true;
		return 0;
	case 'H':
		o->huge = false;
		return 0;
	case 'I':
		o->isa = bw_isa_lookup(arg);
		if (o->isa < 0)
			return cli_usage_error(c, "unknown --isa '%s' (scalar, sse2, avx2, avx512)", arg);
		if (bw_isa_pick(o->isa) < 0)
			return cli_usage_error(c, "this CPU cannot run the '%s' kernels", arg);
		return 0;
	case 'S':
		o->seed = strtoull(arg, &end, 0);
		if (*end)
			return cli_usage_error(c, "--seed wants a number, not '%s'", arg);
		return 0;
	case 'Z': {
		unsigned long long v = strtoull(arg, &end, 10);
		unsigned long long mul = *end == 'K' ? 1ull << 10 : *end == 'M' ? 1ull << 20 :
					 *end == 'G' ? 1ull << 30 : *end ? 0 : 1;

		if (mul == 0 || (*end && end[1]) || v == 0 || v > (64ull << 30) / mul ||
		    v * mul < (1ull << 20))
			return cli_usage_error(c, "--size wants 1M..64G (K, M or G suffix), not '%s'", arg);
		o->dram_bytes = (size_t)(v * mul);
		return 0;
	}
	}
	return cli_usage_error(c, "unknown option");
}

static int run_one(const char *name, const struct bench_topo *t, struct bench_opts *o,
		   bool json, struct jw *w, struct sbuf *out, struct vp_err *err)
{
	int ret = 0;

	if (json)
		jw_key(w, name);
	if (!strcmp(name, "latency")) {
		struct lat_result *r = xcalloc(1, sizeof(*r));

		if (!(ret = bench_latency(t, o, r, err)))
			json ? report_latency_json(r, w) : report_latency(r, out);
		/* the run's one idle DRAM latency: later scenarios use it, not their own */
		if (!ret)
			o->idle_ns = bench_idle_of(t, r);
		free(r);
	} else if (!strcmp(name, "bandwidth")) {
		struct bw_result *r = xcalloc(1, sizeof(*r));

		if (!(ret = bench_bandwidth(t, o, r, err)))
			json ? report_bandwidth_json(r, w) : report_bandwidth(r, out);
		free(r);
	} else if (!strcmp(name, "llc")) {
		struct llc_result *r = xcalloc(1, sizeof(*r));

		if (!(ret = bench_llc(t, o, r, err)))
			json ? report_llc_json(r, w) : report_llc(r, out);
		free(r);
	} else if (!strcmp(name, "sharing")) {
		struct sharing_result *r = xcalloc(1, sizeof(*r));

		if (!(ret = bench_sharing(t, o, r, err)))
			json ? report_sharing_json(r, w) : report_sharing(r, false, out);
		free(r);
	} else if (!strcmp(name, "imc")) {
		struct imc_result *r = xcalloc(1, sizeof(*r));

		if (!(ret = bench_imc(t, o, r, err)))
			json ? report_imc_json(r, w) : report_imc(r, out);
		free(r);
	} else {
		struct queue_result *r = xcalloc(1, sizeof(*r));

		struct bench_tracker *tc = xcalloc(1, sizeof(*tc));
		struct bench_tracker_hook hook = { bench_tracker_start, bench_tracker_stop, tc };
		bool counting = !bench_tracker_open(tc, t->cpu_node[0]);

		if (!(ret = bench_queue(t, o, r, err)) &&
		    !(ret = bench_queue_cores(t, o, counting ? &hook : NULL, r, err))) {
			if (!counting)
				snprintf(r->tracker_note, sizeof(r->tracker_note), "%.500s", tc->why);
			json ? report_queue_json(r, w) : report_queue(r, out);
		}
		bench_tracker_close(tc);
		free(tc);
		free(r);
	}
	return ret;
}

static int run_bench(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "time", required_argument, NULL, 't' },
		{ "quick", no_argument, NULL, 'Q' },
		{ "matrix", no_argument, NULL, 'm' },
		{ "no-huge", no_argument, NULL, 'H' },
		{ "isa", required_argument, NULL, 'I' },
		{ "seed", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 'Z' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o;
	struct bench_topo t;
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT;
	struct jw w;
	bool json = false, quiet = false, time_set = false, all;
	const char *which[VP_ARRAY_SIZE(scenarios)];
	size_t nwhich = 0, i;
	int opt, rc = 0;

	bench_opts_default(&o);
	while ((opt = getopt_long(argc, argv, "t:qmj", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'm':
			o.matrix = true;
			break;
		case 'q':
			quiet = true;
			break;
		case '?':
			return cli_bad_option(&cmd_bench, argv, "t:qm");
		default:
			if ((rc = bench_cli_opt(&cmd_bench, opt, optarg, &o, &time_set)))
				return rc;
		}
	}
	if (optind >= argc)
		return cli_usage_error(&cmd_bench, "which scenario? (latency, bandwidth, llc, sharing, "
				       "imc, queue or all)");
	if (optind + 1 < argc)
		return cli_usage_error(&cmd_bench, "one scenario at a time, not '%s'", argv[optind + 1]);
	all = !strcmp(argv[optind], "all");
	for (i = 0; i < VP_ARRAY_SIZE(scenarios); i++)
		if (all || !strcmp(argv[optind], scenarios[i]))
			which[nwhich++] = scenarios[i];
	if (!nwhich)
		return cli_usage_error(&cmd_bench, "unknown scenario '%s'", argv[optind]);
	if (all)
		o.matrix = true;
	if (!time_set)
		o.time_s = o.quick ? 2 : 10;
	o.progress = bench_report_progress;
	o.progress_ctx = &quiet;
	if (bench_topo_probe(&t, &err))
		return cli_error(&err);
	if (json) {
		jw_init(&w, &out, true);
		jw_obj_begin(&w);
		bench_report_machine_json(&t, &o, &w);
		jw_key(&w, "scenarios");
		jw_obj_begin(&w);
	} else {
		bench_report_machine(&t, &o, &out);
	}
	for (i = 0; i < nwhich; i++) {
		if ((rc = run_one(which[i], &t, &o, json, &w, &out, &err))) {
			bench_report_progress_end(&quiet);
			rc = cli_error(&err);
			goto out;
		}
		if (!json) {     /* print each scenario as it finishes */
			bench_report_progress_end(&quiet);
			if ((rc = cli_write(&out)))
				goto out;
			fflush(stdout);
			sbuf_reset(&out);
		}
	}
	bench_report_progress_end(&quiet);
	if (json) {
		jw_obj_end(&w);
		jw_obj_end(&w);
		sbuf_addch(&out, '\n');
	}
	rc = cli_write(&out);
out:
	bench_topo_release(&t);
	sbuf_release(&out);
	return rc;
}

const struct cmd cmd_bench = {
	.name = "bench",
	.args = "latency bandwidth llc sharing imc queue all|",
	.fn = run_bench,
	.summary = "provoke each NUMA factor and measure what it costs",
	.synopsis = "bench [--json] [--time SECS] [--quick] [--matrix] SCENARIO\nbench [OPTIONS] all",
	.description =
		"Runs one scenario of the five-factor benchmark, or all of them, and prints\n"
		"what it measured, which thread ran on which CPU and where its memory pages\n"
		"landed (asked of the kernel with move_pages).  Progress goes to stderr.\n"
		"\n"
		"latency    dependent loads over a random cyclic chain (defeats prefetchers),\n"
		"           working sets from 4 KiB to 4x the LLC; the cache levels found as\n"
		"           plateaus of the curve; with --matrix the CPU-node x memory-node\n"
		"           latency matrix (memory bound with mbind).\n"
		"bandwidth  read, write, non-temporal write, copy and triad kernels (AVX-512,\n"
		"           AVX2 or SSE2, chosen at run time) for 1..N threads of one node;\n"
		"           the node x node read matrix; loaded latency: a chaser's latency\n"
		"           while the other CPUs stream at rising rates.\n"
		"llc        a victim in a working set its LLC holds, alone and with 1..N\n"
		"           co-runners on CPUs that share the LLC; slowdown per co-runner.\n"
		"sharing    core-to-core latency for every CPU pair (cache-line ping-pong);\n"
		"           true sharing, false sharing and padded counters.\n"
		"imc        read bandwidth as threads on one node increase, against the same\n"
		"           threads spread over nodes; the knee where the controller saturates.\n"
		"queue      k = 1..32 independent chains on one CPU: the miss rate rises until\n"
		"           the miss queues are full; the knee is the effective queue depth.\n"
		"           Then k chains on each of 1, 2, ... CPUs of one package at once: the\n"
		"           knee where each core's miss rate falls is the shared trackers full.\n"
		"\n"
		"On a machine with one NUMA node the node-pair parts report the one pair and\n"
		"say so.  Figures that cannot be measured print as n/a with the reason.\n"
		"'all' runs every scenario, with the latency matrix.",
	.options = "-j, --json\tprint JSON instead of tables\n"
		   "-t, --time SECS\tseconds per scenario (default 10, 2 with --quick)\n"
		   "--quick\tfewer points and smaller sweeps\n"
		   "-m, --matrix\tlatency: also the CPU-node x memory-node matrix\n"
		   "--no-huge\tdo not advise transparent huge pages for the buffers\n"
		   "--isa scalar|sse2|avx2|avx512\tbandwidth kernels (default: the best this CPU has)\n"
		   "--seed N\tseed of the random chains\n"
		   "--size SIZE\tthe working set that stands for DRAM (default 4x the LLC,\n"
		   "\tat least 64M); smaller for small or emulated guests\n"
		   "-q, --quiet\tno progress on stderr",
	.examples = "vmmprof bench latency --matrix\tlatency sweep, cache levels and the node matrix\n"
		    "vmmprof bench all --quick --json\tevery scenario, about 2 s each, as JSON\n"
		    "vmmprof bench bandwidth --isa sse2\tbandwidth with the SSE2 kernels",
};
