/* test_record.c - recordings: write frames, read them back, sum a run, refuse damaged files */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "record/record.h"
#include "util/alloc.h"

static const char model_text[] =
	"model rectest\n"
	"description \"two inputs: a count and a ratio\"\n"
	"match software\n"
	"event tclk = task-clock\n"
	"source place = placement.remote_fraction optional\n"
	"metric busy = tclk / (duration * 1e9)\n"
	"factor locality\n"
	"    score = place\n"
	"    warning = 0.2\n"
	"    critical = 0.5\n"
	"    quality = proxy\n"
	"factor llc unavailable \"none\"\n"
	"factor sharing unavailable \"none\"\n"
	"factor imc unavailable \"none\"\n"
	"factor queue unavailable \"none\"\n";

/* One VM "vm1" (pid 42) with one vCPU (index 0, tid 43) on node 0. */
static void make_frame(struct collect_frame *f, double tclk, double place, uint64_t t_ns)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->t_ns = t_ns;
	f->duration = 1.0;
	f->cpu_mhz = 2000;
	f->n_rows = 2;
	f->rows = xcalloc(2, sizeof(*f->rows));
	for (i = 0; i < 2; i++) {
		struct collect_row *r = &f->rows[i];

		r->ent = -1;
		r->vm_row = 0;
		r->adapter = HVA_KVM;
		r->pid = 42;
		r->domid = -1;
		r->inputs = xcalloc(2, sizeof(double));
		r->inputs[0] = tclk;
		r->inputs[1] = place;
		r->remote.v = place;
		r->remote.q = VQ_ESTIMATE;
	}
	f->rows[0].kind = ENT_VM;
	f->rows[0].key = xstrdup("vm:kvm:42");
	f->rows[0].name = xstrdup("vm1");
	f->rows[0].index = f->rows[0].tid = f->rows[0].cpu = f->rows[0].node = -1;
	f->rows[0].n_mem_nodes = 1;
	f->rows[0].mem_node = xcalloc(1, sizeof(uint64_t));
	f->rows[0].mem_node[0] = 1 << 20;
	f->rows[1].kind = ENT_VCPU;
	f->rows[1].key = xstrdup("vcpu:kvm:42:0");
	f->rows[1].index = 0;
	f->rows[1].tid = 43;
	f->rows[1].cpu = 1;
	f->rows[1].node = 0;
}

static struct model *load_model(void)
{
	struct model *m = NULL;
	struct diags d;
	struct vp_err err;

	diags_init(&d);
	if (model_load_text(&m, model_text, "rectest.model", NULL, 0, &d, &err))
		test_fail(__FILE__, __LINE__, "model: %s", err.msg);
	diags_release(&d);
	return m;
}

static void fill_platform(struct platform *p)
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

TEST(record_round_trip_and_total)
{
	char path[] = "/tmp/vmmprof-rec-XXXXXX";
	struct model *m = load_model();
	struct platform plat;
	struct rec_writer *w = NULL;
	struct collect_frame f1, f2, total;
	struct recording rec;
	struct model_avail av;
	struct vp_err err;
	int fd;

	if (!m)
		return;
	fd = mkstemp(path);
	close(fd);
	unlink(path); /* rec_create refuses an existing file */
	fill_platform(&plat);
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "vmmprof record -o x" };

		CHECK_INT(rec_create(&w, path, &h, &err), 0);
	}
	make_frame(&f1, 1e8, 0.2, 1000000000ull);
	make_frame(&f2, 2e8, 0.4, 2000000000ull);
	CHECK_INT(rec_append(w, &f1, &err), 0);
	CHECK_INT(rec_append(w, &f2, &err), 0);
	CHECK_INT((int)rec_frames(w), 2);
	CHECK_INT(rec_close(w, &err), 0);

	CHECK_INT(rec_read(path, &rec, &err), 0);
	CHECK_STR(rec.model_name, "rectest");
	CHECK_INT((int)rec.n_frames, 2);
	CHECK_INT(rec.plat.topo.n_nodes, 1);
	CHECK_INT(rec.plat.topo.n_cpus, 2);
	CHECK_INT((int)rec.frames[1].n_rows, 2);
	CHECK_STR(rec.frames[1].rows[0].name, "vm1");
	CHECK_INT(rec.frames[1].rows[1].tid, 43);
	CHECK_INT(rec.frames[1].rows[1].node, 0);
	CHECK_INT(rec.frames[1].rows[0].n_mem_nodes, 1);
	CHECK_U64(rec.frames[1].rows[0].mem_node[0], 1 << 20);
	CHECK_NEAR(rec.frames[1].rows[1].inputs[0], 2e8, 0);

	CHECK_INT(rec_bind_model(&rec, m, &av, &err), 0);
	/* metric busy = tclk / (duration * 1e9): 2e8 ns of 1 s = 0.2 */
	CHECK_NEAR(rec.frames[1].rows[1].metrics[0], 0.2, 1e-12);
	/* cycles from task-clock: 2e8 ns x 2000 MHz / 1000 = 4e8 */
	CHECK_NEAR(rec.frames[1].rows[1].cycles, 4e8, 1);
	CHECK(rec.frames[1].rows[1].cycles_proxy);

	rec_total_frame(&rec, m, &total);
	CHECK_INT((int)total.n_rows, 2);
	CHECK_NEAR(total.duration, 2.0, 1e-12);
	/* the count adds up: 1e8 + 2e8; the ratio is averaged: (0.2 + 0.4) / 2 */
	CHECK_NEAR(total.rows[1].inputs[0], 3e8, 0);
	CHECK_NEAR(total.rows[1].inputs[1], 0.3, 1e-12);
	CHECK_NEAR(total.rows[1].fv[FACTOR_LOCALITY].score, 0.3, 1e-12);
	CHECK_INT(total.rows[1].fv[FACTOR_LOCALITY].sev, SEV_WARNING);
	CHECK_NEAR(total.rows[1].metrics[0], 0.15, 1e-12);

	collect_frame_release(&total);
	model_avail_release(m, &av);
	rec_release(&rec);
	collect_frame_release(&f1);
	collect_frame_release(&f2);
	platform_release(&plat);
	model_free(m);

	/* damaged: the first half of the file */
	{
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "head -c 3000 %s > %s.cut", path, path);
		CHECK_INT(system(cmd), 0);
		snprintf(cmd, sizeof(cmd), "%s.cut", path);
		CHECK(rec_read(cmd, &rec, &err) == VP_EFORMAT);
		CHECK_CONTAINS(err.msg, cmd);
		rec_release(&rec);
		unlink(cmd);
	}
	unlink(path);
}

TEST(record_refuses_what_is_not_a_recording)
{
	char path[] = "/tmp/vmmprof-notrec-XXXXXX";
	struct recording rec;
	struct vp_err err;
	int fd = mkstemp(path);

	CHECK(write(fd, "this is not SQLite at all, just text that is long enough\n", 58) == 58);
	close(fd);
	CHECK_INT(rec_read(path, &rec, &err), VP_EFORMAT);
	CHECK_CONTAINS(err.msg, "is not a readable vmmprof recording");
	rec_release(&rec);
	unlink(path);
	CHECK(rec_read("/nonexistent/x.vmmdb", &rec, &err) < 0);
	CHECK_CONTAINS(err.msg, "cannot open recording '/nonexistent/x.vmmdb'");
	rec_release(&rec);
}
