/* err.c - error codes and the caller-provided error struct */
#include "util/err.h"

#include <stdio.h>
#include <string.h>

const char *vp_strerror(int code)
{
	switch (code) {
	case 0: return "success";
	case VP_EPARSE: return "parse error";
	case VP_EUNSUPP: return "not supported here";
	case VP_ENOTFOUND: return "not found";
	case VP_EINVAL: return "invalid argument";
	case VP_ERANGE: return "value out of range";
	case VP_EFORMAT: return "truncated or corrupt data";
	case VP_EDEP: return "feature not built in";
	}
	if (code < 0 && code > -4096)
		return strerror(-code);
	return "unknown error";
}

int vp_err_vset(struct vp_err *err, int code, const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
}

int vp_err_set(struct vp_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vp_err_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int vp_err_errno(struct vp_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (errnum < 0)
		errnum = -errnum;
	if (!err)
		return -errnum;
	va_start(ap, fmt);
	vp_err_vset(err, -errnum, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(errnum));
	return -errnum;
}

int vp_err_prefix(struct vp_err *err, const char *fmt, ...)
{
	char old[VP_ERR_MSG_MAX];
	va_list ap;
	int n;

	if (!err)
		return 0;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(err->msg))
		snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s", old);
	return err->code;
}

void vp_err_clear(struct vp_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
