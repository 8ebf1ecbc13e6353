/* loop2.c - two threads of known length for per-thread counting checks:
 * "loop2 N M" runs N iterations of a 4-instruction loop in the main thread
 * and M in a second thread, so per-thread user-mode instruction counts are
 * 4*N and 4*M plus the C runtime's and pthread_create's own (bounded, a few
 * thousand; the checks allow 0.1 % of 4*N with N in the millions). */
#include <pthread.h>
#include <stdlib.h>

static void spin(unsigned long n)
{
	unsigned long a = 0, b = 0;

	if (!n)
		return;
#if defined(__aarch64__)
	__asm__ volatile("1:\n\tadd %0, %0, #1\n\tadd %1, %1, #1\n\tsubs %2, %2, #1\n\tb.ne 1b"
			 : "+r"(a), "+r"(b), "+r"(n)
			 :
			 : "cc");
#else
	__asm__ volatile("1:\n\tinc %0\n\tinc %1\n\tdec %2\n\tjnz 1b"
			 : "+r"(a), "+r"(b), "+r"(n)
			 :
			 : "cc");
#endif
}

static void *second(void *arg)
{
	spin(*(unsigned long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n, m;
	pthread_t t;

	if (argc < 3)
		return 2;
	n = strtoul(argv[1], NULL, 10);
	m = strtoul(argv[2], NULL, 10);
	if (pthread_create(&t, NULL, second, &m))
		return 1;
	spin(n);
	pthread_join(t, NULL);
	return 0;
}
