/* fuzz_cost.c - libFuzzer harness for the cost stage's invariants (tests/unit/cost_check.h) */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../unit/cost_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The bytes choose a calibration, a row's cost terms, its node states and
 * solo rate (cc_draw()); cost_row() must keep the invariants (no negative
 * cost, costs + remainder within the budget, the budget within the cycles,
 * no cost without its counts, and the two monotonicities) or abort.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cc_src s = { data, size, 0, 0 };
	struct cost_calib cc;
	struct cost_in in;
	struct cost_out o;
	double cu[3], cq[3];
	char buf[256];
	const char *why;

	cc_draw(&s, &cc, cu, cq, &in);
	cost_row(&cc, &in, &o);
	why = cc_check(&in, &o, buf, sizeof(buf));
	if (!why)
		why = cc_check_monotone(&cc, &in, &o, buf, sizeof(buf));
	if (why) {
		fprintf(stderr, "cost invariant: %s\n", why);
		abort();
	}
	return 0;
}
