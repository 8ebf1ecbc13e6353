/* peers.c - peer tools the benchmark's figures are checked against (mbw, sysbench, stress-ng), run as they are */
#include "bench/peers.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/run.h"

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

int bench_peer_run(enum bench_peer p, int threads, double secs, unsigned array_mib,
		   double *gbs, char *why, size_t why_size)
{
	char a[3][64], *out = NULL;
	const char *argv[16];
	struct vp_err err = { 0, "" };
	int n = 0, ret = -1;

	if (p >= PEER_N || threads < 1 || array_mib < 1) {
		snprintf(why, why_size, "no such peer run");
		return -1;
	}
	argv[n++] = tools[p];
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
		 * determine memory rate" (seen at 4 s here): 8 s, as the script.
		 * --stdout: its log (the rates) goes to standard output */
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
		argv[n++] = "--stdout";
		break;
	default:
		break;
	}
	argv[n] = NULL;
	/* each tool ends by its own time limit (mbw by its iteration count) */
	if (vp_run("/", argv, &out, &err)) {
		if (err.code == -ENOENT)
			snprintf(why, why_size, "%s: not installed (Debian package %s)", tools[p],
				 tools[p]);
		else
			snprintf(why, why_size, "%.*s", (int)why_size - 1, err.msg);
	} else if (bench_peer_parse(p, out, gbs)) {
		snprintf(why, why_size, "%s printed no figure this version of vmmprof reads",
			 tools[p]);
	} else {
		ret = 0;
	}
	free(out);
	return ret;
}
