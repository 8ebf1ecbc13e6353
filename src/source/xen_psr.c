/* xen_psr.c - parsers of `xl psr-hwinfo` and `xl psr-cmt-show` (format in xen_psr.h) */
#include "source/xen_psr.h"
#include "util/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int xen_psr_hwinfo_parse(const char *text, struct xen_psr_hw *hw, struct vp_err *err)
{
	const char *p = strstr(text, "Cache Monitoring Technology (CMT):"), *q;
	unsigned v;

	memset(hw, 0, sizeof(*hw));
	if (!p)
		return vp_err_set(err, VP_ENOTFOUND, "'xl psr-hwinfo' has no CMT section");
	q = strstr(p, "Enabled");
	if (q && (q = strchr(q, ':')) && sscanf(q + 1, "%u", &v) == 1)
		hw->cmt = v == 1;
	q = strstr(p, "Total RMID");
	if (q && (q = strchr(q, ':')) && sscanf(q + 1, "%u", &v) == 1)
		hw->total_rmid = v;
	q = strstr(p, "Supported monitor types:");
	if (q) {
		/* one type per line until a line that is none of them */
		for (q = strchr(q, '\n'); q && *++q;) {
			size_t len = strcspn(q, "\n");

			if (len == 15 && !strncmp(q, "cache-occupancy", 15))
				hw->occupancy = true;
			else if (len == 19 && !strncmp(q, "total-mem-bandwidth", 19))
				hw->total_bw = true;
			else if (len == 19 && !strncmp(q, "local-mem-bandwidth", 19))
				hw->local_bw = true;
			else
				break;
			q += len;
			if (!*q)
				break;
		}
	}
	return 0;
}

void xen_psr_table_release(struct xen_psr_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->doms[i].v);
	free(t->doms);
	free(t->socket);
	free(t->l3_bytes);
	memset(t, 0, sizeof(*t));
}

/* Split line into at most max tokens (in place); returns how many. */
static int tokens(char *line, char **tok, int max)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	return n;
}

/* "VALUE UNIT" pairs from tok[0..n) into v (n_sockets); false when malformed. */
static bool values(char **tok, int n, int n_sockets, double *v)
{
	int s;

	for (s = 0; s < n_sockets; s++)
		v[s] = NAN;
	if (n % 2 || n / 2 > n_sockets)
		return false;
	for (s = 0; s < n / 2; s++) {
		char *end;
		double x = strtod(tok[2 * s], &end);

		if (*end || (strcmp(tok[2 * s + 1], "KB") && strcmp(tok[2 * s + 1], "KB/s")))
			return false;
		v[s] = x * 1024;
	}
	return true;
}

int xen_psr_show_parse(const char *text, struct xen_psr_table *t, struct vp_err *err)
{
	const char *p = text;
	size_t cap = 0;
	int lineno = 0, ret = 0;
	bool head = false;

	memset(t, 0, sizeof(*t));
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = xstrndup(p, len), *tok[80];
		int n, k, id;

		lineno++;
		p += len + (p[len] == '\n');
		n = tokens(line, tok, 80);
		if (!n || (n >= 2 && !strcmp(tok[0], "Total") && !strcmp(tok[1], "RMID:"))) {
			free(line);
			continue;
		}
		if (!head) {
			if (n >= 2 && !strcmp(tok[0], "Name") && !strcmp(tok[1], "ID")) {
				head = true;
				for (k = 2; k + 1 < n; k += 2) {
					if (strcmp(tok[k], "Socket"))
						break;
					t->socket = xrealloc(t->socket, (size_t)(t->n_sockets + 1) * sizeof(int));
					t->socket[t->n_sockets++] = atoi(tok[k + 1]);
				}
			}
			free(line);
			continue;
		}
		if (n >= 4 && !strcmp(tok[0], "Total") && !strcmp(tok[1], "L3")) {
			/* "Total L3 Cache Size  N KB ..." */
			t->l3_bytes = xcalloc((size_t)(t->n_sockets ? t->n_sockets : 1), sizeof(double));
			if (!values(tok + 4, n - 4, t->n_sockets, t->l3_bytes))
				ret = vp_err_set(err, VP_EPARSE, "'xl psr-cmt-show' line %d: L3 sizes are not "
						 "'N KB' per socket", lineno);
			free(line);
			if (ret)
				goto out;
			continue;
		}
		/* NAME... ID (VALUE UNIT)*: the name may hold spaces; the pairs end the line */
		for (k = n; k >= 3 && (!strcmp(tok[k - 1], "KB") || !strcmp(tok[k - 1], "KB/s")); k -= 2)
			;
		k--; /* the ID: before the value-unit pairs */
		if (k < 1 || sscanf(tok[k], "%d", &id) != 1) {
			ret = vp_err_set(err, VP_EPARSE, "'xl psr-cmt-show' line %d: not 'NAME ID VALUE "
					 "UNIT...'", lineno);
			free(line);
			goto out;
		}
		VP_GROW(t->doms, cap, t->n + 1);
		{
			struct xen_psr_dom *d = &t->doms[t->n++];
			struct {
				char buf[128];
				size_t len;
			} nm = { "", 0 };
			int j;

			memset(d, 0, sizeof(*d));
			for (j = 0; j < k; j++)
				nm.len += (size_t)snprintf(nm.buf + nm.len, nm.len < sizeof(nm.buf) ?
							   sizeof(nm.buf) - nm.len : 0, "%s%s",
							   j ? " " : "", tok[j]);
			snprintf(d->name, sizeof(d->name), "%s", nm.buf);
			d->domid = id;
			d->v = xcalloc((size_t)(t->n_sockets ? t->n_sockets : 1), sizeof(double));
			if (!values(tok + k + 1, n - k - 1, t->n_sockets, d->v)) {
				ret = vp_err_set(err, VP_EPARSE, "'xl psr-cmt-show' line %d: more values "
						 "than sockets, or not 'N KB'", lineno);
				free(line);
				goto out;
			}
		}
		free(line);
	}
	if (!head)
		ret = vp_err_set(err, VP_EPARSE, "'xl psr-cmt-show': no 'Name ID Socket N' header");
out:
	if (ret)
		xen_psr_table_release(t);
	return ret;
}

double xen_psr_dom_total(const struct xen_psr_table *t, int domid)
{
	size_t i;
	int s;

	for (i = 0; i < t->n; i++) {
		double sum = 0;

		if (t->doms[i].domid != domid)
			continue;
		for (s = 0; s < t->n_sockets; s++)
			sum += t->doms[i].v[s]; /* NaN stays NaN */
		return t->n_sockets ? sum : NAN;
	}
	return NAN;
}
