/* rec_synth.c - writes a synthetic recording for bench/record-throughput.sh
 *
 *   rec_synth PATH FRAMES VCPUS
 *
 * Each frame holds one VM row and VCPUS vCPU rows; each row carries the
 * two inputs of a tiny model (task-clock and the remote fraction), so a
 * frame is (1 + VCPUS) * 2 samples.  Prints "samples N seconds S" where S
 * is the wall time of rec_create .. rec_close (frames built in memory
 * outside the timing are reused: only the writer is measured).  The
 * model is named "software" with two of models/software.model's inputs,
 * so `vmmprof report` binds the recording to the installed model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/record.h"
#include "util/alloc.h"

static const char model_text[] =
	"model software\n"
	"description \"two inputs: a count and a ratio\"\n"
	"match software\n"
	"event tclk = task-clock\n"
	"source place_rem = placement.remote_fraction optional\n"
	"metric busy = tclk / (duration * 1e9)\n"
	"factor locality\n"
	"    score = place_rem\n"
	"    warning = 0.2\n"
	"    critical = 0.5\n"
	"    quality = proxy\n"
	"factor llc unavailable \"none\"\n"
	"factor sharing unavailable \"none\"\n"
	"factor imc unavailable \"none\"\n"
	"factor queue unavailable \"none\"\n";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void make_frame(struct collect_frame *f, size_t vcpus)
{
	size_t i;
	char buf[64];

	memset(f, 0, sizeof(*f));
	f->duration = 1.0;
	f->cpu_mhz = 2000;
	f->n_rows = 1 + vcpus;
	f->rows = xcalloc(f->n_rows, sizeof(*f->rows));
	for (i = 0; i < f->n_rows; i++) {
		struct collect_row *r = &f->rows[i];

		r->ent = -1;
		r->vm_row = 0;
		r->adapter = HVA_KVM;
		r->pid = 42;
		r->domid = -1;
		r->inputs = xcalloc(2, sizeof(double));
		r->remote.q = VQ_ESTIMATE;
		if (i == 0) {
			r->kind = ENT_VM;
			r->key = xstrdup("vm:kvm:42");
			r->name = xstrdup("vm1");
			r->index = r->tid = r->cpu = r->node = -1;
			r->n_mem_nodes = 1;
			r->mem_node = xcalloc(1, sizeof(uint64_t));
			r->mem_node[0] = 1 << 20;
		} else {
			snprintf(buf, sizeof(buf), "vcpu:kvm:42:%zu", i - 1);
			r->kind = ENT_VCPU;
			r->key = xstrdup(buf);
			r->index = (int)(i - 1);
			r->tid = 43 + (int)i;
			r->cpu = (int)(i % 2);
			r->node = 0;
		}
	}
}

int main(int argc, char **argv)
{
	struct model *m = NULL;
	struct rec_writer *w = NULL;
	struct platform plat;
	struct collect_frame f;
	struct diags d;
	struct vp_err err;
	unsigned long frames, k;
	size_t vcpus, i;
	double t0, t1;
	int rc = 1;

	if (argc != 4) {
		fprintf(stderr, "usage: rec_synth PATH FRAMES VCPUS\n");
		return 2;
	}
	frames = strtoul(argv[2], NULL, 10);
	vcpus = strtoul(argv[3], NULL, 10);
	diags_init(&d);
	if (model_load_text(&m, model_text, "synth.model", NULL, 0, &d, &err)) {
		fprintf(stderr, "rec_synth: model: %s\n", err.msg);
		diags_release(&d);
		return 1;
	}
	diags_release(&d);
	memset(&plat, 0, sizeof(plat));
	plat.topo.known = true;
	plat.topo.n_cpus = 2;
	plat.topo.n_packages = 1;
	plat.topo.n_cores = 2;
	plat.topo.n_nodes = 1;
	plat.topo.nodes = xcalloc(1, sizeof(*plat.topo.nodes));
	cpulist_parse(&plat.topo.nodes[0].cpus, "0-1", NULL);
	make_frame(&f, vcpus);

	t0 = now();
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "rec_synth" };

		if (rec_create(&w, argv[1], &h, &err))
			goto out;
	}
	for (k = 0; k < frames; k++) {
		f.t_ns = (k + 1) * 1000000000ull;
		for (i = 0; i < f.n_rows; i++) {
			f.rows[i].inputs[0] = 1e8 + (double)(k % 1000);
			f.rows[i].inputs[1] = (double)(k % 100) / 100.0;
			f.rows[i].remote.v = f.rows[i].inputs[1];
		}
		if (rec_append(w, &f, &err)) {
			rec_close(w, NULL);
			w = NULL;
			goto out;
		}
	}
	if (rec_close(w, &err)) {
		w = NULL;
		goto out;
	}
	w = NULL;
	t1 = now();
	printf("samples %lu seconds %.3f\n", frames * (unsigned long)f.n_rows * 2, t1 - t0);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "rec_synth: %s\n", err.msg);
	collect_frame_release(&f);
	platform_release(&plat);
	model_free(m);
	return rc;
}
