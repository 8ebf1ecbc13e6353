/* session.h - profiling sessions: one collector thread shared by all, history, streams */
#ifndef VP_DAEMON_SESSION_H
#define VP_DAEMON_SESSION_H

#include "daemon/daemon.h"

/* Start the collector thread (before the server takes requests). */
int vpd_sessions_start(struct vpd *d, struct vp_err *err);
/* Stop every session (recordings closed), wake every stream so it ends. */
void vpd_sessions_shutdown(struct vpd *d);
/* Join the collector thread and free everything (after the server stopped). */
void vpd_sessions_free(struct vpd *d);

/* The session endpoints, for server.c's route table. */
#define VPD_SESSION_ROUTES

#endif
