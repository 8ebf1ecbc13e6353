/* session.h - profiling sessions: one collector thread shared by all, history, streams */
#ifndef VP_DAEMON_SESSION_H
#define VP_DAEMON_SESSION_H

#include "daemon/daemon.h"

/*
 * Probe the platform, open the model registry, the calibration and the hub,
 * and start the collector thread (before the server takes requests).
 * Prints what went wrong; returns 0 or -1.  A hub that cannot be made is not
 * fatal: session requests then get 503 with the reason.
 */
int vpd_sessions_start(struct vpd *d);
/* Stop every session (recordings closed and valid), end every stream, join the thread. */
void vpd_sessions_shutdown(struct vpd *d);
/* Periodic work (never blocks): ended sessions forgotten after session_keep_s. */
void vpd_sessions_tick(struct vpd *d);
/* Free everything (after the server stopped). */
void vpd_sessions_free(struct vpd *d);

/*
 * The recording name of a running session, as a consistent copy (SQLite's
 * online backup under the sessions' lock, into an unlinked file in the
 * recordings directory): 1 and *fd open on it; 0 when no running session
 * writes name (the file is complete as it is); negative on error.
 */
int vpd_recording_snapshot(struct vpd *d, const char *name, int *fd, struct vp_err *err);

/* Endpoints; args[0] is the session id where the path has one. */
enum MHD_Result vpd_collector(struct vpd_req *r);
enum MHD_Result vpd_session_list(struct vpd_req *r);
enum MHD_Result vpd_session_create(struct vpd_req *r);
enum MHD_Result vpd_session_get(struct vpd_req *r, const char *id);
enum MHD_Result vpd_session_delete(struct vpd_req *r, const char *id);
enum MHD_Result vpd_session_stream(struct vpd_req *r, const char *id);
enum MHD_Result vpd_session_history(struct vpd_req *r, const char *id);
enum MHD_Result vpd_session_diagnosis(struct vpd_req *r, const char *id);
enum MHD_Result vpd_top_stream(struct vpd_req *r);
/*
 * The VM list of GET /api/v1/vms (vms_scan()), with Xen's page dump when
 * xen_numa_dump is set (under the sessions' lock: one rate limit).
 */
struct vms_view;
int vpd_vms_scan(struct vpd *d, struct vms_view *v, struct vp_err *err);
/* GET /metrics: Prometheus text format (src/compose/prom.c). */
enum MHD_Result vpd_metrics(struct vpd_req *r);

#endif
