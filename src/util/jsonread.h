/* jsonread.h - a small JSON reader into a tree, with file:line:col errors */
#ifndef VP_JSONREAD_H
#define VP_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

/* One parsed value.  Storage owned by the caller: jv_release() frees it. */
struct jv {
	enum jv_type type;
	int line, col;      /* where the value starts (1-based), for messages */
	bool b;             /* JV_BOOL */
	double num;         /* JV_NUM */
	char *str;          /* JV_STR: NUL-terminated (embedded NULs rejected) */
	struct jv *items;   /* JV_ARR elements, JV_OBJ member values */
	char **keys;        /* JV_OBJ member names, parallel to items */
	size_t n;           /* elements or members */
};

/*
 * Parse text (len bytes, RFC 8259; nesting limited to 64 levels) into *out.
 * name labels messages: "NAME:LINE:COL: expected ',' or '}'".  On failure
 * *out holds nothing to release and VP_EPARSE is returned.
 */
int jv_parse(struct jv *out, const char *text, size_t len, const char *name,
	     struct vp_err *err);
void jv_release(struct jv *v);

/* Member key of an object, or NULL (also when obj is not an object). */
const struct jv *jv_get(const struct jv *obj, const char *key);
/* Typed members for readers of documents we wrote: the value, or NULL / NaN
 * when the member is absent, null or of another type. */
const char *jv_str(const struct jv *obj, const char *key);
double jv_num(const struct jv *obj, const char *key);
const struct jv *jv_arr(const struct jv *obj, const char *key);
/* The enum value i in [0, n) whose name(i) is s, or -1 (also for s NULL):
 * names written by a *_name() function read back. */
int jv_enum(const char *s, int n, const char *(*name)(int i));
/* Name of a type for messages: "number", "object", ... */
const char *jv_type_name(enum jv_type t);

#endif
