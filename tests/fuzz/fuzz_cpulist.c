/* fuzz_cpulist.c - libFuzzer harness for the CPU list and mask parsers */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/cpulist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct cpulist cl, back;
	struct sbuf sb = SBUF_INIT;

	if (cpulist_parse(&cl, s, NULL) == 0) {
		/* what we print must parse back to the same set */
		cpulist_format(&cl, &sb);
		if (cpulist_parse(&back, sbuf_str(&sb), NULL) || back.n != cl.n ||
		    (cl.n && memcmp(back.ids, cl.ids, cl.n * sizeof(int))))
			abort();
		cpulist_release(&back);
		cpulist_release(&cl);
	}
	if (cpulist_parse_mask(&cl, s, NULL) == 0)
		cpulist_release(&cl);
	sbuf_release(&sb);
	free(s);
	return 0;
}
