/* fuzz_diag_json.c - libFuzzer harness for the reader of a daemon's diagnosis
 * (dview_from_json() in src/compose/diag_render.c, then diag_render_text()),
 * as `vmmprof --remote URL diagnose` runs them on GET .../diagnosis */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "compose/diag_render.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dview_json dj;
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT;
	struct jv doc;

	if (jv_parse(&doc, (const char *)data, size, "fuzz", &err))
		return 0;
	if (!dview_from_json(&dj, &doc, &err))
		diag_render_text(&dj.dv, "fuzz\n", &out);
	else if (!err.msg[0])
		abort();        /* a refusal says why */
	dview_json_release(&dj);
	sbuf_release(&out);
	jv_release(&doc);
	return 0;
}
