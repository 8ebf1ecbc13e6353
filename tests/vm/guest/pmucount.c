/* pmucount.c - the testbed's own ground truth for the emulated PMU: counts
 * the user-mode instructions of a command with one raw perf_event_open, so
 * the guest can show that the emulator counts exactly before it judges
 * vmmprof's counts.  Usage: pmucount COMMAND [ARGS]; prints
 * "instructions N enabled NS running NS". */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	uint64_t v[3];
	int fd, go[2], st;
	pid_t pid;
	char c;

	if (argc < 2) {
		fprintf(stderr, "usage: pmucount COMMAND [ARGS]\n");
		return 2;
	}
	if (pipe(go))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);
	if (fd < 0) {
		perror("pmucount: perf_event_open");
		return 1;
	}
	close(go[0]);
	if (write(go[1], "x", 1) != 1)
		return 1;
	close(go[1]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "pmucount: command failed\n");
	if (read(fd, v, sizeof(v)) != sizeof(v)) {
		perror("pmucount: read");
		return 1;
	}
	printf("instructions %llu enabled %llu running %llu\n", (unsigned long long)v[0],
	       (unsigned long long)v[1], (unsigned long long)v[2]);
	return 0;
}
