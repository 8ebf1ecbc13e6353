/* synth.c - synthetic recordings for tests and benchmarks: a two-input model, a platform, frames */
#include "record/synth.h"

#include <stdio.h>
#include <string.h>

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

int rec_synth_model(struct model **out, struct vp_err *err)
{
	struct diags d;
	int ret;

	diags_init(&d);
	ret = model_load_text(out, model_text, "synth.model", NULL, 0, &d, err);
	diags_release(&d);
	return ret;
}

void rec_synth_platform(struct platform *p)
{
	memset(p, 0, sizeof(*p));
	p->topo.known = true;
	p->topo.n_cpus = 2;
	p->topo.n_packages = 1;
	p->topo.n_cores = 2;
	p->topo.n_nodes = 1;
	p->topo.nodes = xcalloc(1, sizeof(*p->topo.nodes));
	cpulist_parse(&p->topo.nodes[0].cpus, "0-1", NULL);
}

void rec_synth_frame(struct collect_frame *f, size_t vcpus)
{
	const struct rec_synth_vm vm = { "vm1", 42, vcpus };

	rec_synth_frame_vms(f, &vm, 1);
}

void rec_synth_frame_vms(struct collect_frame *f, const struct rec_synth_vm *vms, size_t n_vms)
{
	size_t i, v, n = 0;
	char buf[64];

	memset(f, 0, sizeof(*f));
	f->duration = 1.0;
	f->cpu_mhz = 2000;
	for (v = 0; v < n_vms; v++)
		n += 1 + vms[v].vcpus;
	f->n_rows = n;
	f->rows = xcalloc(n ? n : 1, sizeof(*f->rows));
	n = 0;
	for (v = 0; v < n_vms; v++) {
		size_t vm_row = n;

		for (i = 0; i <= vms[v].vcpus; i++) {
			struct collect_row *r = &f->rows[n++];

			r->ent = -1;
			r->vm_row = vm_row;
			r->adapter = HVA_KVM;
			r->pid = vms[v].pid;
			r->domid = -1;
			r->inputs = xcalloc(2, sizeof(double));
			r->remote.q = VQ_ESTIMATE;
			if (i == 0) {
				r->kind = ENT_VM;
				snprintf(buf, sizeof(buf), "vm:kvm:%d", vms[v].pid);
				r->key = xstrdup(buf);
				r->name = xstrdup(vms[v].name);
				r->index = r->tid = r->cpu = r->node = -1;
				r->n_mem_nodes = 1;
				r->mem_node = xcalloc(1, sizeof(uint64_t));
				r->mem_node[0] = 1 << 20;
			} else {
				snprintf(buf, sizeof(buf), "vcpu:kvm:%d:%zu", vms[v].pid, i - 1);
				r->kind = ENT_VCPU;
				r->key = xstrdup(buf);
				r->index = (int)(i - 1);
				r->tid = vms[v].pid + 1 + (int)i;
				r->cpu = (int)(i % 2);
				r->node = 0;
			}
		}
	}
}

void rec_synth_set(struct collect_frame *f, uint64_t t_ns, double tclk, double place)
{
	size_t i;

	f->t_ns = t_ns;
	for (i = 0; i < f->n_rows; i++) {
		f->rows[i].inputs[0] = tclk;
		f->rows[i].inputs[1] = place;
		f->rows[i].remote.v = place;
	}
}
