/* check_recipes.c - encodes every core event of the coverage recipes with libpfm4 */
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/coverage.h"
#include "platform/platform.h"

/*
 * For each libpfm4 table of the model table (platform_pfm_table()) that a
 * recipe serves, every event name of coverage_recipe_core() must encode
 * with pfm_get_os_event_encoding() as TABLE::EVENT.  Inactive tables are
 * usable only with LIBPFM_ENCODE_INACTIVE=1, set before pfm_initialize().
 * Prints "ok"/"BAD" per event; exit status 1 when any is BAD, 2 when the
 * linked libpfm4 cannot be initialized.
 */

static int check(const char *table, const char *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *full;
	int ret;

	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &attr;
	if (asprintf(&full, "%s::%s", table, ev) < 0)
		return 1;
	ret = pfm_get_os_event_encoding(full, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	printf("%s %s%s%s\n", ret == PFM_SUCCESS ? "ok " : "BAD", full,
	       ret == PFM_SUCCESS ? "" : ": ", ret == PFM_SUCCESS ? "" : pfm_strerror(ret));
	free(full);
	return ret != PFM_SUCCESS;
}

/* "A:U / :V, B" -> A:U, A:V, B */
static int check_list(const char *table, const char *list)
{
	char *copy = strdup(list), *group, *gsave = NULL, *s = copy;
	int bad = 0;

	while ((group = strtok_r(s, ",", &gsave))) {
		char base[128] = "", *tok, *tsave = NULL, *t = group;

		s = NULL;
		while ((tok = strtok_r(t, "/", &tsave))) {
			char name[256];
			char *e;

			t = NULL;
			while (*tok == ' ')
				tok++;
			e = tok + strlen(tok);
			while (e > tok && e[-1] == ' ')
				*--e = '\0';
			if (!*tok)
				continue;
			if (*tok == ':') {
				snprintf(name, sizeof(name), "%s%s", base, tok);
			} else {
				char *colon = strchr(tok, ':');

				snprintf(base, sizeof(base), "%.*s",
					 colon ? (int)(colon - tok) : (int)strlen(tok), tok);
				snprintf(name, sizeof(name), "%s", tok);
			}
			bad += check(table, name);
		}
	}
	free(copy);
	return bad;
}

int main(void)
{
	const struct pfm_map_row *rows;
	int n, i, f, bad = 0, checked = 0;

	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	if (pfm_initialize() != PFM_SUCCESS) {
		fprintf(stderr, "check_recipes: libpfm4 does not initialize\n");
		return 2;
	}
	rows = platform_pfm_table(&n);
	for (i = 0; i < n; i++) {
		int k;

		/* each table once */
		for (k = 0; k < i; k++)
			if (!strcmp(rows[k].pfm, rows[i].pfm))
				break;
		if (k < i)
			continue;
		for (f = 0; f < FACTOR_N; f++) {
			const char *list = coverage_recipe_core(rows[i].pfm, (enum factor_id)f);

			if (!list)
				continue;
			bad += check_list(rows[i].pfm, list);
			checked++;
		}
	}
	printf("check_recipes: %d recipe lists, %d bad events\n", checked, bad);
	return bad ? 1 : 0;
}
