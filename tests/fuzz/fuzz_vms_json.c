/* fuzz_vms_json.c - libFuzzer harness for the reader of a daemon's VM list
 * (vms_from_json() in src/analysis/vms_view.c, then vms_text()), as
 * `vmmprof --remote URL list vms` runs them on GET /api/v1/vms */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis/vms_view.h"
#include "hv/hv.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jv doc;
	struct vp_err err = { 0, "" };
	struct hv_vm_list l = { 0 };
	struct sbuf out = SBUF_INIT;

	if (jv_parse(&doc, (const char *)data, size, "fuzz", &err))
		return 0;
	if (!vms_from_json(&doc, &l, &err))
		vms_text(&l, vms_json_remote, &doc, NULL, NULL, NULL, &out);
	else if (!err.msg[0])
		abort();        /* a refusal says why */
	hv_vm_list_release(&l);
	sbuf_release(&out);
	jv_release(&doc);
	return 0;
}
