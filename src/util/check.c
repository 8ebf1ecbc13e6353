/* check.c - the one report of a broken invariant (check.h) */
#include "util/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void vp_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vmmprof: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
