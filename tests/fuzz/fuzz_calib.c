/* fuzz_calib.c - libFuzzer harness for calibration files (calib_parse() in
 * src/calib/calib.c), as every command that reads one runs it: parse, the
 * physical checks and the quarantine, the machine match, each cal.NAME a
 * model reads; and what it accepted written back reads back the same. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct calib c, back;
	struct calib_checks chk;
	struct calib_machine here = { "GenuineIntel", 6, 85, "fuzz", 2, 1, 1, 32u << 20, 1 };
	struct sbuf text = SBUF_INIT, again = SBUF_INIT, desc = SBUF_INIT;
	struct vp_err err = { 0, "" };
	const char *why;
	int k;

	if (calib_parse(&c, (const char *)data, size, "fuzz", &err)) {
		if ((err.code != VP_EPARSE && err.code != VP_EFORMAT) || strncmp(err.msg, "fuzz", 4))
			abort(); /* a refusal is a parse or format error naming the file */
		calib_release(&c);
		return 0;
	}
	if (c.n_nodes < 0 || (c.n_nodes && (!c.node_ids || !c.lat_ns || !c.bw_gbs)))
		abort();
	/* what load_calibration does: the checks, then the implausible values out */
	if (calib_check(&c, &chk))
		calib_quarantine(&c, &chk);
	for (k = 0; k < CAL_N; k++) {
		double v = c.val[k];

		/* a model computes with each value left: unknown, or finite and positive */
		if (!isnan(v) && (!isfinite(v) || v <= 0))
			abort();
		v = calib_value(&c, calib_key_name((enum calib_key)k), &why);
		if (isnan(v) && (!why || !why[0]))
			abort(); /* unknown says why */
	}
	(void)calib_value(&c, "cal.nonesuch", &why);
	(void)calib_match(&c, &here, &err);
	calib_machine_format(&c.machine, &desc);
	/* written back, read back the same */
	calib_format(&c, &text);
	if (calib_parse(&back, sbuf_str(&text), text.len, "back", &err))
		abort();
	calib_format(&back, &again);
	if (strcmp(sbuf_str(&text), sbuf_str(&again)))
		abort();
	calib_release(&back);
	calib_release(&c);
	sbuf_release(&text);
	sbuf_release(&again);
	sbuf_release(&desc);
	return 0;
}
