/* test_xen_psr.c - `xl psr-hwinfo` and `xl psr-cmt-show` as Xen 4.17's xl prints them */
#include "test.h"

#include "source/xen_psr.h"

/*
 * The texts follow tools/xl/xl_psr.c's printf formats ("%-16s: %u",
 * "%-40s %5d", "%13" PRIu64 " KB", "%11" PRIu64 " KB/s", "%14s %d"); the
 * expected values are the numbers written in them, times 1024.
 */
static const char hwinfo[] =
	"Cache Monitoring Technology (CMT):\n"
	"Enabled         : 1\n"
	"Total RMID      : 63\n"
	"Supported monitor types:\n"
	"cache-occupancy\n"
	"total-mem-bandwidth\n"
	"local-mem-bandwidth\n"
	"Cache Allocation Technology (CAT):\n";

static const char occupancy[] =
	"Total RMID: 63\n"
	"Name                                        ID        Socket 0        Socket 1\n"
	"Total L3 Cache Size                               30720 KB        30720 KB\n"
	"Domain-0                                     0         1024 KB           12 KB\n"
	"web server                                   4        14336 KB          512 KB\n";

static const char total_bw[] =
	"Total RMID: 63\n"
	"Name                                        ID        Socket 0        Socket 1\n"
	"web server                                   4      800000 KB/s      200000 KB/s\n"
	"db                                           5      100000 KB/s\n";

TEST(xen_psr_hwinfo)
{
	struct xen_psr_hw hw;
	struct vp_err err = { 0, "" };

	CHECK_INT(xen_psr_hwinfo_parse(hwinfo, &hw, &err), 0);
	CHECK(hw.cmt);
	CHECK_INT((int)hw.total_rmid, 63);
	CHECK(hw.occupancy && hw.total_bw && hw.local_bw);
	CHECK_INT(xen_psr_hwinfo_parse("Cache Allocation Technology (CAT):\n", &hw, &err), VP_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "no CMT section");
	CHECK_INT(xen_psr_hwinfo_parse("Cache Monitoring Technology (CMT):\nEnabled         : 0\n", &hw, &err), 0);
	CHECK(!hw.cmt);
}

TEST(xen_psr_show_tables)
{
	struct xen_psr_table t;
	struct vp_err err = { 0, "" };

	CHECK_INT(xen_psr_show_parse(occupancy, &t, &err), 0);
	CHECK_INT(t.n_sockets, 2);
	CHECK_INT(t.socket[1], 1);
	CHECK(t.l3_bytes != NULL);
	if (t.l3_bytes)
		CHECK_NEAR(t.l3_bytes[0], 30720.0 * 1024, 0);
	CHECK_INT((int)t.n, 2);
	CHECK_STR(t.doms[1].name, "web server");
	CHECK_INT(t.doms[1].domid, 4);
	CHECK_NEAR(t.doms[1].v[0], 14336.0 * 1024, 0);
	CHECK_NEAR(xen_psr_dom_total(&t, 4), (14336.0 + 512) * 1024, 0);
	CHECK_NEAR(xen_psr_dom_total(&t, 0), (1024.0 + 12) * 1024, 0);
	CHECK_NAN(xen_psr_dom_total(&t, 9));
	xen_psr_table_release(&t);

	/* bandwidth: KB/s; a socket xl printed nothing for is NaN, and so is the sum */
	CHECK_INT(xen_psr_show_parse(total_bw, &t, &err), 0);
	CHECK_INT((int)t.n, 2);
	CHECK(t.l3_bytes == NULL);
	CHECK_NEAR(xen_psr_dom_total(&t, 4), 1000000.0 * 1024, 0);
	CHECK_NEAR(t.doms[1].v[0], 100000.0 * 1024, 0);
	CHECK_NAN(t.doms[1].v[1]);
	CHECK_NAN(xen_psr_dom_total(&t, 5));
	xen_psr_table_release(&t);

	CHECK_INT(xen_psr_show_parse("CMT is disabled in the system\n", &t, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "no 'Name ID Socket N' header");
	CHECK_INT(xen_psr_show_parse("Name ID Socket 0\nweb 4 12 KB 13 KB\n", &t, &err), VP_EPARSE);
	CHECK_CONTAINS(err.msg, "line 2");
	CHECK_INT(xen_psr_show_parse("Name ID Socket 0\nweb four 12 KB\n", &t, &err), VP_EPARSE);
}
