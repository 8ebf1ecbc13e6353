/* rec_synth.c - writes a synthetic recording for bench/record-throughput.sh
 *
 *   rec_synth PATH FRAMES VCPUS [churn|lifecycle]
 *
 * Each frame holds one VM row and VCPUS vCPU rows (src/record/synth.h);
 * with "churn" the host changes as it does for weeks of recording: "vm1"
 * (pid 42) runs frames 0 .. FRAMES/2 - 1 and is restarted as pid 43 for
 * the rest; "vm2" (pid 77, one vCPU) lives for frame FRAMES/4 alone.
 * "lifecycle" is churn with the states a collector records: pid 42's rows
 * are marked ended in its last frame (FRAMES/2 - 1), vm2's in its one
 * frame, and pid 43's rows paused from frame 3 * FRAMES/4 on.
 * each row carries the two inputs of a tiny model named "software", so a
 * frame is (1 + VCPUS) * 2 samples.  Frame k (0, 1, ...) has t_ns =
 * (k + 1) * 1e9, tclk = 1e8 + k % 1000 and place_rem = (k % 100) / 100
 * on every row.  Prints "samples N seconds S" where S is the wall time of
 * rec_create .. rec_close (the frame is built once outside the timing:
 * only the writer is measured).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/record.h"
#include "record/synth.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct model *m = NULL;
	struct rec_writer *w = NULL;
	struct platform plat;
	struct collect_frame f, fa, fb, fc;
	const struct rec_synth_vm vm1 = { "vm1", 42, 0 }, vm1b = { "vm1", 43, 0 };
	struct rec_synth_vm two[2] = { { "vm1", 42, 0 }, { "vm2", 77, 1 } }, a = vm1, c = vm1b;
	int churn, life;
	struct vp_err err;
	unsigned long frames, k;
	double t0, t1;
	int rc = 1;

	life = argc == 5 && !strcmp(argv[4], "lifecycle");
	churn = life || (argc == 5 && !strcmp(argv[4], "churn"));
	if (argc != 4 && !churn) {
		fprintf(stderr, "usage: rec_synth PATH FRAMES VCPUS [churn|lifecycle]\n");
		return 2;
	}
	frames = strtoul(argv[2], NULL, 10);
	if (rec_synth_model(&m, &err)) {
		fprintf(stderr, "rec_synth: model: %s\n", err.msg);
		return 1;
	}
	rec_synth_platform(&plat);
	a.vcpus = c.vcpus = two[0].vcpus = strtoul(argv[3], NULL, 10);
	rec_synth_frame_vms(&fa, &a, 1);
	rec_synth_frame_vms(&fb, two, 2);
	rec_synth_frame_vms(&fc, &c, 1);

	t0 = now();
	{
		struct rec_header h = { &plat, m, NULL, NULL, 1.0, "rec_synth" };

		if (rec_create(&w, argv[1], &h, &err))
			goto out;
	}
	for (k = 0; k < frames; k++) {
		struct collect_frame *fk = &fa;

		if (churn && k == frames / 4)
			fk = &fb;
		else if (churn && k >= frames / 2)
			fk = &fc;
		f = *fk;
		rec_synth_set(&f, (k + 1) * 1000000000ull, 1e8 + (double)(k % 1000),
			      (double)(k % 100) / 100.0);
		for (size_t r = 0; r < f.n_rows; r++) { /* the rows are fk's: reset each frame */
			int pid = f.rows[r].pid;

			f.rows[r].state = !life ? RS_RUNNING :
					  (pid == 42 && k == frames / 2 - 1) || pid == 77 ? RS_ENDED :
					  pid == 43 && k >= 3 * frames / 4 ? RS_PAUSED : RS_RUNNING;
		}
		if (rec_append(w, &f, &err)) {
			rec_close(w, NULL);
			goto out;
		}
	}
	if (rec_close(w, &err))
		goto out;
	t1 = now();
	printf("samples %lu seconds %.3f\n", frames * (unsigned long)fa.n_rows * 2, t1 - t0);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "rec_synth: %s\n", err.msg);
	collect_frame_release(&fa);
	collect_frame_release(&fb);
	collect_frame_release(&fc);
	platform_release(&plat);
	model_free(m);
	return rc;
}
