/* kv.h - "name value [kB]" lines as in numastat, meminfo, vmstat and status */
#ifndef VP_KV_H
#define VP_KV_H

#include <stddef.h>
#include <stdint.h>

/*
 * For each line "[Node N] name[:] value [kB]" whose name is names[i], store
 * the value (times 1024 when followed by "kB") in vals[i] and set bit i of
 * *have.  Unknown names and malformed lines are skipped: these files grow new
 * lines with every kernel.  n must be at most 32.
 */
void kv_parse(const char *text, const char *const *names, size_t n, uint64_t *vals,
	      uint32_t *have);

/*
 * The value text of the line "name:\tvalue" (as in /proc/PID/status), copied
 * into buf without surrounding white space; returns 0, or -1 when absent.
 */
int kv_find_str(const char *text, const char *name, char *buf, size_t size);

#endif
