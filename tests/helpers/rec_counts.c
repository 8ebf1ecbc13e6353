/* rec_counts.c - writes a recording from given counts, for tests of what is read back from one
 *
 *   rec_counts OUT MODELS_DIR MODEL < SPEC
 *
 * The recording holds one VM "vm1" (pid 42) with one vCPU (src/record/synth.h's
 * layout, on its one-node two-CPU platform), bound to model MODEL of
 * MODELS_DIR (a built-in name, so `vmmprof diagnose OUT` finds the same one).
 * SPEC, one statement a line ('#' starts a comment):
 *   cal NAME VALUE                    a calibration scalar (cal.lat_local_ns ...)
 *   frame [alone=1|0|-1] NAME=VALUE...  one one-second interval: the vCPU's and the
 *                                     VM's model inputs by name (any input not named
 *                                     is n/a), and the vCPU's LLC tenancy (1 no other
 *                                     busy tenant, -1 it had one, 0 not known);
 *                                     run.NAME=PCT: input NAME was counted PCT % of
 *                                     the interval's 1 s (perf's running/enabled)
 * Nothing is computed here: the values are written as given, and every cost
 * is the reader's (the cost stage run by `diagnose`/`report` on the file).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "model/registry.h"
#include "record/record.h"
#include "record/synth.h"
#include "util/alloc.h"

static int input_of(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n_inputs; i++)
		if (!strcmp(m->inputs[i].name, name))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	struct model_registry reg;
	struct model *m = NULL;
	struct diags d;
	struct vp_err err = { 0, "" };
	struct platform plat;
	struct calib cal;
	struct rec_writer *w = NULL;
	char line[4096];
	unsigned long k = 0, ln = 0;
	int rc = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: rec_counts OUT MODELS_DIR MODEL < SPEC\n");
		return 2;
	}
	diags_init(&d);
	{
		const char *dirs[1] = { argv[2] };

		model_registry_init(&reg, dirs, 1);
	}
	calib_init(&cal);
	/* the machine a calibration is keyed to: rec_synth_platform()'s */
	snprintf(cal.machine.vendor, sizeof(cal.machine.vendor), "GenuineIntel");
	cal.machine.n_cpus = 2;
	cal.machine.n_nodes = 1;
	cal.machine.n_packages = 1;
	{
		static const int node0[1] = { 0 };

		calib_set_nodes(&cal, 1, node0);
	}
	rec_synth_platform(&plat);
	if (model_registry_open(&reg, argv[3], &m, &d, &err)) {
		fprintf(stderr, "rec_counts: model '%s': %s\n", argv[3], err.msg);
		goto out;
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *word = strtok_r(line, " \t\n", &save);

		ln++;
		if (!word || word[0] == '#')
			continue;
		if (!strcmp(word, "cal")) {
			char *name = strtok_r(NULL, " \t\n", &save), *v = strtok_r(NULL, " \t\n", &save);
			int key = name ? calib_key_lookup(name) : -1;

			if (key < 0 || !v) {
				fprintf(stderr, "rec_counts: line %lu: expected 'cal NAME VALUE'\n", ln);
				goto out;
			}
			calib_set(&cal, (enum calib_key)key, strtod(v, NULL), "");
			continue;
		}
		if (strcmp(word, "frame")) {
			fprintf(stderr, "rec_counts: line %lu: unknown statement '%s'\n", ln, word);
			goto out;
		}
		if (!w) {
			struct rec_header h = { &plat, m, NULL, &cal, 1.0, "rec_counts" };

			if (rec_create(&w, argv[1], &h, &err)) {
				fprintf(stderr, "rec_counts: %s\n", err.msg);
				goto out;
			}
		}
		{
			struct collect_frame f;
			size_t i, j;

			rec_synth_frame(&f, 1);
			f.t_ns = (k + 1) * 1000000000ull;
			for (i = 0; i < f.n_rows; i++) {
				free(f.rows[i].inputs);
				f.rows[i].inputs = xcalloc(m->n_inputs + 1, sizeof(double));
				for (j = 0; j < m->n_inputs; j++)
					f.rows[i].inputs[j] = NAN;
			}
			while ((word = strtok_r(NULL, " \t\n", &save))) {
				char *eq = strchr(word, '=');
				int in;

				if (!eq) {
					fprintf(stderr, "rec_counts: line %lu: expected NAME=VALUE, not '%s'\n",
						ln, word);
					collect_frame_release(&f);
					goto out;
				}
				*eq = '\0';
				if (!strcmp(word, "alone")) {
					f.rows[1].llc_alone = (signed char)atoi(eq + 1);
					continue;
				}
				/* run.NAME=PCT: input NAME counted PCT % of the interval */
				in = input_of(m, !strncmp(word, "run.", 4) ? word + 4 : word);
				if (in >= 0 && !strncmp(word, "run.", 4)) {
					struct collect_scaling *sc;

					f.scaling = xrealloc(f.scaling,
							     (f.n_scaling + 1) * sizeof(*f.scaling));
					sc = &f.scaling[f.n_scaling++];
					sc->event = xstrdup(m->inputs[in].spec);
					sc->input = (size_t)in;
					sc->enabled_s = 1;
					sc->running_pct = strtod(eq + 1, NULL);
					sc->running_s = sc->running_pct / 100;
					continue;
				}
				if (in < 0) {
					fprintf(stderr, "rec_counts: line %lu: model %s has no input '%s'\n",
						ln, m->name, word);
					collect_frame_release(&f);
					goto out;
				}
				for (i = 0; i < f.n_rows; i++)
					f.rows[i].inputs[in] = strtod(eq + 1, NULL);
			}
			if (rec_append(w, &f, &err)) {
				fprintf(stderr, "rec_counts: %s\n", err.msg);
				collect_frame_release(&f);
				goto out;
			}
			collect_frame_release(&f);
			k++;
		}
	}
	if (!w) {
		fprintf(stderr, "rec_counts: no frame\n");
		goto out;
	}
	rc = 0;
out:
	if (w && rec_close(w, &err)) {
		fprintf(stderr, "rec_counts: %s\n", err.msg);
		rc = 1;
	}
	model_free(m);
	diags_release(&d);
	model_registry_release(&reg);
	calib_release(&cal);
	platform_release(&plat);
	return rc;
}
