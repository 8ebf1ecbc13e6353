/* fs.h - reading files and directories under a root directory */
#ifndef VP_FS_H
#define VP_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct stat;

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

/*
 * Files a person names (configuration, users, calibration, models, counts,
 * certificates, tokens, recordings): open path with O_NONBLOCK (a FIFO
 * does not block the open), fstat the descriptor and refuse anything but a
 * regular file ("'PATH' is not a regular file (a FIFO)"), then clear
 * O_NONBLOCK.  flags are added to O_RDONLY|O_CLOEXEC (O_NOFOLLOW, say).
 * Returns the descriptor (st filled when not NULL) or a negative code.
 */
int vp_open_regular(const char *path, int flags, struct stat *st, struct vp_err *err);

/*
 * Read such a file whole, at most max bytes: a larger file, or one that
 * grows past max while read (/dev/zero is refused before), is VP_ERANGE
 * "'PATH' is larger than N bytes".  *out as vp_read_file() gives it.
 */
int vp_read_regular(const char *path, size_t max, char **out, size_t *len, struct vp_err *err);

/*
 * Open an output file for writing.  excl: a new file only (O_EXCL, so never
 * through a symbolic link, dangling or not; -EEXIST if the name exists).
 * Else an existing file (or what an existing link names: /dev/stdout) is
 * truncated, and a missing one is created with O_EXCL: a dangling link is
 * refused instead of followed to create its target.  mode is the new
 * file's (before the umask).  Returns the descriptor or a negative code.
 */
int vp_open_output(const char *path, bool excl, unsigned mode, struct vp_err *err);

/* Documents a person hands in (counts, saved verify results): 64 MiB at most. */
#define VP_DOC_MAX_BYTES ((size_t)64 << 20)

/* The file type in words ("a FIFO", "a directory", ...) for those messages. */
const char *vp_file_type(unsigned mode);

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
