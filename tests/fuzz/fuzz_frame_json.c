/* fuzz_frame_json.c - libFuzzer harness for the reader of a daemon's frames
 * (frame_from_json() in src/compose/frame_text.c, then the timeline rows), as
 * `vmmprof --remote URL stat` runs them on each event of a session's stream */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "compose/frame_text.h"
#include "model/model.h"
#include "util/jsonread.h"
#include "util/sbuf.h"
#include "util/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_frame fr;
	struct model m = { 0 };
	bool unav[FACTOR_N];
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT;
	struct jv v;
	int k;

	if (jv_parse(&v, (const char *)data, size, "fuzz", &err))
		return 0;
	if (!frame_from_json(&v, &fr, unav, &err)) {
		struct table t;

		m.name = (char *)(jv_str(&v, "model") ? jv_str(&v, "model") : "?");
		for (k = 0; k < FACTOR_N; k++)
			m.factors[k].quality = unav[k] ? VQ_UNAVAILABLE : VQ_MEASURED;
		frame_text_table(&t);
		frame_text_rows(&t, &fr, fr.duration, &m);
		table_render(&t, &out, 2, true);
		table_release(&t);
		collect_frame_release(&fr);
	} else if (!err.msg[0]) {
		abort();        /* a refusal says why */
	}
	sbuf_release(&out);
	jv_release(&v);
	return 0;
}
