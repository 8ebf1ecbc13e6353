/* fs.h - reading files and directories under a root directory */
#ifndef VP_FS_H
#define VP_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Every probe and source reads through a root directory ("/" on a live
 * system, a fixture tree in tests).  path is absolute ("/sys/...") and is
 * joined to root.  root NULL or "" means "/".
 */

/* Whether root is a fixture tree rather than this machine ("/", NULL or ""). */
bool vp_root_is_fixture(const char *root);

/* Why nothing is counted on a fixture tree's threads (top, the collector). */
#define VP_FIXTURE_THREADS "the root directory is a fixture tree, whose threads are not this machine's"

/* Joined path; free() it. */
char *vp_path(const char *root, const char *path);

/* 0 if root/path exists (any type), else a negative errno. */
int vp_exists(const char *root, const char *path);

/*
 * Read a whole file.  On success *out is a NUL-terminated heap buffer
 * (free() it) and *len its length (len may be NULL).  Errors name the file.
 */
int vp_read_file(const char *root, const char *path, char **out, size_t *len,
		 struct vp_err *err);

/* First line without its newline, into buf (truncated to size). */
int vp_read_line(const char *root, const char *path, char *buf, size_t size,
		 struct vp_err *err);

/* A file that holds one integer (decimal, or hex with 0x). */
int vp_read_u64(const char *root, const char *path, uint64_t *val, struct vp_err *err);
int vp_read_int(const char *root, const char *path, int *val, struct vp_err *err);

/*
 * Sorted names in a directory, without "." and "..".  *names is a heap
 * array of heap strings; free with vp_free_names().
 */
int vp_list_dir(const char *root, const char *path, char ***names, size_t *n,
		struct vp_err *err);
void vp_free_names(char **names, size_t n);

/* Strip trailing white space in place; returns s. */
char *vp_rstrip(char *s);

#endif
