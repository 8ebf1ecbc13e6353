/* resctrl.c - resctrl monitoring groups: LLC occupancy and memory bandwidth per group */
#include "source/resctrl.h"
#include "util/alloc.h"
#include "util/fs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

double resctrl_parse_value(const char *text)
{
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*text))
		text++;
	if (!isdigit((unsigned char)*text))
		return NAN; /* "Unavailable", "Error" */
	errno = 0;
	v = strtoull(text, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end)
		return NAN;
	return (double)v;
}

static char *group_dir(const char *name)
{
	if (!name || !*name)
		return xstrdup(RESCTRL_DIR);
	return xasprintf(RESCTRL_DIR "/mon_groups/%s", name);
}

static double read_value(const char *root, const char *path)
{
	char buf[64];

	if (vp_read_line(root, path, buf, sizeof(buf), NULL))
		return NAN;
	return resctrl_parse_value(buf);
}

static int cmp_mon(const void *a, const void *b)
{
	const struct resctrl_mon *x = a, *y = b;

	return (x->domain > y->domain) - (x->domain < y->domain);
}

int resctrl_dir_read(const char *root, const char *dir, struct resctrl_group *g,
		     struct vp_err *err)
{
	char *mdir = xasprintf("%s/mon_data", dir);
	char **names = NULL;
	size_t nn = 0, i, cap = 0;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = vp_list_dir(root, mdir, &names, &nn, err);
	if (ret)
		goto out;
	for (i = 0; i < nn; i++) {
		struct resctrl_mon *m;
		char *p;
		int dom;
		char c;

		if (sscanf(names[i], "mon_L3_%d%c", &dom, &c) != 1)
			continue;
		VP_GROW(g->mon, cap, g->n_mon + 1);
		m = &g->mon[g->n_mon++];
		m->domain = dom;
		p = xasprintf("%s/%s/llc_occupancy", mdir, names[i]);
		m->llc_occupancy = read_value(root, p);
		free(p);
		p = xasprintf("%s/%s/mbm_total_bytes", mdir, names[i]);
		m->mbm_total_bytes = read_value(root, p);
		free(p);
		p = xasprintf("%s/%s/mbm_local_bytes", mdir, names[i]);
		m->mbm_local_bytes = read_value(root, p);
		free(p);
	}
	if (g->n_mon)
		qsort(g->mon, g->n_mon, sizeof(*g->mon), cmp_mon);
	vp_free_names(names, nn);
out:
	free(mdir);
	return ret;
}

int resctrl_group_read(const char *root, const char *name, struct resctrl_group *g,
		       struct vp_err *err)
{
	char *dir = group_dir(name);
	int ret = resctrl_dir_read(root, dir, g, err);

	snprintf(g->name, sizeof(g->name), "%s", name ? name : "");
	free(dir);
	return ret;
}

void resctrl_group_release(struct resctrl_group *g)
{
	free(g->mon);
	g->mon = NULL;
	g->n_mon = 0;
}

int resctrl_list_groups(const char *root, char ***names, size_t *n, struct vp_err *err)
{
	return vp_list_dir(root, RESCTRL_DIR "/mon_groups", names, n, err);
}

static int check_name(const char *name, struct vp_err *err)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return vp_err_set(err, VP_EINVAL, "invalid resctrl group name '%s'",
				  name ? name : "");
	return 0;
}

int resctrl_group_create(const char *root, const char *name, struct vp_err *err)
{
	char *rel = group_dir(name), *p = vp_path(root, rel);
	int ret = check_name(name, err);

	if (!ret && mkdir(p, 0755) && errno != EEXIST)
		ret = vp_err_errno(err, errno, "cannot create '%s'", p);
	free(p);
	free(rel);
	return ret;
}

int resctrl_tasks_add(const char *root, const char *dir, const int *tids, size_t n,
		      size_t *n_moved, struct vp_err *err)
{
	char *rel = xasprintf("%s/tasks", dir), *path = vp_path(root, rel);
	size_t i, moved = 0;
	int fd, ret = 0;

	/*
	 * The kernel creates tasks with the group; O_CREAT changes nothing
	 * there and lets a plain directory of a fixture tree stand in.  No
	 * O_TRUNC: kernfs files cannot be truncated.
	 */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = vp_err_errno(err, errno, "cannot open '%s'", path);
		goto out;
	}
	/* the kernel takes one id per write(); a thread that exited is no error */
	for (i = 0; i < n; i++) {
		char buf[24];
		int len = snprintf(buf, sizeof(buf), "%d\n", tids[i]);

		if (write(fd, buf, (size_t)len) == len)
			moved++;
		else if (errno != ESRCH && !ret)
			ret = vp_err_errno(err, errno, "cannot add task %d to '%s'", tids[i], path);
	}
	close(fd);
out:
	if (n_moved)
		*n_moved = moved;
	free(path);
	free(rel);
	return ret;
}

int resctrl_group_add_tasks(const char *root, const char *name, const int *tids, size_t n,
			    struct vp_err *err)
{
	char *rel = group_dir(name);
	int ret = check_name(name, err);

	if (!ret)
		ret = resctrl_tasks_add(root, rel, tids, n, NULL, err);
	free(rel);
	return ret;
}

int resctrl_group_remove(const char *root, const char *name, struct vp_err *err)
{
	char *rel = group_dir(name), *p = vp_path(root, rel);
	int ret = check_name(name, err);

	if (!ret && rmdir(p))
		ret = vp_err_errno(err, errno, "cannot remove '%s'", p);
	free(p);
	free(rel);
	return ret;
}
