/* list.h - the kinds `vmmprof list KIND` knows, so other commands' engineers can add one */
#ifndef VP_LIST_H
#define VP_LIST_H

#include <stdbool.h>

#include "util/sbuf.h"

struct hv_vm;

struct list_opts {
	const char *root;     /* --root DIR, "/" by default */
	const char *pattern;  /* NULL: everything; else a glob, or a substring when it has no glob characters */
	bool json;
	bool raw;             /* --raw-dump: the names only, space-separated on one line (perf's) */
	bool xen_numa_dump;   /* list vms --xen-numa-dump: Xen's pages per node (opt-in) */
	bool xen_psr;         /* list vms --xen-psr: Xen's per-domain CMT/MBM (opt-in) */
	unsigned xentrace_s;  /* list vms --xentrace[=SECS]: exact residency from xentrace; 0 off */
	bool all;             /* --all: also the generic hardware events that cannot be opened here */
};

/*
 * One kind: fn appends its listing (text, or one JSON document with --json)
 * to out and returns an exit code (after printing its own error).
 */
struct list_kind {
	const char *name;     /* "events", "pmus" */
	const char *summary;
	int (*fn)(const struct list_opts *o, struct sbuf *out);
};

/* Whether s matches o->pattern (case-insensitive; always true without one). */
bool list_match(const struct list_opts *o, const char *s);
/* Whether the pattern matches a VM's name or the name its users know (its alias); ctx is the list_opts. */
bool list_keep_vm(const void *ctx, const struct hv_vm *vm);
/* Append one name of a --raw-dump line: a space before all but the first. */
void list_raw_word(struct sbuf *out, const char *name, size_t len);

int list_events(const struct list_opts *o, struct sbuf *out);
int list_pmus(const struct list_opts *o, struct sbuf *out);
int list_vms(const struct list_opts *o, struct sbuf *out);

#endif
