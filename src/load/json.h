/* A small JSON reader for what hxload writes: values as a tree, looked up by key. */
#ifndef HX_JSON_H
#define HX_JSON_H

#include <stddef.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
	enum json_type type;
	double num;                  /* JSON_NUM, JSON_BOOL (0 or 1) */
	char *str;                   /* JSON_STR */
	struct json *kid;            /* JSON_ARR, JSON_OBJ: <n> values */
	char **key;                  /* JSON_OBJ: their keys */
	size_t n;
};

/* parses the text at <s>: a tree to json_free, or NULL with a reason in <err> */
struct json *json_parse(const char *s, const char **err);
void json_free(struct json *j);
/* the member <key> of object <o>, or NULL */
const struct json *json_get(const struct json *o, const char *key);
/* the number at <o>.<key>, or <dflt> */
double json_num(const struct json *o, const char *key, double dflt);
/* the string at <o>.<key>, or "" */
const char *json_str(const struct json *o, const char *key);

#endif
