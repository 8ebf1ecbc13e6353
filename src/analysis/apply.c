/* apply.c - `diagnose --apply`'s plan: which advice is applied, and the exact undo of each command */
#include "analysis/apply.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/err.h"
#include "util/sbuf.h"

enum factor_id apply_rule_factor(const char *rule)
{
	if (!strcmp(rule, "io-locality") || !strcmp(rule, "pin-io-threads") ||
	    !strcmp(rule, "vnuma-fidelity"))
		return (enum factor_id)(FACTOR_N + 1);
	if (!strcmp(rule, "colocate"))
		return FACTOR_SHARING;
	if (!strcmp(rule, "spread") || !strcmp(rule, "cap-per-socket") ||
	    !strcmp(rule, "interleave"))
		return FACTOR_IMC;
	if (!strcmp(rule, "unstack-vcpus") || !strcmp(rule, "cpu-overcommit") ||
	    !strcmp(rule, "separate-smt"))
		return DIAG_FACTOR_CPU;
	return FACTOR_LOCALITY;   /* pin-vcpu-to-memory, migrate-memory and the Xen placements */
}

enum diag_confidence apply_advice_confidence(const struct diag_input *in,
					     const struct diag_result *r, size_t i)
{
	const struct diag_advice *a = &r->a[i];
	enum factor_id f = apply_rule_factor(a->rule);
	enum diag_confidence best = CONF_LOW;
	size_t k;

	for (k = 0; k < r->n_b; k++) {
		const struct diag_bottleneck *b = &r->b[k];
		bool mine = false;

		if (b->factor != f)
			continue;
		if (b->scope == DIAG_VM)
			mine = b->entity == a->vm;
		else if (b->scope == DIAG_VCPU && b->entity < in->n_vcpus)
			mine = in->vcpus[b->entity].vm == a->vm &&
			       (a->vcpu < 0 || in->vcpus[b->entity].index == a->vcpu);
		if (mine && b->confidence > best)
			best = b->confidence;
	}
	return best;
}

void apply_split_free(char **w)
{
	size_t i;

	for (i = 0; w && w[i]; i++)
		free(w[i]);
	free(w);
}

char **apply_split(const char *line, const char **why)
{
	char **w = NULL;
	size_t n = 0;
	const char *p = line;

	*why = NULL;
	for (;;) {
		char *word;
		size_t len = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n' || *p == '#')
			break;
		word = xcalloc(strlen(p) + 1, 1);
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p == '\'') {
				const char *q = strchr(p + 1, '\'');

				if (!q) {
					*why = "unterminated quote";
					free(word);
					apply_split_free(w);
					return NULL;
				}
				memcpy(word + len, p + 1, (size_t)(q - p - 1));
				len += (size_t)(q - p - 1);
				p = q + 1;
			} else if (*p == '\\' && p[1] && p[1] != '\n') {
				/* outside quotes a backslash keeps the next byte (shell_word()'s '\'') */
				word[len++] = p[1];
				p += 2;
			} else {
				word[len++] = *p++;
			}
		}
		w = xrealloc(w, (n + 2) * sizeof(char *));
		w[n++] = word;
		w[n] = NULL;
	}
	if (!w)
		w = xcalloc(1, sizeof(char *));
	return w;
}

static bool is_uint(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static size_t count(char **w)
{
	size_t n = 0;

	while (w[n])
		n++;
	return n;
}

/* Does w hold a CPU list word that is safe to put back on a command line? */
static bool cpulist_word(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && *s != '-' && *s != ',')
			return false;
	return true;
}

/* The thread's affinity before, as a CPU list safe on a command line; NULL unknown. */
static char *before_of(const struct apply_probe *pr, int tid)
{
	char *b = pr && pr->affinity && tid > 0 ? pr->affinity(pr->ctx, tid) : NULL;

	if (b && !cpulist_word(b)) {
		free(b);
		b = NULL;
	}
	return b;
}

/*
 * "virsh VERB" + the words before the CPU list, BEFORE, then the words after
 * it, less the word drop (NULL: none) — appended to sb.
 */
static void virsh_undo_add(struct sbuf *sb, char **w, size_t n, size_t cpus_at, const char *before,
			   const char *drop)
{
	size_t k;
	bool first = true;

	for (k = 0; k < n; k++) {
		/* a word as it was quoted in the advice (a VM name with a space stays one) */
		char *q;

		if (drop && !strcmp(w[k], drop))
			continue;
		q = shell_word(k == cpus_at ? before : w[k], false);
		sbuf_addf(sb, "%s%s", first ? "" : " ", q);
		first = false;
		free(q);
	}
}

static char *virsh_undo(char **w, size_t n, size_t cpus_at, const char *before)
{
	struct sbuf sb = SBUF_INIT;

	virsh_undo_add(&sb, w, n, cpus_at, before, NULL);
	return sbuf_detach(&sb);
}

static bool has_word(char **w, size_t n, const char *word)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (!strcmp(w[k], word))
			return true;
	return false;
}

/*
 * The undo of virsh vcpupin DOM V CPUS with --config: the live side from the
 * thread's affinity before (live: NULL when the command has no --live), the
 * persistent side from the configuration's pin before; one line when both
 * are the same, else one line each.
 */
static char *vcpupin_config_undo(char **w, size_t n, const char *live, const char *cfg)
{
	struct sbuf sb = SBUF_INIT;

	if (!live || !strcmp(live, cfg)) {
		virsh_undo_add(&sb, w, n, 4, cfg, NULL);
	} else {
		virsh_undo_add(&sb, w, n, 4, live, "--config");
		sbuf_addch(&sb, '\n');
		virsh_undo_add(&sb, w, n, 4, cfg, "--live");
	}
	return sbuf_detach(&sb);
}

int apply_undo_line(const char *line, const struct apply_vm *vm, const struct apply_probe *pr,
		    char **undo, char **why)
{
	const char *split_why;
	char **w = apply_split(line, &split_why);
	char *before = NULL;
	size_t n;
	int ret = 0;

	*undo = *why = NULL;
	if (!w) {
		*why = xasprintf("'%s': %s", line, split_why);
		return VP_EUNSUPP;
	}
	n = count(w);
	if (n == 0)
		goto out;
	if (!strcmp(w[0], "migratepages") && n == 4 && is_uint(w[1]) && is_uint(w[3])) {
		if (is_uint(w[2]))
			*undo = xasprintf("migratepages %s %s %s", w[1], w[3], w[2]);
		else
			*why = xasprintf("'%s' moves pages from every node: where each was before "
					 "is not known, so it has no exact undo", line);
	} else if (!strcmp(w[0], "taskset") && n == 4 && !strcmp(w[1], "-pc") &&
		   cpulist_word(w[2]) && is_uint(w[3])) {
		if ((before = before_of(pr, atoi(w[3]))))
			*undo = xasprintf("taskset -pc %s %s", before, w[3]);
		else
			*why = xasprintf("the CPU affinity of thread %s before is not known, so "
					 "'%s' has no undo", w[3], line);
	} else if (!strcmp(w[0], "virsh") && n >= 5 && !strcmp(w[1], "vcpupin") &&
		   is_uint(w[3]) && cpulist_word(w[4])) {
		int v = atoi(w[3]);
		bool cfg = has_word(w, n, "--config"), live = !cfg || has_word(w, n, "--live");
		char *cfg_before = NULL;

		if (live && (!vm || v >= vm->n_vcpus || !vm->vcpu_tids ||
			     !(before = before_of(pr, vm->vcpu_tids[v]))))
			*why = xasprintf("the CPU affinity of the vCPU's thread before is not known, "
					 "so '%s' has no undo", line);
		else if (cfg && !(pr && pr->config_pin &&
				  (cfg_before = pr->config_pin(pr->ctx, w[2], v)) &&
				  cpulist_word(cfg_before)))
			*why = xasprintf("the pin of vCPU %d in %s's persistent configuration before "
					 "is not known, so '%s' has no undo", v, w[2], line);
		else if (cfg)
			*undo = vcpupin_config_undo(w, n, live ? before : NULL, cfg_before);
		else
			*undo = virsh_undo(w, n, 4, before);
		free(cfg_before);
	} else if (!strcmp(w[0], "virsh") && n >= 4 && !strcmp(w[1], "emulatorpin") &&
		   cpulist_word(w[3])) {
		if (vm && (before = before_of(pr, vm->pid)))
			*undo = virsh_undo(w, n, 3, before);
		else
			*why = xasprintf("the CPU affinity of the emulator threads before (QEMU's "
					 "main thread) is not known, so '%s' has no undo", line);
	} else if (!strcmp(w[0], "virsh") && n >= 5 && !strcmp(w[1], "iothreadpin") &&
		   is_uint(w[3]) && cpulist_word(w[4])) {
		int tid = vm && vm->pid > 0 && pr && pr->iothread ?
			  pr->iothread(pr->ctx, vm->pid, atoi(w[3])) : -1;

		if ((before = before_of(pr, tid)))
			*undo = virsh_undo(w, n, 4, before);
		else
			*why = xasprintf("the CPU affinity of IOThread %s's thread before is not "
					 "known, so '%s' has no undo", w[3], line);
	} else {
		*why = xasprintf("'%s' is not a command --apply runs: vmmprof knows no exact undo "
				 "for it", line);
	}
out:
	free(before);
	apply_split_free(w);
	return *why ? VP_EUNSUPP : ret;
}

/* The threads of advice a's VM: its pid and its vCPUs' threads by index (tids: heap). */
static void vm_threads(const struct diag_input *in, const struct diag_advice *a,
		       struct apply_vm *v, int **tids)
{
	size_t k;
	int n = 0;

	memset(v, 0, sizeof(*v));
	*tids = NULL;
	v->pid = a->vm < in->n_vms ? in->vms[a->vm].pid : -1;
	for (k = 0; k < in->n_vcpus; k++)
		if (in->vcpus[k].vm == a->vm && in->vcpus[k].index >= n)
			n = in->vcpus[k].index + 1;
	if (!n)
		return;
	*tids = xcalloc((size_t)n, sizeof(int));
	memset(*tids, 0xff, (size_t)n * sizeof(int));   /* -1: unknown */
	for (k = 0; k < in->n_vcpus; k++)
		if (in->vcpus[k].vm == a->vm && in->vcpus[k].index >= 0)
			(*tids)[in->vcpus[k].index] = in->vcpus[k].tid;
	v->vcpu_tids = *tids;
	v->n_vcpus = n;
}

void apply_plan_make(const struct diag_input *in, const struct diag_result *r, bool allow_low,
		     const struct apply_probe *pr, struct apply_plan *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->items = xcalloc(r->n_a ? r->n_a : 1, sizeof(*out->items));
	out->n = r->n_a;
	for (i = 0; i < r->n_a; i++) {
		const struct diag_advice *a = &r->a[i];
		struct apply_item *it = &out->items[i];
		const char *p = a->command ? a->command : "";
		struct apply_vm vm;
		int *tids;

		it->advice = i;
		it->confidence = apply_advice_confidence(in, r, i);
		vm_threads(in, a, &vm, &tids);
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			char *line = xstrndup(p, len), *undo, *why;

			p += len + (nl ? 1 : 0);
			apply_undo_line(line, &vm, pr, &undo, &why);
			if (why && !it->why_not) {
				it->why_not = why;
				why = NULL;
			}
			free(why);
			if (undo) {
				char *hash = strchr(line, '#');

				/* the command as run: without its trailing comment */
				if (hash) {
					while (hash > line && (hash[-1] == ' ' || hash[-1] == '\t'))
						hash--;
					*hash = '\0';
				}
				it->steps = xrealloc(it->steps, (it->n_steps + 1) * sizeof(*it->steps));
				it->steps[it->n_steps].cmd = line;
				it->steps[it->n_steps++].undo = undo;
			} else {
				free(line);
			}
		}
		free(tids);
		if (it->why_not)
			continue;
		if (a->conflict)
			it->why_not = xasprintf("it clashes with a higher-ranked advice%s%s",
						a->conflict_note ? ": " : "",
						a->conflict_note ? a->conflict_note : "");
		else if (!it->n_steps)
			it->why_not = xstrdup("it has no command to run");
		else if (it->confidence == CONF_LOW && !allow_low)
			it->why_not = xstrdup("its confidence is low (the costs behind it are proxies "
					      "or estimates): --allow-low-confidence applies it");
		else
			it->apply = true;
		out->n_apply += it->apply;
	}
}

void apply_plan_release(struct apply_plan *p)
{
	size_t i, k;

	for (i = 0; i < p->n; i++) {
		for (k = 0; k < p->items[i].n_steps; k++) {
			free(p->items[i].steps[k].cmd);
			free(p->items[i].steps[k].undo);
		}
		free(p->items[i].steps);
		free(p->items[i].why_not);
	}
	free(p->items);
	memset(p, 0, sizeof(*p));
}
