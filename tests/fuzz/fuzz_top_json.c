/* fuzz_top_json.c - libFuzzer harness for the reader of a daemon's top
 * samples (top_from_json() in src/top/toprender.c, sorted by every key, then
 * the --batch text), as `vmmprof --remote URL top` runs them on each sample;
 * the same state is reused from sample to sample as the client reuses it */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "top/topdata.h"
#include "top/toprender.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct top_state s;
	static struct jv cur;           /* the sample s points into */
	static int ready, have;
	struct vp_err err = { 0, "" };
	struct sbuf out = SBUF_INIT;
	struct jv v;
	int k;

	if (!ready) {
		top_init_remote(&s);
		ready = 1;
	}
	if (jv_parse(&v, (const char *)data, size, "fuzz", &err))
		return 0;
	if (top_from_json(&s, &v, &err)) {
		if (!err.msg[0])
			abort();        /* a refusal says why */
		jv_release(&v);
		/* the client stops at a bad sample; start afresh as a new client would */
		top_release(&s);
		top_init_remote(&s);
		if (have)
			jv_release(&cur);
		have = 0;
		return 0;
	}
	if (have)
		jv_release(&cur);
	cur = v;
	have = 1;
	for (k = 0; k < TOP_SORT_N; k++) {
		top_sort(&s, (enum top_sort)k);
		top_render_text(&s, &out);
		sbuf_reset(&out);
	}
	sbuf_release(&out);
	return 0;
}
