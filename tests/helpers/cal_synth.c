/* cal_synth.c - writes a calibration for this machine with given values, for the command-line tests
 *
 *   cal_synth [--root DIR] PATH NAME=VALUE ...      e.g. lat_local_ns=100 lat_remote_ns=200
 *
 * --root DIR keys it to the fixture tree DIR instead (its topology and CPU).
 * The file is keyed to the machine it runs on (calib_machine_of()), so the
 * commands accept it as this machine's; values not named stay unmeasured
 * (null, "not measured").  The tests state the physics behind the values
 * they give; nothing here is measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "platform/platform.h"

int main(int argc, char **argv)
{
	struct platform plat;
	struct calib cal;
	struct vp_err err = { 0, "" };
	const char *root = "/";
	int i, rc = 1;

	if (argc > 2 && !strcmp(argv[1], "--root")) {
		root = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: cal_synth [--root DIR] PATH NAME=VALUE ...\n");
		return 2;
	}
	if (platform_probe(&plat, root, &err)) {
		fprintf(stderr, "cal_synth: %s\n", err.msg);
		return 1;
	}
	calib_init(&cal);
	calib_machine_of(&plat, &cal.machine);
	{
		int n = plat.topo.n_nodes > 0 ? plat.topo.n_nodes : 1, k, *ids = calloc((size_t)n, sizeof(int));

		for (k = 0; ids && k < n; k++)
			ids[k] = plat.topo.n_nodes > 0 ? plat.topo.nodes[k].id : 0;
		if (!ids) {
			fprintf(stderr, "cal_synth: out of memory\n");
			goto out;
		}
		calib_set_nodes(&cal, n, ids);
		free(ids);
	}
	snprintf(cal.created, sizeof(cal.created), "1970-01-01T00:00:00Z");
	snprintf(cal.tool, sizeof(cal.tool), "cal_synth");
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '='), *end;
		int k;
		double v;

		if (!eq) {
			fprintf(stderr, "cal_synth: '%s': expected NAME=VALUE\n", argv[i]);
			goto out;
		}
		*eq = '\0';
		k = calib_key_lookup(argv[i]);
		v = strtod(eq + 1, &end);
		if (k < 0 || *end || end == eq + 1) {
			fprintf(stderr, "cal_synth: '%s=%s': unknown name or bad number\n", argv[i], eq + 1);
			goto out;
		}
		calib_set(&cal, (enum calib_key)k, v, NULL);
	}
	if (calib_save(&cal, argv[1], &err)) {
		fprintf(stderr, "cal_synth: %s\n", err.msg);
		goto out;
	}
	rc = 0;
out:
	calib_release(&cal);
	platform_release(&plat);
	return rc;
}
