/* report_html.h - a recording as one self-contained HTML page with charts */
#ifndef VP_REPORT_HTML_H
#define VP_REPORT_HTML_H

#include "analysis/diagnose.h"
#include "cli/report_map.h"
#include "record/record.h"
#include "util/sbuf.h"

/*
 * The page's time series, gathered in two passes over the frames without
 * holding them: pass 1 (html_plot_scan, every frame in order) counts the
 * frames, finds each factor's scale and lists every entity of every frame
 * (by key, so each incarnation of a restarted VM apart) with the frames it
 * was in: its VMs are the chart lines and its vCPUs the heatmap rows; pass 2
 * (html_plot_add, the same frames again) fills at most max_buckets buckets
 * per line and row.  Up to max_buckets frames a bucket is one frame and the
 * page is exactly the frame-by-frame one.  Beyond, frame i goes to bucket
 * i * buckets / frames (consecutive frames, equal counts within one): a
 * chart point is the mean of the bucket's values, the y axis still reaches
 * the highest single interval, and a heatmap cell is the node the vCPU ran
 * on in most of the bucket's intervals (a tie: the later one), its title
 * saying in how many.  Means and nodes are over the frames an entity was
 * in; a bucket it was never in is a gap.  Memory: entities x buckets,
 * whatever the frame count.
 */
#define HTML_MAX_BUCKETS 1000

struct html_plot;

struct html_plot *html_plot_new(size_t max_buckets);
/* Pass 1: the next frame; *f is taken over (released or kept), f left empty. */
void html_plot_scan(struct html_plot *p, struct collect_frame *f);
/* Pass 2: the next frame, the same ones in the same order as pass 1. */
void html_plot_add(struct html_plot *p, const struct collect_frame *f);
/* Frames seen by pass 1. */
size_t html_plot_frames(const struct html_plot *p);
void html_plot_free(struct html_plot *p);

/*
 * Append the page: the recording's summary, each factor's score or cost over
 * time per VM (SVG), the vCPUs' node per interval as a heatmap, the
 * placement map at a few intervals (map; report_map.h), what could
 * not be measured, the ranked bottlenecks and the advice.  No script and no
 * external file: it opens anywhere.
 */
void report_html(const struct recording *rec, const struct model *m, const struct model_avail *av,
		 const struct diag_input *in, const struct diag_result *r,
		 const struct html_plot *p, const struct html_map *map, struct sbuf *out);

#endif
