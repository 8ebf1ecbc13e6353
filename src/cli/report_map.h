/* report_map.h - the HTML report's placement map: the host at a few moments of a recording */
#ifndef VP_REPORT_MAP_H
#define VP_REPORT_MAP_H

#include "collect/collect.h"
#include "model/model.h"
#include "platform/platform.h"
#include "record/record.h"
#include "util/sbuf.h"

/*
 * Small multiples: the placement at up to HTML_MAP_SNAPS intervals spread
 * evenly over the recording (the first and the last among them), each drawn
 * as the web UI's map (web/map.js) draws a sample: one SVG per NUMA node
 * with its LLC domains, cores (SMT siblings side by side: the recording's
 * meta topology_cpus, caches topology_llc) and CPUs; each vCPU a square on the CPU it ran on at the
 * end of that interval, in five stripes, one per factor in the order of
 * factor_name(), each coloured by that factor's severity (n/a grey, never
 * the colour of ok); each VM's resident memory a bar split by node, the part
 * off its home node (the node with most of it, as top's home_node) outlined
 * as remote.  Above HTML_MAP_DETAIL_VMS VMs in an interval each CPU shows
 * one square counting its vCPUs (coloured by the worst severity among
 * them), the bars are cut to HTML_MAP_BARS (worst first) and each node has
 * a <details> that draws its vCPUs one by one: the drill-down needs no
 * script.  Only layout: every value, severity and quality word is the
 * recording's, as report and diagnose print them.
 */
#define HTML_MAP_SNAPS 6
#define HTML_MAP_DETAIL_VMS 16
#define HTML_MAP_BARS 24

struct html_map;

/* Append s to out with <, >, & and " as HTML entities (text and attribute values). */
void html_esc(struct sbuf *out, const char *s);

/* A node's colour in the report (the heatmap's and the map's), by its position in the topology. */
extern const char *const html_node_colour[8];

/* m, av: the report's model and what the run could see (their lifetime covers the map's). */
struct html_map *html_map_new(const struct model *m, const struct model_avail *av, size_t frames);
/* Frame fi (0 .. frames - 1, in order): kept when it is one of the snapshots. */
void html_map_add(struct html_map *mp, size_t fi, const struct collect_frame *f);
/* The section: heading, legend and the snapshots, on the recording's nodes, CPU ids and caches. */
void html_map_render(const struct html_map *mp, const struct recording *rec, struct sbuf *out);
void html_map_free(struct html_map *mp);

#endif
