/* kvm.c - KVM/QEMU adapter: QEMU processes, their vCPU threads, cgroups and guest RAM per node */
#include "hv/cache.h"
#include "hv/hv.h"
#include "hv/kvm.h"
#include "source/numa_maps.h"
#include "source/task.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/timeutil.h"

/* Guest RAM mappings are at least this long; smaller ones are QEMU's own. */
#define GUEST_RAM_MIN (32ull << 20)

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

bool kvm_is_qemu(const char *argv0, const char *comm)
{
	const char *b = argv0 ? base_name(argv0) : "";

	return !strncmp(b, "qemu-system-", 12) || !strcmp(b, "qemu-kvm") || !strcmp(b, "kvm") ||
	       (comm && (!strncmp(comm, "qemu-system-", 12) || !strcmp(comm, "qemu-kvm")));
}

/*
 * The next element of a QEMU option string ("guest=a,,b,debug-threads=on"):
 * ",," is a literal comma.  Returns the heap copy and advances *p.
 */
static char *next_opt(const char **p)
{
	struct sbuf sb = SBUF_INIT;
	const char *s = *p;

	while (*s) {
		if (*s == ',') {
			if (s[1] == ',') {
				sbuf_addch(&sb, ',');
				s += 2;
				continue;
			}
			s++;
			break;
		}
		sbuf_addch(&sb, *s++);
	}
	*p = s;
	return sbuf_detach(&sb);
}

char *kvm_name_from_opt(const char *opt)
{
	const char *p = opt;
	char *name = NULL;
	bool first = true;

	while (*p) {
		char *e = next_opt(&p);

		if (!strncmp(e, "guest=", 6)) {
			free(name);
			name = xstrdup(e + 6);
		} else if (first && !strchr(e, '=') && !name) {
			name = xstrdup(e); /* legacy "-name NAME,process=..." */
		}
		free(e);
		first = false;
	}
	if (name && !*name) {
		free(name);
		name = NULL;
	}
	return name;
}

char *kvm_name_from_cmdline(char *const *argv, size_t argc)
{
	size_t i;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-name") || !strcmp(argv[i], "--name"))
			return kvm_name_from_opt(argv[i + 1]);
	return NULL;
}

/* The accelerator the command line asks for; NULL when it does not say. */
static const char *accel_from_cmdline(char *const *argv, size_t argc)
{
	size_t i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(a, "-enable-kvm") || !strcmp(a, "--enable-kvm"))
			return "kvm";
		if ((!strcmp(a, "-accel") || !strcmp(a, "--accel")) && *v)
			return !strncmp(v, "kvm", 3) ? "kvm" : !strncmp(v, "tcg", 3) ? "tcg" : NULL;
		if ((!strcmp(a, "-machine") || !strcmp(a, "-M")) && strstr(v, "accel=kvm"))
			return "kvm";
		if ((!strcmp(a, "-machine") || !strcmp(a, "-M")) && strstr(v, "accel=tcg"))
			return "tcg";
	}
	return NULL;
}

/* "0000:03:00.0" from "0000:03:00.0", "03:00.0" or a sysfs path ending so; NULL when not one. */
static char *pci_addr_norm(const char *v, size_t len)
{
	char buf[256];                /* a sysfs path: the address is its last part */
	unsigned dom = 0, bus, slot, fn;
	char tail;
	const char *slash;

	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, v, len);
	buf[len] = '\0';
	while (len && buf[len - 1] == '/')
		buf[--len] = '\0';
	slash = strrchr(buf, '/');
	v = slash ? slash + 1 : buf;
	if (sscanf(v, "%x:%x:%x.%x%c", &dom, &bus, &slot, &fn, &tail) != 4) {
		dom = 0;
		if (sscanf(v, "%x:%x.%x%c", &bus, &slot, &fn, &tail) != 3)
			return NULL;
	}
	if (dom > 0xffff || bus > 0xff || slot > 0x1f || fn > 7)
		return NULL;
	return xasprintf("%04x:%02x:%02x.%x", dom, bus, slot, fn);
}

/* The value of key in a "driver,key=value,..." option, as a pointer into it and its length. */
static const char *opt_value(const char *opt, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	const char *p = opt;

	while (p && *p) {
		const char *end = strchr(p, ',');

		if (!strncmp(p, key, kl) && p[kl] == '=') {
			*len = (end ? (size_t)(end - p) : strlen(p)) - kl - 1;
			return p + kl + 1;
		}
		p = end ? end + 1 : NULL;
	}
	return NULL;
}

/* The string value of "key" in a flat JSON object's text; pointer into it and its length. */
static const char *json_value(const char *js, const char *key, size_t *len)
{
	char pat[32];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	if (!(p = strstr(js, pat)))
		return NULL;
	p += strlen(pat);
	while (*p == ' ' || *p == ':')
		p++;
	if (*p != '"' || !(e = strchr(p + 1, '"')))
		return NULL;
	*len = (size_t)(e - p - 1);
	return p + 1;
}

char **kvm_vfio_from_cmdline(char *const *argv, size_t argc, size_t *n)
{
	char **out = NULL;
	size_t i, cap = 0;

	*n = 0;
	for (i = 1; i + 1 < argc; i++) {
		const char *v = argv[i + 1], *a;
		size_t len = 0;
		char *addr = NULL;

		if (strcmp(argv[i], "-device") && strcmp(argv[i], "--device"))
			continue;
		if (*v == '{') {
			const char *d = json_value(v, "driver", &len);

			if (!d || len != 8 || strncmp(d, "vfio-pci", 8))
				continue;
			if ((a = json_value(v, "host", &len)) || (a = json_value(v, "sysfsdev", &len)))
				addr = pci_addr_norm(a, len);
		} else {
			if (strncmp(v, "vfio-pci", 8) || (v[8] != ',' && v[8] != '\0'))
				if (!(a = opt_value(v, "driver", &len)) || len != 8 ||
				    strncmp(a, "vfio-pci", 8))
					continue;
			if ((a = opt_value(v, "host", &len)) || (a = opt_value(v, "sysfsdev", &len)))
				addr = pci_addr_norm(a, len);
		}
		if (!addr)
			continue;
		VP_GROW(out, cap, *n + 1);
		out[(*n)++] = addr;
	}
	return out;
}

/* What a PCI class code (sysfs "class", 0xCCSSPP) says a device is. */
static const char *pci_kind(unsigned long cls)
{
	switch (cls >> 16) {
	case 0x01: return "storage controller";
	case 0x02: return "network controller";
	case 0x03: return "display controller";
	case 0x12: return "processing accelerator";
	default: return "PCI device";
	}
}

/*
 * A QEMU's passthrough devices with their node and kind from sysfs under
 * root, into *pci (NULL none) and *n_pci.  A process's command line and a
 * device's slot do not change: the scan cache reads them once per process.
 */
static void vm_pci(const char *root, char *const *argv, size_t argc, struct hv_pcidev **pci,
		   size_t *n_pci)
{
	size_t n, i;
	char **a = kvm_vfio_from_cmdline(argv, argc, &n);
	struct hv_pcidev *d;

	*pci = NULL;
	*n_pci = 0;
	if (!n)
		return;
	d = *pci = xcalloc(n, sizeof(*d));
	*n_pci = n;
	for (i = 0; i < n; i++) {
		char path[96], line[32], *end;
		long node;
		unsigned long cls;

		d[i].addr = a[i];
		d[i].node = -1;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", a[i]);
		if (!vp_read_line(root, path, line, sizeof(line), NULL)) {
			node = strtol(line, &end, 10);
			if (end != line && node >= 0 && node < 4096)
				d[i].node = (int)node;
		}
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class", a[i]);
		cls = !vp_read_line(root, path, line, sizeof(line), NULL) ?
		      strtoul(line, NULL, 16) : ~0UL;
		d[i].kind = xstrdup(cls == ~0UL ? "PCI device" : pci_kind(cls));
	}
	free(a);
}

/* QEMU's size syntax ("512M", "1G", "1073741824": bytes without a suffix); 0 when not one. */
static uint64_t qemu_size(const char *v, size_t len)
{
	char buf[32], *end;
	unsigned long long n;
	int sh;

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)*v))
		return 0;
	memcpy(buf, v, len);
	buf[len] = '\0';
	n = strtoull(buf, &end, 10);
	switch (toupper((unsigned char)*end)) {
	case '\0': sh = 0; break;
	case 'K': sh = 10; break;
	case 'M': sh = 20; break;
	case 'G': sh = 30; break;
	case 'T': sh = 40; break;
	default: return 0;
	}
	if (*end && end[1])
		return 0;
	return n > (~0ull >> sh) ? 0 : (uint64_t)n << sh;
}

static struct hv_vnode *vnode_by_memdev(struct hv_vnode *v, size_t n, const char *id)
{
	size_t i;

	for (i = 0; id && i < n; i++)
		if (v[i].memdev && !strcmp(v[i].memdev, id))
			return &v[i];
	return NULL;
}

/* A memory backend's size, policy and host-nodes from libvirt's JSON -object. */
static void backend_json(const char *text, struct hv_vnode *v, size_t n)
{
	struct jv o;
	const struct jv *hn;
	struct hv_vnode *d;
	const char *qt, *pol;
	double sz;
	size_t i;

	if (jv_parse(&o, text, strlen(text), "-object", NULL))
		return;
	qt = jv_str(&o, "qom-type");
	if (qt && !strncmp(qt, "memory-backend-", 15) && (d = vnode_by_memdev(v, n, jv_str(&o, "id")))) {
		sz = jv_num(&o, "size");
		if (isfinite(sz) && sz > 0 && sz < 1.8e19)
			d->size = (uint64_t)sz;
		else if (jv_str(&o, "size"))
			d->size = qemu_size(jv_str(&o, "size"), strlen(jv_str(&o, "size")));
		if ((pol = jv_str(&o, "policy"))) {
			free(d->policy);
			d->policy = xstrdup(pol);
		}
		hn = jv_arr(&o, "host-nodes");
		for (i = 0; hn && i < hn->n; i++)
			if (hn->items[i].type == JV_NUM && hn->items[i].num >= 0 &&
			    hn->items[i].num < 4096)
				cpulist_add(&d->host_nodes, (int)hn->items[i].num);
	}
	jv_release(&o);
}

/* Add the ids of list text ("0-1", "4") to cl: QEMU repeats cpus= and host-nodes=; a bad one adds none. */
static void list_add_text(struct cpulist *cl, const char *text)
{
	struct cpulist c;
	size_t k;

	cpulist_init(&c);
	if (!cpulist_parse(&c, text, NULL))
		for (k = 0; k < c.n; k++)
			cpulist_add(cl, c.ids[k]);
	cpulist_release(&c);
}

/* The same from "memory-backend-ram,id=m0,size=1G,host-nodes=0-1,policy=bind". */
static void backend_opts(const char *text, struct hv_vnode *v, size_t n)
{
	const char *p = text;
	char *type = next_opt(&p), *id = NULL;
	struct hv_vnode *d;
	const char *q;

	if (strncmp(type, "memory-backend-", 15)) {
		free(type);
		return;
	}
	free(type);
	for (q = p; *q;) {
		char *e = next_opt(&q);

		if (!strncmp(e, "id=", 3) && !id)
			id = xstrdup(e + 3);
		free(e);
	}
	d = vnode_by_memdev(v, n, id);
	free(id);
	if (!d)
		return;
	while (*p) {
		char *e = next_opt(&p);

		if (!strncmp(e, "size=", 5)) {
			d->size = qemu_size(e + 5, strlen(e + 5));
		} else if (!strncmp(e, "policy=", 7)) {
			free(d->policy);
			d->policy = xstrdup(e + 7);
		} else if (!strncmp(e, "host-nodes=", 11)) {
			list_add_text(&d->host_nodes, e + 11);
		}
		free(e);
	}
}

static int cmp_vnode(const void *a, const void *b)
{
	const struct hv_vnode *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

struct hv_vnode *kvm_vnuma_from_cmdline(char *const *argv, size_t argc, size_t *n)
{
	struct hv_vnode *v = NULL;
	size_t i, cap = 0;

	*n = 0;
	for (i = 1; i + 1 < argc; i++) {
		const char *p = argv[i + 1];
		struct hv_vnode *d;
		char *e;

		if (strcmp(argv[i], "-numa") && strcmp(argv[i], "--numa"))
			continue;
		if (strncmp(p, "node", 4) || (p[4] != ',' && p[4] != '\0'))
			continue; /* dist, cpu, hmat-*: not a node */
		VP_GROW(v, cap, *n + 1);
		d = &v[*n];
		memset(d, 0, sizeof(*d));
		d->id = (int)*n;
		cpulist_init(&d->vcpus);
		cpulist_init(&d->host_nodes);
		(*n)++;
		e = next_opt(&p); /* "node" */
		free(e);
		while (*p) {
			e = next_opt(&p);
			if (!strncmp(e, "nodeid=", 7)) {
				d->id = atoi(e + 7);
			} else if (!strncmp(e, "cpus=", 5)) {
				list_add_text(&d->vcpus, e + 5);
			} else if (!strncmp(e, "memdev=", 7)) {
				free(d->memdev);
				d->memdev = xstrdup(e + 7);
			} else if (!strncmp(e, "mem=", 4)) {
				uint64_t b = qemu_size(e + 4, strlen(e + 4));

				/* legacy mem=: MiB without a suffix */
				d->size = isdigit((unsigned char)e[strlen(e) - 1]) ? b << 20 : b;
			}
			free(e);
		}
	}
	for (i = 1; *n && i + 1 < argc; i++) {
		if (strcmp(argv[i], "-object") && strcmp(argv[i], "--object"))
			continue;
		if (argv[i + 1][0] == '{')
			backend_json(argv[i + 1], v, *n);
		else
			backend_opts(argv[i + 1], v, *n);
	}
	for (i = 0; i < *n; i++)
		if (!v[i].policy)
			v[i].policy = xstrdup("default");
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_vnode);
	return v;
}

/*
 * Which guest RAM mapping of numa_maps is each virtual node's backend: the
 * mapping of the backend's size whose policy names the backend's host nodes
 * ("bind:1", "interleave:0-1", "prefer:0"), else the one mapping of its size
 * that no other backend took so.  Its pages per node go to mem_node;
 * otherwise mem_why says why not.
 */
static void vnuma_backing(const struct numa_maps *nm, struct hv_vnode *v, size_t n)
{
	const struct numa_map **hit = xcalloc(n ? n : 1, sizeof(*hit));
	size_t k, i, *same = xcalloc(n ? n : 1, sizeof(size_t));
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (k = 0; k < n; k++) {
			struct hv_vnode *d = &v[k];
			const struct numa_map *one = NULL;
			size_t match = 0, free_same = 0, o;
			char want[48] = "";

			if (hit[k] || !d->memdev || !d->size)
				continue;
			if (d->host_nodes.n && d->policy && strcmp(d->policy, "default")) {
				struct sbuf sb = SBUF_INIT;

				cpulist_format(&d->host_nodes, &sb);
				snprintf(want, sizeof(want), "%s:%s", !strcmp(d->policy, "preferred") ?
					 "prefer" : d->policy, sbuf_str(&sb));
				sbuf_release(&sb);
			}
			same[k] = 0;
			for (i = 0; i < nm->n; i++) {
				const struct numa_map *m = &nm->maps[i];
				uint64_t len = m->end > m->start ? m->end - m->start : 0;
				bool taken = false;

				if (!numa_map_is_guest_ram(m, GUEST_RAM_MIN) || len != d->size)
					continue;
				same[k]++;
				for (o = 0; o < n; o++)
					taken |= hit[o] == m;
				if (taken)
					continue;
				if (pass == 0 && *want && !strcmp(m->policy, want)) {
					match++;
					one = m;
				} else if (pass == 1) {
					free_same++;
					one = m;
				}
			}
			if ((pass == 0 && match == 1) || (pass == 1 && free_same == 1))
				hit[k] = one;
		}
	}
	for (k = 0; k < n; k++) {
		struct hv_vnode *d = &v[k];

		free(d->mem_node);
		free(d->mem_why);
		d->mem_node = NULL;
		d->n_mem_nodes = 0;
		if (!d->memdev || !d->size) {
			d->mem_why = xstrdup(d->memdev ? "its backend's size is not on the command line" :
					     "no memory backend (memdev=) for it");
			continue;
		}
		if (!hit[k]) {
			d->mem_why = same[k] ? xasprintf("%zu guest RAM mappings of its size in "
							 "numa_maps: which is its backend cannot be told",
							 same[k]) :
					       xstrdup("no guest RAM mapping of its size in numa_maps");
			continue;
		}
		d->n_mem_nodes = nm->n_nodes;
		d->mem_node = xcalloc(nm->n_nodes ? (size_t)nm->n_nodes : 1, sizeof(uint64_t));
		for (i = 0; i < (size_t)hit[k]->n_nodes && (int)i < nm->n_nodes; i++)
			d->mem_node[i] = numa_map_node_bytes(hit[k], (int)i);
		d->mem_why = xasprintf("numa_maps: the mapping at %" PRIx64 "%s", hit[k]->start,
				       same[k] > 1 ? " (of its size: the one with its policy, or "
						     "the one no other backend took)" :
						     ", the one of its size");
	}
	free(hit);
	free(same);
}

/* Configured RAM from "-m 1024", "-m 1G", "-m size=1G,slots=..."; 0 when absent. */
static uint64_t mem_from_cmdline(char *const *argv, size_t argc)
{
	size_t i;

	for (i = 1; i + 1 < argc; i++) {
		const char *v = argv[i + 1];
		unsigned long long n;
		char *end;

		if (strcmp(argv[i], "-m") && strcmp(argv[i], "--m"))
			continue;
		if (!strncmp(v, "size=", 5))
			v += 5;
		n = strtoull(v, &end, 10);
		if (end == v)
			return 0;
		switch (toupper((unsigned char)*end)) {
		case 'K': return n << 10;
		case 'G': return n << 30;
		case 'T': return n << 40;
		case 'M': case '\0': case ',': return n << 20; /* QEMU's default unit is MiB */
		default: return 0;
		}
	}
	return 0;
}

/* Decode systemd's "\x2d" escapes in a unit name. */
static char *unescape_unit(const char *s, size_t len)
{
	char *out = xmalloc(len + 1), *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    isxdigit((unsigned char)s[i + 2]) && isxdigit((unsigned char)s[i + 3])) {
			char hex[3] = { s[i + 2], s[i + 3], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			i += 3;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* "qemu-3-web1" -> "web1"; "qemu-web1" (old libvirt) -> "web1". */
static char *strip_qemu_id(char *s)
{
	char *p = s + 5, *name;

	if (strncmp(s, "qemu-", 5)) {
		name = xstrdup(s);
	} else {
		while (isdigit((unsigned char)*p))
			p++;
		name = xstrdup(p > s + 5 && *p == '-' ? p + 1 : s + 5);
	}
	free(s);
	return name;
}

char *kvm_name_from_cgroup(const char *path)
{
	const char *p = path;

	while (p && *p) {
		const char *c, *e;
		size_t len;

		while (*p == '/')
			p++;
		e = strchr(p, '/');
		len = e ? (size_t)(e - p) : strlen(p);
		/* systemd: machine-qemu\x2d1\x2dNAME.scope */
		if (len > 14 && !strncmp(p, "machine-", 8) && !strncmp(p + len - 6, ".scope", 6)) {
			char *unit = unescape_unit(p + 8, len - 14);

			if (!strncmp(unit, "qemu-", 5))
				return strip_qemu_id(unit);
			free(unit);
		}
		/* cgroupfs: /machine/qemu-1-NAME.libvirt-qemu */
		c = ".libvirt-qemu";
		if (len > strlen(c) && !strncmp(p + len - strlen(c), c, strlen(c)))
			return strip_qemu_id(xstrndup(p, len - strlen(c)));
		p = e;
	}
	return NULL;
}

/* Drop libvirt's per-thread leaves: ".../libvirt/emulator" -> "...". */
char *kvm_vm_cgroup(const char *thread_cgroup)
{
	char *s = xstrdup(thread_cgroup), *slash;
	int n;
	char c;

	slash = strrchr(s, '/');
	if (slash && (!strcmp(slash + 1, "emulator") ||
		      sscanf(slash + 1, "vcpu%d%c", &n, &c) == 1 ||
		      sscanf(slash + 1, "iothread%d%c", &n, &c) == 1)) {
		*slash = '\0';
		slash = strrchr(s, '/');
		if (slash && !strcmp(slash + 1, "libvirt"))
			*slash = '\0';
		if (!*s)
			strcpy(s, "/");
	}
	return s;
}

/* The path of the hierarchy we use: v2 when the thread is placed there. */
static const char *pick_cgroup(const struct task_cgroup *cg, int *version)
{
	const char *v1 = cg->v1_perf_event && strcmp(cg->v1_perf_event, "/") ? cg->v1_perf_event :
			 cg->v1_cpu && strcmp(cg->v1_cpu, "/") ? cg->v1_cpu :
			 cg->v1_cpuset && strcmp(cg->v1_cpuset, "/") ? cg->v1_cpuset : NULL;

	if (cg->unified && (strcmp(cg->unified, "/") || !v1)) {
		*version = 2;
		return cg->unified;
	}
	if (v1) {
		*version = 1;
		return v1;
	}
	*version = 0;
	return NULL;
}

/* Where a cgroup's directory is, seen from root (for perf's cgroup mode); heap or NULL. */
static char *cgroup_dir(const char *root, const char *path, int version)
{
	static const char *const v2[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	static const char *const v1[] = { "/sys/fs/cgroup/perf_event", "/sys/fs/cgroup/cpu,cpuacct",
					  "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpuset" };
	const char *const *mounts = version == 2 ? v2 : v1;
	size_t n = version == 2 ? VP_ARRAY_SIZE(v2) : VP_ARRAY_SIZE(v1), i;

	for (i = 0; i < n; i++) {
		/* a v2 mount has cgroup.controllers; every v1 mount has cgroup.procs */
		char *marker = xasprintf("%s/%s", mounts[i],
					 version == 2 ? "cgroup.controllers" : "cgroup.procs");
		char *dir = xasprintf("%s%s", mounts[i], strcmp(path, "/") ? path : "");
		bool ok = !vp_exists(root, marker) && !vp_exists(root, dir);

		free(marker);
		if (ok)
			return dir;
		free(dir);
	}
	return NULL;
}

static int cmp_vcpu(const void *a, const void *b)
{
	const struct hv_vcpu *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* vCPU thread ids from KVM's debugfs: /sys/kernel/debug/kvm/PID-FD/vcpuN/pid. */
static int debugfs_vcpus(const char *root, int pid, int *tids, int max)
{
	char **names = NULL, **vc = NULL;
	size_t nn = 0, nv = 0, i, j;
	char prefix[24];
	int found = 0;

	snprintf(prefix, sizeof(prefix), "%d-", pid);
	if (vp_list_dir(root, "/sys/kernel/debug/kvm", &names, &nn, NULL))
		return 0;
	for (i = 0; i < nn; i++) {
		char *dir;

		if (strncmp(names[i], prefix, strlen(prefix)))
			continue;
		dir = xasprintf("/sys/kernel/debug/kvm/%s", names[i]);
		if (!vp_list_dir(root, dir, &vc, &nv, NULL)) {
			for (j = 0; j < nv; j++) {
				char *p;
				int idx, tid;
				char c;

				if (sscanf(vc[j], "vcpu%d%c", &idx, &c) != 1 || idx < 0 || idx >= max)
					continue;
				p = xasprintf("%s/%s/pid", dir, vc[j]);
				if (!vp_read_int(root, p, &tid, NULL) && tid > 0) {
					tids[idx] = tid;
					found++;
				}
				free(p);
			}
			vp_free_names(vc, nv);
		}
		free(dir);
	}
	vp_free_names(names, nn);
	return found;
}

/* Guest RAM per host node from the QEMU process's numa_maps. */
static void read_guest_ram(const struct hv_ctx *ctx, struct hv_vm *vm)
{
	struct numa_maps nm;
	struct vp_err e = { 0, "" };
	size_t i, used = 0;
	uint64_t size = 0;
	int node;

	if (numa_maps_read(ctx->root, vm->pid, &nm, &e)) {
		snprintf(vm->mem_reason, sizeof(vm->mem_reason), "%s", e.msg);
		return;
	}
	vnuma_backing(&nm, vm->vnodes, vm->n_vnodes);
	vm->n_mem_nodes = nm.n_nodes;
	vm->mem_node = xcalloc(nm.n_nodes ? (size_t)nm.n_nodes : 1, sizeof(uint64_t));
	for (i = 0; i < nm.n; i++) {
		if (!numa_map_is_guest_ram(&nm.maps[i], GUEST_RAM_MIN))
			continue;
		used++;
		size += nm.maps[i].end - nm.maps[i].start;
		for (node = 0; node < nm.maps[i].n_nodes; node++)
			vm->mem_node[node] += numa_map_node_bytes(&nm.maps[i], node);
	}
	if (!used) {
		vm->n_mem_nodes = 0;
		snprintf(vm->mem_reason, sizeof(vm->mem_reason),
			 "no guest RAM mapping found in numa_maps (none writable, anonymous or "
			 "memory-backend and >= 32 MiB)");
	} else {
		vm->mem_size = size;
		snprintf(vm->mem_reason, sizeof(vm->mem_reason),
			 "resident pages of %zu guest RAM mapping%s (numa_maps)", used,
			 used == 1 ? "" : "s");
	}
	numa_maps_release(&nm);
}

/* An attribute's value in the first tag of xml that starts with tag ("<domstatus"); heap or NULL. */
static char *tag_attr(const char *xml, const char *tag, const char *attr)
{
	const char *t = strstr(xml, tag), *end, *a;
	char pat[64];
	size_t len;

	if (!t || !(end = strchr(t, '>')))
		return NULL;
	snprintf(pat, sizeof(pat), " %s=", attr);
	a = strstr(t, pat);
	if (!a || a > end)
		return NULL;
	a += strlen(pat);
	if (*a != '\'' && *a != '"')
		return NULL;
	len = strcspn(a + 1, *a == '\'' ? "'" : "\"");
	return xstrndup(a + 1, len);
}

int kvm_libvirt_paused(const char *xml, int pid, char *what, size_t size)
{
	char *state = tag_attr(xml, "<domstatus", "state");
	char *reason = tag_attr(xml, "<domstatus", "reason");
	char *p = tag_attr(xml, "<domstatus", "pid");
	int ret = -1;

	if (state && (pid <= 0 || !p || atoi(p) == pid)) {
		ret = !strcmp(state, "paused") || !strcmp(state, "pmsuspended");
		snprintf(what, size, "libvirt domain state '%s'%s%s%s", state, reason ? " (" : "",
			 reason ? reason : "", reason ? ")" : "");
	}
	free(state);
	free(reason);
	free(p);
	return ret;
}

char *kvm_qmp_socket(char *const *argv, size_t argc)
{
	size_t i, j;

	for (i = 1; i + 1 < argc; i++) {
		const char *v = argv[i + 1];

		if ((!strcmp(argv[i], "-qmp") || !strcmp(argv[i], "--qmp")) && !strncmp(v, "unix:", 5)) {
			v += 5;
			if (!strncmp(v, "path=", 5))
				v += 5;
			return xstrndup(v, strcspn(v, ","));
		}
	}
	/* -chardev socket,id=ID,path=PATH,server=on with -mon chardev=ID,mode=control */
	for (i = 1; i + 1 < argc; i++) {
		const char *v = argv[i + 1], *id, *path;
		char want[80];

		if (strcmp(argv[i], "-chardev") || strncmp(v, "socket,", 7) ||
		    !(id = strstr(v, "id=")) || !(path = strstr(v, "path=")))
			continue;
		id += 3;
		snprintf(want, sizeof(want), "chardev=%.*s", (int)strcspn(id, ","), id);
		for (j = 1; j + 1 < argc; j++) {
			const char *m = argv[j + 1], *hit;

			if (strcmp(argv[j], "-mon") || !strstr(m, "mode=control") ||
			    !(hit = strstr(m, want)))
				continue;
			if (hit[strlen(want)] != ',' && hit[strlen(want)] != '\0')
				continue;
			path += 5;
			return xstrndup(path, strcspn(path, ","));
		}
	}
	return NULL;
}

/* Read QMP lines into buf until one holds "return" or "error" (or, greeting, "QMP"); 0 or -1. */
static int qmp_wait(int fd, char *buf, size_t size, const char *want, uint64_t deadline)
{
	size_t len = 0;

	buf[0] = '\0';
	for (;;) {
		char *nl;
		struct pollfd pf = { fd, POLLIN, 0 };
		uint64_t now = vp_now_ns();
		ssize_t n;

		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			if (strstr(buf, want) || strstr(buf, "\"error\""))
				return strstr(buf, want) ? 0 : -1;
			memmove(buf, nl + 1, strlen(nl + 1) + 1); /* an event: skip it */
			len = strlen(buf);
		}
		if (now >= deadline || len + 1 >= size)
			return -1;
		if (poll(&pf, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			return -1;
		n = read(fd, buf + len, size - len - 1);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
	}
}

int kvm_qmp_paused(const char *root, const char *path, int timeout_ms, char *what, size_t size)
{
	struct sockaddr_un sa;
	char *full = vp_path(root, path), buf[8192];
	uint64_t deadline = vp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	static const char caps[] = "{\"execute\":\"qmp_capabilities\"}\n";
	static const char query[] = "{\"execute\":\"query-status\"}\n";
	const char *why = NULL;
	char *st;
	int fd = -1, ret = -1;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(full) >= sizeof(sa.sun_path)) {
		why = "its path is too long for a unix socket";
		goto out;
	}
	strcpy(sa.sun_path, full);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		why = errno == EACCES ? "permission denied" : errno == ECONNREFUSED ?
		      "refused (nobody listens)" : strerror(errno);
		goto out;
	}
	/* one client at a time: a greeting that never comes means another holds the monitor */
	if (qmp_wait(fd, buf, sizeof(buf), "\"QMP\"", deadline)) {
		why = "no greeting (another client may hold the monitor)";
		goto out;
	}
	if (write(fd, caps, sizeof(caps) - 1) != (ssize_t)sizeof(caps) - 1 ||
	    qmp_wait(fd, buf, sizeof(buf), "\"return\"", deadline) ||
	    write(fd, query, sizeof(query) - 1) != (ssize_t)sizeof(query) - 1 ||
	    qmp_wait(fd, buf, sizeof(buf), "\"return\"", deadline)) {
		why = "no answer to query-status";
		goto out;
	}
	st = strstr(buf, "\"status\"");
	if (!st || !strstr(buf, "\"running\"")) {
		why = "an answer without status";
		goto out;
	}
	st = strchr(st + 8, '"');
	ret = strstr(buf, "\"running\": false") || strstr(buf, "\"running\":false");
	snprintf(what, size, "QMP query-status '%.*s'", st ? (int)strcspn(st + 1, "\"") : 1,
		 st ? st + 1 : "?");
out:
	if (why)
		snprintf(what, size, "QMP socket '%s': %s", path, why);
	if (fd >= 0)
		close(fd);
	free(full);
	return ret;
}

/* Decode XML's predefined entities and character references in s[0..len). */
static char *xml_unescape(const char *s, size_t len)
{
	static const struct { const char *ent; char ch; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	struct sbuf sb = SBUF_INIT;
	size_t i = 0, k;

	while (i < len) {
		if (s[i] == '&') {
			for (k = 0; k < VP_ARRAY_SIZE(ents); k++) {
				size_t n = strlen(ents[k].ent);

				if (i + n <= len && !strncmp(s + i, ents[k].ent, n)) {
					sbuf_addch(&sb, ents[k].ch);
					i += n;
					break;
				}
			}
			if (k < VP_ARRAY_SIZE(ents))
				continue;
			if (i + 2 < len && s[i + 1] == '#') {
				bool hex = s[i + 2] == 'x';
				char *end;
				unsigned long c = strtoul(s + i + 2 + hex, &end, hex ? 16 : 10);

				/* ASCII only: a name is shown, not re-encoded */
				if (end > s + i + 2 + hex && (size_t)(end - s) < len && *end == ';' &&
				    c >= 0x20 && c < 0x7f) {
					sbuf_addch(&sb, (char)c);
					i = (size_t)(end - s) + 1;
					continue;
				}
			}
		}
		sbuf_addch(&sb, s[i++]);
	}
	return sbuf_detach(&sb);
}

char *kvm_xml_text(const char *xml, const char *tag)
{
	size_t tl = strlen(tag);
	const char *p = xml, *b, *e;
	char *close, *text;

	while (p && (p = strchr(p, '<'))) {
		p++;
		if (strncmp(p, tag, tl) || (p[tl] != '>' && p[tl] != ' ' && p[tl] != '\t' &&
					    p[tl] != '\n')) {
			continue;
		}
		b = strchr(p + tl, '>');
		if (!b || b[-1] == '/')
			return NULL; /* <tag/>: empty */
		b++;
		close = xasprintf("</%s>", tag);
		e = strstr(b, close);
		free(close);
		if (!e)
			return NULL;
		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (e == b)
			return NULL;
		text = xml_unescape(b, (size_t)(e - b));
		return text;
	}
	return NULL;
}

char *kvm_vm_alias(const char *name, const char *xml, const char *cgroup, char **source)
{
	char *alias = xml ? kvm_xml_text(xml, "nova:name") : NULL;
	const char *us;

	*source = NULL;
	if (alias) {
		if (name && !strcmp(alias, name)) {
			free(alias);
			return NULL;
		}
		*source = xstrdup("OpenStack Nova metadata (nova:name)");
		return alias;
	}
	/* KubeVirt: domain NAMESPACE_NAME; a namespace (a DNS label) has no '_' */
	if (name && cgroup && strstr(cgroup, "kubepods") && (us = strchr(name, '_')) &&
	    us > name && us[1]) {
		*source = xasprintf("KubeVirt VMI in namespace %.*s", (int)(us - name), name);
		return xstrdup(us + 1);
	}
	return NULL;
}

/* Paused or running: libvirt's status where libvirt runs it, else QMP when a socket is named. */
static void read_run_state(const struct hv_ctx *ctx, struct hv_vm *vm, char *const *argv,
			   size_t argc)
{
	char *path, *xml = NULL, *qmp;

	if (vm->name && *vm->name && !strchr(vm->name, '/') && vm->name[0] != '.') {
		path = xasprintf("/run/libvirt/qemu/%s.xml", vm->name);
		if (!vp_read_file(ctx->root, path, &xml, NULL, NULL)) {
			vm->paused = kvm_libvirt_paused(xml, vm->pid, vm->state_source,
							sizeof(vm->state_source));
			/* this domain's status (not another process's): its metadata */
			if (vm->paused >= 0) {
				vm->alias = kvm_vm_alias(vm->name, xml, vm->cgroup, &vm->alias_source);
				if (!vm->uuid)
					vm->uuid = kvm_xml_text(xml, "uuid");
			}
		}
		free(xml);
		free(path);
		if (vm->paused >= 0)
			return;
	}
	qmp = kvm_qmp_socket(argv, argc);
	if (qmp)
		vm->paused = kvm_qmp_paused(ctx->root, qmp, 250, vm->state_source,
					    sizeof(vm->state_source));
	free(qmp);
}

/* No thread named 'CPU n/...' (QEMU without debug-threads=on): the vCPUs KVM's debugfs lists. */
static void vcpus_from_debugfs(const struct hv_ctx *ctx, struct hv_vm *vm, const char **accel)
{
	int n, k, dbg[1024];

	for (k = 0; k < (int)VP_ARRAY_SIZE(dbg); k++)
		dbg[k] = -1;
	n = debugfs_vcpus(ctx->root, vm->pid, dbg, (int)VP_ARRAY_SIZE(dbg));
	for (k = 0; n && k < (int)VP_ARRAY_SIZE(dbg); k++) {
		struct hv_vcpu *v;
		size_t j;

		if (dbg[k] < 0)
			continue;
		v = hv_vm_add_vcpu(vm);
		v->index = k;
		hv_read_thread(ctx, vm->pid, dbg[k], v);
		for (j = 0; j < vm->n_other; j++) { /* no longer an "other" thread */
			if (vm->other_tids[j] == dbg[k]) {
				vm->other_tids[j] = vm->other_tids[--vm->n_other];
				break;
			}
		}
		if (!*accel)
			*accel = "kvm";
	}
	snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "%s",
		 n ? "KVM debugfs vcpuN/pid" :
		     "no thread named 'CPU n/...' (QEMU without debug-threads=on) and no "
		     "KVM debugfs entry");
}

/*
 * Whether thread tid of QEMU pid, named comm, moves the VM's I/O: its main
 * loop (tid == pid), an IOThread ("IO " and its object id; libvirt's ids are
 * "iothreadN", whose N is *id), or a vhost worker of this QEMU ("vhost-PID",
 * a thread of the process from Linux 6.4 on).  A name of 15 bytes may be cut
 * short by the kernel: its IOThread number is then not known (-1).
 */
static bool io_kind_of(const char *comm, int pid, int tid, enum hv_io_kind *kind, int *id)
{
	int n;
	char c;

	*id = -1;
	if (tid == pid) {
		*kind = HV_IO_MAIN;
		return true;
	}
	if (!strncmp(comm, "IO ", 3)) {
		*kind = HV_IO_IOTHREAD;
		if (strlen(comm) < 15 && sscanf(comm + 3, "iothread%d%c", &n, &c) == 1 && n >= 0)
			*id = n;
		return true;
	}
	if (sscanf(comm, "vhost-%d%c", &n, &c) == 1 && n == pid) {
		*kind = HV_IO_VHOST;
		return true;
	}
	return false;
}

/* A kernel thread named "vhost-PID": the vhost worker of process PID (before Linux 6.4). */
static bool vhost_owner(const char *comm, int *owner)
{
	int n;
	char c;

	if (sscanf(comm, "vhost-%d%c", &n, &c) != 1 || n <= 0)
		return false;
	*owner = n;
	return true;
}

static struct hv_iothread *add_io(struct hv_vm *vm, enum hv_io_kind kind, int id, int tid)
{
	struct hv_iothread *io;

	vm->io = xrealloc(vm->io, (vm->n_io + 1) * sizeof(*vm->io));
	io = &vm->io[vm->n_io++];
	memset(io, 0, sizeof(*io));
	io->kind = kind;
	io->id = id;
	io->tid = tid;
	io->cpu = io->node = -1;
	io->cpu_time_s = NAN;
	cpulist_init(&io->affinity);
	return io;
}

/* An I/O thread's place from its stat (st, or read when NULL) and, with aff, its status. */
static void io_read(const struct hv_ctx *ctx, int pid, const struct task_stat *st,
		    struct hv_iothread *io, bool aff)
{
	struct task_stat mine;
	struct task_status status;

	if (!st && !task_stat_read(ctx->root, pid, io->tid, &mine, NULL))
		st = &mine;
	if (st) {
		free(io->name);
		io->name = xstrdup(st->comm);
		io->cpu = st->processor;
		io->node = hv_cpu_node(ctx, io->cpu);
		io->cpu_time_s = (double)(st->utime + st->stime) / (double)task_ticks_per_sec();
	}
	if (aff && !task_status_read(ctx->root, pid, io->tid, &status, NULL)) {
		if (status.have_cpus)
			cpulist_copy(&io->affinity, &status.cpus_allowed);
		task_status_release(&status);
	}
}

static int cmp_io(const void *a, const void *b)
{
	const struct hv_iothread *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The VM of QEMU pid among out's from first; NULL none. */
static struct hv_vm *vm_of_pid(struct hv_vm_list *out, size_t first, int pid)
{
	size_t i;

	for (i = first; i < out->n; i++)
		if (out->vms[i].adapter == HVA_KVM && out->vms[i].pid == pid)
			return &out->vms[i];
	return NULL;
}

/* Keep the other threads ascending after the debugfs swap-removal. */
static void sort_other(struct hv_vm *vm)
{
	size_t a, b;

	for (a = 1; a < vm->n_other; a++)
		for (b = a; b > 0 && vm->other_tids[b - 1] > vm->other_tids[b]; b--) {
			int t = vm->other_tids[b];

			vm->other_tids[b] = vm->other_tids[b - 1];
			vm->other_tids[b - 1] = t;
		}
}

static void scan_one(const struct hv_ctx *ctx, int pid, uint64_t start_ticks, char *const *argv,
		     size_t argc, struct hv_vm_list *out)
{
	struct hv_vm *vm = hv_vm_list_add(out, HVA_KVM);
	struct task_cgroup cg;
	const char *accel = accel_from_cmdline(argv, argc), *cgpath = NULL;
	int *tids = NULL;
	size_t nt = 0, i, cap_other = 0;
	bool from_comm = false;

	vm->pid = pid;
	vm->start_ticks = start_ticks;
	vm->name = kvm_name_from_cmdline(argv, argc);
	if (vm->name)
		vm->name_source = xstrdup("cmdline");
	if (!task_cgroup_read(ctx->root, pid, 0, &cg, NULL)) {
		cgpath = pick_cgroup(&cg, &vm->cgroup_version);
		if (cgpath) {
			vm->cgroup = kvm_vm_cgroup(cgpath);
			vm->cgroup_dir = cgroup_dir(ctx->root, vm->cgroup, vm->cgroup_version);
			if (!vm->name && (vm->name = kvm_name_from_cgroup(vm->cgroup)))
				vm->name_source = xstrdup("libvirt cgroup");
		}
		task_cgroup_release(&cg);
	}
	if (!vm->name) {
		vm->name = xasprintf("qemu-%d", pid);
		vm->name_source = xstrdup("pid");
	}
	vm->mem_size = mem_from_cmdline(argv, argc);
	vm_pci(ctx->root, argv, argc, &vm->pci, &vm->n_pci);
	vm->vnodes = kvm_vnuma_from_cmdline(argv, argc, &vm->n_vnodes);
	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-uuid") || !strcmp(argv[i], "--uuid"))
			vm->uuid = xstrdup(argv[i + 1]);

	/* vCPU threads by name: "CPU n/KVM", "CPU n/TCG" (debug-threads=on) */
	task_list(ctx->root, pid, &tids, &nt, NULL);
	for (i = 0; i < nt; i++) {
		struct task_stat st;
		struct hv_vcpu *v;
		char acc[16];
		int idx;

		if (task_stat_read(ctx->root, pid, tids[i], &st, NULL))
			continue;
		if (sscanf(st.comm, "CPU %d/%15s", &idx, acc) == 2 && idx >= 0) {
			v = hv_vm_add_vcpu(vm);
			v->index = idx;
			hv_read_thread(ctx, pid, tids[i], v);
			if (!accel)
				accel = !strcmp(acc, "KVM") ? "kvm" : !strcmp(acc, "TCG") ? "tcg" : NULL;
			from_comm = true;
		} else {
			enum hv_io_kind kind;
			int id;

			VP_GROW(vm->other_tids, cap_other, vm->n_other + 1);
			vm->other_tids[vm->n_other++] = tids[i];
			if (io_kind_of(st.comm, pid, tids[i], &kind, &id))
				io_read(ctx, pid, &st, add_io(vm, kind, id, tids[i]), true);
		}
	}
	if (from_comm)
		snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "vCPU threads named 'CPU n/...'");
	else
		vcpus_from_debugfs(ctx, vm, &accel);
	if (vm->n_vcpus > 1)
		qsort(vm->vcpus, vm->n_vcpus, sizeof(*vm->vcpus), cmp_vcpu);
	sort_other(vm);
	for (i = 0; i < vm->n_vcpus; i++) {
		struct hv_vcpu *v = &vm->vcpus[i];
		struct task_cgroup tc;
		int ver;

		if (task_cgroup_read(ctx->root, pid, v->tid, &tc, NULL))
			continue;
		cgpath = pick_cgroup(&tc, &ver);
		if (cgpath && vm->cgroup && strcmp(cgpath, vm->cgroup))
			v->cgroup = xstrdup(cgpath);
		task_cgroup_release(&tc);
	}
	vm->accel = accel ? xstrdup(accel) : NULL;
	free(tids);
	read_guest_ram(ctx, vm);
	read_run_state(ctx, vm, argv, argc);
	if (!vm->alias) /* KubeVirt's libvirt runs in the pod: no status file here */
		vm->alias = kvm_vm_alias(vm->name, NULL, vm->cgroup, &vm->alias_source);
}

static int kvm_scan_cached(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err);

int hv_kvm_scan(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err)
{
	int *pids = NULL, ret, owner;
	size_t n = 0, i, first = out->n, nvh = 0, capvh = 0;
	struct { int tid, owner; } *vh = NULL;

	if (ctx->cache)
		return kvm_scan_cached(ctx, out, err);
	ret = proc_list(ctx->root, &pids, &n, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct task_stat st;
		char **argv = NULL;
		size_t argc = 0;

		/* processes vanish while we look: skip them quietly */
		if (proc_cmdline(ctx->root, pids[i], &argv, &argc, NULL))
			goto next;
		if (!argc) { /* a kernel thread: a QEMU's vhost worker? */
			if (!task_stat_read(ctx->root, pids[i], 0, &st, NULL) &&
			    vhost_owner(st.comm, &owner)) {
				VP_GROW(vh, capvh, nvh + 1);
				vh[nvh].tid = pids[i];
				vh[nvh++].owner = owner;
			}
			goto next;
		}
		if (task_stat_read(ctx->root, pids[i], 0, &st, NULL))
			goto next;
		if (kvm_is_qemu(argv[0], st.comm))
			scan_one(ctx, pids[i], st.starttime, argv, argc, out);
next:
		vp_free_names(argv, argc);
	}
	for (i = 0; i < nvh; i++) {
		struct hv_vm *vm = vm_of_pid(out, first, vh[i].owner);

		if (vm)
			io_read(ctx, vh[i].tid, NULL, add_io(vm, HV_IO_VHOST, -1, vh[i].tid), true);
	}
	for (i = first; i < out->n; i++)
		if (out->vms[i].n_io > 1)
			qsort(out->vms[i].io, out->vms[i].n_io, sizeof(*out->vms[i].io), cmp_io);
	free(vh);
	free(pids);
	return 0;
}

/*
 * The cached scan (hv_ctx.cache, hv.h): what a periodic caller's scans keep
 * in between, so that a scan reads what may have changed, not the host.
 */

/* First listed less than this long ago: looked at each scan (a fork's exec, a thread's name). */
#define YOUNG_NS 2000000000ull
/* A QEMU maps its guest RAM as it starts: looked for at each scan this long. */
#define MEM_YOUNG_NS 30000000000ull
/* A state source that did not answer is asked again after this long at the least. */
#define STATE_FAILED_NS 30000000000ull

static bool due(uint64_t now, uint64_t last, uint64_t every)
{
	return !last || now - last >= every;
}

static void close_fds(struct hv_cache *c, struct kvm_thread *t)
{
	if (!t->have_fds)
		return;
	close(t->fd_stat);
	close(t->fd_sched);
	t->have_fds = false;
	c->n_fds -= 2;
}

static void close_lfd(struct hv_cache *c, struct kvm_proc *p)
{
	if (!p->have_lfd)
		return;
	close(p->fd_lstat);
	p->have_lfd = false;
	c->n_fds--;
}

/*
 * Room for n more kept descriptors: at most a quarter of the hard limit of
 * RLIMIT_NOFILE (the counters open theirs after the scan, and fd_budget() in
 * src/pmu/counter.c counts these among those already open), the soft limit
 * raised towards it when needed.
 */
static bool fd_room(struct hv_cache *c, size_t n)
{
	struct rlimit rl;
	rlim_t cap, want;

	if (!c->o.keep_fds || getrlimit(RLIMIT_NOFILE, &rl))
		return false;
	cap = rl.rlim_max == RLIM_INFINITY ? (rlim_t)1 << 20 : rl.rlim_max / 4;
	if ((rlim_t)(c->n_fds + n) > cap)
		return false;
	/* the kept ones plus room for everything else the process has open at the time */
	want = (rlim_t)(c->n_fds + n) * 2 + 256;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rl.rlim_cur = want < rl.rlim_max || rl.rlim_max == RLIM_INFINITY ? want : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur < want)
			return false;
	}
	return true;
}

/* Keep a vCPU thread's stat and schedstat open, when there is room. */
static void open_fds(struct hv_cache *c, const struct hv_ctx *ctx, int pid,
		     struct kvm_thread *t)
{
	int a, b;

	if (t->have_fds || !fd_room(c, 2))
		return;
	a = task_file_open(ctx->root, pid, t->tid, "stat");
	if (a < 0)
		return;
	b = task_file_open(ctx->root, pid, t->tid, "schedstat");
	if (b < 0) {
		close(a);
		return;
	}
	t->fd_stat = a;
	t->fd_sched = b;
	t->have_fds = true;
	c->n_fds += 2;
}

static void thread_release(struct hv_cache *c, struct kvm_thread *t)
{
	close_fds(c, t);
	cpulist_release(&t->affinity);
	free(t->cgroup);
}

static void proc_release(struct hv_cache *c, struct kvm_proc *p)
{
	size_t i;

	close_lfd(c, p);

	vp_free_names(p->argv, p->argc);
	free(p->name);
	free(p->name_source);
	free(p->uuid);
	free(p->cgroup);
	free(p->cgroup_dir);
	for (i = 0; i < p->n_th; i++)
		thread_release(c, &p->th[i]);
	free(p->th);
	free(p->mem_node);
	free(p->alias);
	free(p->alias_source);
	free(p->xml_uuid);
	hv_pcidevs_free(p->pci, p->n_pci);
	hv_vnodes_free(p->vnodes, p->n_vnodes);
	cpulist_release(&p->vh_aff);
	memset(p, 0, sizeof(*p));
}

void kvm_cache_release(struct hv_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		proc_release(c, &c->p[i]);
	free(c->p);
	c->p = NULL;
	c->n = c->cap = 0;
}

/* The leader thread's stat (/proc/PID/stat sums every thread's times: dearer), else the process's. */
static int leader_stat(const char *root, int pid, struct task_stat *st)
{
	if (!task_stat_read(root, pid, pid, st, NULL))
		return 0;
	return task_stat_read(root, pid, 0, st, NULL);
}

/* A QEMU leader's stat through its kept descriptor, opened at the first scan that finds it. */
static int qemu_leader_stat(struct hv_cache *c, const char *root, struct kvm_proc *p,
			    struct task_stat *st)
{
	int fd;

	if (p->have_lfd) {
		if (!task_stat_fd(p->fd_lstat, st, NULL))
			return 0;
		close_lfd(c, p); /* gone (ESRCH), or the pid is another process's now */
		return leader_stat(root, p->pid, st);
	}
	if (leader_stat(root, p->pid, st))
		return -ESRCH;
	if (fd_room(c, 1) && (fd = task_file_open(root, p->pid, p->pid, "stat")) >= 0) {
		p->fd_lstat = fd;
		p->have_lfd = true;
		c->n_fds++;
	}
	return 0;
}

/* The process's cgroup, and the name it gives when the command line has none. */
static void proc_cgroup(const struct hv_ctx *ctx, struct kvm_proc *p, uint64_t now)
{
	struct task_cgroup cg;
	const char *cgpath;
	size_t i;

	char *was = p->cgroup;

	free(p->cgroup_dir);
	free(p->name);
	free(p->name_source);
	free(p->uuid);
	p->cgroup = p->cgroup_dir = p->name = p->name_source = p->uuid = NULL;
	p->cgroup_version = 0;
	p->name = kvm_name_from_cmdline(p->argv, p->argc);
	if (p->name)
		p->name_source = xstrdup("cmdline");
	if (!task_cgroup_read(ctx->root, p->pid, 0, &cg, NULL)) {
		cgpath = pick_cgroup(&cg, &p->cgroup_version);
		if (cgpath) {
			p->cgroup = kvm_vm_cgroup(cgpath);
			p->cgroup_dir = cgroup_dir(ctx->root, p->cgroup, p->cgroup_version);
			if (!p->name && (p->name = kvm_name_from_cgroup(p->cgroup)))
				p->name_source = xstrdup("libvirt cgroup");
		}
		task_cgroup_release(&cg);
	}
	if (!p->name) {
		p->name = xasprintf("qemu-%d", p->pid);
		p->name_source = xstrdup("pid");
	}
	/* its threads' cgroups are read again when it moved (thread_cgroup_due()) */
	if ((was == NULL) != (p->cgroup == NULL) || (was && strcmp(was, p->cgroup)))
		p->cg_changed_ns = now;
	free(was);
	for (i = 1; i + 1 < p->argc; i++)
		if (!strcmp(p->argv[i], "-uuid") || !strcmp(p->argv[i], "--uuid")) {
			free(p->uuid);
			p->uuid = xstrdup(p->argv[i + 1]);
		}
	p->cg_ns = now;
}

/* List the threads again, keeping what is known of those still there (both ascending). */
static void list_threads(const struct hv_ctx *ctx, struct kvm_proc *p, uint64_t now,
			 int num_threads)
{
	struct hv_cache *c = ctx->cache;
	int *tids = NULL;
	size_t nt = 0, i, j = 0;
	struct kvm_thread *th;

	task_list(ctx->root, p->pid, &tids, &nt, NULL);
	th = xcalloc(nt + 1, sizeof(*th));
	for (i = 0; i < nt; i++) {
		while (j < p->n_th && p->th[j].tid < tids[i])
			thread_release(c, &p->th[j++]);
		if (j < p->n_th && p->th[j].tid == tids[i]) {
			th[i] = p->th[j++];
			continue;
		}
		th[i].tid = tids[i];
		th[i].index = -1;
		th[i].io_id = -1;
		th[i].first_ns = now;
		cpulist_init(&th[i].affinity);
	}
	while (j < p->n_th)
		thread_release(c, &p->th[j++]);
	free(p->th);
	free(tids);
	p->th = th;
	p->n_th = nt;
	p->cap_th = nt + 1;
	p->num_threads = num_threads;
	p->list_ns = now;
	p->relist = false;
}

/*
 * A live thread's affinity from sched_getaffinity(): one system call instead of
 * its status file (which the kernel formats in full for one line).  The kernel
 * gives the allowed CPUs that are active, Cpus_allowed_list all allowed ones:
 * the same on a host whose CPUs are all online.  false when it cannot say.
 */
static bool live_affinity(int tid, struct cpulist *cl)
{
	const int max = 8192;
	size_t size = CPU_ALLOC_SIZE(max);
	cpu_set_t *set = CPU_ALLOC(max);
	int i, left;
	bool ok = set && !sched_getaffinity(tid, size, set);

	for (i = 0, left = ok ? CPU_COUNT_S(size, set) : 0; i < max && left > 0; i++)
		if (CPU_ISSET_S(i, size, set)) {
			cpulist_add(cl, i);
			left--;
		}
	if (set)
		CPU_FREE(set);
	return ok;
}

/*
 * A thread's cgroup (a libvirt vCPU's own vcpuN, or its VM's) is read every
 * slow_ns while its process is young (CG_YOUNG_X slow_ns since first seen:
 * libvirt moves the vCPU threads while the VM starts), then every CG_SLOW_X
 * slow_ns, and at once when its VM's cgroup moved: read every 10 s, it was a
 * sixth of the daemon's scan at 1,000 vCPUs (a path lookup, open and read).
 */
#define CG_YOUNG_X 3
#define CG_SLOW_X 6

static bool thread_cgroup_due(const struct hv_cache *c, const struct kvm_proc *p,
			      const struct kvm_thread *t, uint64_t now)
{
	return !t->cg_ns || t->cg_ns < p->cg_changed_ns ||
	       due(now, t->cg_ns, now - p->first_ns < CG_YOUNG_X * c->o.slow_ns ? c->o.slow_ns :
			  CG_SLOW_X * c->o.slow_ns);
}

/* A vCPU thread's affinity, read every slow_ns, and its cgroup when cg. */
static void thread_slow(const struct hv_ctx *ctx, const struct kvm_proc *p, struct kvm_thread *t,
			uint64_t now, bool cg)
{
	struct task_status status;
	struct task_cgroup tc;
	const char *cgpath;
	int ver;

	cpulist_release(&t->affinity);
	cpulist_init(&t->affinity);
	t->have_affinity = false;
	if (!vp_root_is_fixture(ctx->root) && live_affinity(t->tid, &t->affinity)) {
		t->have_affinity = true;
	} else if (!task_status_read(ctx->root, p->pid, t->tid, &status, NULL)) {
		if (status.have_cpus) {
			cpulist_copy(&t->affinity, &status.cpus_allowed);
			t->have_affinity = true;
		}
		task_status_release(&status);
	}
	t->slow_ns = now;
	if (!cg)
		return;
	free(t->cgroup);
	t->cgroup = NULL;
	if (!task_cgroup_read(ctx->root, p->pid, t->tid, &tc, NULL)) {
		cgpath = pick_cgroup(&tc, &ver);
		if (cgpath && p->cgroup && strcmp(cgpath, p->cgroup))
			t->cgroup = xstrdup(cgpath);
		task_cgroup_release(&tc);
	}
	t->cg_ns = now;
}

/*
 * A vCPU's run time and run-queue wait for this scan (now): with ss, what its
 * schedstat says (the first read starts the totals, and each read after adds its
 * change, so totals read at consecutive scans change exactly as schedstat did);
 * without, the rates over its last two reads times the time since the previous
 * scan (never negative: the totals only grow).  true when their change at this
 * scan is exactly schedstat's (read now and at the previous scan, or first read).
 */
static bool sched_advance(struct kvm_thread *t, const struct task_schedstat *ss, uint64_t now)
{
	bool exact = false;

	if (ss) {
		if (t->ss_read_ns && now > t->ss_read_ns && ss->run_ns >= t->ss_run &&
		    ss->wait_ns >= t->ss_wait) {
			uint64_t win = now - t->ss_read_ns;

			t->rate_run = (double)(ss->run_ns - t->ss_run) / (double)win;
			t->rate_wait = (double)(ss->wait_ns - t->ss_wait) / (double)win;
			t->ss_window_ns = win;
			if (t->scan_ns == t->ss_read_ns) {     /* read at the previous scan too */
				t->acc_run += ss->run_ns - t->ss_run;
				t->acc_wait += ss->wait_ns - t->ss_wait;
				exact = true;
			} else {
				t->acc_run += (uint64_t)(t->rate_run * (double)(now - t->scan_ns));
				t->acc_wait += (uint64_t)(t->rate_wait * (double)(now - t->scan_ns));
			}
		} else if (!t->ss_read_ns || ss->run_ns < t->ss_run || ss->wait_ns < t->ss_wait) {
			/* the first read (or a tid used again): the totals start here */
			t->acc_run = ss->run_ns;
			t->acc_wait = ss->wait_ns;
			t->ss_window_ns = 0;
			exact = true;
		}
		t->ss_run = ss->run_ns;
		t->ss_wait = ss->wait_ns;
		t->ss_read_ns = now;
	} else if (t->scan_ns && now > t->scan_ns) {
		t->acc_run += (uint64_t)(t->rate_run * (double)(now - t->scan_ns));
		t->acc_wait += (uint64_t)(t->rate_wait * (double)(now - t->scan_ns));
	}
	t->scan_ns = now;
	return exact;
}

/* The threads: vCPUs by name, read at every scan; the others looked at while young, then seldom. */
static void scan_threads(const struct hv_ctx *ctx, struct hv_cache *c, struct kvm_proc *p,
			 struct hv_vm *vm, uint64_t now, const char **accel, uint64_t *run)
{
	size_t i, cap_other = 0;

	for (i = 0; i < p->n_th; i++) {
		struct kvm_thread *t = &p->th[i];
		struct task_stat st;
		struct task_schedstat ss;
		struct hv_vcpu *v;
		char acc[16];
		int idx, cpu = -1;
		bool have_ss = false, stat_read = true;

		bool st_ok = false;

		if (t->index < 0 && !t->io && t->named_ns && now - t->first_ns >= YOUNG_NS &&
		    !due(now, t->named_ns, c->o.recheck_ns))
			goto other;
		/* a vCPU whose CPU the source knows: its stat and schedstat on the stat_ns
		 * clock (once their rates are known: two reads), its run time and run-queue
		 * wait advanced at those rates at the other scans (sched_advance()); a thread
		 * that ends shows in the leader's thread count, or the relisting every
		 * recheck_ns */
		if (t->index >= 0 && t->have_fds && c->o.stat_ns && c->cpu_src.cpu_of &&
		    t->stat_ns && t->ss_window_ns && !due(now, t->stat_ns, c->o.stat_ns) &&
		    (cpu = c->cpu_src.cpu_of(c->cpu_src.arg, t->tid)) >= 0) {
			stat_read = false;
			memset(&st, 0, sizeof(st));
			st.tid = t->tid;
			snprintf(st.comm, sizeof(st.comm), "CPU %d/%s", t->index, t->acc);
			st.state = t->state;
			st.processor = cpu;
			st.utime = t->ticks;
		} else if (t->have_fds ? task_stat_fd(t->fd_stat, &st, NULL) :
				  task_stat_read(ctx->root, p->pid, t->tid, &st, NULL)) {
			close_fds(c, t); /* a tid used again is another thread: opened anew */
			p->relist = true; /* gone: the threads are listed again at the next scan */
			continue;
		}
		t->named_ns = now;
		st_ok = stat_read;
		if (sscanf(st.comm, "CPU %d/%15s", &idx, acc) != 2 || idx < 0) {
			enum hv_io_kind kind;

			t->index = -1;
			close_fds(c, t);
			t->io = io_kind_of(st.comm, p->pid, t->tid, &kind, &t->io_id) ? 1 + (int)kind : 0;
			goto other;
		}
		t->io = 0;
		open_fds(c, ctx, p->pid, t);
		if (t->index != idx)
			t->slow_ns = t->cg_ns = 0;
		t->index = idx;
		if (stat_read) {
			snprintf(t->acc, sizeof(t->acc), "%s", acc);
			t->state = st.state;
			t->ticks = st.utime + st.stime;
			/* the first read spread over the clock, so that the vCPUs' stats do not
			 * all come due at one scan (the second, for the rates, keeps it) */
			if (!t->stat_ns || !c->o.stat_ns)
				t->stat_ns = t->stat_ns || !c->o.stat_ns ? now :
					     now - (uint64_t)(t->tid % 64) * (c->o.stat_ns / 64);
			else if (due(now, t->stat_ns, c->o.stat_ns))
				t->stat_ns = now;
		}
		v = hv_vm_add_vcpu(vm);
		v->index = idx;
		v->tid = t->tid;
		v->comm = xstrdup(st.comm);
		v->state[0] = st.state;
		v->state[1] = '\0';
		v->cpu = st.processor;
		v->node = hv_cpu_node(ctx, v->cpu);
		v->cpu_time_s = (double)(st.utime + st.stime) / (double)task_ticks_per_sec();
		if (due(now, t->slow_ns, c->o.slow_ns))
			thread_slow(ctx, p, t, now, thread_cgroup_due(c, p, t, now));
		if (t->have_affinity)
			cpulist_copy(&v->affinity, &t->affinity);
		if (t->cgroup)
			v->cgroup = xstrdup(t->cgroup);
		if (!stat_read)
			have_ss = true;
		else
			have_ss = !(t->have_fds ? task_schedstat_fd(t->fd_sched, &ss, NULL) :
				    task_schedstat_read(ctx->root, p->pid, t->tid, &ss, NULL));
		if (have_ss) {
			uint64_t before = t->acc_run;
			bool had = t->scan_ns != 0;

			bool exact = sched_advance(t, stat_read ? &ss : NULL, now);

			v->run_ns = t->acc_run;
			v->wait_ns = t->acc_wait;
			v->sched_window_ns = exact ? 0 : t->ss_window_ns;
			v->have_run_ns = true;
			if (had && t->acc_run >= before)
				*run += t->acc_run - before;
		}
		if (!*accel)
			*accel = !strcmp(acc, "KVM") ? "kvm" : !strcmp(acc, "TCG") ? "tcg" : NULL;
		continue;
other:
		VP_GROW(vm->other_tids, cap_other, vm->n_other + 1);
		vm->other_tids[vm->n_other++] = t->tid;
		if (t->io && st_ok) {
			struct hv_iothread *io = add_io(vm, (enum hv_io_kind)(t->io - 1), t->io_id,
							t->tid);

			io_read(ctx, p->pid, &st, io, false);
			if (due(now, t->slow_ns, c->o.slow_ns))
				thread_slow(ctx, p, t, now, thread_cgroup_due(c, p, t, now));
			if (t->have_affinity)
				cpulist_copy(&io->affinity, &t->affinity);
		}
	}
}

/*
 * Guest RAM per node from numa_maps, on its own clock: every mem_min_ns at the
 * most often, and so seldom that the numa_maps of all the host's VMs (those of
 * the last scan) take 1/mem_cost_x of a core together: this VM's read time x
 * mem_cost_x x the number of VMs.
 */
static void cached_guest_ram(const struct hv_ctx *ctx, const struct hv_cache *c,
			     struct kvm_proc *p, struct hv_vm *vm, uint64_t now)
{
	uint64_t every = c->o.mem_min_ns;
	uint64_t by_cost = p->mem_cost_ns * c->o.mem_cost_x * (c->n_qemu ? c->n_qemu : 1);

	if (by_cost > every)
		every = by_cost;
	/* none found yet (a QEMU still starting, its RAM not mapped): looked for at each scan in
	 * its first MEM_YOUNG_NS, then on the clock (a QEMU whose RAM this cannot find would
	 * otherwise cost a numa_maps read at every scan for ever: 13 % of record's CPU at 50 VMs) */
	if (!p->have_mem || (!p->n_mem_nodes && now - p->first_ns < MEM_YOUNG_NS) ||
	    due(now, p->mem_ns, every)) {
		struct hv_vm tmp;
		uint64_t t0 = vp_now_ns();

		memset(&tmp, 0, sizeof(tmp));
		tmp.pid = p->pid;
		tmp.vnodes = p->vnodes; /* their pages found in place, kept with p */
		tmp.n_vnodes = p->n_vnodes;
		read_guest_ram(ctx, &tmp);
		p->mem_cost_ns = vp_now_ns() - t0;
		free(p->mem_node);
		p->mem_node = tmp.mem_node;
		p->n_mem_nodes = tmp.n_mem_nodes;
		p->mem_size = tmp.mem_size;
		memcpy(p->mem_reason, tmp.mem_reason, sizeof(p->mem_reason));
		p->mem_ns = now;
		p->have_mem = true;
	}
	vm->n_mem_nodes = p->n_mem_nodes;
	if (p->mem_node && p->n_mem_nodes > 0) {
		vm->mem_node = xcalloc((size_t)p->n_mem_nodes, sizeof(uint64_t));
		memcpy(vm->mem_node, p->mem_node, (size_t)p->n_mem_nodes * sizeof(uint64_t));
	}
	if (p->mem_size)
		vm->mem_size = p->mem_size;
	if ((c->o.mem_min_ns || c->o.mem_cost_x) && p->n_mem_nodes) {
		struct sbuf sb = SBUF_INIT;

		sbuf_addf(&sb, "%s; re-read every %.0f s at the least, all VMs' reads %.3g %% of a "
			  "core at most (now %.0f s)", p->mem_reason,
			  (double)c->o.mem_min_ns / 1e9,
			  c->o.mem_cost_x ? 100.0 / c->o.mem_cost_x : 100.0,
			  (double)(every > by_cost ? every : by_cost) / 1e9);
		snprintf(vm->mem_reason, sizeof(vm->mem_reason), "%s", sbuf_str(&sb));
		sbuf_release(&sb);
	} else {
		memcpy(vm->mem_reason, p->mem_reason, sizeof(vm->mem_reason));
	}
}

/*
 * Paused or running, asked again only when something says it may have
 * changed: libvirt's status file changed, the vCPUs' run time in the last
 * interval changed by a factor of 4 (a pause stops them, a resume starts
 * them), or state_ns passed (STATE_FAILED_NS for a source that did not
 * answer: a QMP monitor another client holds costs up to 250 ms a time).
 */
static void cached_run_state(const struct hv_ctx *ctx, const struct hv_cache *c,
			     struct kvm_proc *p, struct hv_vm *vm, uint64_t now, uint64_t run,
			     bool have_run)
{
	bool ask = !p->state_asked || !c->o.state_ns, xml_changed = false;
	uint64_t every = p->state_failed && c->o.state_ns ? STATE_FAILED_NS : c->o.state_ns;

	if (vm->name && *vm->name && !strchr(vm->name, '/') && vm->name[0] != '.') {
		char *path = xasprintf("/run/libvirt/qemu/%s.xml", vm->name);
		char *full = vp_path(ctx->root, path);
		struct stat sb;

		if (!stat(full, &sb)) {
			xml_changed = !p->xml_known || sb.st_size != p->xml_size ||
				      sb.st_mtim.tv_sec != p->xml_mtime.tv_sec ||
				      sb.st_mtim.tv_nsec != p->xml_mtime.tv_nsec;
			p->xml_known = true;
			p->xml_size = sb.st_size;
			p->xml_mtime = sb.st_mtim;
		} else {
			xml_changed = p->xml_known;
			p->xml_known = false;
		}
		free(full);
		free(path);
	}
	if (have_run && p->have_run_prev && (run > 4 * p->run_prev || 4 * run < p->run_prev))
		ask = true;
	if (have_run) {
		p->run_prev = run;
		p->have_run_prev = true;
	}
	if (ask || xml_changed || due(now, p->state_ns, every)) {
		vm->paused = -1;
		vm->state_source[0] = '\0';
		read_run_state(ctx, vm, p->argv, p->argc);
		free(p->alias);
		free(p->alias_source);
		free(p->xml_uuid);
		p->alias = vm->alias ? xstrdup(vm->alias) : NULL;
		p->alias_source = vm->alias_source ? xstrdup(vm->alias_source) : NULL;
		p->xml_uuid = vm->uuid && !p->uuid ? xstrdup(vm->uuid) : NULL;
		p->paused = vm->paused;
		memcpy(p->state_source, vm->state_source, sizeof(p->state_source));
		p->state_failed = vm->paused < 0;
		p->state_asked = true;
		p->state_ns = now;
		return;
	}
	vm->paused = p->paused;
	memcpy(vm->state_source, p->state_source, sizeof(vm->state_source));
	vm->alias = p->alias ? xstrdup(p->alias) : NULL;
	vm->alias_source = p->alias_source ? xstrdup(p->alias_source) : NULL;
	if (!vm->uuid && p->xml_uuid)
		vm->uuid = xstrdup(p->xml_uuid);
}

static void scan_cached_one(const struct hv_ctx *ctx, struct hv_cache *c, struct kvm_proc *p,
			    const struct task_stat *st, uint64_t now, struct hv_vm_list *out)
{
	struct hv_vm *vm = hv_vm_list_add(out, HVA_KVM);
	const char *accel = accel_from_cmdline(p->argv, p->argc);
	uint64_t run = 0;
	bool have_run;

	if (due(now, p->cg_ns, c->o.slow_ns))
		proc_cgroup(ctx, p, now);
	vm->pid = p->pid;
	vm->start_ticks = p->start_ticks;
	vm->name = xstrdup(p->name);
	vm->name_source = xstrdup(p->name_source);
	vm->uuid = p->uuid ? xstrdup(p->uuid) : NULL;
	vm->cgroup = p->cgroup ? xstrdup(p->cgroup) : NULL;
	vm->cgroup_dir = p->cgroup_dir ? xstrdup(p->cgroup_dir) : NULL;
	vm->cgroup_version = p->cgroup_version;
	vm->mem_size = mem_from_cmdline(p->argv, p->argc);
	vm->pci = hv_pcidevs_dup(p->pci, p->n_pci);
	vm->n_pci = vm->pci ? p->n_pci : 0;
	if (!p->list_ns || p->relist || st->num_threads != p->num_threads ||
	    due(now, p->list_ns, c->o.recheck_ns))
		list_threads(ctx, p, now, st->num_threads);
	scan_threads(ctx, c, p, vm, now, &accel, &run);
	have_run = vm->n_vcpus > 0;
	if (vm->n_vcpus) {
		snprintf(vm->vcpu_reason, sizeof(vm->vcpu_reason), "vCPU threads named 'CPU n/...'");
	} else {
		size_t i;

		vcpus_from_debugfs(ctx, vm, &accel);
		for (i = 0; i < vm->n_vcpus; i++) {
			struct hv_vcpu *v = &vm->vcpus[i];
			struct task_cgroup tc;
			const char *cgpath;
			int ver;

			if (task_cgroup_read(ctx->root, p->pid, v->tid, &tc, NULL))
				continue;
			cgpath = pick_cgroup(&tc, &ver);
			if (cgpath && vm->cgroup && strcmp(cgpath, vm->cgroup))
				v->cgroup = xstrdup(cgpath);
			task_cgroup_release(&tc);
		}
	}
	if (vm->n_vcpus > 1)
		qsort(vm->vcpus, vm->n_vcpus, sizeof(*vm->vcpus), cmp_vcpu);
	sort_other(vm);
	vm->accel = accel ? xstrdup(accel) : NULL;
	cached_guest_ram(ctx, c, p, vm, now);
	vm->vnodes = hv_vnodes_dup(p->vnodes, p->n_vnodes);
	vm->n_vnodes = vm->vnodes ? p->n_vnodes : 0;
	cached_run_state(ctx, c, p, vm, now, run, have_run);
	if (!vm->alias) /* KubeVirt's libvirt runs in the pod: no status file here */
		vm->alias = kvm_vm_alias(vm->name, NULL, vm->cgroup, &vm->alias_source);
}

static int kvm_scan_cached(const struct hv_ctx *ctx, struct hv_vm_list *out, struct vp_err *err)
{
	struct hv_cache *c = ctx->cache;
	uint64_t now = vp_now_ns();
	int *pids = NULL, ret;
	size_t n = 0, i, j = 0, k = 0, n_qemu = 0, first = out->n, nvh = 0, capvh = 0;
	size_t *vh = NULL;           /* np's vhost kernel threads */
	struct kvm_proc *np;

	ret = proc_list(ctx->root, &pids, &n, err);
	if (ret)
		return ret;
	if (c->cpu_src.begin)
		c->cpu_src.begin(c->cpu_src.arg);
	np = xcalloc(n + 1, sizeof(*np));
	for (i = 0; i < n; i++) {
		struct kvm_proc *p = &np[k];
		struct task_stat st;
		char **argv = NULL;
		size_t argc = 0;

		while (j < c->n && c->p[j].pid < pids[i])
			proc_release(c, &c->p[j++]);
		if (j < c->n && c->p[j].pid == pids[i]) {
			*p = c->p[j++];
		} else {
			p->pid = pids[i];
			p->first_ns = now;
		}
		if (p->qemu) {
			if (qemu_leader_stat(c, ctx->root, p, &st)) {
				proc_release(c, p); /* gone since the listing */
				continue;
			}
			if (st.starttime != p->start_ticks) { /* another process behind the pid */
				proc_release(c, p);
				p->pid = pids[i];
				p->first_ns = now;
			}
		}
		if (!p->qemu) {
			if (p->vhost_of > 0) { /* a vhost worker: read with its QEMU, below */
				VP_GROW(vh, capvh, nvh + 1);
				vh[nvh++] = k++;
				continue;
			}
			if (p->kthread || (p->checked_ns && now - p->first_ns >= YOUNG_NS &&
					   !due(now, p->checked_ns, c->o.recheck_ns))) {
				k++;
				continue;
			}
			p->checked_ns = now;
			/* processes vanish while we look: skip them quietly */
			if (proc_cmdline(ctx->root, p->pid, &argv, &argc, NULL) || !argc ||
			    leader_stat(ctx->root, p->pid, &st) || !kvm_is_qemu(argv[0], st.comm)) {
				/* a kernel thread: a QEMU's vhost worker, or never looked at again */
				if (!argc && !leader_stat(ctx->root, p->pid, &st)) {
					if (vhost_owner(st.comm, &p->vhost_of)) {
						VP_GROW(vh, capvh, nvh + 1);
						vh[nvh++] = k;
					} else if (now - p->first_ns >= YOUNG_NS &&
						   (st.ppid == 2 || p->pid == 2)) {
						p->kthread = true; /* kthreadd names it as it starts */
					}
				}
				vp_free_names(argv, argc);
				k++;
				continue;
			}
			p->qemu = true;
			p->argv = argv;
			p->argc = argc;
			vm_pci(ctx->root, argv, argc, &p->pci, &p->n_pci);
			p->vnodes = kvm_vnuma_from_cmdline(argv, argc, &p->n_vnodes);
			p->start_ticks = st.starttime;
		}
		scan_cached_one(ctx, c, p, &st, now, out);
		n_qemu++;
		k++;
	}
	/* the vhost kernel threads, with their QEMU's VM: their stat at every scan (a gone or
	 * renamed one is looked at afresh), their affinity every slow_ns */
	for (i = 0; i < nvh; i++) {
		struct kvm_proc *p = &np[vh[i]];
		struct hv_vm *vm = vm_of_pid(out, first, p->vhost_of);
		struct task_stat st;
		struct hv_iothread *io;
		int owner;

		if (!vm)
			continue;
		if (task_stat_read(ctx->root, p->pid, p->pid, &st, NULL) ||
		    !vhost_owner(st.comm, &owner) || owner != p->vhost_of) {
			p->vhost_of = 0; /* gone, or its pid another's: looked at afresh */
			p->checked_ns = 0;
			p->first_ns = now;
			continue;
		}
		io = add_io(vm, HV_IO_VHOST, -1, p->pid);
		if (due(now, p->vh_aff_ns, c->o.slow_ns)) {
			io_read(ctx, p->pid, &st, io, true);
			cpulist_release(&p->vh_aff);
			cpulist_copy(&p->vh_aff, &io->affinity);
			p->vh_aff_ns = now;
		} else {
			io_read(ctx, p->pid, &st, io, false);
			cpulist_copy(&io->affinity, &p->vh_aff);
		}
	}
	for (i = first; i < out->n; i++)
		if (out->vms[i].n_io > 1)
			qsort(out->vms[i].io, out->vms[i].n_io, sizeof(*out->vms[i].io), cmp_io);
	free(vh);
	while (j < c->n)
		proc_release(c, &c->p[j++]);
	free(c->p);
	free(pids);
	c->p = np;
	c->n = k;
	c->cap = n + 1;
	c->n_qemu = n_qemu;
	return 0;
}

/* mode='X' (or "X") of the first <memory ...> element inside <numatune>; 1 when X is restrictive. */
static int numatune_restrictive(const char *xml)
{
	const char *nt = strstr(xml, "<numatune"), *end, *mem, *mode;

	if (!nt)
		return 0; /* no <numatune>: libvirt's default, strict */
	end = strstr(nt, "</numatune>");
	mem = strstr(nt, "<memory");
	if (!mem || (end && mem > end))
		return 0;
	mode = strstr(mem, "mode=");
	if (!mode || strchr(mem, '>') < mode)
		return 0; /* <memory> without a mode: strict */
	return !strncmp(mode + 6, "restrictive", 11);
}

int kvm_libvirt_iothreads_xml(const char *xml, int *ids, int max)
{
	const char *ids_el = strstr(xml, "<iothreadids"), *end, *p;
	int n = 0, count;

	if (ids_el) {
		end = strstr(ids_el, "</iothreadids>");
		for (p = ids_el; (p = strstr(p + 1, "<iothread ")) && (!end || p < end);) {
			const char *id = strstr(p, "id=");

			if (id && id < strchr(p, '>') && n < max)
				ids[n++] = atoi(id + 4);
		}
		if (n)
			return n;
	}
	p = strstr(xml, "<iothreads>");
	if (!p)
		return 0;
	count = atoi(p + strlen("<iothreads>"));
	for (n = 0; n < count && n < max; n++)
		ids[n] = n + 1;
	return n;
}

int kvm_libvirt_iothreads(const char *root, const char *name, int *ids, int max)
{
	char *path, *xml = NULL;
	int n = -1;

	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return -1;
	path = xasprintf("/run/libvirt/qemu/%s.xml", name);
	if (!vp_read_file(root, path, &xml, NULL, NULL))
		n = kvm_libvirt_iothreads_xml(xml, ids, max);
	free(xml);
	free(path);
	return n;
}

int kvm_qemu_iothread_tid(const char *root, int pid, int id)
{
	char path[128], want[32], *comm;
	char **tids = NULL;
	size_t n = 0, i, len;
	struct vp_err err;
	int tid = -1, found = 0;

	if (pid <= 0 || id < 0)
		return -1;
	/* the kernel keeps 15 bytes of a thread's name: a longer one is not unique */
	if ((size_t)snprintf(want, sizeof(want), "IO iothread%d", id) > 15)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (vp_list_dir(root, path, &tids, &n, &err))
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/comm", pid, tids[i]);
		if (vp_read_file(root, path, &comm, NULL, &err))
			continue;
		len = strcspn(comm, "\n");
		if (len == strlen(want) && !strncmp(comm, want, len)) {
			tid = atoi(tids[i]);
			found++;
		}
		free(comm);
	}
	vp_free_names(tids, n);
	return found == 1 && tid > 0 ? tid : -1;
}

/* The value of attribute attr="..." or attr='...' of the element starting at el (heap), NULL without. */
static char *xml_attr(const char *el, const char *attr)
{
	const char *gt = strchr(el, '>'), *p = el;
	size_t len = strlen(attr);

	while ((p = strstr(p + 1, attr)) && (!gt || p < gt)) {
		const char *end;

		if ((p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n') || p[len] != '=' ||
		    (p[len + 1] != '\'' && p[len + 1] != '"'))
			continue;
		end = strchr(p + len + 2, p[len + 1]);
		if (!end || (gt && end > gt))
			return NULL;
		return xstrndup(p + len + 2, (size_t)(end - (p + len + 2)));
	}
	return NULL;
}

char *kvm_libvirt_vcpupin_xml(const char *xml, int vcpu)
{
	const char *tune = strstr(xml, "<cputune"), *end = tune ? strstr(tune, "</cputune>") : NULL;
	const char *p = tune, *el;

	while (p && (p = strstr(p + 1, "<vcpupin")) && (!end || p < end)) {
		char *v = xml_attr(p, "vcpu");
		int match = v && *v && strspn(v, "0123456789") == strlen(v) && atoi(v) == vcpu;

		free(v);
		if (match)
			return xml_attr(p, "cpuset");
	}
	/* the domain's <vcpu>, not a <vcpu id=.../> of the <vcpus> state list */
	for (el = xml; (el = strstr(el, "<vcpu")); el++) {
		if (el[5] == 's') {
			const char *gt = strchr(el, '>'), *close = strstr(el, "</vcpus>");

			if (gt && gt[-1] == '/')
				el = gt;        /* <vcpus/>: an empty list */
			else if (close)
				el = close;
			else
				break;
		} else if (el[5] == ' ' || el[5] == '>' || el[5] == '\t' || el[5] == '\n') {
			return xml_attr(el, "cpuset");
		}
	}
	return NULL;
}

int kvm_libvirt_config_vcpupin(const char *root, const char *name, int vcpu, char **cpus)
{
	char *path, *xml = NULL;
	int ret = -1;

	*cpus = NULL;
	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return -1;
	path = xasprintf("/etc/libvirt/qemu/%s.xml", name);
	if (!vp_read_file(root, path, &xml, NULL, NULL)) {
		*cpus = kvm_libvirt_vcpupin_xml(xml, vcpu);
		ret = 0;
	}
	free(xml);
	free(path);
	return ret;
}

void kvm_libvirt_domain(const char *root, const char *name, int *persistent, int *restrictive)
{
	char *path, *xml = NULL;

	*persistent = *restrictive = -1;
	if (!name || !*name || strchr(name, '/') || name[0] == '.')
		return;
	if (!vp_exists(root, "/etc/libvirt/qemu")) {
		path = xasprintf("/etc/libvirt/qemu/%s.xml", name);
		*persistent = !vp_exists(root, path);
		free(path);
	}
	path = xasprintf("/run/libvirt/qemu/%s.xml", name);
	if (!vp_read_file(root, path, &xml, NULL, NULL))
		*restrictive = numatune_restrictive(xml);
	free(xml);
	free(path);
}
