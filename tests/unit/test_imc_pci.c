/* test_imc_pci.c - IMC counters from PCI config space, on a fabricated sysfs tree */
#include "test.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/imc_pci.h"

/* The constants the files are made from are the manuals' and uncore_snbep.c's, written out
 * here by hand: counters at 0xa0 + 8k (two dwords), event selects at 0xd8 + 4k, enable bit 22. */

static void put32(unsigned char *cfg, int off, uint32_t v)
{
	memcpy(cfg + off, &v, 4);
}

static uint32_t get32(const char *path, int off)
{
	uint32_t v = 0;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		if (pread(fd, &v, 4, off) != 4)
			v = 0xdeadbeef;
		close(fd);
	}
	return v;
}

static void put48(const char *path, int off, uint64_t v)
{
	uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		if (pwrite(fd, &lo, 4, off) != 4 || pwrite(fd, &hi, 4, off + 4) != 4)
			fprintf(stderr, "cannot write %s\n", path);
		close(fd);
	}
}

/* A device directory with vendor, device and a 256-byte config file (cfg, may be NULL). */
static void mkdev(const char *root, const char *bdf, unsigned id, const unsigned char *cfg,
		  char *cfg_path, size_t size)
{
	char p[512];
	FILE *f;
	unsigned char zero[256] = { 0 };

	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s", root, bdf);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/vendor", root, bdf);
	f = fopen(p, "w");
	fprintf(f, "0x8086\n");
	fclose(f);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/device", root, bdf);
	f = fopen(p, "w");
	fprintf(f, "0x%04x\n", id);
	fclose(f);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/config", root, bdf);
	f = fopen(p, "wb");
	fwrite(cfg ? cfg : zero, 1, 256, f);
	fclose(f);
	if (cfg_path)
		snprintf(cfg_path, size, "%s", p);
}

/*
 * Broadwell-EP, two sockets.  Ubox 0x6f1e on bus 7f (node id 0) and ff
 * (node id 1), GIDNIDMAP 0x8 (socket 0 -> node id 0, socket 1 -> node id
 * 1): the channel on bus ff is socket 1, on 7f socket 0.
 * Channel ff:14.0: CAS_COUNT.RD 1000 -> 15,626,000 and CAS_COUNT.WR 500 ->
 *   7,813,000 over 0.5 s: (15,625,000 + 7,812,500) x 64 B = 1.5e9 B,
 *   3.0 GB/s.
 * Channel 7f:14.0: RD from 2^48 - 100 to 400 (the 48-bit counter wrapped):
 *   500 CAS, WR 0.
 * Channel 7f:14.1: counter 0's event select already enabled (0x00400304:
 *   someone else's): left alone and never written.
 */
TEST(imc_pci_cas_bandwidth_by_hand)
{
	char root[] = "/tmp/vp-imc-XXXXXX", p[512], a[512], b[512], busy[512];
	unsigned char ubox0[256] = { 0 }, ubox1[256] = { 0 }, used[256] = { 0 };
	struct imc_pci *x = NULL;
	struct vp_err e = { 0, "" };
	double d[3 * IMC_N_CTR];
	size_t i, ia = 9, ib = 9, ic = 9;

	CHECK(mkdtemp(root) != NULL);
	snprintf(p, sizeof(p), "%s/sys", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/bus", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/bus/pci", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices", root);
	mkdir(p, 0755);
	put32(ubox0, 0x40, 0);
	put32(ubox0, 0x54, 0x8);
	put32(ubox1, 0x40, 1);
	put32(ubox1, 0x54, 0x8);
	put32(used, 0xd8, 0x00400304);
	mkdev(root, "0000:7f:10.5", 0x6f1e, ubox0, NULL, 0);
	mkdev(root, "0000:ff:10.5", 0x6f1e, ubox1, NULL, 0);
	mkdev(root, "0000:ff:14.0", 0x6fb0, NULL, a, sizeof(a));
	mkdev(root, "0000:7f:14.0", 0x6fb0, NULL, b, sizeof(b));
	mkdev(root, "0000:7f:14.1", 0x6fb1, used, busy, sizeof(busy));
	mkdev(root, "0000:00:00.0", 0x1234, NULL, NULL, 0);  /* not an IMC */
	put48(a, 0xa0, 1000);
	put48(a, 0xa8, 500);
	put48(b, 0xa0, (1ull << 48) - 100);

	CHECK_INT(imc_pci_find(root, NULL, &x, &e), 0);
	if (!x)
		return;
	CHECK_STR(x->gen, "BDX");
	CHECK_INT((int)x->n, 3);
	for (i = 0; i < x->n; i++) {
		if (!strcmp(x->ch[i].bdf, "0000:ff:14.0"))
			ia = i;
		if (!strcmp(x->ch[i].bdf, "0000:7f:14.0"))
			ib = i;
		if (!strcmp(x->ch[i].bdf, "0000:7f:14.1"))
			ic = i;
	}
	CHECK(ia < 3 && ib < 3 && ic < 3);
	if (ia > 2 || ib > 2 || ic > 2)
		goto out;
	CHECK_INT(x->ch[ia].socket, 1);
	CHECK_INT(x->ch[ib].socket, 0);
	CHECK_INT(imc_pci_start(x, &e), 2);
	/* the event selects as the manual encodes them, enable bit 22 set */
	CHECK_U64(get32(a, 0xd8), 0x00400304);
	CHECK_U64(get32(a, 0xdc), 0x00400c04);
	CHECK_U64(get32(a, 0xe0), 0x00400012);      /* RPQ_CYCLES_FULL */
	CHECK_U64(get32(a, 0xe4), 0x00400022);      /* WPQ_CYCLES_FULL */
	CHECK_U64(get32(a, 0xf0), 0x00400000);      /* the fixed DRAM-clock counter enabled */
	CHECK(!x->ch[ic].mine);
	CHECK_CONTAINS(x->ch[ic].why, "in use by someone else");
	CHECK_U64(get32(busy, 0xdc), 0);          /* nothing written to it */
	put48(a, 0xa0, 1000 + 15625000);
	put48(a, 0xa8, 500 + 7812500);
	/* 0.5 s of an 800 MHz DRAM clock (DDR3-1600), the read queue full a tenth of it */
	put48(a, 0xd0, 400000000);
	put48(a, 0xb0, 40000000);
	put48(b, 0xa0, 400);
	CHECK_INT(imc_pci_read(x, false, d, &e), 0);
	CHECK_NEAR(d[ia * IMC_N_CTR + IMC_CAS_RD], 15625000, 0);
	CHECK_NEAR(d[ia * IMC_N_CTR + IMC_CAS_WR], 7812500, 0);
	CHECK_NEAR(imc_cas_bytes(&d[ia * IMC_N_CTR]) / 0.5 / 1e9, 3.0, 1e-12);
	CHECK_NEAR(d[ia * IMC_N_CTR + IMC_CLK], 400000000, 0);
	CHECK_NEAR(d[ia * IMC_N_CTR + IMC_RPQ_FULL] / d[ia * IMC_N_CTR + IMC_CLK], 0.1, 1e-12);
	CHECK_NEAR(d[ia * IMC_N_CTR + IMC_WPQ_FULL], 0, 0);
	CHECK_NEAR(d[ib * IMC_N_CTR + IMC_CAS_RD], 500, 0);
	CHECK_NAN(d[ic * IMC_N_CTR + IMC_CAS_RD]);
	/* a second read with nothing new: 0, and the total since the start is the sum */
	CHECK_INT(imc_pci_read(x, false, d, &e), 0);
	CHECK_NEAR(d[ia * IMC_N_CTR + IMC_CAS_RD], 0, 0);
	CHECK_INT(imc_pci_read(x, true, d, &e), 0);
	CHECK_NEAR(d[ia * IMC_N_CTR + IMC_CAS_WR], 7812500, 0);
out:
	imc_pci_free(x);
	/* what it programmed is disabled again; the busy channel still is someone else's */
	CHECK_U64(get32(a, 0xd8), 0);
	CHECK_U64(get32(a, 0xf0), 0);
	CHECK_U64(get32(busy, 0xd8), 0x00400304);
	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK_INT(system(p), 0);
}

TEST(imc_pci_refusals_name_what_is_missing)
{
	struct platform p;
	struct imc_pci *x = NULL;
	struct vp_err e = { 0, "" };
	char root[] = "/tmp/vp-imc-XXXXXX", cmd[300];

	memset(&p, 0, sizeof(p));
	snprintf(p.cpu.vendor, sizeof(p.cpu.vendor), "AuthenticAMD");
	CHECK(imc_pci_find("/", &p, &x, &e) != 0);
	CHECK_CONTAINS(e.msg, "MSRs, which Xen does not let dom0 reach");
	snprintf(p.cpu.vendor, sizeof(p.cpu.vendor), "GenuineIntel");
	p.cpu.family = 6;
	p.cpu.model = 0x6a;     /* Ice Lake-SP */
	CHECK(imc_pci_find("/", &p, &x, &e) != 0);
	CHECK_CONTAINS(e.msg, "MMIO");
	CHECK_CONTAINS(e.msg, "not built");
	/* Intel, but no such device: TCG's and this machine's case */
	p.cpu.model = 0x55;
	CHECK(mkdtemp(root) != NULL);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/sys/bus/pci/devices'", root);
	CHECK_INT(system(cmd), 0);
	CHECK(imc_pci_find(root, &p, &x, &e) != 0);
	CHECK(x == NULL);
	CHECK_CONTAINS(e.msg, "no Intel memory-controller channel");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK_INT(system(cmd), 0);
}

TEST(imc_pci_delta48_wraps)
{
	CHECK_U64(imc_delta48(400, (1ull << 48) - 100), 500);
	CHECK_U64(imc_delta48(1500, 1000), 500);
}
