/* cmd_info.c - `vmmprof info`: what this machine is and what vmmprof can measure on it */
#include "cli/commands.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plan/coverage.h"
#include "plan/info_json.h"
#include "plan/info_text.h"
#include "platform/platform.h"
#include "util/sbuf.h"

static int run_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "/";
	bool json = false;
	struct platform p;
	struct coverage cv;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	struct stat st;
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'R':
			root = optarg;
			break;
		case ':':
			return cli_usage_error(&cmd_info, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_bad_option(&cmd_info, argv, ":");
		}
	}
	if (optind < argc)
		return cli_usage_error(&cmd_info, "unexpected argument '%s'", argv[optind]);
	if (!*root)
		return cli_usage_error(&cmd_info, "--root needs a directory");
	if (stat(root, &st)) {
		cli_errorf("root directory '%s' %s", root,
			   errno == ENOENT ? "does not exist" : strerror(errno));
		return 2;
	}
	if (!S_ISDIR(st.st_mode)) {
		cli_errorf("root directory '%s' is not a usable directory (not a directory)", root);
		return 2;
	}
	if (platform_probe(&p, root, &err)) {
		cli_error(&err);
		return 2;
	}
	coverage_compute(&p, &cv);
	if (json)
		info_json(&p, &cv, &sb);
	else
		info_text(&p, &cv, strcmp(p.root, "/") ? p.root : "this machine", &sb);
	rc = cli_write(&sb);
	sbuf_release(&sb);
	platform_release(&p);
	return rc;
}

const struct cmd cmd_info = {
	.name = "info",
	.fn = run_info,
	.summary = "show what this machine is and what vmmprof can measure on it",
	.synopsis = "info [--json] [--root DIR]",
	.description =
		"Probes the machine: CPU identity and the libpfm4 table it maps to; the\n"
		"hypervisor (CPUID leaf 0x40000000, /sys/hypervisor, DMI) and this machine's\n"
		"role (host when QEMU guests run here or it is a Xen dom0, guest, native);\n"
		"packages, NUMA nodes with their CPUs, memory and distances, LLC domains;\n"
		"every PMU under /sys/bus/event_source/devices grouped by family, and why\n"
		"there is no core PMU when there is none; perf_event_paranoid, privileges,\n"
		"resctrl and cgroup v2.\n"
		"\n"
		"Ends with the factor-coverage table: for each of the five factors\n"
		"(locality, llc, sharing, imc, queue) the source that would measure it here\n"
		"and its quality (measured, apportioned, proxy), or 'unavailable' and why.\n"
		"\n"
		"Anything that cannot be read is shown as 'unknown (REASON)'; the command\n"
		"still prints everything else and exits 0.  A root that does not exist\n"
		"exits 2.  The --json schema is described in docs/info-json.md.",
	.options = "--json\tprint the same content as JSON (schema vmmprof-info/1)\n"
		   "--root DIR\tprobe the /proc and /sys tree under DIR instead of / (fixture trees)",
	.examples = "vmmprof info\twhat this machine is and can measure\n"
		    "vmmprof info --json | python3 -m json.tool\tthe same as JSON\n"
		    "vmmprof info --root tests/data/root/skx-2s\ta captured two-socket Skylake-SP host",
};
