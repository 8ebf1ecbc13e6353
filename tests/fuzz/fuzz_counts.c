/* fuzz_counts.c - libFuzzer harness for model eval's counts readers (JSON counts files, perf stat -x, output) */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "collect/counts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct counts_in c;
	struct vp_err err = { 0, "" };
	double dur = NAN;
	size_t i;

	counts_in_init(&c);
	if (counts_parse_json(&c, (const char *)data, size, "fuzz.json", &err) == 0) {
		/* what it accepted is what the format allows */
		if (!(c.duration_s > 0) && !isnan(c.duration_s))
			abort();
		for (i = 0; i < c.row.n; i++)
			if (!c.row.v[i].spec[0] || (c.row.v[i].value < 0))
				abort();
	}
	counts_in_release(&c);
	counts_in_init(&c);
	if (counts_parse_perf_csv(&c.row, &dur, (const char *)data, size, "fuzz.csv", &err) == 0)
		for (i = 0; i < c.row.n; i++)
			if (c.row.v[i].value < 0 || (isnan(c.row.v[i].value) && !c.row.v[i].why))
				abort();
	counts_in_release(&c);
	return 0;
}
