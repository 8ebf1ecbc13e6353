/* pipeline.h - the collecting commands' shared options, and the pipeline (compose/pipeline.h) opened from them */
#ifndef VP_PIPELINE_H
#define VP_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "compose/pipeline.h"
#include "source/cpustat.h"
#include "util/sbuf.h"

/* Long options shared by the collecting commands: values 1000+ for getopt_long. */
enum { PO_ROOT = 1000, PO_MODEL_PATH, PO_CAL, PO_VM, PO_XEN_NUMA, PO_RESCTRL, PO_WAIT,
       PO_XENTRACE, PO_XEN_PSR, PO_XEN_IMC };

/* Their getopt_long entries (with -m and -p as short options). */
#define PIPE_LONGOPTS \
	{ "root", required_argument, NULL, PO_ROOT }, \
	{ "model", required_argument, NULL, 'm' }, \
	{ "model-path", required_argument, NULL, PO_MODEL_PATH }, \
	{ "calibration", required_argument, NULL, PO_CAL }, \
	{ "vm", required_argument, NULL, PO_VM }, \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "resctrl", no_argument, NULL, PO_RESCTRL }, \
	{ "wait", optional_argument, NULL, PO_WAIT }, \
	{ "xen-numa-dump", optional_argument, NULL, PO_XEN_NUMA }, \
	{ "xentrace", no_argument, NULL, PO_XENTRACE }, \
	{ "xen-psr", no_argument, NULL, PO_XEN_PSR }, \
	{ "xen-imc", no_argument, NULL, PO_XEN_IMC }

/* The help lines of --vm and --wait, for the commands that take them. */
#define VM_WAIT_HELP \
	"--vm NAME\tonly this VM (repeatable); a name no VM has is an error that lists\n" \
	"\tthe VMs there are, unless --wait\n" \
	"--wait[=SECS]\twait up to SECS (default 60) for every --vm to appear\n"

/*
 * Every VM named with --vm is there (an error listing the VMs there are,
 * or "no VM found", when one is not), or, with --wait, appears within
 * wait_s (polled; Ctrl-C gives up).  A caller that follows VMs as they
 * start (top) passes block false: --wait then accepts the name at once.
 * 0, or 1 after printing the error.
 */
int pipe_wait_vms(const struct pipe_opts *o, const struct platform *plat, bool block);

/* The help line of --xen-numa-dump, for the commands that take it. */
#define XEN_NUMA_HELP \
	"--xen-numa-dump[=SECS]\tXen: memory per node of every domain from Xen's 'u' debug key,\n" \
	"\tasked for at most every SECS (default 60); it writes to Xen's console ring\n"

/* The help lines of --xentrace, for the commands that take it. */
#define XENTRACE_HELP \
	"--xentrace\tXen: each vCPU's residency per node exact, from Xen's scheduler trace\n" \
	"\t(xentrace runs for the whole run and is read as it writes; it needs Xen's\n" \
	"\ttrace buffers: tbuf_size= or 'xentrace -S'); otherwise sampled from xl vcpu-list\n" \
	"--xen-psr\tXen with psr=cmt (Intel CMT/MBM): each domain's LLC occupancy and memory\n" \
	"\tbandwidth from 'xl psr-cmt-show' at every update, per domain; attaches the domains\n" \
	"\twith 'xl psr-cmt-attach' for the run and detaches what it attached at the end\n"

/* The help lines of --xen-imc (diagnose, record, top). */
#define XEN_IMC_HELP \
	"--xen-imc\tIntel Xeon SNB-EP..CLX: the memory controllers' CAS and RPQ counters read\n" \
	"\tfrom PCI config space (no uncore driver: a Xen dom0), per node; programs only\n" \
	"\tchannels nobody else uses and disables them at the end; needs root\n"

/*
 * The value of --xen-numa-dump[=SECS] (arg NULL: the default, 60 s) in
 * *every_s; -1 (after printing the usage error) when it is not seconds >= 0.
 */
int xen_numa_opt(const struct cmd *c, const char *arg, double *every_s);

/*
 * Handle one shared option (getopt's opt and optarg); returns 1 when it was
 * one, 0 when not, -1 (after printing the usage error) when its value is bad.
 */
int pipe_opt(const struct cmd *c, struct pipe_opts *o, int opt, const char *arg);
void pipe_opts_release(struct pipe_opts *o);

/*
 * pipeline_open() (and, when collect, pipe_wait_vms() then pipeline_collect()),
 * pipeline_choose() and pipeline_model() with the user's directories of this
 * process (cli_dirs()) unless o gives others; each prints the error and
 * returns the exit code on failure (p is ready for pipeline_close() either way).
 */
int cli_pipeline_open(struct pipeline *p, const struct pipe_opts *o, bool collect);
int cli_pipeline_choose(struct pipeline *p, const struct pipe_opts *o, const struct platform *plat);
int cli_pipeline_model(struct pipeline *p, const struct pipe_opts *o, const char *name);

/*
 * The host's CPUs over a span, read before and after it (/proc/stat and,
 * where the kernel has it, /proc/schedstat): what a recording does not
 * keep, which `diagnose --apply` reads around its recording before so its
 * advice weighs each CPU's other load as a live diagnosis does
 * (frame_host_cpus()).  host_span_begin() ... host_span_end() ...
 * host_span_release().
 */
struct host_span {
	struct cpustat cs[2];
	struct cpudelay dl[2];
	bool have_cs, have_dl;       /* both reads of each succeeded */
	double t0, secs;
};
void host_span_begin(struct host_span *h, const char *root);
void host_span_end(struct host_span *h, const char *root);
void host_span_release(struct host_span *h);

/*
 * `vmmprof diagnose RECORDING` (cmd_diagnose.c), also used by report;
 * host: the host's CPUs over the recording (NULL: unknown, as a recording
 * is).
 */
int diagnose_recording(const char *path, const struct pipe_opts *o, bool json,
		       const struct host_span *host);
/*
 * `vmmprof compare BEFORE AFTER` (cmd_compare.c), also run by `diagnose
 * --apply`; baseline: a recording of the same VMs without the advice that
 * AFTER is compared with too (NULL: none); host: the host's CPUs over
 * BEFORE (NULL unknown), which the diagnosis of BEFORE (the predicted gain)
 * weighs as --apply's plan did.  Prints; returns the exit code.
 */
int compare_recordings(const char *before, const char *after, const char *baseline,
		       const struct pipe_opts *o, bool json, const struct host_span *host);
struct recording;
struct cost_ci_set;
/* Print the diagnosis of a recording's whole-run frame: diagnosis_recorded(). */
int diagnose_recorded_total(const struct recording *rec, const struct model *m,
			    const struct model_avail *av, const struct collect_frame *total,
			    size_t intervals, struct cost_ci_set *ci, bool json, bool damaged);

#endif
