/* imc_pci.h - Intel server memory-controller counters read from PCI configuration space (no kernel uncore driver) */
#ifndef VP_IMC_PCI_H
#define VP_IMC_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/platform.h"
#include "util/err.h"

/*
 * On Intel Xeon Sandy Bridge-EP to Skylake-SP/Cascade Lake each memory
 * channel is a PCI function whose configuration space holds its counters.
 * A Xen dom0 owns those devices (Linux registers no uncore PMU under a
 * hypervisor, but config space is passed through to the hardware domain),
 * so it reads them from user space, as Intel PCM does on bare metal,
 * through ROOT/sys/bus/pci/devices/DDDD:BB:DD.F/config.
 *
 * Registers (Linux arch/x86/events/intel/uncore_snbep.c; Intel's Xeon
 * E5/E7 v1-v4 and Xeon Scalable uncore performance monitoring reference
 * manuals), the same for every generation here:
 *   box control SNBEP_PCI_PMON_BOX_CTL 0xf4 (bit 8 freeze)
 *   event selects SNBEP_PCI_PMON_CTL0 0xd8, +4 per counter (bit 22 enable,
 *     event bits 0-7, umask 8-15)
 *   counters SNBEP_PCI_PMON_CTR0 0xa0, +8 per counter, 48 bits read as
 *     two dwords (low first)
 *   fixed DCLK counter SNBEP_MC_CHy_PCI_PMON_FIXED_CTL 0xf0 / _CTR 0xd0
 * and the events vmmprof programs, counters 0-3 (snbep_uncore_imc_events,
 * hswep_uncore_imc_events; the manuals' IMC event lists):
 *   CAS_COUNT.RD event 0x04 umask 0x03, CAS_COUNT.WR 0x04/0x0c (64 bytes
 *   each), RPQ_CYCLES_FULL 0x12, WPQ_CYCLES_FULL 0x22 (DRAM clocks a
 *   channel's read / write pending queue was full: the queue factor of the
 *   SNB-EP, IVB-EP and SKX models), and the fixed counter's DRAM clocks
 *   (the models' CLOCKTICKS, event 0x00, as the denominator).
 * The socket of a channel: the Ubox device's node id (CPUNODEID 0x40,
 * GIDNIDMAP 0x54; on SKX 0xc0, 0xd4) on the nearest bus at or above the
 * channel's, as snbep_pci2phy_map_init(..., reverse true) does.
 *
 * Under a fixture root the N-th read of the counters takes, where it
 * exists, ROOT/.vmmprof-fixture/imc-config/N/DDDD:BB:DD.F (a config file)
 * or the newest earlier one, so that counts can change between reads.
 *
 * Ice Lake-SP and Sapphire Rapids keep the IMC counters in MMIO (the
 * device's BAR at SNR_IMC_MMIO_BASE_OFFSET 0xd0): not built.  AMD has no
 * route from dom0 (its DF/UMC counters are MSRs, which Xen faults).
 */

/* The four generic counters' events, then the fixed DRAM-clock counter. */
enum imc_ctr { IMC_CAS_RD, IMC_CAS_WR, IMC_RPQ_FULL, IMC_WPQ_FULL, IMC_CLK, IMC_N_CTR };
#define IMC_N_SEL 4                     /* generic counters (event selects) per channel */

struct imc_chan {
	char bdf[32];                   /* "0000:7f:10.0" */
	int socket;                     /* -1 unknown */
	bool mine;                      /* vmmprof programmed it (imc_pci_start()) */
	char why[160];                  /* why it is not counted, "" when it is */
	uint64_t raw[IMC_N_CTR];        /* raw 48-bit counts at the last update */
	uint64_t acc[IMC_N_CTR];        /* counted since the start, wraps folded in (64 bits) */
	bool ok;                        /* the last update read it */
};

/*
 * One reader's baselines over a set that several readers share (the hub's
 * views, each with its own intervals): the set's acc per channel and
 * counter when the reader started and at its previous read.
 */
struct imc_base {
	uint64_t *start, *prev;         /* n x IMC_N_CTR */
	size_t n;
};

struct imc_pci {
	char *root;
	const char *gen;                /* "SNB-EP", "IVB-EP", "HSX", "BDX", "SKX/CLX" */
	struct imc_chan *ch;
	size_t n;
	unsigned reads;                 /* counter reads so far (the start's is the first) */
	struct imc_base own;            /* imc_pci_read()'s baselines */
};

/*
 * Find the IMC channels of the CPU's generation under root (vendor 0x8086
 * and the device ids of arch/x86/events/intel/uncore_snbep.c).  0 and *out
 * (imc_pci_free()), or VP_EUNSUPP / VP_ENOTFOUND with why naming what is
 * missing: not Intel (AMD: no route from dom0), an MMIO generation (not
 * built), no such device here.
 */
int imc_pci_find(const char *root, const struct platform *p, struct imc_pci **out,
		 struct vp_err *err);

/*
 * Program counters 0-3 of every channel with the four events and enable the
 * fixed DRAM-clock counter, unless a
 * channel already has an enabled event select (someone else uses it: left
 * alone, its why says so).  Reads the start values.  Returns how many
 * channels count; 0 with err when none can (config not writable: root).
 */
int imc_pci_start(struct imc_pci *x, struct vp_err *err);

/* Read every channel it counts (a 48-bit wrap between two updates folded
 * into acc): once before the readers that share the set take their counts. */
void imc_pci_update(struct imc_pci *x);

/* b's baselines: the set's counts now (at its last update). */
void imc_base_init(struct imc_base *b, const struct imc_pci *x);

/* Per channel, what the set counted since b's previous read (or b's start,
 * total; a non-total read moves the previous read to now):
 * out[ch * IMC_N_CTR + k]; NaN for a channel not counted or not read. */
void imc_base_read(struct imc_base *b, const struct imc_pci *x, bool total, double *out);
void imc_base_release(struct imc_base *b);

/* One reader alone: imc_pci_update(), then imc_base_read() on the set's own baselines. */
int imc_pci_read(struct imc_pci *x, bool total, double *out, struct vp_err *err);

/* Bytes moved by CAS commands over a read: (RD + WR) x 64. */
double imc_cas_bytes(const double *ctr);

/* 48-bit counter difference, wrapped once at most. */
uint64_t imc_delta48(uint64_t now, uint64_t prev);

/* Disable the event selects and the fixed counter it programmed, free. */
void imc_pci_free(struct imc_pci *x);

#endif
