/* imc_pci.c - Intel server memory-controller counters read from PCI configuration space (no kernel uncore driver) */
#include "source/imc_pci.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/fs.h"

/* Register offsets: Linux arch/x86/events/intel/uncore_snbep.c (names as there). */
#define SNBEP_PCI_PMON_BOX_CTL  0xf4
#define SNBEP_PCI_PMON_CTL0     0xd8
#define SNBEP_PCI_PMON_CTR0     0xa0
#define SNBEP_MC_CHy_PCI_PMON_FIXED_CTL 0xf0
#define SNBEP_MC_CHy_PCI_PMON_FIXED_CTR 0xd0
#define SNBEP_PMON_CTL_EN       (1u << 22)
#define SNBEP_PMON_BOX_CTL_FRZ  (1u << 8)
#define SNBEP_CPUNODEID         0x40
#define SNBEP_GIDNIDMAP         0x54
#define SKX_CPUNODEID           0xc0
#define SKX_GIDNIDMAP           0xd4
#define FIXED_CTL_EN            (1u << 22)  /* the fixed counter's enable, as CTLn's */

/* event | umask << 8: snbep/hswep_uncore_imc_events (cas_count_read, cas_count_write),
 * RPQ_CYCLES_FULL 0x12 and WPQ_CYCLES_FULL 0x22 of the uncore manuals' IMC event tables */
static const uint32_t imc_events[IMC_N_SEL] = { 0x0304, 0x0c04, 0x0012, 0x0022 };

/* Counter k's offset: a generic counter, or (IMC_CLK) the fixed DRAM-clock counter. */
static int ctr_off(int k)
{
	return k < IMC_N_SEL ? SNBEP_PCI_PMON_CTR0 + 8 * k : SNBEP_MC_CHy_PCI_PMON_FIXED_CTR;
}

struct imc_gen {
	const char *name;
	uint16_t ubox;              /* the Ubox device (snbep_pci2phy_map_init()'s devid) */
	int nodeid, idmap;          /* its CPUNODEID / GIDNIDMAP offsets */
	uint16_t ids[8];            /* the IMC channels' device ids, 0 ends */
	bool skx_slots;             /* SKX: the ids recur; only device 10-13 functions 2 and 6 */
};

/* *_uncore_pci_ids[] of uncore_snbep.c (SNB-EP: PCI_DEVICE_ID_INTEL_UNC_IMC0-3 of pci_ids.h) */
static const struct imc_gen gens[] = {
	{ "SNB-EP", 0x3ce0, SNBEP_CPUNODEID, SNBEP_GIDNIDMAP,
	  { 0x3cb0, 0x3cb1, 0x3cb4, 0x3cb5 }, false },
	{ "IVB-EP", 0x0e1e, SNBEP_CPUNODEID, SNBEP_GIDNIDMAP,
	  { 0x0eb4, 0x0eb5, 0x0eb0, 0x0eb1, 0x0ef4, 0x0ef5, 0x0ef0, 0x0ef1 }, false },
	{ "HSX", 0x2f1e, SNBEP_CPUNODEID, SNBEP_GIDNIDMAP,
	  { 0x2fb0, 0x2fb1, 0x2fb4, 0x2fb5, 0x2fd0, 0x2fd1, 0x2fd4, 0x2fd5 }, false },
	{ "BDX", 0x6f1e, SNBEP_CPUNODEID, SNBEP_GIDNIDMAP,
	  { 0x6fb0, 0x6fb1, 0x6fb4, 0x6fb5, 0x6fd0, 0x6fd1, 0x6fd4, 0x6fd5 }, false },
	{ "SKX/CLX", 0x2014, SKX_CPUNODEID, SKX_GIDNIDMAP,
	  { 0x2042, 0x2046, 0x204a }, true },
};

static char *cfg_path(const char *root, const char *bdf)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/config", bdf);
	return vp_path(root, rel);
}

static int cfg_io(const char *root, const char *bdf, int off, uint32_t *v, bool wr)
{
	char *p = cfg_path(root, bdf);
	int fd = open(p, wr ? O_WRONLY : O_RDONLY), ret = 0;
	ssize_t n;

	free(p);
	if (fd < 0)
		return -errno;
	n = wr ? pwrite(fd, v, 4, off) : pread(fd, v, 4, off);
	if (n != 4)
		ret = n < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

static int cfg_read(const char *root, const char *bdf, int off, uint32_t *v)
{
	return cfg_io(root, bdf, off, v, false);
}

static int cfg_write(const char *root, const char *bdf, int off, uint32_t v)
{
	return cfg_io(root, bdf, off, &v, true);
}

/* A 48-bit counter as two dwords, low first (snbep_uncore_pci_read_counter()). */
static int read48(const struct imc_pci *x, const char *bdf, int off, uint64_t *v)
{
	uint32_t lo = 0, hi = 0;
	int ret;
	unsigned r;

	for (r = x->reads; vp_root_is_fixture(x->root) && r > 0; r--) {
		char rel[128], *p;
		int fd;

		snprintf(rel, sizeof(rel), "/.vmmprof-fixture/imc-config/%u/%s", r, bdf);
		p = vp_path(x->root, rel);
		fd = open(p, O_RDONLY);
		free(p);
		if (fd < 0)
			continue;
		ret = pread(fd, &lo, 4, off) == 4 && pread(fd, &hi, 4, off + 4) == 4 ? 0 : -EIO;
		close(fd);
		*v = ret ? 0 : ((uint64_t)(hi & 0xffff) << 32 | lo);
		return ret;
	}
	ret = cfg_read(x->root, bdf, off, &lo);
	if (!ret)
		ret = cfg_read(x->root, bdf, off + 4, &hi);
	*v = ret ? 0 : ((uint64_t)(hi & 0xffff) << 32 | lo);
	return ret;
}

uint64_t imc_delta48(uint64_t now, uint64_t prev)
{
	const uint64_t m = (1ull << 48) - 1;

	return ((now & m) - (prev & m)) & m;
}

double imc_cas_bytes(const double *ctr)
{
	return (ctr[IMC_CAS_RD] + ctr[IMC_CAS_WR]) * 64.0;
}

static unsigned hexval(const char *root, const char *dir, const char *file)
{
	char rel[128], line[32];

	snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/%s", dir, file);
	if (vp_read_line(root, rel, line, sizeof(line), NULL))
		return 0;
	return (unsigned)strtoul(line, NULL, 16);
}

/* "DDDD:BB:DD.F" into bus, device, function; false when it is not one. */
static bool bdf_parse(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn)
{
	int n = 0;

	return sscanf(s, "%x:%x:%x.%x%n", dom, bus, dev, fn, &n) == 4 && !s[n];
}

/* The socket of each Ubox's bus, the channels' from the nearest Ubox bus at or above theirs. */
static void map_sockets(struct imc_pci *x, const struct imc_gen *g, char **names, size_t n)
{
	int sock_of_bus[256];
	size_t i;
	int b, next = -1;

	for (b = 0; b < 256; b++)
		sock_of_bus[b] = -1;
	for (i = 0; i < n; i++) {
		unsigned dom, bus, dev, fn, s;
		uint32_t nodeid, idmap;

		if (!bdf_parse(names[i], &dom, &bus, &dev, &fn) || bus > 255 ||
		    hexval(x->root, names[i], "vendor") != 0x8086 ||
		    hexval(x->root, names[i], "device") != g->ubox ||
		    cfg_read(x->root, names[i], g->nodeid, &nodeid) ||
		    cfg_read(x->root, names[i], g->idmap, &idmap))
			continue;
		/* every 3 bits of GIDNIDMAP map a socket to a node id */
		for (s = 0; s < 8; s++)
			if (((idmap >> (3 * s)) & 7) == (nodeid & 7)) {
				sock_of_bus[bus] = (int)s;
				break;
			}
	}
	for (b = 255; b >= 0; b--) {   /* reverse: a bus takes the next higher Ubox bus's */
		if (sock_of_bus[b] >= 0)
			next = sock_of_bus[b];
		else
			sock_of_bus[b] = next;
	}
	for (i = 0; i < x->n; i++) {
		unsigned dom, bus, dev, fn;

		x->ch[i].socket = bdf_parse(x->ch[i].bdf, &dom, &bus, &dev, &fn) && bus < 256 ?
				  sock_of_bus[bus] : -1;
	}
}

int imc_pci_find(const char *root, const struct platform *p, struct imc_pci **out,
		 struct vp_err *err)
{
	char **names = NULL;
	size_t n = 0, i, g, k;
	struct imc_pci *x;
	struct vp_err e = { 0, "" };
	int ret;

	*out = NULL;
	if (p && p->cpu.vendor[0] && strcmp(p->cpu.vendor, "GenuineIntel"))
		return vp_err_set(err, VP_EUNSUPP, "the CPU is %s, not Intel: %s", p->cpu.vendor,
				  !strcmp(p->cpu.vendor, "AuthenticAMD") ?
				  "AMD's memory-controller counters (DF/UMC) are MSRs, which Xen does not "
				  "let dom0 reach; no PCI route exists" : "no PCI route is known");
	if (p && p->cpu.family == 6 && (p->cpu.model == 0x6a || p->cpu.model == 0x6c ||
					p->cpu.model == 0x8f || p->cpu.model == 0xcf))
		return vp_err_set(err, VP_EUNSUPP, "this Intel CPU (model 0x%x: Ice Lake-SP or later) "
				  "keeps its IMC counters in MMIO (the device's BAR at config offset "
				  "0xd0), which vmmprof does not read: not built", p->cpu.model);
	ret = vp_list_dir(root, "/sys/bus/pci/devices", &names, &n, &e);
	if (ret)
		return vp_err_set(err, VP_ENOTFOUND, "no Intel memory-controller channel (Sandy "
				  "Bridge-EP to Cascade Lake device ids): %s", e.msg);
	x = xcalloc(1, sizeof(*x));
	x->root = xstrdup(root ? root : "/");
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]) && !x->n; g++) {
		for (i = 0; i < n; i++) {
			unsigned dom, bus, dev, fn, id;

			if (!bdf_parse(names[i], &dom, &bus, &dev, &fn) ||
			    hexval(x->root, names[i], "vendor") != 0x8086)
				continue;
			id = hexval(x->root, names[i], "device");
			for (k = 0; k < 8 && gens[g].ids[k] && gens[g].ids[k] != id; k++)
				;
			if (k == 8 || !gens[g].ids[k])
				continue;
			/* SKX: UNCORE_PCI_DEV_FULL_DATA(10..13, 2 or 6, ...) */
			if (gens[g].skx_slots && (dev < 10 || dev > 13 || (fn != 2 && fn != 6)))
				continue;
			x->ch = xrealloc(x->ch, (x->n + 1) * sizeof(*x->ch));
			memset(&x->ch[x->n], 0, sizeof(x->ch[x->n]));
			snprintf(x->ch[x->n].bdf, sizeof(x->ch[x->n].bdf), "%s", names[i]);
			x->n++;
		}
		if (x->n) {
			x->gen = gens[g].name;
			map_sockets(x, &gens[g], names, n);
		}
	}
	vp_free_names(names, n);
	if (!x->n) {
		imc_pci_free(x);
		return vp_err_set(err, VP_ENOTFOUND, "no Intel memory-controller channel (Sandy "
				  "Bridge-EP to Cascade Lake device ids) under /sys/bus/pci/devices");
	}
	*out = x;
	return 0;
}

int imc_pci_start(struct imc_pci *x, struct vp_err *err)
{
	size_t i;
	int k, n = 0, first = 0;

	x->reads++;
	for (i = 0; i < x->n; i++) {
		struct imc_chan *c = &x->ch[i];
		uint32_t v = 0, box = 0;
		int ret = 0;

		for (k = 0; k < IMC_N_SEL && !ret; k++) {
			ret = cfg_read(x->root, c->bdf, SNBEP_PCI_PMON_CTL0 + 4 * k, &v);
			if (!ret && (v & SNBEP_PMON_CTL_EN)) {
				snprintf(c->why, sizeof(c->why), "in use by someone else (counter %d's "
					 "event select 0x%08x is enabled): left alone", k, v);
				break;
			}
		}
		if (c->why[0])
			continue;
		if (!ret)
			ret = cfg_read(x->root, c->bdf, SNBEP_PCI_PMON_BOX_CTL, &box);
		/* unfreeze the box, enable the events and the DCLK counter */
		if (!ret)
			ret = cfg_write(x->root, c->bdf, SNBEP_PCI_PMON_BOX_CTL,
					box & ~SNBEP_PMON_BOX_CTL_FRZ);
		for (k = 0; k < IMC_N_SEL && !ret; k++)
			ret = cfg_write(x->root, c->bdf, SNBEP_PCI_PMON_CTL0 + 4 * k,
					imc_events[k] | SNBEP_PMON_CTL_EN);
		if (!ret)
			ret = cfg_write(x->root, c->bdf, SNBEP_MC_CHy_PCI_PMON_FIXED_CTL, FIXED_CTL_EN);
		for (k = 0; k < IMC_N_CTR && !ret; k++)
			ret = read48(x, c->bdf, ctr_off(k), &c->raw[k]);
		if (ret) {
			snprintf(c->why, sizeof(c->why), "cannot program its config space: %s%s",
				 strerror(-ret), ret == -EACCES || ret == -EPERM ? " (needs root)" : "");
			if (!first)
				first = ret;
			continue;
		}
		memset(c->acc, 0, sizeof(c->acc));
		c->mine = c->ok = true;
		n++;
	}
	if (!n)
		return vp_err_set(err, first ? first : VP_EUNSUPP, "no IMC channel can be counted: %s",
				  x->n ? x->ch[0].why : "none found");
	imc_base_init(&x->own, x);
	return n;
}

void imc_pci_update(struct imc_pci *x)
{
	size_t i;
	int k;

	x->reads++;
	for (i = 0; i < x->n; i++) {
		struct imc_chan *c = &x->ch[i];
		uint64_t now[IMC_N_CTR];
		int ret = 0;

		if (!c->mine)
			continue;
		for (k = 0; k < IMC_N_CTR && !ret; k++)
			ret = read48(x, c->bdf, ctr_off(k), &now[k]);
		c->ok = !ret;
		if (ret) {
			snprintf(c->why, sizeof(c->why), "cannot read its config space: %s",
				 strerror(-ret));
			continue;
		}
		for (k = 0; k < IMC_N_CTR; k++) {
			c->acc[k] += imc_delta48(now[k], c->raw[k]);
			c->raw[k] = now[k];
		}
	}
}

void imc_base_init(struct imc_base *b, const struct imc_pci *x)
{
	size_t i;

	imc_base_release(b);
	b->n = x->n;
	b->start = xcalloc(x->n * IMC_N_CTR + 1, sizeof(uint64_t));
	b->prev = xcalloc(x->n * IMC_N_CTR + 1, sizeof(uint64_t));
	for (i = 0; i < x->n; i++)
		memcpy(&b->start[i * IMC_N_CTR], x->ch[i].acc, sizeof(x->ch[i].acc));
	memcpy(b->prev, b->start, x->n * IMC_N_CTR * sizeof(uint64_t));
}

void imc_base_read(struct imc_base *b, const struct imc_pci *x, bool total, double *out)
{
	size_t i;
	int k;

	for (i = 0; i < x->n; i++) {
		const struct imc_chan *c = &x->ch[i];
		uint64_t *base = total ? b->start : b->prev;

		for (k = 0; k < IMC_N_CTR; k++) {
			size_t at = i * IMC_N_CTR + (size_t)k;

			out[at] = c->mine && c->ok && i < b->n ? (double)(c->acc[k] - base[at]) : NAN;
			if (!total && c->mine && c->ok && i < b->n)
				b->prev[at] = c->acc[k];
		}
	}
}

void imc_base_release(struct imc_base *b)
{
	free(b->start);
	free(b->prev);
	memset(b, 0, sizeof(*b));
}

int imc_pci_read(struct imc_pci *x, bool total, double *out, struct vp_err *err)
{
	(void)err;
	imc_pci_update(x);
	imc_base_read(&x->own, x, total, out);
	return 0;
}

void imc_pci_free(struct imc_pci *x)
{
	size_t i;
	int k;

	if (!x)
		return;
	for (i = 0; i < x->n; i++) {
		for (k = 0; x->ch[i].mine && k < IMC_N_SEL; k++)
			cfg_write(x->root, x->ch[i].bdf, SNBEP_PCI_PMON_CTL0 + 4 * k, 0);
		if (x->ch[i].mine)
			cfg_write(x->root, x->ch[i].bdf, SNBEP_MC_CHy_PCI_PMON_FIXED_CTL, 0);
	}
	imc_base_release(&x->own);
	free(x->ch);
	free(x->root);
	free(x);
}
