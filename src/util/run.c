/* run.c - running a tool live, or reading its captured output under a fixture root */
#include "util/run.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The first non-empty line of fd (a temporary file the child wrote), "" when none. */
static void first_line(int fd, char *buf, size_t size)
{
	char tmp[512];
	ssize_t n;
	char *p, *e;

	buf[0] = '\0';
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return;
	n = read(fd, tmp, sizeof(tmp) - 1);
	if (n <= 0)
		return;
	tmp[n] = '\0';
	for (p = tmp; *p == '\n' || *p == ' '; p++)
		;
	e = strchr(p, '\n');
	if (e)
		*e = '\0';
	snprintf(buf, size, "%.200s", p);
}

/* Live: fork and exec argv, collect its standard output. */
static int run_live(const char *const *argv, char **out, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	int pfd[2], status, ret = 0, efd;
	char buf[4096], emsg[256];
	FILE *ef = tmpfile();
	ssize_t n;
	pid_t pid, parent;

	efd = ef ? fileno(ef) : -1;
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = vp_err_errno(err, errno, "cannot create a pipe for '%s'", argv[0]);
		goto out;
	}
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		ret = vp_err_errno(err, errno, "cannot fork for '%s'", argv[0]);
		close(pfd[0]);
		close(pfd[1]);
		goto out;
	}
	if (pid == 0) {
		int devnull;

		/* the tool dies with us (SIGTERM: xentrace then turns Xen's tracing off) */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(126);
		devnull = open("/dev/null", O_RDWR);

		dup2(pfd[1], 1);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(efd >= 0 ? efd : devnull, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sbuf_add(&sb, buf, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	first_line(efd, emsg, sizeof(emsg));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		ret = vp_err_set(err, -ENOENT, "cannot run '%s': not found", argv[0]);
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		ret = vp_err_set(err, VP_EUNSUPP, "'%s %s' failed (status %d)%s%s", argv[0],
				 argv[1] ? argv[1] : "",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				 emsg[0] ? ": " : "", emsg);
out:
	if (ef)
		fclose(ef);
	if (ret)
		sbuf_release(&sb);
	else
		*out = sbuf_detach(&sb);
	return ret;
}

char *vp_run_fixture_path(const char *root, const char *const *argv)
{
	struct sbuf name = SBUF_INIT;
	const char *base = strrchr(argv[0], '/');
	char *path;
	size_t i;

	sbuf_addf(&name, "/.vmmprof-fixture/%s/", base ? base + 1 : argv[0]);
	for (i = 1; argv[i]; i++) {
		const char *a = argv[i];

		while (*a == '-')
			a++;
		if (i > 1)
			sbuf_addch(&name, '-');
		sbuf_addstr(&name, a);
	}
	path = xasprintf("%s.json", sbuf_str(&name));
	if (vp_exists(root, path)) {
		free(path);
		path = xasprintf("%s.txt", sbuf_str(&name));
	}
	sbuf_release(&name);
	return path;
}

int vp_run(const char *root, const char *const *argv, char **out, struct vp_err *err)
{
	char *path;
	int ret;

	*out = NULL;
	if (!root || !*root || !strcmp(root, "/"))
		return run_live(argv, out, err);
	path = vp_run_fixture_path(root, argv);
	ret = vp_read_file(root, path, out, NULL, err);
	free(path);
	return ret;
}
