/* api.c - vmmprofd's read-only endpoints: whoami, info, vms, models, recordings, the web UI files */
#include "daemon/daemon.h"
#include "daemon/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/vms_view.h"
#include "model/dirs.h"
#include "model/model_json.h"
#include "plan/info_json.h"
#include "util/alloc.h"
#include "util/json.h"

enum MHD_Result vpd_api_whoami(struct vpd_req *r)
{
	struct sbuf sb = SBUF_INIT;
	struct jw w;

	jw_init(&w, &sb, false);
	jw_obj_begin(&w);
	jw_kstr(&w, "user", r->user.name);
	jw_kstr(&w, "role", user_role_name(r->user.role));
	jw_key(&w, "limits");
	jw_obj_begin(&w);
	jw_kint(&w, "max_sessions", r->user.lim.max_sessions);
	jw_kint(&w, "max_events", r->user.lim.max_events);
	jw_kint(&w, "min_interval_ms", r->user.lim.min_interval_ms);
	jw_obj_end(&w);
	jw_obj_end(&w);
	sbuf_addch(&sb, '\n');
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}

enum MHD_Result vpd_api_info(struct vpd_req *r)
{
	struct platform p;
	struct coverage cv;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;

	struct model_dirs dirs;
	struct model_registry reg;

	if (platform_probe(&p, r->d->conf.root, &err))
		return vpd_reply_err(r, &err);
	/* the model `model list` marks on the daemon's model path, as local info does */
	model_dirs_build(&dirs, r->d->model_path, r->d->n_model_path, r->d->dirs);
	model_registry_init(&reg, (const char *const *)dirs.v, dirs.n);
	coverage_compute(&p, &reg, &cv);
	model_registry_release(&reg);
	model_dirs_release(&dirs);
	info_json(&p, &cv, &sb);
	coverage_release(&cv);
	platform_release(&p);
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}

enum MHD_Result vpd_api_vms(struct vpd_req *r)
{
	struct vms_view v;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;

	if (vpd_vms_scan(r->d, &v, &err)) {
		vms_release(&v);
		return vpd_reply_err(r, &err);
	}
	vms_json(&v, NULL, NULL, &sb);
	vms_release(&v);
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}

/* `model list --json` or `model show NAME --json`, on the daemon's root and model path. */
enum MHD_Result vpd_api_models(struct vpd_req *r, const char *name)
{
	struct model_dirs dirs;
	struct model_registry reg;
	struct vp_err err = { 0, "" };
	struct sbuf sb = SBUF_INIT;
	const char *root = r->d->conf.root;
	enum MHD_Result ret;

	if (name && !srv_name_ok(name))
		return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "invalid model name '%s'", name);
	model_dirs_build(&dirs, r->d->model_path, r->d->n_model_path, r->d->dirs);
	model_registry_init(&reg, (const char *const *)dirs.v, dirs.n);
	if (!name) {
		struct platform p;
		const struct model_entry *chosen = NULL;
		char why[256] = "";
		bool ok = platform_probe(&p, root, &err) == 0;

		if (ok)
			chosen = model_registry_choose(&reg, &p, why, sizeof(why), &err);
		model_list_json(&reg, chosen, chosen ? why : err.msg, &sb);
		if (ok)
			platform_release(&p);
		ret = vpd_reply_json(r, MHD_HTTP_OK, &sb);
	} else if (!model_registry_find(&reg, name)) {
		ret = vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no model '%s' in the model path", name);
	} else {
		struct model *m = NULL;
		struct model_host mc;
		struct model_avail av;
		struct diags dg, cd;
		struct sbuf table_from = SBUF_INIT;
		char note[600];
		bool matches;

		diags_init(&dg);
		diags_init(&cd);
		if (model_registry_open(&reg, name, &m, &dg, &err)) {
			ret = vpd_reply_err(r, &err);
		} else {
			model_host_open(&mc, root);
			matches = model_show_note(&reg, m, &mc, note, sizeof(note));
			model_host_check(&mc, root, m, &av, &cd, &table_from);
			model_show_json(m, &av, strcmp(root, "/") ? root : "this machine", matches, note,
					sbuf_str(&table_from), &sb);
			sbuf_release(&table_from);
			model_avail_release(m, &av);
			model_host_close(&mc);
			ret = vpd_reply_json(r, MHD_HTTP_OK, &sb);
		}
		model_free(m);
		diags_release(&dg);
		diags_release(&cd);
	}
	sbuf_release(&sb);
	model_registry_release(&reg);
	model_dirs_release(&dirs);
	return ret;
}

/* ---- files ---- */

static const char *content_type(const char *name)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".mjs", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".json", "application/json" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".ico", "image/x-icon" },
		{ ".txt", "text/plain; charset=utf-8" },
		{ ".vmmdb", "application/vnd.sqlite3" },
		{ ".vmmrec", "application/vnd.sqlite3" },
		{ ".db", "application/vnd.sqlite3" },
	};
	size_t i, n = strlen(name);

	for (i = 0; i < VP_ARRAY_SIZE(types); i++) {
		size_t e = strlen(types[i].ext);

		if (n > e && !strcmp(name + n - e, types[i].ext))
			return types[i].type;
	}
	return "application/octet-stream";
}

/*
 * Send dir/rel, a regular file reached without following symbolic links,
 * every component checked by srv_name_ok() (no "..", no hidden files).
 */
static enum MHD_Result send_file(struct vpd_req *r, const char *dir, const char *rel,
				 const char *type, const char *disposition)
{
	char *copy = xstrdup(rel), *save = NULL, *tok, *next;
	int dfd, fd = -1;
	struct stat st;
	struct MHD_Response *resp;
	enum MHD_Result ret;

	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!srv_name_ok(tok)) {
			free(copy);
			return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "invalid path '%s'", rel);
		}
	}
	free(copy);
	copy = xstrdup(rel);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		free(copy);
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no file '%s' (directory '%s': %s)", rel,
				       dir, strerror(errno));
	}
	tok = strtok_r(copy, "/", &save);
	while (tok) {
		int nfd;

		next = strtok_r(NULL, "/", &save);
		if (!srv_name_ok(tok)) {
			close(dfd);
			free(copy);
			return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "invalid path '%s'", rel);
		}
		/* O_NONBLOCK: a FIFO's open does not wait for a writer (fstat refuses it below) */
		nfd = openat(dfd, tok, (next ? O_DIRECTORY : O_NONBLOCK) | O_RDONLY | O_NOFOLLOW |
			     O_CLOEXEC);
		close(dfd);
		if (nfd < 0) {
			free(copy);
			return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no file '%s'", rel);
		}
		if (!next)
			fd = nfd;
		else
			dfd = nfd;
		tok = next;
	}
	free(copy);
	if (fd < 0) {
		close(dfd);
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no file '%s'", rel);
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no file '%s'", rel);
	}
	{
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type ? type : content_type(rel));
	vpd_safe_headers(resp);
	if (disposition)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disposition);
	ret = MHD_queue_response(r->conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

enum MHD_Result vpd_static(struct vpd_req *r, const char *rel)
{
	if (!r->d->conf.web_dir)
		return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no web UI directory configured");
	if (!*rel)
		rel = "index.html";
	return send_file(r, r->d->conf.web_dir, rel, NULL, NULL);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Recordings are named OWNER+STAMP-SESSION.vmmdb: the owner is the part before '+'. */
bool vpd_rec_visible(const struct vpd_req *r, const char *name)
{
	const char *plus = strchr(name, '+');

	if (r->user.role == ROLE_ADMIN)
		return true;
	return plus && (size_t)(plus - name) == strlen(r->user.name) &&
	       !strncmp(name, r->user.name, (size_t)(plus - name));
}

enum MHD_Result vpd_api_recordings(struct vpd_req *r, const char *name)
{
	const char *dir = r->d->conf.recordings_dir;
	struct sbuf sb = SBUF_INIT;

	if (name) {
		char disp[300];
		struct vp_err err = { 0, "" };
		int fd = -1, snap;

		if (!srv_name_ok(name))
			return vpd_reply_error(r, MHD_HTTP_BAD_REQUEST, "invalid recording name '%s'",
					       name);
		if (!dir || !vpd_rec_visible(r, name))
			return vpd_reply_error(r, MHD_HTTP_NOT_FOUND, "no recording '%s'", name);
		snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", name);
		vpd_audit(r->d, r->user.name, "recording.download", NULL, "%s", name);
		/* a session still writes it: the file alone lacks its write-ahead log, so a
		 * consistent copy is sent instead */
		snap = vpd_recording_snapshot(r->d, name, &fd, &err);
		if (snap < 0)
			return vpd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "recording '%s': %s",
					       name, err.msg);
		if (snap > 0) {
			struct MHD_Response *resp;
			struct stat st;
			enum MHD_Result ret;

			if (fstat(fd, &st)) {
				close(fd);
				return vpd_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "recording "
						       "'%s': %s", name, strerror(errno));
			}
			resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
			MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/vnd.sqlite3");
			vpd_safe_headers(resp);
			MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disp);
			ret = MHD_queue_response(r->conn, MHD_HTTP_OK, resp);
			MHD_destroy_response(resp);
			return ret;
		}
		return send_file(r, dir, name, "application/vnd.sqlite3", disp);
	}
	{
		struct jw w;
		DIR *dp = dir ? opendir(dir) : NULL;
		struct dirent *de;
		char **names = NULL;
		size_t n = 0, cap = 0, i;

		jw_init(&w, &sb, false);
		jw_obj_begin(&w);
		jw_kstr(&w, "dir", dir);
		jw_key(&w, "recordings");
		jw_arr_begin(&w);
		while (dp && (de = readdir(dp))) {
			size_t l = strlen(de->d_name);

			/* .vmmdb as the CLI writes them; .vmmrec, the daemon's name before, still listed */
			if (!srv_name_ok(de->d_name) || l < 7 ||
			    (strcmp(de->d_name + l - 6, ".vmmdb") &&
			     (l < 8 || strcmp(de->d_name + l - 7, ".vmmrec"))) ||
			    !vpd_rec_visible(r, de->d_name))
				continue;
			VP_GROW(names, cap, n + 1);
			names[n++] = xstrdup(de->d_name);
		}
		if (dp)
			closedir(dp);
		if (n)			/* qsort(NULL, 0, ...) is undefined: an empty directory */
			qsort(names, n, sizeof(*names), cmp_names);
		for (i = 0; i < n; i++) {
			struct stat st;
			char *p = xasprintf("%s/%s", dir, names[i]);
			const char *plus = strchr(names[i], '+');

			jw_obj_begin(&w);
			jw_kstr(&w, "name", names[i]);
			if (plus) {
				char owner[USER_NAME_MAX + 1];

				snprintf(owner, sizeof(owner), "%.*s", (int)(plus - names[i]), names[i]);
				jw_kstr(&w, "owner", owner);
			} else {
				jw_kstr(&w, "owner", NULL);
			}
			if (!lstat(p, &st)) {
				jw_kuint(&w, "size", (uint64_t)st.st_size);
				jw_kint(&w, "mtime", (int64_t)st.st_mtime);
			}
			jw_obj_end(&w);
			free(p);
			free(names[i]);
		}
		free(names);
		jw_arr_end(&w);
		jw_obj_end(&w);
		sbuf_addch(&sb, '\n');
	}
	return vpd_reply_json(r, MHD_HTTP_OK, &sb);
}
