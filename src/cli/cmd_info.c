/* cmd_info.c - `vmmprof info`: what this machine is and what vmmprof can measure on it */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/dirs.h"
#include "model/registry.h"
#include "plan/coverage.h"
#include "plan/info_json.h"
#include "plan/info_text.h"
#include "platform/platform.h"
#include "util/alloc.h"
#include "util/sbuf.h"

static int run_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'R' },
		{ "model-path", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	char **paths = xcalloc((size_t)argc + 1, sizeof(char *));
	size_t n_paths = 0;
	struct model_dirs dirs;
	struct model_registry reg;
	const char *root = "/";
	bool json = false;
	struct platform p;
	struct coverage cv;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	struct stat st;
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'R':
			root = optarg;
			break;
		case 'M':
			paths[n_paths++] = optarg;
			break;
		case ':':
			rc = cli_usage_error(&cmd_info, "option '%s' needs a value", argv[optind - 1]);
			goto out_paths;
		default:
			rc = cli_bad_option(&cmd_info, argv, ":");
			goto out_paths;
		}
	}
	if (optind < argc) {
		rc = cli_usage_error(&cmd_info, "unexpected argument '%s'", argv[optind]);
		goto out_paths;
	}
	if (!*root) {
		rc = cli_usage_error(&cmd_info, "--root needs a directory");
		goto out_paths;
	}
	rc = 2;
	if (stat(root, &st)) {
		cli_errorf("root directory '%s' %s", root,
			   errno == ENOENT ? "does not exist" : strerror(errno));
		goto out_paths;
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_errorf("root directory '%s' is not a usable directory (not a directory)", root);
		goto out_paths;
	}
	/*
	 * as `model check --root`: a fixture names a CPU libpfm4 does not see here
	 * (libpfm4 reads this once, when the probe first initializes it)
	 */
	if (strcmp(root, "/"))
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	if (platform_probe(&p, root, &err)) {
		cli_error(&err);
		goto out_paths;
	}
	model_dirs_build(&dirs, paths, n_paths, cli_dirs());
	model_registry_init(&reg, (const char *const *)dirs.v, dirs.n);
	coverage_compute(&p, &reg, &cv);
	model_registry_release(&reg);
	model_dirs_release(&dirs);
	if (json)
		info_json(&p, &cv, &sb);
	else
		info_text(&p, &cv, strcmp(p.root, "/") ? p.root : "this machine", &sb);
	rc = cli_write(&sb);
	sbuf_release(&sb);
	coverage_release(&cv);
	platform_release(&p);
out_paths:
	free(paths);
	return rc;
}

const struct cmd cmd_info = {
	.name = "info",
	.fn = run_info,
	.summary = "show what this machine is and what vmmprof can measure on it",
	.synopsis = "info [--json] [--root DIR] [--model-path DIR]...",
	.description =
		"Probes the machine: CPU identity and the libpfm4 table it maps to; the\n"
		"hypervisor (CPUID leaf 0x40000000, /sys/hypervisor, DMI) and this machine's\n"
		"role (host when QEMU guests run here or it is a Xen dom0, guest, native);\n"
		"packages, NUMA nodes with their CPUs, memory and distances, LLC domains;\n"
		"every PMU under /sys/bus/event_source/devices grouped by family, and why\n"
		"there is no core PMU when there is none; perf_event_paranoid, privileges,\n"
		"resctrl and cgroup v2.\n"
		"\n"
		"Ends with the factor-coverage table, read off the model that would be\n"
		"chosen here (as 'vmmprof model list' marks it), its events and sources\n"
		"checked as 'vmmprof model check --root' checks them: for each of the five\n"
		"factors (locality, llc, sharing, imc, queue) the model's quality label\n"
		"(measured, estimate, apportioned, proxy), the events and sources its score\n"
		"reads and whether each exists here; or 'unavailable', why, and what is\n"
		"left instead (the software model's proxy, the placement estimate, a probe).\n"
		"It also lists the model's cost terms and whether each exists here: with a\n"
		"stall count costs split measured stall cycles, without one they are estimates.\n"
		"\n"
		"Anything that cannot be read is shown as 'unknown (REASON)'; the command\n"
		"still prints everything else and exits 0.  A root that does not exist\n"
		"exits 2.  The --json schema is described in docs/info-json.md.",
	.options = "-j, --json\tprint the same content as JSON (schema vmmprof-info/2)\n"
		   "--root DIR\tprobe the /proc and /sys tree under DIR instead of / (fixture trees)\n"
		   "--model-path DIR\tlook for models in DIR first (repeatable; DIR:DIR also works), as 'model list' does",
	.examples = "vmmprof info\twhat this machine is and can measure\n"
		    "vmmprof info --json | python3 -m json.tool\tthe same as JSON\n"
		    "vmmprof info --root tests/data/root/skx-2s\ta captured two-socket Skylake-SP host",
};
