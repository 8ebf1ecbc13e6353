/* fake-qemu.c - a stand-in QEMU process for bench/scale.sh: M vCPU threads named "CPU n/KVM",
 * each lightly busy (BUSY_US of CPU every PERIOD_MS), until killed.
 *
 *   qemu-system-x86_64 -name guest=NAME -smp M [-busy-us US] [-period-ms MS] [-m MIB]
 *
 * Like QEMU it maps its guest RAM (-m, default 64 MiB: anonymous, writable, so vmmprof's
 * numa_maps reading finds it) and touches 4 MiB of it, so that a watcher reads numa_maps on
 * its clock as for a real VM, not at every scan as for a QEMU whose RAM it cannot find.
 *
 * Built by bench/scale.sh under the name qemu-system-x86_64 (vmmprof finds QEMU by argv[0] and
 * its vCPU threads by name, as with QEMU's debug-threads=on).  Each vCPU starts its period at a
 * random offset so that 1,000 threads do not wake together.  Not part of vmmprof.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long busy_us = 200, period_ms = 1000;

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *vcpu(void *arg)
{
	long idx = (long)arg;
	char name[16];
	struct timespec d;
	unsigned seed = (unsigned)(idx * 7919 + getpid());

	snprintf(name, sizeof(name), "CPU %ld/KVM", idx);
	pthread_setname_np(pthread_self(), name);
	d.tv_sec = 0;
	d.tv_nsec = (long)(rand_r(&seed) % (unsigned)period_ms) * 1000000L;
	nanosleep(&d, NULL);
	for (;;) {
		long long t0 = now_us();
		volatile unsigned long x = 0;

		while (now_us() - t0 < busy_us)
			x++;
		d.tv_sec = period_ms / 1000;
		d.tv_nsec = (period_ms % 1000) * 1000000L;
		nanosleep(&d, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long m = 1, i, ram_mib = 64;
	pthread_attr_t a;
	char *ram;

	for (i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "-smp"))
			m = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-busy-us"))
			busy_us = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-period-ms"))
			period_ms = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-m"))
			ram_mib = atol(argv[i + 1]);
	}
	if (m < 1 || period_ms < 1 || busy_us < 0) {
		fprintf(stderr, "qemu-system-x86_64 (fake): bad -smp, -busy-us or -period-ms\n");
		return 2;
	}
	if (ram_mib > 0) {
		ram = mmap(NULL, (size_t)ram_mib << 20, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (ram == MAP_FAILED) {
			fprintf(stderr, "qemu-system-x86_64 (fake): cannot map %ld MiB\n", ram_mib);
			return 1;
		}
		for (i = 0; i < (ram_mib < 4 ? ram_mib : 4) << 20; i += 4096)
			ram[i] = 1;
	}
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (i = 0; i < m; i++) {
		pthread_t t;

		if (pthread_create(&t, &a, vcpu, (void *)i)) {
			fprintf(stderr, "qemu-system-x86_64 (fake): thread %ld: cannot create\n", i);
			return 1;
		}
	}
	for (;;)
		pause();
}
