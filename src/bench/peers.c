/* peers.c - references for the benchmark's own figures: a plain chase, and peer tools run as they are */
#include "bench/peers.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

double bench_ref_chase_ns(size_t bytes, double secs, uint64_t seed)
{
	size_t n = bytes / 64, i, *perm;
	uint64_t steps = 1 << 18, k, done = 0;
	double t0, t;
	void *q, *volatile sink;
	char *p;

	if (n < 2)
		return NAN;
	seed |= 1;
	p = mmap(NULL, n * 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NAN;
	perm = malloc(n * sizeof(*perm));
	if (!perm) {
		munmap(p, n * 64);
		return NAN;
	}
#ifdef MADV_HUGEPAGE
	madvise(p, n * 64, MADV_HUGEPAGE);
#endif
	memset(p, 0, n * 64);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {   /* Fisher-Yates, then the cycle perm[0] -> perm[1] -> ... */
		size_t j = (size_t)(xorshift(&seed) % (i + 1)), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (i = 0; i < n; i++)
		*(void **)(p + perm[i] * 64) = p + perm[(i + 1) % n] * 64;
	free(perm);
	for (q = p, i = 0; i < n; i++)
		q = *(void **)q;
	t0 = now_s();
	do {
		for (k = 0; k < steps; k++)
			q = *(void **)q;
		done += steps;
		t = now_s() - t0;
	} while (t < secs);
	sink = q;
	(void)sink;
	munmap(p, n * 64);
	return t * 1e9 / (double)done;
}

static const char *const tools[PEER_N] = { "mbw", "sysbench", "stress-ng" };

const char *bench_peer_tool(enum bench_peer p)
{
	return p < PEER_N ? tools[p] : "?";
}

/* The number just before `after` in line (which holds it), or NaN. */
static double number_before(const char *line, const char *at)
{
	const char *s = at;

	while (s > line && s[-1] == ' ')
		s--;
	while (s > line && (strchr("0123456789.", s[-1])))
		s--;
	return s < at && strchr("0123456789", *s) ? strtod(s, NULL) : NAN;
}

int bench_peer_parse(enum bench_peer p, const char *out, double *gbs)
{
	const char *line, *end, *f;
	double v, sum = 0;
	int found = 0;

	for (line = out; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		switch (p) {
		case PEER_MBW_COPY:
			/* "AVG\tMethod: MEMCPY\tElapsed: ...\tMiB: 256.00000\tCopy: 9744.711 MiB/s" */
			if (strncmp(line, "AVG", 3) || !(f = strstr(line, "Copy:")) ||
			    (end && f > end))
				break;
			v = strtod(f + 5, NULL);
			if (v > 0) {
				*gbs = v * 1048576.0 / 1e9;
				return 0;
			}
			break;
		case PEER_SYSBENCH_READ:
			/* "3968.00 MiB transferred (3895.61 MiB/sec)" */
			if (!(f = strstr(line, "MiB transferred (")) || (end && f > end))
				break;
			v = strtod(f + 17, NULL);
			if (v > 0) {
				*gbs = v * 1048576.0 / 1e9;
				return 0;
			}
			break;
		case PEER_STRESSNG_TRIAD:
			/* one line per instance: "... stream: memory rate: R MB read/sec,
			 * W MB write/sec, ..." (MB = 10^6 B) */
			if (!(f = strstr(line, "memory rate:")) || (end && f > end))
				break;
			if ((f = strstr(line, "MB read/sec")) && (!end || f < end) &&
			    !isnan(v = number_before(line, f))) {
				sum += v;
				found = 1;
			}
			if ((f = strstr(line, "MB write/sec")) && (!end || f < end) &&
			    !isnan(v = number_before(line, f)))
				sum += v;
			break;
		default:
			return -1;
		}
	}
	if (p == PEER_STRESSNG_TRIAD && found && sum > 0) {
		*gbs = sum / 1000.0;
		return 0;
	}
	return -1;
}

static bool on_path(const char *tool)
{
	const char *path = getenv("PATH"), *s, *e;
	char buf[4096];

	for (s = path ? path : "/usr/bin:/bin"; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - s), e > s ? s : ".", tool) <
		    (int)sizeof(buf) && !access(buf, X_OK))
			return true;
	}
	return false;
}

int bench_peer_run(enum bench_peer p, int threads, double secs, unsigned array_mib,
		   double *gbs, char *why, size_t why_size)
{
	char a[6][64], *argv[12], *out = NULL;
	size_t len = 0, cap = 0;
	int fd[2], status = 0, n = 0, i;
	double deadline;
	pid_t pid;

	if (p >= PEER_N || threads < 1 || array_mib < 1) {
		snprintf(why, why_size, "no such peer run");
		return -1;
	}
	if (!on_path(tools[p])) {
		snprintf(why, why_size, "%s: not installed (Debian package %s)", tools[p], tools[p]);
		return -1;
	}
	argv[n++] = (char *)tools[p];
	switch (p) {
	case PEER_MBW_COPY:   /* iterations of one copy of array_mib: about secs at ~5 GB/s */
		snprintf(a[0], sizeof(a[0]), "%d", (int)fmax(3, secs * 5000 / array_mib));
		snprintf(a[1], sizeof(a[1]), "%u", array_mib);
		argv[n++] = "-q";
		argv[n++] = "-n";
		argv[n++] = a[0];
		argv[n++] = "-t0";
		argv[n++] = a[1];
		break;
	case PEER_SYSBENCH_READ:
		snprintf(a[0], sizeof(a[0]), "--memory-block-size=%uM", array_mib);
		snprintf(a[1], sizeof(a[1]), "--threads=%d", threads);
		snprintf(a[2], sizeof(a[2]), "--time=%d", (int)fmax(1, round(secs)));
		argv[n++] = "memory";
		argv[n++] = a[0];
		argv[n++] = "--memory-total-size=100000G";
		/* a buffer per thread, as ours: with the default (global) every
		 * thread reads one buffer, and lines found in the shared L3 count */
		argv[n++] = "--memory-scope=local";
		argv[n++] = "--memory-oper=read";
		argv[n++] = "--memory-access-mode=seq";
		argv[n++] = a[1];
		argv[n++] = a[2];
		argv[n++] = "run";
		break;
	case PEER_STRESSNG_TRIAD:
		/* its three arrays are 4x its "L3 size" each: array_mib each, like ours;
		 * a run of a few seconds often ends with "run duration too short to
		 * determine memory rate" (seen at 4 s here): 8 s, as the script */
		snprintf(a[0], sizeof(a[0]), "%d", threads);
		snprintf(a[1], sizeof(a[1]), "%u", array_mib / 4 * 1024 * 1024);
		snprintf(a[2], sizeof(a[2]), "%d", (int)fmax(8, round(secs)));
		argv[n++] = "--stream";
		argv[n++] = a[0];
		argv[n++] = "--stream-l3-size";
		argv[n++] = a[1];
		argv[n++] = "-t";
		argv[n++] = a[2];
		argv[n++] = "--metrics";
		break;
	default:
		break;
	}
	argv[n] = NULL;
	if (pipe2(fd, O_CLOEXEC)) {
		snprintf(why, why_size, "%s: pipe: %s", tools[p], strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, why_size, "%s: fork: %s", tools[p], strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	deadline = now_s() + 4 * fmax(secs, 8) + 10;
	for (;;) {
		ssize_t r;

		if (len + 4096 + 1 > cap) {
			char *q = realloc(out, cap = cap ? cap * 2 : 16384);

			if (!q)
				break;
			out = q;
		}
		r = read(fd[0], out + len, cap - len - 1);
		if (r > 0)
			len += (size_t)r;
		else if (r == 0 || errno != EINTR)
			break;
		if (now_s() > deadline)
			break;
	}
	close(fd[0]);
	if (now_s() > deadline)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		out[len] = '\0';
	i = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		snprintf(why, why_size, "%s %s", tools[p], WIFEXITED(status) ?
			 (WEXITSTATUS(status) == 127 ? "could not be run" : "failed") :
			 "was killed (ran too long)");
	else if (!out || bench_peer_parse(p, out, gbs))
		snprintf(why, why_size, "%s printed no figure this version of vmmprof reads",
			 tools[p]);
	else
		i = 0;
	free(out);
	return i;
}
