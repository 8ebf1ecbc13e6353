/* fuzz_conf.c - libFuzzer harness for the daemon's configuration parser and listen addresses (src/srv/conf.c) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srv/conf.h"
#include "util/alloc.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	const char *key;
	size_t off;
} strs[] = {
	{ "listen", offsetof(struct srv_conf, listen) },
	{ "users", offsetof(struct srv_conf, users) },
	{ "tls_cert", offsetof(struct srv_conf, tls_cert) },
	{ "tls_key", offsetof(struct srv_conf, tls_key) },
	{ "web_dir", offsetof(struct srv_conf, web_dir) },
	{ "recordings_dir", offsetof(struct srv_conf, recordings_dir) },
	{ "audit_log", offsetof(struct srv_conf, audit_log) },
	{ "root", offsetof(struct srv_conf, root) },
	{ "user", offsetof(struct srv_conf, user) },
	{ "calibration", offsetof(struct srv_conf, calibration) },
	{ "model_path", offsetof(struct srv_conf, model_path) },
};

static const char *field(const struct srv_conf *c, size_t k)
{
	return *(char *const *)((const char *)c + strs[k].off);
}

/* Every setting of c written back as the file language: `key = "value"`. */
static void conf_write(const struct srv_conf *c, struct sbuf *out)
{
	size_t k;

	for (k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
		if (field(c, k))
			sbuf_addf(out, "%s = \"%s\"\n", strs[k].key, field(c, k));
	sbuf_addf(out, "allow-plain-http = %s\n", c->allow_plain_http ? "yes" : "no");
	sbuf_addf(out, "metrics_auth = %s\n", c->metrics_auth_none ? "none" : "token");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv_conf c, back;
	struct sbuf sb = SBUF_INIT;
	struct vp_err err;
	char host[64], *s;
	int port;
	size_t k;

	srv_conf_init(&c);
	srv_conf_init(&back);
	if (srv_conf_parse(&c, (const char *)data, size, "fuzz", &err) == 0) {
		for (k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
			if (field(&c, k) && !*field(&c, k))
				abort(); /* an empty value is refused */
		if (c.listen && srv_listen_parse(c.listen, host, sizeof(host), &port, &err))
			abort(); /* a listen address the file accepted must be usable */
		conf_write(&c, &sb);
		if (srv_conf_parse(&back, sbuf_str(&sb), sb.len, "back", &err))
			abort();
		for (k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
			if (!field(&c, k) != !field(&back, k) ||
			    (field(&c, k) && strcmp(field(&c, k), field(&back, k))))
				abort();
		if (c.allow_plain_http != back.allow_plain_http ||
		    c.metrics_auth_none != back.metrics_auth_none)
			abort();
	} else if (err.code != VP_EPARSE || strncmp(err.msg, "fuzz:", 5)) {
		abort(); /* every refusal is a parse error that says where */
	}
	/* the input as a listen address and as a host */
	s = xstrndup((const char *)data, size);
	if (srv_listen_parse(s, host, sizeof(host), &port, &err) == 0) {
		if (port < 0 || port > 65535 || strlen(host) >= sizeof(host))
			abort();
		(void)srv_host_is_loopback(host);
	}
	(void)srv_host_is_loopback(s);
	free(s);
	sbuf_release(&sb);
	srv_conf_release(&back);
	srv_conf_release(&c);
	return 0;
}
