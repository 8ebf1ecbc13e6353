/* synth.h - synthetic recordings for tests and benchmarks: a two-input model, a platform, frames */
#ifndef VP_RECORD_SYNTH_H
#define VP_RECORD_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "collect/collect.h"
#include "model/model.h"
#include "platform/platform.h"
#include "util/err.h"

/*
 * The model is named "software" with two of models/software.model's
 * inputs, so `vmmprof report` binds a synthetic recording to the installed
 * model: input 0 `tclk` (event task-clock, a count), input 1 `place_rem`
 * (source placement.remote_fraction, a ratio); metric 0 `busy` = tclk /
 * (duration * 1e9); factor locality's score is place_rem (warning 0.2,
 * critical 0.5); the other factors are unavailable.
 */
int rec_synth_model(struct model **out, struct vp_err *err);

/* One node (CPUs 0-1), 2 CPUs, 1 package, 2 cores, no SMT. */
void rec_synth_platform(struct platform *p);

/*
 * A frame (duration 1 s, 2000 MHz) of one VM row "vm1" (key "vm:kvm:42",
 * pid 42, 1 MiB on node 0) and vcpus vCPU rows (key "vcpu:kvm:42:i",
 * index i, tid 44 + i, CPU (i + 1) % 2, node 0).  collect_frame_release().
 */
void rec_synth_frame(struct collect_frame *f, size_t vcpus);

/* A VM of rec_synth_frame_vms(): rows keyed "vm:kvm:PID" and "vcpu:kvm:PID:i". */
struct rec_synth_vm {
	const char *name;
	int pid;
	size_t vcpus;
};

/* A frame as rec_synth_frame()'s with these VMs, each followed by its vCPU rows. */
void rec_synth_frame_vms(struct collect_frame *f, const struct rec_synth_vm *vms, size_t n_vms);

/* Set every row's inputs (tclk, place; remote = place) and the frame's t_ns. */
void rec_synth_set(struct collect_frame *f, uint64_t t_ns, double tclk, double place);

#endif
