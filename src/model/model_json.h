/* model_json.h - `model list|show --json` documents and the machine a model is checked on, shared by the CLI and the daemon */
#ifndef VP_MODEL_JSON_H
#define VP_MODEL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"
#include "model/registry.h"
#include "model/resolve.h"
#include "platform/platform.h"
#include "pmu/event.h"
#include "util/jsonread.h"
#include "util/sbuf.h"

/* The machine (or fixture root) a model's inputs are checked against. */
struct model_host {
	struct platform plat;
	bool plat_ok;
	struct pmu_db *db;                  /* NULL: the event database could not be read */
	char db_error[VP_ERR_MSG_MAX];
};

/*
 * Probe root and read its event database; never fails (what could not be
 * read stays marked).  Release with model_host_close().  On a fixture root
 * the caller sets LIBPFM_ENCODE_INACTIVE first if it wants libpfm4 to encode
 * tables of CPUs it does not see (a library does not touch the environment).
 */
void model_host_open(struct model_host *mc, const char *root);
void model_host_close(struct model_host *mc);
/*
 * Check m's inputs on mc into *av (model_avail_release()); diagnostics into
 * d; table_from says which libpfm4 table was used.  Returns the number of errors.
 */
int model_host_check(struct model_host *mc, const char *root, const struct model *m,
		     struct model_avail *av, struct diags *d, struct sbuf *table_from);
/*
 * The machine model_host_check() checks on, for a caller that holds its own
 * platform (plat, may be NULL) and event database (db, may be NULL): the
 * libpfm4 table is the platform's CPU's, else on a fixture root the first
 * one m's match rules name.  *mm points into plat and db.
 */
void model_machine_setup(struct model_machine *mm, const struct platform *plat, struct pmu_db *db,
			 const char *root, const struct model *m, struct sbuf *table_from);

/* "cpu intel family 0x6 model 0x55; pmu skx clx" */
void model_match_summary(const struct model *m, struct sbuf *sb);

/* `model list --json`: the search path, the model chosen (NULL: none, because why). */
void model_list_json(const struct model_registry *r, const struct model_entry *chosen,
		     const char *why, struct sbuf *sb);

/*
 * `model list` as text, from the `model list --json` document (parsed):
 * the local command and the remote client (`vmmprof --remote URL model list`)
 * print the same table.  where names the machine ("this machine", a root).
 * Returns 0, or VP_EFORMAT when doc is not such a document.
 */
int model_list_text(const struct jv *doc, const char *where, struct sbuf *out, struct vp_err *err);

/*
 * Whether m matches mc's platform, and the note `model show` prints about it
 * (which model is chosen there instead).
 */
bool model_show_note(struct model_registry *r, const struct model *m, const struct model_host *mc,
		     char *note, size_t size);

/* `model show --json`: the model, its inputs, metrics and factors with their
 * availability; table_from says which libpfm4 table checked the core events. */
void model_show_json(const struct model *m, const struct model_avail *av, const char *where,
		     bool matches, const char *match_note, const char *table_from, struct sbuf *sb);

/*
 * `model show` as text, from the `model show --json` document (parsed): the
 * local command and the remote client print the same page.  where names the
 * machine (NULL: the document's "machine").  Returns 0, or VP_EFORMAT when
 * doc is not such a document.
 */
int model_show_text(const struct jv *doc, const char *where, struct sbuf *sb, struct vp_err *err);

#endif
