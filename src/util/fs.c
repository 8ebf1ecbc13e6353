/* fs.c - reading files and directories under a root directory */
#include "util/fs.h"
#include "util/alloc.h"
#include "util/sbuf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool vp_root_is_fixture(const char *root)
{
	return root && *root && strcmp(root, "/");
}

char *vp_path(const char *root, const char *path)
{
	size_t rl;

	if (!root || !*root || !strcmp(root, "/"))
		return xstrdup(path);
	rl = strlen(root);
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	return xasprintf("%.*s%s%s", (int)rl, root, path[0] == '/' ? "" : "/", path);
}

int vp_exists(const char *root, const char *path)
{
	char *p = vp_path(root, path);
	struct stat st;
	int ret = stat(p, &st) ? -errno : 0;

	free(p);
	return ret;
}

int vp_read_file(const char *root, const char *path, char **out, size_t *len,
		 struct vp_err *err)
{
	char *p = vp_path(root, path);
	struct sbuf sb = SBUF_INIT;
	char buf[8192];
	int fd, ret = 0;
	ssize_t n;

	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = vp_err_errno(err, errno, "cannot open '%s'", p);
		goto out;
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = vp_err_errno(err, errno, "cannot read '%s'", p);
			break;
		}
		if (n == 0)
			break;
		sbuf_add(&sb, buf, (size_t)n);
	}
	close(fd);
	if (ret) {
		sbuf_release(&sb);
		goto out;
	}
	if (len)
		*len = sb.len;
	*out = sbuf_detach(&sb);
out:
	free(p);
	return ret;
}

const char *vp_file_type(unsigned mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "not a file";
	}
}

int vp_open_regular(const char *path, int flags, struct stat *st, struct vp_err *err)
{
	struct stat sb;
	int fd, fl;

	if (!st)
		st = &sb;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags);
	if (fd < 0) {
		if (errno == ELOOP && (flags & O_NOFOLLOW))
			return vp_err_set(err, -ELOOP, "'%s' is a symbolic link", path);
		return vp_err_errno(err, errno, "cannot open '%s'", path);
	}
	if (fstat(fd, st)) {
		int e = errno;

		close(fd);
		return vp_err_errno(err, e, "cannot open '%s'", path);
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return vp_err_set(err, VP_EINVAL, "'%s' is not a regular file (%s)", path,
				  vp_file_type(st->st_mode));
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int vp_read_regular(const char *path, size_t max, char **out, size_t *len, struct vp_err *err)
{
	struct sbuf sb = SBUF_INIT;
	struct stat st;
	char buf[8192];
	int fd, ret = 0;
	ssize_t n;

	fd = vp_open_regular(path, 0, &st, err);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return vp_err_set(err, VP_ERANGE, "'%s' is larger than %zu bytes", path, max);
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = vp_err_errno(err, errno, "cannot read '%s'", path);
			break;
		}
		if (n == 0)
			break;
		if (sb.len + (size_t)n > max) {
			ret = vp_err_set(err, VP_ERANGE, "'%s' is larger than %zu bytes", path, max);
			break;
		}
		sbuf_add(&sb, buf, (size_t)n);
	}
	close(fd);
	if (ret) {
		sbuf_release(&sb);
		return ret;
	}
	if (len)
		*len = sb.len;
	*out = sbuf_detach(&sb);
	return 0;
}

int vp_open_output(const char *path, bool excl, unsigned mode, struct vp_err *err)
{
	int fd, tries;

	for (tries = 0; tries < 3; tries++) {
		if (!excl) {
			fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
			if (fd >= 0)
				return fd;
			if (errno != ENOENT)
				return vp_err_errno(err, errno, "cannot open '%s' for writing", path);
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
			  (mode_t)mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST || excl)
			break;
		/* a name that exists but could not be opened: a dangling link (or a race) */
		{
			struct stat st;

			if (!lstat(path, &st) && S_ISLNK(st.st_mode) && stat(path, &st))
				return vp_err_set(err, -ELOOP, "'%s' is a symbolic link to a file that "
						  "does not exist: not creating it", path);
		}
	}
	if (errno == EEXIST)
		return vp_err_set(err, -EEXIST, "'%s' exists: not overwriting it", path);
	return vp_err_errno(err, errno, "cannot create '%s'", path);
}

char *vp_rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int vp_read_line(const char *root, const char *path, char *buf, size_t size,
		 struct vp_err *err)
{
	char *data, *nl;
	int ret;

	ret = vp_read_file(root, path, &data, NULL, err);
	if (ret)
		return ret;
	nl = strchr(data, '\n');
	if (nl)
		*nl = '\0';
	if (size) {
		strncpy(buf, data, size - 1);
		buf[size - 1] = '\0';
		vp_rstrip(buf);
	}
	free(data);
	return 0;
}

int vp_read_u64(const char *root, const char *path, uint64_t *val, struct vp_err *err)
{
	char buf[64], *end;
	unsigned long long v;
	int ret;

	ret = vp_read_line(root, path, buf, sizeof(buf), err);
	if (ret)
		return ret;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (end == buf || *end || errno || buf[0] == '-') {
		char *p = vp_path(root, path);

		ret = vp_err_set(err, VP_EPARSE, "'%s': expected an unsigned integer, found '%s'",
				 p, buf);
		free(p);
		return ret;
	}
	*val = v;
	return 0;
}

int vp_read_int(const char *root, const char *path, int *val, struct vp_err *err)
{
	char buf[64], *end;
	long v;
	int ret;

	ret = vp_read_line(root, path, buf, sizeof(buf), err);
	if (ret)
		return ret;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (end == buf || *end || errno || v < -2147483647L - 1 || v > 2147483647L) {
		char *p = vp_path(root, path);

		ret = vp_err_set(err, VP_EPARSE, "'%s': expected an integer, found '%s'", p, buf);
		free(p);
		return ret;
	}
	*val = (int)v;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int vp_list_dir(const char *root, const char *path, char ***names, size_t *n,
		struct vp_err *err)
{
	char *p = vp_path(root, path);
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = opendir(p);
	if (!d) {
		ret = vp_err_errno(err, errno, "cannot open directory '%s'", p);
		free(p);
		return ret;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		VP_GROW(v, cap, cnt + 1);
		v[cnt++] = xstrdup(de->d_name);
	}
	closedir(d);
	free(p);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_names);
	*names = v;
	*n = cnt;
	return 0;
}

void vp_free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
