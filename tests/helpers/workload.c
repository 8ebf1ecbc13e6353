/* workload.c - a known workload for the counting tests: touches N pages, burns a known CPU time,
 * sleeps N times (context switches), runs threads, and reports what it did */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * usage: workload [options]
 *   --delay MS        sleep first (so that a counter can attach)
 *   --wait-file PATH  then wait until PATH exists (the test creates it once its
 *                     counters are open), blocked in inotify: the wait adds no
 *                     context switches, so counters that attached at different
 *                     times still see the same switches
 *   --pages N         touch N new anonymous pages (N page faults at least)
 *   --cpu-ms MS       burn MS ms of CPU time in the main thread
 *   --switches N      sleep 1 ms N times (N voluntary context switches at least)
 *   --thread-ms MS    also run one thread that burns MS ms of CPU and exits
 *   --late-thread-ms MS  start, after the wait, a thread that burns MS ms and exits
 *                     (a thread that did not exist when a counter attached)
 *   --idle-threads N  start N threads that sleep until the end
 *   --hold-ms MS      stay alive MS ms after the work (threads included)
 *   --vcpu-names      name the main thread "CPU 0/KVM" and the --thread-ms one "CPU 1/KVM",
 *                     as QEMU names its vCPU threads (debug-threads=on): started with
 *                     argv[0] qemu-system-x86_64 it is a stand-in QEMU with two busy vCPUs
 *   -name ARG         QEMU's option, taken and ignored (the stand-in's VM name)
 *   --report FILE     write key=value lines: pid, tids, work_cpu_ns, proc_cpu_ns (all
 *                     the process's CPU time so far, its start-up included), thread_tid,
 *                     thread_cpu_ns, pages, switches
 * Every CPU time reported is measured by the workload itself with
 * CLOCK_PROCESS_CPUTIME_ID / CLOCK_THREAD_CPUTIME_ID around the work.
 */

struct burner {
	long ms;
	double cpu_ns;
	pid_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready;
	int go;
};

static double cpu_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void burn(long ms)
{
	double start = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	volatile unsigned long x = 0;

	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) - start < (double)ms * 1e6)
		for (int i = 0; i < 20000; i++)
			x += (unsigned long)i;
}

static void *burner_main(void *arg)
{
	struct burner *b = arg;
	double t0;

	pthread_mutex_lock(&b->mu);
	b->tid = (pid_t)syscall(SYS_gettid);
	b->ready = 1;
	pthread_cond_broadcast(&b->cv);
	while (!b->go)
		pthread_cond_wait(&b->cv, &b->mu);
	pthread_mutex_unlock(&b->mu);
	t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	burn(b->ms);
	b->cpu_ns = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

static void *idle_main(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* wait_for_file: block until PATH exists; one wake-up per entry created in its directory */
static void wait_for_file(const char *path)
{
	char dir[4096];
	char buf[4096];
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, dirname(dir), IN_CREATE | IN_MOVED_TO) < 0) {
		/* no inotify: poll (each poll is a context switch) */
		while (access(path, F_OK))
			sleep_ms(10);
		if (fd >= 0)
			close(fd);
		return;
	}
	while (access(path, F_OK))
		if (read(fd, buf, sizeof(buf)) < 0 && errno != EINTR)
			break;
	close(fd);
	while (access(path, F_OK)) /* read failed: poll */
		sleep_ms(10);
}

int main(int argc, char **argv)
{
	long delay = 0, pages = 0, cpu_ms = 0, switches = 0, thread_ms = 0, idle = 0, hold = 0;
	long late_ms = 0;
	int vcpu_names = 0;
	struct burner late = { 0, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 1 };
	pthread_t late_th;
	const char *report = NULL, *wait_file = NULL;
	struct burner b = { 0, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
	pthread_t th;
	pthread_attr_t small;
	double t0, t1;
	long page = sysconf(_SC_PAGESIZE), i;
	FILE *f;

	for (i = 1; i < argc; i++) {
		long *dst = NULL;

		if (!strcmp(argv[i], "--vcpu-names")) {
			vcpu_names = 1;
			continue;
		}
		if (!strcmp(argv[i], "-name") && i + 1 < argc) {
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--report") && i + 1 < argc) {
			report = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--wait-file") && i + 1 < argc) {
			wait_file = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--delay")) dst = &delay;
		else if (!strcmp(argv[i], "--pages")) dst = &pages;
		else if (!strcmp(argv[i], "--cpu-ms")) dst = &cpu_ms;
		else if (!strcmp(argv[i], "--switches")) dst = &switches;
		else if (!strcmp(argv[i], "--thread-ms")) dst = &thread_ms;
		else if (!strcmp(argv[i], "--late-thread-ms")) dst = &late_ms;
		else if (!strcmp(argv[i], "--idle-threads")) dst = &idle;
		else if (!strcmp(argv[i], "--hold-ms")) dst = &hold;
		if (!dst || i + 1 >= argc) {
			fprintf(stderr, "workload: bad argument '%s'\n", argv[i]);
			return 2;
		}
		*dst = atol(argv[++i]);
	}
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	for (i = 0; i < idle; i++) {
		pthread_t it;

		if (pthread_create(&it, &small, idle_main, NULL)) {
			fprintf(stderr, "workload: cannot start thread %ld\n", i);
			return 1;
		}
	}
	if (thread_ms) {
		b.ms = thread_ms;
		pthread_create(&th, NULL, burner_main, &b);
		pthread_mutex_lock(&b.mu);
		while (!b.ready)
			pthread_cond_wait(&b.cv, &b.mu);
		pthread_mutex_unlock(&b.mu);
		if (vcpu_names)
			pthread_setname_np(th, "CPU 1/KVM");
	}
	if (vcpu_names)
		pthread_setname_np(pthread_self(), "CPU 0/KVM");
	if (report) {
		/* the pid and thread ids first, so that a test can attach to them */
		f = fopen(report, "w");
		if (f) {
			fprintf(f, "pid=%d\nthread_tid=%d\n", (int)getpid(), (int)b.tid);
			fclose(f);
		}
	}
	sleep_ms(delay);
	if (wait_file)
		wait_for_file(wait_file);
	t0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (late_ms) {
		late.ms = late_ms;
		pthread_create(&late_th, NULL, burner_main, &late);
	}
	pthread_mutex_lock(&b.mu);
	b.go = 1;
	pthread_cond_broadcast(&b.cv);
	pthread_mutex_unlock(&b.mu);
	if (pages) {
		char *mem = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED)
			return 1;
		for (i = 0; i < pages; i++)
			mem[i * page] = 1;
	}
	burn(cpu_ms);
	for (i = 0; i < switches; i++)
		sleep_ms(1);
	if (thread_ms)
		pthread_join(th, NULL);
	if (late_ms)
		pthread_join(late_th, NULL);
	t1 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (report) {
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s.tmp", report);
		f = fopen(tmp, "w");
		if (!f)
			return 1;
		fprintf(f, "pid=%d\nthread_tid=%d\nwork_cpu_ns=%.0f\nthread_cpu_ns=%.0f\n"
			   "late_tid=%d\nlate_cpu_ns=%.0f\npages=%ld\nswitches=%ld\n"
			   "proc_cpu_ns=%.0f\n",
			(int)getpid(), (int)b.tid, t1 - t0, b.cpu_ns, (int)late.tid, late.cpu_ns,
			pages, switches, t1);
		fclose(f);
		rename(tmp, report);
	}
	sleep_ms(hold);
	return 0;
}
