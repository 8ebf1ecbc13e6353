/* test_info_text.c - info's text from the probe equals the text from its JSON read back (the remote client) */
#include "test.h"

#include <stdlib.h>

#include "plan/coverage.h"
#include "plan/info_json.h"
#include "plan/info_text.h"
#include "platform/platform.h"
#include "util/alloc.h"
#include "util/jsonread.h"

/* Text from the probe, and text from info_json() -> info_from_json(). */
static void roundtrip(int line, const char *root)
{
	struct platform p, q;
	struct coverage cv, cq;
	struct sbuf direct = SBUF_INIT, doc = SBUF_INIT, back = SBUF_INIT;
	struct vp_err err;
	struct jv v;

	if (platform_probe(&p, root, &err)) {
		CHECK_AT(line, 0, "probe of '%s' failed: %s", root, err.msg);
		return;
	}
	{
		/* the built-in models, as the binary in the source tree finds them */
		char *dir = xstrdup(test_data("../../models"));
		const char *dirs[1] = { dir };
		struct model_registry reg;

		model_registry_init(&reg, dirs, 1);
		coverage_compute(&p, &reg, &cv);
		model_registry_release(&reg);
		free(dir);
	}
	info_text(&p, &cv, "X", &direct);
	info_json(&p, &cv, &doc);
	CHECK_AT(line, !jv_parse(&v, doc.buf, doc.len, "info", &err), "%s: %s", root, err.msg);
	if (!info_from_json(&v, &q, &cq, &err)) {
		info_text(&q, &cq, "X", &back);
		CHECK_AT(line, !strcmp(sbuf_str(&direct), sbuf_str(&back)),
			 "%s: the text read back differs:\n--- probe\n%s\n--- json\n%s", root,
			 sbuf_str(&direct), sbuf_str(&back));
		CHECK_STR_AT(line, q.root, p.root);
		platform_release(&q);
		coverage_release(&cq);
	} else {
		CHECK_AT(line, 0, "%s: %s", root, err.msg);
	}
	jv_release(&v);
	coverage_release(&cv);
	platform_release(&p);
	sbuf_release(&direct);
	sbuf_release(&doc);
	sbuf_release(&back);
}

TEST(info_text_from_json_equals_probe)
{
	static const struct { int line; const char *root; } rows[] = {
		{ __LINE__, "root/skx-2s" }, { __LINE__, "root/icx-2s" }, { __LINE__, "root/spr-2s" },
		{ __LINE__, "root/zen2-2s" }, { __LINE__, "root/zen3-2s" }, { __LINE__, "root/zen4-2s" },
		{ __LINE__, "root/nhm-ep" }, { __LINE__, "root/arm-n1" }, { __LINE__, "root/guest" },
		{ __LINE__, "root/kvm-guest-vpmu" }, { __LINE__, "root/kvm-guest-novpmu" },
		{ __LINE__, "root/qemu-in-kvm" }, { __LINE__, "root/xen-dom0" },
		{ __LINE__, "root/xen-pv-dom0" }, { __LINE__, "root/host-qemu" },
		{ __LINE__, "root/host-libvirt-v1" }, { __LINE__, "root/host-libvirt-v2" },
		{ __LINE__, "root/pmu-count" }, { __LINE__, "root/broken" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		roundtrip(rows[i].line, test_data(rows[i].root));
	roundtrip(__LINE__, "/"); /* this machine: hwloc note, libpfm4 tables, live permissions */
}

TEST(info_from_json_rejects)
{
	static const struct { int line; const char *doc; const char *msg; } rows[] = {
		{ __LINE__, "{}", "not a vmmprof-info/2 document (schema 'none')" },
		{ __LINE__, "{\"schema\":\"vmmprof-info/1\"}", "schema 'vmmprof-info/1'" }, /* before the model-based coverage */
		{ __LINE__, "{\"schema\":\"vmmprof-info/2\"}", "coverage has not 5 factors" },
		{ __LINE__, "{\"schema\":\"vmmprof-info/2\",\"coverage\":{\"factors\":[{},{},{},{}]}}",
		  "coverage has not 5 factors" },
		{ __LINE__, "[1]", "schema 'none'" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct platform p;
		struct coverage cv;
		struct vp_err err = { 0, "" };
		struct jv v;

		CHECK_AT(rows[i].line, !jv_parse(&v, rows[i].doc, strlen(rows[i].doc), "t", &err), "%s",
			 err.msg);
		CHECK_INT_AT(rows[i].line, info_from_json(&v, &p, &cv, &err), VP_EFORMAT);
		CHECK_AT(rows[i].line, strstr(err.msg, rows[i].msg), "message '%s'", err.msg);
		platform_release(&p);
		jv_release(&v);
	}
}
