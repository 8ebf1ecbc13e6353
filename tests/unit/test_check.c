/* test_check.c - a broken invariant stops with its place (util/check.h) */
#include "test.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/check.h"

/* Run fn in a child, its stderr into buf; the child's wait status. */
static int in_child(void (*fn)(void), char *buf, size_t size)
{
	int fd[2], status = 0;
	ssize_t n, got = 0;
	pid_t pid;

	buf[0] = '\0';
	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		fn();
		_exit(0);
	}
	close(fd[1]);
	while ((size_t)got + 1 < size && (n = read(fd[0], buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return status;
}

static volatile int two = 2;

enum { BUG_LINE = __LINE__ + 4 };   /* the line of the VP_BUG_ON below */

static void bug_on_true(void)
{
	VP_BUG_ON(two + 1 == 3);
}

static void bug_on_false(void)
{
	VP_BUG_ON(two == 3);
}

static void never_true(void)
{
	if (VP_NEVER(two == 2))
		_exit(3);   /* release builds: the guard still runs */
}

TEST(bug_on_stops_with_file_line_and_condition)
{
	char buf[512], want[128];
	int st;

	st = in_child(bug_on_true, buf, sizeof(buf));
	CHECK_AT(__LINE__, WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status 0x%x", st);
	snprintf(want, sizeof(want), "vmmprof: BUG: tests/unit/test_check.c:%d: two + 1 == 3\n",
		 (int)BUG_LINE);
	CHECK_STR(buf, want);
	st = in_child(bug_on_false, buf, sizeof(buf));
	CHECK_AT(__LINE__, WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	CHECK_STR(buf, "");
}

TEST(always_and_never_are_their_condition)
{
	char buf[512];
	int st;

	CHECK(VP_ALWAYS(two == 2) == 1);
	CHECK(VP_NEVER(two == 3) == 0);
	st = in_child(never_true, buf, sizeof(buf));
#ifdef VP_DEBUG
	/* make SAN=1: the impossible case stops the tests where it happens */
	CHECK_AT(__LINE__, WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status 0x%x", st);
	CHECK_CONTAINS(buf, "VP_NEVER(two == 2)");
#else
	/* a release build: the guard handles it */
	CHECK_AT(__LINE__, WIFEXITED(st) && WEXITSTATUS(st) == 3, "status 0x%x", st);
	CHECK_STR(buf, "");
#endif
}
