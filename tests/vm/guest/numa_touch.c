/* numa_touch.c - a workload of known NUMA placement for the locality checks:
 * "numa_touch CPUNODE MEMNODE PAGES [HOLD_SECONDS]" runs on the CPUs of
 * CPUNODE, allocates PAGES pages bound to MEMNODE with libnuma, writes one
 * byte in each page (one page fault, one page allocation each), then asks
 * the kernel where each page is and prints "placed K of PAGES on node M".
 * Transparent huge pages are turned off for the range, so the kernel's
 * per-node allocation counters count one event per page.
 * HOLD_SECONDS keeps running afterwards, reading its pages over and over
 * from the same CPUs, for a profiler to see.
 * MARK (1..15) brackets the hold loop for the ground-truth plugin
 * (tests/vm/plugin/numa_truth.c): a write to page MARK of the marker window
 * at 0x7e0000000000 before it, to page 0 after it.  Each hold-loop pass
 * reads every page once with three data accesses per page: the volatile
 * sink's load and store (on the stack, the CPU's own node) and the page's
 * byte, so a third of the loop's accesses are to MEMNODE. */
#define _GNU_SOURCE
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages, i, placed = 0, psz = sysconf(_SC_PAGESIZE);
	int cpunode, memnode, hold, mark, *status;
	volatile char *marker = NULL;
	void **addr;
	char *p;

	if (argc < 4) {
		fprintf(stderr, "usage: numa_touch CPUNODE MEMNODE PAGES [HOLD_SECONDS [MARK]]\n");
		return 2;
	}
	cpunode = atoi(argv[1]);
	memnode = atoi(argv[2]);
	pages = atol(argv[3]);
	hold = argc > 4 ? atoi(argv[4]) : 0;
	mark = argc > 5 ? atoi(argv[5]) : 0;
	if (mark < 0 || mark > 15) {
		fprintf(stderr, "numa_touch: MARK %d is not in 1..15\n", mark);
		return 2;
	}
	if (mark) {
		void *m = mmap((void *)0x7e0000000000UL, 16 * 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (m == MAP_FAILED) {
			perror("numa_touch: mmap of the marker window");
			return 1;
		}
		marker = m;
	}
	if (numa_available() < 0 || pages <= 0) {
		fprintf(stderr, "numa_touch: no NUMA support or bad page count\n");
		return 1;
	}
	if (numa_run_on_node(cpunode)) {
		perror("numa_touch: numa_run_on_node");
		return 1;
	}
	p = numa_alloc_onnode((size_t)pages * psz, memnode);
	if (!p) {
		fprintf(stderr, "numa_touch: numa_alloc_onnode failed\n");
		return 1;
	}
	/* one allocation per page: a transparent huge page would be one
	 * allocation for 512 pages in the kernel's counters */
	madvise(p, (size_t)pages * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * psz] = 1;
	addr = calloc(pages, sizeof(*addr));
	status = calloc(pages, sizeof(*status));
	if (!addr || !status)
		return 1;
	for (i = 0; i < pages; i++)
		addr[i] = p + i * psz;
	/* move_pages with no target nodes only reports where each page is */
	if (numa_move_pages(0, pages, addr, NULL, status, 0)) {
		perror("numa_touch: move_pages");
		return 1;
	}
	for (i = 0; i < pages; i++)
		placed += status[i] == memnode;
	printf("placed %ld of %ld on node %d, ran on cpu %d (node %d)\n", placed, pages, memnode,
	       sched_getcpu(), numa_node_of_cpu(sched_getcpu()));
	fflush(stdout);
	if (hold > 0) {
		time_t end = time(NULL) + hold;
		volatile char sink = 0;

		if (marker)
			marker[mark * 4096] = 1;
		while (time(NULL) < end)
			for (i = 0; i < pages; i++)
				sink += p[i * psz];
		if (marker)
			marker[0] = 1;
	}
	return 0;
}
