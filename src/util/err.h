/* err.h - error codes and the caller-provided error struct */
#ifndef VP_ERR_H
#define VP_ERR_H

#include <stdarg.h>

/*
 * Functions return 0 or a negative code: either a negated errno value
 * (-ENOENT, -EACCES, ...) or one of the project codes below, which sit
 * far outside the errno range.  vp_strerror() names every code.
 */
#define VP_EPARSE     (-10001) /* malformed input (file:line:col in the message) */
#define VP_EUNSUPP    (-10002) /* not supported on this CPU, VM or kernel */
#define VP_ENOTFOUND  (-10003) /* a named thing (event, PMU, model, VM) does not exist */
#define VP_EINVAL     (-10004) /* invalid argument from the user */
#define VP_ERANGE     (-10005) /* a value does not fit its field */
#define VP_EFORMAT    (-10006) /* a recording or data file is truncated or corrupt */
#define VP_EDEP       (-10007) /* an optional dependency was not built in */

#define VP_ERR_MSG_MAX 1024

/* Details of a failure, filled by the function that detected it. */
struct vp_err {
	int code;                  /* same value the function returned */
	char msg[VP_ERR_MSG_MAX];  /* git-style message: lower case, no full stop */
};

/* Name of an error code; a static string, never NULL. */
const char *vp_strerror(int code);

/*
 * Fill *err (which may be NULL) with code and a formatted message.
 * Returns code, so that `return vp_err_set(err, -ENOENT, ...)` reads well.
 */
int vp_err_set(struct vp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int vp_err_vset(struct vp_err *err, int code, const char *fmt, va_list ap);

/*
 * Like vp_err_set() with code = -errnum and ": strerror(errnum)" appended,
 * as in "cannot open '/sys/...': No such file or directory".
 */
int vp_err_errno(struct vp_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Prefix the current message with "prefix: "; keeps the code.  Used when a
 * caller adds context ("model 'skx': ...").  Returns err->code (0 if err NULL).
 */
int vp_err_prefix(struct vp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Reset to "no error". */
void vp_err_clear(struct vp_err *err);

#endif
