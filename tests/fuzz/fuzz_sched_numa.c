/* fuzz_sched_numa.c - libFuzzer harness for the parser of a thread's sched file (NUMA hinting faults) */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "source/sched_numa.h"
#include "util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct sched_numa n;
	double sum = 0;
	int k;

	if (sched_numa_parse(s, &n, NULL) == 0) {
		/* every node up to the highest has a slot; the total is their sum */
		if (n.n_nodes < 0 || (n.n_nodes && !n.faults) || n.n_nodes > 1024)
			abort();
		for (k = 0; k < n.n_nodes; k++) {
			if (!(n.faults[k] >= 0))
				abort();
			sum += n.faults[k];
		}
		if (fabs(sum - n.total) > 1e-9 * n.total)
			abort();
	}
	sched_numa_release(&n);
	free(s);
	return 0;
}
