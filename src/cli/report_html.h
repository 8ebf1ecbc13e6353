/* report_html.h - a recording as one self-contained HTML page with charts */
#ifndef VP_REPORT_HTML_H
#define VP_REPORT_HTML_H

#include "analysis/diagnose.h"
#include "record/record.h"
#include "util/sbuf.h"

/*
 * Append the page: the recording's summary, each factor's score or cost over
 * time per VM (SVG), the vCPUs' node per interval as a heatmap, what could
 * not be measured, the ranked bottlenecks and the advice.  No script and no
 * external file: it opens anywhere.
 */
void report_html(const struct recording *rec, const struct model *m, const struct model_avail *av,
		 const struct diag_input *in, const struct diag_result *r, struct sbuf *out);

#endif
