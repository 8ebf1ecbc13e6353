/* session.c - profiling sessions: one collector thread shared by all, history, streams */
#include "daemon/session.h"

int vpd_sessions_start(struct vpd *d, struct vp_err *err)
{
	(void)d;
	(void)err;
	return 0;
}

void vpd_sessions_shutdown(struct vpd *d)
{
	(void)d;
}

void vpd_sessions_free(struct vpd *d)
{
	(void)d;
}
