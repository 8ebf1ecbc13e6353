/* fuzz_info_json.c - libFuzzer harness for the reader of a daemon's info document
 * (src/plan/info_json.c, then the text page src/plan/info_text.c), as `vmmprof --remote URL info` */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/coverage.h"
#include "plan/info_json.h"
#include "plan/info_text.h"
#include "platform/platform.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jv doc;
	struct vp_err err;
	struct platform p;
	struct coverage cv;
	struct sbuf out = SBUF_INIT;

	if (jv_parse(&doc, (const char *)data, size, "fuzz", &err))
		return 0;
	memset(&p, 0, sizeof(p));
	memset(&cv, 0, sizeof(cv));
	if (!info_from_json(&doc, &p, &cv, &err))
		info_text(&p, &cv, "fuzz", &out);
	else if (!err.msg[0])
		abort();        /* a refusal says why */
	platform_release(&p);
	coverage_release(&cv);
	sbuf_release(&out);
	jv_release(&doc);
	return 0;
}
