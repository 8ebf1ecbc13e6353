/* hypervisor.c - hypervisor identity (CPUID, /sys/hypervisor, DMI, Xen) and the role */
#include "platform/probe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "util/alloc.h"
#include "util/fs.h"
#include "util/sbuf.h"

/*
 * Fixture roots cannot run CPUID, so a fixture states what leaf 0x40000000
 * would return in this seam file (documented in tests/data/root/README.md):
 * the 12-character signature on one line, or an empty file when the
 * hypervisor bit is clear.  Live, the file is never read.
 */
#define CPUID_SEAM "/.vmmprof-fixture/cpuid-hypervisor"

static const struct {
	const char *sig;
	enum hv_kind kind;
} signatures[] = {
	{ "KVMKVMKVM", HV_KVM },      /* KVM pads with NULs */
	{ "XenVMMXenVMM", HV_XEN },
	{ "Microsoft Hv", HV_HYPERV },
	{ "VMwareVMware", HV_VMWARE },
	{ "bhyve bhyve", HV_BHYVE },   /* "bhyve bhyve ": clean_sig() strips the trailing blank */
	{ "TCGTCGTCGTCG", HV_TCG },
};

static enum hv_kind kind_of_signature(const char *sig)
{
	size_t i;

	for (i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++)
		if (!strncmp(sig, signatures[i].sig, strlen(signatures[i].sig)))
			return signatures[i].kind;
	return sig[0] ? HV_OTHER : HV_NONE;
}

/* Keep printable characters only (KVM's signature ends in NULs). */
static void clean_sig(char *dst, size_t size, const char *src, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n && o + 1 < size; i++)
		if (isprint((unsigned char)src[i]))
			dst[o++] = src[i];
	dst[o] = '\0';
	vp_rstrip(dst);
}

/* Returns true when a signature answer was obtained (possibly "none"). */
static bool cpuid_signature(struct platform *p, bool live)
{
	struct hypervisor *h = &p->hv;

	if (live) {
#if defined(__x86_64__) || defined(__i386__)
		unsigned a, b, c, d;
		char raw[12];

		if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31))) {
			plat_set(&h->signature_source,
				  "cpuid: hypervisor bit clear");
			return true;
		}
		__cpuid(0x40000000, a, b, c, d);
		memcpy(raw, &b, 4);
		memcpy(raw + 4, &c, 4);
		memcpy(raw + 8, &d, 4);
		clean_sig(h->signature, sizeof(h->signature), raw, sizeof(raw));
		plat_set(&h->signature_source, "cpuid leaf 0x40000000");
		return true;
#else
		plat_set(&h->signature_source,
			  "no CPUID on this architecture");
		return false;
#endif
	} else {
		struct vp_err err = { 0, "" };
		char *text;
		size_t len;

		if (vp_read_file(p->root, CPUID_SEAM, &text, &len, &err)) {
			plat_set(&h->signature_source,
				  "fixture root: no " CPUID_SEAM " (CPUID is read live only)");
			return false;
		}
		{
			char *nl = strchr(text, '\n');

			if (nl)
				len = (size_t)(nl - text);
		}
		clean_sig(h->signature, sizeof(h->signature), text, len);
		free(text);
		plat_set(&h->signature_source,
			  h->signature[0] ? "fixture " CPUID_SEAM :
			  "hypervisor bit clear, from fixture " CPUID_SEAM);
		return true;
	}
}

/* The first line of a small file into buf, cut at a whole character when longer (plat_copy()). */
static bool read_small(const char *root, const char *path, char *buf, size_t size)
{
	struct vp_err err = { 0, "" };
	char line[4096];

	buf[0] = '\0';
	if (vp_read_line(root, path, line, sizeof(line), &err))
		return false;
	plat_copy(buf, size, line);
	return true;
}

/* The first line of a file into an sbuf field, whole ("" when unreadable). */
static void read_first_line(const char *root, const char *path, struct sbuf *dst)
{
	struct vp_err err = { 0, "" };
	char *text = NULL;

	sbuf_reset(dst);
	if (vp_read_file(root, path, &text, NULL, &err))
		return;
	text[strcspn(text, "\n")] = '\0';
	plat_set(dst, vp_rstrip(text));
	free(text);
}

/* Is this comm / argv[0] a QEMU system emulator? */
static bool is_qemu(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return !strncmp(base, "qemu-system-", 12) || !strcmp(base, "qemu-kvm") ||
	       !strncmp(base, "qemu-kvm", 8);
}

/* Scan /proc/<pid>/{comm,cmdline} for QEMU processes; evidence names a few pids. */
static void scan_qemu(struct platform *p, struct sbuf *pids)
{
	struct hypervisor *h = &p->hv;
	struct vp_err err = { 0, "" };
	char **names = NULL;
	size_t n = 0, i;

	if (vp_list_dir(p->root, "/proc", &names, &n, &err))
		return;
	for (i = 0; i < n; i++) {
		char path[300], comm[64], *cmd = NULL;
		size_t len = 0;
		bool q;

		if (!isdigit((unsigned char)names[i][0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", names[i]);
		q = read_small(p->root, path, comm, sizeof(comm)) && is_qemu(comm);
		snprintf(path, sizeof(path), "/proc/%s/cmdline", names[i]);
		if (vp_read_file(p->root, path, &cmd, &len, &err) == 0) {
			size_t k;

			if (!q && len)
				q = is_qemu(cmd);
			if (q) {
				/* arguments are NUL-separated: join them to look for the accelerator */
				for (k = 0; k + 1 < len; k++)
					if (!cmd[k])
						cmd[k] = ' ';
				if (strstr(cmd, "accel=kvm") || strstr(cmd, "-enable-kvm") ||
				    strstr(cmd, "-accel kvm"))
					h->n_qemu_kvm++;
				else if (strstr(cmd, "accel=tcg") || strstr(cmd, "-accel tcg"))
					h->n_qemu_tcg++;
			}
			free(cmd);
		}
		if (q) {
			if (h->n_qemu < 3)
				sbuf_addf(pids, "%s%s", h->n_qemu ? ", " : "", names[i]);
			h->n_qemu++;
		}
	}
	vp_free_names(names, n);
}

static bool dmi_says_vm(const struct hypervisor *h)
{
	static const char *const vms[] = { "QEMU", "KVM", "Xen", "VMware", "Microsoft Corporation",
					   "innotek", "Bochs", "Amazon EC2", "Google" };
	size_t i;

	for (i = 0; i < sizeof(vms) / sizeof(vms[0]); i++)
		if (strstr(sbuf_str(&h->dmi_vendor), vms[i]) ||
		    strstr(sbuf_str(&h->dmi_product), vms[i]))
			return true;
	return false;
}

void probe_hypervisor(struct platform *p, bool live)
{
	struct hypervisor *h = &p->hv;
	struct vp_err err = { 0, "" };
	struct sbuf ev = SBUF_INIT, pids = SBUF_INIT;
	bool have_sig, have_cpuinfo = p->cpu.known || p->cpu.vendor[0];

	have_sig = cpuid_signature(p, live);
	h->kind = have_sig ? kind_of_signature(h->signature) : HV_UNKNOWN;

	read_small(p->root, "/sys/hypervisor/type", h->sys_type, sizeof(h->sys_type));
	read_first_line(p->root, "/sys/hypervisor/properties/capabilities", &h->sys_properties);
	read_first_line(p->root, "/sys/class/dmi/id/sys_vendor", &h->dmi_vendor);
	read_first_line(p->root, "/sys/class/dmi/id/product_name", &h->dmi_product);
	if (vp_exists(p->root, "/proc/xen") == 0) {
		char *caps = NULL;

		if (vp_read_file(p->root, "/proc/xen/capabilities", &caps, NULL, &err) == 0) {
			plat_copy(h->xen_caps, sizeof(h->xen_caps), vp_rstrip(caps));
			h->xen_dom0 = strstr(caps, "control_d") != NULL;
			free(caps);
		}
	}
	if (h->sys_type[0] || vp_exists(p->root, "/sys/hypervisor") == 0) {
		if (vp_read_line(p->root, "/sys/hypervisor/pmu/pmu_mode", h->xen_pmu_mode,
				 sizeof(h->xen_pmu_mode), &err))
			plat_reason(&h->xen_pmu_reason, p->root, &err);
	} else {
		plat_set(&h->xen_pmu_reason, "no /sys/hypervisor");
	}
	/*
	 * /sys/hypervisor/type is the kernel's own finding, and it wins: in a
	 * Xen PV domain (dom0 included) CPUID is not trapped without CPUID
	 * faulting, so the leaf shows nothing or the layer beneath Xen (QEMU
	 * TCG in the Xen testbed), and an HVM domain with Viridian shows
	 * "Microsoft Hv" there.
	 */
	if (h->kind != HV_XEN && !strcmp(h->sys_type, "xen")) {
		plat_set(&h->signature_source,
			  h->signature[0] ? "CPUID not trapped: /sys/hypervisor/type says xen"
					  : "/sys/hypervisor/type says xen");
		h->kind = HV_XEN;
	}
	if (h->kind == HV_UNKNOWN && p->cpu.known && !p->cpu.flag_hypervisor &&
	    !strcmp(p->cpu.arch, "x86_64"))
		h->kind = HV_NONE; /* cpuinfo shows the hypervisor bit clear */
	/* Arm has no CPUID leaf: DMI and /sys/hypervisor are all there is. */
	if (h->kind == HV_UNKNOWN && !strcmp(p->cpu.arch, "aarch64") && !h->sys_type[0] &&
	    h->dmi_vendor.len && !dmi_says_vm(h)) {
		h->kind = HV_NONE;
		plat_set(&h->signature_source,
			  "no CPUID on aarch64; DMI names no hypervisor");
	}

	scan_qemu(p, &pids);

	h->known = have_sig || have_cpuinfo || h->sys_type[0] || h->dmi_vendor.len;
	if (!h->known) {
		plat_set(&h->reason,
			  "no CPUID answer, no readable cpuinfo, /sys/hypervisor or DMI");
	}

	/* evidence for the role */
	if (h->n_qemu) {
		h->role = ROLE_HOST;
		sbuf_addf(&ev, "%d QEMU process%s (pid %s%s)", h->n_qemu, h->n_qemu > 1 ? "es" : "",
			  sbuf_str(&pids), h->n_qemu > 3 ? ", ..." : "");
		if (h->n_qemu_kvm || h->n_qemu_tcg)
			sbuf_addf(&ev, ": %d KVM, %d TCG", h->n_qemu_kvm, h->n_qemu_tcg);
		if (h->xen_dom0)
			sbuf_addstr(&ev, "; Xen dom0");
		else if (h->kind != HV_NONE && h->kind != HV_UNKNOWN)
			sbuf_addf(&ev, "; itself a %s guest", hv_kind_name(h->kind));
	} else if (h->xen_dom0) {
		h->role = ROLE_HOST;
		sbuf_addf(&ev, "Xen dom0 (/proc/xen/capabilities: %s)", h->xen_caps);
	} else if (h->kind != HV_NONE && h->kind != HV_UNKNOWN) {
		h->role = ROLE_GUEST;
		if (h->signature[0])
			sbuf_addf(&ev, "hypervisor signature \"%s\"", h->signature);
		else
			sbuf_addf(&ev, "/sys/hypervisor/type \"%s\"", h->sys_type);
		if (p->cpu.flag_hypervisor)
			sbuf_addstr(&ev, ", cpuinfo hypervisor flag");
		if (h->dmi_vendor.len && dmi_says_vm(h))
			sbuf_addf(&ev, ", DMI \"%s\"", sbuf_str(&h->dmi_vendor));
	} else if (p->cpu.flag_hypervisor || h->sys_type[0] || dmi_says_vm(h)) {
		h->role = ROLE_GUEST;
		if (h->kind == HV_UNKNOWN)
			h->kind = HV_OTHER;
		if (p->cpu.flag_hypervisor)
			sbuf_addstr(&ev, "cpuinfo hypervisor flag");
		else if (h->sys_type[0])
			sbuf_addf(&ev, "/sys/hypervisor/type \"%s\"", h->sys_type);
		else
			sbuf_addf(&ev, "DMI \"%s %s\"", sbuf_str(&h->dmi_vendor), sbuf_str(&h->dmi_product));
		sbuf_addstr(&ev, " (no hypervisor signature)");
	} else if (h->kind == HV_NONE) {
		h->role = ROLE_NATIVE;
		sbuf_addstr(&ev, "no hypervisor signature or flag, no QEMU processes");
	} else {
		h->role = ROLE_UNKNOWN;
		sbuf_addf(&ev, "cannot tell: %s", h->known ? "no hypervisor evidence either way" :
			  sbuf_str(&h->reason));
	}
	plat_set(&h->role_reason, sbuf_str(&ev));
	sbuf_release(&ev);
	sbuf_release(&pids);
}
