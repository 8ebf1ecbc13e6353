/* report_map.c - the HTML report's placement map: the host at a few moments of a recording */
#include "cli/report_map.h"
#include "compose/diag_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define CW 30                  /* a CPU's cell */
#define CH 18
#define VQ 10                  /* a vCPU's square: five stripes of 2 */
#define COLS 4                 /* cores per row in an LLC domain */
#define BAR_W 300

/* the nodes' colours (by position in the topology) of the whole report, as web/map.js:
 * none is the green, amber or red of a severity */
const char *const html_node_colour[8] = { "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
					  "#76b7b2", "#edc948", "#9c755f", "#bab0ac" };
#define node_colour html_node_colour

/* One row's factors as the report prints them: severity, quality word, the value shown. */
struct cell {
	enum severity sev;
	enum vp_quality q;
	double cost, score;
};

struct snap_vcpu {
	char *vm;                      /* heap */
	int index, cpu;
	bool thread;                   /* a process's thread (native mode), not a vCPU */
	struct cell c[FACTOR_N];
};

struct snap_vm {
	char *name;                    /* heap */
	uint64_t *mem;                 /* by node id, n_mem; NULL unknown */
	int n_mem, home;
	struct cell c[FACTOR_N];
};

struct snap {
	size_t frame;
	struct snap_vcpu *v;
	size_t n_v;
	struct snap_vm *vm;
	size_t n_vm;
};

struct html_map {
	const struct model *m;
	const struct model_avail *av;
	size_t frames;
	size_t want[HTML_MAP_SNAPS];   /* the frames kept, ascending */
	size_t n_want;
	struct snap s[HTML_MAP_SNAPS];
	size_t n_s;
};

struct html_map *html_map_new(const struct model *m, const struct model_avail *av, size_t frames)
{
	struct html_map *mp = xcalloc(1, sizeof(*mp));
	size_t k, n = frames < HTML_MAP_SNAPS ? frames : HTML_MAP_SNAPS;

	mp->m = m;
	mp->av = av;
	mp->frames = frames;
	/* evenly spread, the first and the last frame included */
	for (k = 0; k < n; k++)
		mp->want[mp->n_want++] = n > 1 ? k * (frames - 1) / (n - 1) : 0;
	return mp;
}

void html_esc(struct sbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': sbuf_addstr(out, "&lt;"); break;
		case '>': sbuf_addstr(out, "&gt;"); break;
		case '&': sbuf_addstr(out, "&amp;"); break;
		case '"': sbuf_addstr(out, "&quot;"); break;
		default: sbuf_addch(out, *s);
		}
	}
}

static void cells(const struct html_map *mp, const struct collect_frame *f, const struct collect_row *r,
		  struct cell *c)
{
	int k;

	for (k = 0; k < FACTOR_N; k++) {
		c[k].sev = r->fv[k].sev;
		c[k].cost = r->fv[k].cost_pct;
		c[k].score = r->fv[k].score;
		c[k].q = factor_unavailable(mp->m, mp->av, (enum factor_id)k) ? VQ_UNAVAILABLE :
			 frame_value_quality(mp->m, f, r, k);
		/* no value: n/a whatever severity the row carries */
		if (c[k].q == VQ_UNAVAILABLE || (!isfinite(c[k].cost) && !isfinite(c[k].score)))
			c[k].sev = SEV_NA;
	}
}

void html_map_add(struct html_map *mp, size_t fi, const struct collect_frame *f)
{
	struct snap *s;
	size_t j;

	if (mp->n_s >= mp->n_want || mp->want[mp->n_s] != fi)
		return;
	s = &mp->s[mp->n_s++];
	s->frame = fi;
	for (j = 0; j < f->n_rows; j++) {
		const struct collect_row *r = &f->rows[j];

		if (r->kind == ENT_VCPU || r->kind == ENT_THREAD) {
			const struct collect_row *vr = r->vm_row < f->n_rows ? &f->rows[r->vm_row] : NULL;
			struct snap_vcpu *v;

			s->v = xrealloc(s->v, (s->n_v + 1) * sizeof(*s->v));
			v = &s->v[s->n_v++];
			v->vm = xstrdup(vr && vr->name ? vr->name : "?");
			v->index = r->index;
			v->cpu = r->cpu;
			v->thread = r->kind == ENT_THREAD;
			cells(mp, f, r, v->c);
		} else if (r->kind == ENT_VM || r->kind == ENT_PROCESS) {
			struct snap_vm *v;
			int n;

			s->vm = xrealloc(s->vm, (s->n_vm + 1) * sizeof(*s->vm));
			v = &s->vm[s->n_vm++];
			v->name = xstrdup(r->name ? r->name : "?");
			v->mem = NULL;
			v->n_mem = 0;
			v->home = -1;
			if (r->mem_node && r->n_mem_nodes > 0) {
				v->n_mem = r->n_mem_nodes;
				v->mem = xmalloc((size_t)v->n_mem * sizeof(uint64_t));
				memcpy(v->mem, r->mem_node, (size_t)v->n_mem * sizeof(uint64_t));
				for (n = 0; n < v->n_mem; n++)
					if (v->mem[n] && (v->home < 0 || v->mem[n] > v->mem[v->home]))
						v->home = n;
			}
			cells(mp, f, r, v->c);
		}
	}
}

void html_map_free(struct html_map *mp)
{
	size_t i, j;

	if (!mp)
		return;
	for (i = 0; i < mp->n_s; i++) {
		for (j = 0; j < mp->s[i].n_v; j++)
			free(mp->s[i].v[j].vm);
		for (j = 0; j < mp->s[i].n_vm; j++) {
			free(mp->s[i].vm[j].name);
			free(mp->s[i].vm[j].mem);
		}
		free(mp->s[i].v);
		free(mp->s[i].vm);
	}
	free(mp);
}

/* The recording's host: its nodes (t), each CPU's package and core, its caches. */
struct host {
	const struct topology *t;
	const struct rec_cpu_id *ids;
	size_t n_ids;
	const struct cache_domain *llc;
	int n_llc;
};

/* A node's CPUs grouped: LLC domain (-1 none known), then core (SMT siblings). */
struct core { int llc; int cpus[8]; int n; int pkg, id; };

static int llc_of(const struct host *h, int cpu)
{
	int k;

	for (k = 0; k < h->n_llc; k++)
		if (cpulist_has(&h->llc[k].cpus, cpu))
			return k;
	return -1;
}

static size_t node_cores(const struct host *h, const struct numa_node *nd, struct core **out)
{
	struct core *c = xcalloc(nd->cpus.n + 1, sizeof(*c));
	size_t i, j, k, n = 0;

	for (i = 0; i < nd->cpus.n; i++) {
		int cpu = nd->cpus.ids[i], llc = llc_of(h, cpu), pkg = -1, id = -1;

		for (j = 0; j < h->n_ids; j++)
			if (h->ids[j].cpu == cpu) {
				pkg = h->ids[j].package;
				id = h->ids[j].core;
			}
		for (k = 0; k < n && pkg >= 0 && id >= 0; k++)
			if (c[k].llc == llc && c[k].pkg == pkg && c[k].id == id && c[k].n < 8)
				break;
		if (pkg < 0 || id < 0 || k == n) {
			k = n++;
			c[k].llc = llc;
			c[k].pkg = pkg;
			c[k].id = id;
		}
		c[k].cpus[c[k].n++] = cpu;
	}
	*out = c;
	return n;
}

static const char *sev_class(enum severity s)
{
	switch (s) {
	case SEV_OK: return "sev-ok";
	case SEV_WARNING: return "sev-warning";
	case SEV_CRITICAL: return "sev-critical";
	default: return "sev-na";
	}
}

/* Worst first: critical, warning, n/a, ok (n/a is never ranked as good). */
static int sev_rank(enum severity s)
{
	return s == SEV_CRITICAL ? 3 : s == SEV_WARNING ? 2 : s == SEV_OK ? 0 : 1;
}

static void cell_words(const struct cell *c, int k, struct sbuf *out)
{
	sbuf_addf(out, "%s ", factor_name((enum factor_id)k));
	if (c->q == VQ_UNAVAILABLE || (!isfinite(c->cost) && !isfinite(c->score))) {
		sbuf_addstr(out, "n/a");
		return;
	}
	if (isfinite(c->cost))
		sbuf_addf(out, "cost %.1f%% ", c->cost);
	else
		sbuf_addf(out, "score %.2f ", c->score);
	sbuf_addf(out, "%s, severity %s", vp_quality_name(c->q), severity_name(c->sev));
}

static void vcpu_square(const struct snap_vcpu *v, int nid, double x, double y, struct sbuf *out)
{
	int k;

	sbuf_addf(out, "<g class=\"map-vcpu\" data-vm=\"");
	html_esc(out, v->vm);
	sbuf_addf(out, "\" data-vcpu=\"%d\" data-cpu=\"%d\"><title>", v->index, v->cpu);
	html_esc(out, v->vm);
	sbuf_addf(out, " %s %d on CPU %d (node %d):", v->thread ? "thread" : "vCPU", v->index, v->cpu, nid);
	for (k = 0; k < FACTOR_N; k++) {
		sbuf_addstr(out, k ? "; " : " ");
		cell_words(&v->c[k], k, out);
	}
	sbuf_addstr(out, "</title>");
	for (k = 0; k < FACTOR_N; k++)
		sbuf_addf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"2\" height=\"%d\" class=\"%s\" data-factor=\"%s\" "
			  "data-sev=\"%s\"/>", x + 2 * k, y, VQ, sev_class(v->c[k].sev),
			  factor_name((enum factor_id)k), severity_name(v->c[k].sev));
	sbuf_addstr(out, "</g>");
}

/* One node's SVG in snapshot s: every vCPU drawn (detail) or counted per CPU. */
static void node_svg(const struct host *hs, int ni, const struct snap *s, bool detail, struct sbuf *out)
{
	const struct numa_node *nd = &hs->t->nodes[ni];
	struct core *c;
	size_t nc = node_cores(hs, nd, &c), i, j, k;
	int max_stack = 1, per_row = (CW - 4) / (VQ + 1), width = 220, y = 30, cell_h, max_thr = 1;

	for (i = 0; i < nd->cpus.n; i++) {
		int here = 0;

		for (j = 0; j < s->n_v; j++)
			here += s->v[j].cpu == nd->cpus.ids[i];
		if (here > max_stack)
			max_stack = here;
	}
	for (i = 0; i < nc; i++)
		if (c[i].n > max_thr)
			max_thr = c[i].n;
	cell_h = detail ? CH + ((max_stack + per_row - 1) / per_row) * (VQ + 1) + 2 : CH + 14;
	if (COLS * ((max_thr * CW + 4) + 4) + 20 > width)
		width = COLS * ((max_thr * CW + 4) + 4) + 20;
	/* the height first: LLC groups in order of first appearance */
	{
		int h = 30;
		int seen[64], n_seen = 0, g;

		for (i = 0; i < nc; i++) {
			bool have = false;

			for (g = 0; g < n_seen; g++)
				have |= seen[g] == c[i].llc;
			if (!have && n_seen < 64) {
				size_t in = 0;

				seen[n_seen++] = c[i].llc;
				for (j = 0; j < nc; j++)
					in += c[j].llc == c[i].llc;
				h += (int)((in + COLS - 1) / COLS) * (cell_h + 8) + 18 + 6;
			}
		}
		sbuf_addf(out, "<svg class=\"map-node\" data-node=\"%d\" width=\"%d\" height=\"%d\" role=\"img\" "
			       "aria-label=\"node %d\"><rect x=\"1\" y=\"1\" width=\"%d\" height=\"%d\" rx=\"6\" "
			       "class=\"node-box\" stroke=\"%s\"/><rect x=\"8\" y=\"9\" width=\"12\" height=\"12\" "
			       "fill=\"%s\"/><text x=\"26\" y=\"20\" class=\"map-title\">node %d</text>",
			  nd->id, width, h + 4, nd->id, width - 2, h + 2, node_colour[ni % 8], node_colour[ni % 8],
			  nd->id);
		for (g = 0; g < n_seen; g++) {
			size_t in = 0, pos = 0;
			int gh;

			for (j = 0; j < nc; j++)
				in += c[j].llc == seen[g];
			gh = (int)((in + COLS - 1) / COLS) * (cell_h + 8) + 18;

			sbuf_addf(out, "<g class=\"map-llc\" data-llc=\"%d\"><rect x=\"6\" y=\"%d\" width=\"%d\" "
				       "height=\"%d\" rx=\"4\" class=\"llc-box\"/>", seen[g], y, width - 12, gh);
			if (seen[g] >= 0)
				sbuf_addf(out, "<text x=\"10\" y=\"%d\" class=\"map-small\">L%d %d</text>", y + 12,
					  hs->llc[seen[g]].level, seen[g]);
			else
				sbuf_addf(out, "<text x=\"10\" y=\"%d\" class=\"map-small\">LLC not known</text>", y + 12);
			for (j = 0; j < nc; j++) {
				int cx, cy;

				if (c[j].llc != seen[g])
					continue;
				cx = 10 + (int)(pos % COLS) * (max_thr * CW + 8);
				cy = y + 16 + (int)(pos / COLS) * (cell_h + 8);
				pos++;
				sbuf_addf(out, "<g class=\"map-core\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
					       "rx=\"3\" class=\"core-box\"/>", cx, cy, c[j].n * CW + 4, cell_h + 4);
				for (k = 0; k < (size_t)c[j].n; k++) {
					int cpu = c[j].cpus[k], x = cx + 2 + (int)k * CW, yy = cy + 2, n_here = 0, shown = 0;
					enum severity worst = SEV_NA;
					bool any = false;
					size_t v;

					for (v = 0; v < s->n_v; v++)
						n_here += s->v[v].cpu == cpu;
					sbuf_addf(out, "<g class=\"map-cpu\" data-cpu=\"%d\"><rect x=\"%d\" y=\"%d\" "
						       "width=\"%d\" height=\"%d\" class=\"cpu-box\"/><text x=\"%d\" "
						       "y=\"%d\" class=\"map-small\">%d</text><title>CPU %d (node %d): %d "
						       "vCPU%s</title>", cpu, x, yy, CW - 2, cell_h, x + 2, yy + 11, cpu,
						  cpu, nd->id, n_here, n_here == 1 ? "" : "s");
					for (v = 0; v < s->n_v; v++) {
						const struct snap_vcpu *sv = &s->v[v];
						int f;

						if (sv->cpu != cpu)
							continue;
						if (detail) {
							vcpu_square(sv, nd->id, x + 2 + (shown % per_row) * (VQ + 1),
								    yy + CH - 4 + (shown / per_row) * (VQ + 1), out);
							shown++;
							continue;
						}
						for (f = 0; f < FACTOR_N; f++)
							if (!any || sev_rank(sv->c[f].sev) > sev_rank(worst)) {
								worst = sv->c[f].sev;
								any = true;
							}
					}
					if (!detail && n_here)
						sbuf_addf(out, "<g class=\"map-agg\" data-cpu=\"%d\" data-count=\"%d\" "
							       "data-sev=\"%s\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
							       "height=\"14\" class=\"%s\"/><text x=\"%d\" y=\"%d\" "
							       "class=\"map-count\" text-anchor=\"middle\">%d</text><title>%d "
							       "vCPUs on CPU %d, the worst severity of their five factors: "
							       "%s</title></g>", cpu, n_here, severity_name(worst), x + 2,
							  yy + CH - 4, CW - 6, sev_class(worst), x + CW / 2 - 1, yy + CH + 7,
							  n_here, n_here, cpu, severity_name(worst));
					sbuf_addstr(out, "</g>");
				}
				sbuf_addstr(out, "</g>");
			}
			sbuf_addstr(out, "</g>");
			y += gh + 6;
		}
	}
	sbuf_addstr(out, "</svg>\n");
	free(c);
}

static int node_index(const struct topology *t, int id)
{
	int i;

	for (i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].id == id)
			return i;
	return -1;
}

static void mem_bar(const struct topology *t, const struct snap_vm *v, struct sbuf *out)
{
	uint64_t total = 0;
	double x = 1;
	int n, worst = 0, k;
	enum severity ws = SEV_NA;

	for (k = 0; k < FACTOR_N; k++)
		if (k == 0 || sev_rank(v->c[k].sev) > worst) {
			worst = sev_rank(v->c[k].sev);
			ws = v->c[k].sev;
		}
	for (n = 0; n < v->n_mem; n++)
		total += v->mem[n];
	sbuf_addstr(out, "<div class=\"map-vm\" data-vm=\"");
	html_esc(out, v->name);
	sbuf_addf(out, "\"><span class=\"map-vm-name\"><span class=\"map-sev %s\"></span>", sev_class(ws));
	html_esc(out, v->name);
	sbuf_addf(out, "</span><svg class=\"map-mem\" width=\"%d\" height=\"16\">", BAR_W + 2);
	for (n = 0; n < v->n_mem && total; n++) {
		double w;
		int ni = node_index(t, n);
		bool remote = v->home >= 0 && n != v->home;

		if (!v->mem[n])
			continue;
		w = fmax(1.0, (double)v->mem[n] / (double)total * BAR_W);
		sbuf_addf(out, "<rect x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"12\" fill=\"%s\" "
			       "class=\"map-mem-seg%s\" data-node=\"%d\"><title>%.0f MiB on node %d%s</title></rect>",
			  x, w, node_colour[(ni < 0 ? n : ni) % 8], remote ? " remote" : "", n,
			  (double)v->mem[n] / 1048576.0, n, remote ? " (remote: not its home node)" : " (home)");
		x += w;
	}
	sbuf_addstr(out, "</svg><span class=\"map-vm-words\">");
	for (n = 0; n < v->n_mem && total; n++)
		if (v->mem[n])
			sbuf_addf(out, "%.0f MiB n%d%s &middot; ", (double)v->mem[n] / 1048576.0, n,
				  v->home >= 0 && n != v->home ? " remote" : "");
	if (!total)
		sbuf_addstr(out, "memory per node n/a &middot; ");
	for (k = 0; k < FACTOR_N; k++) {
		if (k)
			sbuf_addstr(out, "; ");
		{
			struct sbuf w = SBUF_INIT;

			cell_words(&v->c[k], k, &w);
			html_esc(out, sbuf_str(&w));
			sbuf_release(&w);
		}
	}
	sbuf_addstr(out, "</span></div>\n");
}

static int cmp_vm(const void *a, const void *b)
{
	const struct snap_vm *x = a, *y = b;
	int rx = 0, ry = 0, k;

	for (k = 0; k < FACTOR_N; k++) {
		if (sev_rank(x->c[k].sev) > rx)
			rx = sev_rank(x->c[k].sev);
		if (sev_rank(y->c[k].sev) > ry)
			ry = sev_rank(y->c[k].sev);
	}
	return rx != ry ? ry - rx : strcmp(x->name, y->name);
}

void html_map_render(const struct html_map *mp, const struct recording *rec, struct sbuf *out)
{
	const struct topology *t = &rec->plat.topo;
	const struct host hs = { t, rec->cpu_ids, rec->n_cpu_ids, rec->llc, rec->n_llc };
	size_t i, j;
	int ni, k;

	sbuf_addstr(out, "<h2>Placement map</h2>\n<p>The host at ");
	sbuf_addf(out, "%zu interval%s spread over the recording", mp->n_s, mp->n_s == 1 ? "" : "s");
	sbuf_addstr(out, ".  Each box is a NUMA node with its last-level caches, cores (SMT siblings side by "
			 "side) and CPUs; a square is a vCPU on the CPU it ran on at the end of the interval, in five "
			 "stripes: ");
	for (k = 0; k < FACTOR_N; k++)
		sbuf_addf(out, "%s%s", k ? ", " : "", factor_name((enum factor_id)k));
	sbuf_addstr(out, ", each coloured by its severity: <span class=\"map-key sev-ok\"></span> ok "
			 "<span class=\"map-key sev-warning\"></span> warning <span class=\"map-key sev-critical\">"
			 "</span> critical <span class=\"map-key sev-na\"></span> n/a (not measured, or no "
			 "threshold: never ok).  The tooltips give each value with its quality (measured, "
			 "estimate, apportioned, proxy).  A square with a number counts the vCPUs on that CPU "
			 "(above ");
	sbuf_addf(out, "%d VMs; open a node below the map to see them one by one).  Memory bars: each VM's "
		       "resident memory per node, outlined in red where it is not on its home node (the one "
		       "with most of it).</p>\n", HTML_MAP_DETAIL_VMS);
	if (!t->n_nodes) {
		sbuf_addstr(out, "<p class=\"na\">n/a: the recording has no NUMA topology.</p>\n");
		return;
	}
	if (!rec->n_cpu_ids)
		sbuf_addstr(out, "<p class=\"na\">SMT siblings n/a: the recording has no per-CPU ids "
				 "(recorded before meta topology_cpus); each CPU is drawn as its own core.</p>\n");
	if (!rec->n_llc)
		sbuf_addstr(out, "<p class=\"na\">Last-level caches n/a: the recording names none.</p>\n");
	for (i = 0; i < mp->n_s; i++) {
		const struct snap *s = &mp->s[i];
		bool detail = s->n_vm <= HTML_MAP_DETAIL_VMS;
		struct snap_vm *order;
		size_t unplaced = 0;

		sbuf_addf(out, "<figure class=\"snap\" data-interval=\"%zu\"><figcaption>interval %zu of %zu: "
			       "%zu VM%s, %zu vCPU%s</figcaption>\n<div class=\"map-nodes\">", s->frame + 1,
			  s->frame + 1, mp->frames, s->n_vm, s->n_vm == 1 ? "" : "s", s->n_v, s->n_v == 1 ? "" : "s");
		for (ni = 0; ni < t->n_nodes; ni++)
			node_svg(&hs, ni, s, detail, out);
		sbuf_addstr(out, "</div>\n");
		for (j = 0; j < s->n_v; j++) {
			bool known = false;

			for (ni = 0; ni < t->n_nodes && !known; ni++)
				known = cpulist_has(&t->nodes[ni].cpus, s->v[j].cpu);
			unplaced += !known;
		}
		if (unplaced)
			sbuf_addf(out, "<p class=\"na\">%zu vCPU(s) on a CPU the topology does not list (n/a).</p>\n",
				  unplaced);
		if (!detail) {
			for (ni = 0; ni < t->n_nodes; ni++) {
				sbuf_addf(out, "<details class=\"drill\" data-node=\"%d\"><summary>node %d: its vCPUs one by "
					       "one</summary>\n", t->nodes[ni].id, t->nodes[ni].id);
				node_svg(&hs, ni, s, true, out);
				sbuf_addstr(out, "</details>\n");
			}
		}
		order = xmalloc((s->n_vm + 1) * sizeof(*order));
		memcpy(order, s->vm, s->n_vm * sizeof(*order));
		qsort(order, s->n_vm, sizeof(*order), cmp_vm);
		sbuf_addstr(out, "<div class=\"map-bars\">\n");
		for (j = 0; j < s->n_vm && j < HTML_MAP_BARS; j++)
			mem_bar(t, &order[j], out);
		sbuf_addstr(out, "</div>\n");
		if (s->n_vm > HTML_MAP_BARS) {
			sbuf_addf(out, "<details class=\"map-more\"><summary>&hellip; and %zu more VMs</summary>"
				       "<div class=\"map-bars\">\n", s->n_vm - HTML_MAP_BARS);
			for (j = HTML_MAP_BARS; j < s->n_vm; j++)
				mem_bar(t, &order[j], out);
			sbuf_addstr(out, "</div></details>\n");
		}
		free(order);
		sbuf_addstr(out, "</figure>\n");
	}
}
