/* fuzz_conf.c - libFuzzer harness for the daemon's configuration parser and listen addresses (src/srv/conf.c) */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srv/conf.h"
#include "util/alloc.h"
#include "util/sbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether a line of srv_conf_format()'s text is `key = ""` (keys have no blanks). */
static int empty_value(const char *text)
{
	const char *line = text, *eq, *nl;

	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		eq = strstr(line, " = ");
		if (eq && eq < nl && nl - eq == 5 && !strncmp(eq, " = \"\"", 5))
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv_conf c, back;
	struct sbuf text = SBUF_INIT, again = SBUF_INIT;
	struct vp_err err;
	char host[64], *s;
	int port;

	srv_conf_init(&c);
	srv_conf_init(&back);
	if (srv_conf_parse(&c, (const char *)data, size, "fuzz", &err) == 0) {
		if (c.listen && srv_listen_parse(c.listen, host, sizeof(host), &port, &err))
			abort(); /* a listen address the file accepted must be usable */
		/* the settings written back read back to the same settings */
		srv_conf_format(&c, &text);
		if (empty_value(sbuf_str(&text)))
			abort(); /* an empty value is refused */
		if (srv_conf_parse(&back, sbuf_str(&text), text.len, "back", &err))
			abort();
		srv_conf_format(&back, &again);
		if (strcmp(sbuf_str(&text), sbuf_str(&again)))
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
	sbuf_release(&text);
	sbuf_release(&again);
	srv_conf_release(&back);
	srv_conf_release(&c);
	return 0;
}
