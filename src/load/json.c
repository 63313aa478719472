/* A small JSON reader for what hxload writes: values as a tree, looked up by key. */
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define JSON_DEPTH 32

struct jp {
	const char *p;
	const char *err;
};

static void ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int value(struct jp *j, struct json *v, int depth);

/* <s> of <*cap> bytes, twice as large; NULL (it freed) out of memory */
static char *grow(char *s, size_t *cap)
{
	char *ns = realloc(s, *cap *= 2);

	if (!ns)
		free(s);
	return ns;
}

/* <u> (a \\u escape, no surrogate) as UTF-8 at <s>: its length */
static size_t utf8(char *s, unsigned long u)
{
	if (u < 0x80)
		return s[0] = (char)u, 1;
	if (u < 0x800)
		return s[0] = (char)(0xc0 | u >> 6), s[1] = (char)(0x80 | (u & 0x3f)), 2;
	s[0] = (char)(0xe0 | u >> 12);
	s[1] = (char)(0x80 | ((u >> 6) & 0x3f));
	s[2] = (char)(0x80 | (u & 0x3f));
	return 3;
}

/* a string at j->p (after its quote): escapes read, \\u as UTF-8 (a
 * surrogate, which hxload never writes, as '?') */
static char *string(struct jp *j)
{
	size_t cap = 16, n = 0;
	char *s = malloc(cap);

	while (s && *j->p && *j->p != '"') {
		char c = *j->p++;

		if (c == '\\') {
			c = *j->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				char hex[5] = { 0 }, *end;
				unsigned long u;

				memcpy(hex, j->p, 4);
				u = strtoul(hex, &end, 16);
				if (end != hex + 4)
					goto bad;
				j->p += 4;
				if (u >= 0xd800 && u < 0xe000)
					u = '?';
				if (u >= 0x80) {
					if (n + 4 > cap && !(s = grow(s, &cap)))
						return j->err = "out of memory", NULL;
					n += utf8(s + n, u);
					continue;
				}
				c = (char)u;
				break;
			}
			case '"': case '\\': case '/': break;
			default: goto bad;
			}
		}
		if (n + 2 > cap && !(s = grow(s, &cap)))
			return j->err = "out of memory", NULL;
		s[n++] = c;
	}
	if (!s || *j->p != '"')
		goto bad;
	j->p++;
	s[n] = 0;
	return s;
bad:
	free(s);
	j->err = "a bad string";
	return NULL;
}

static int push(struct json *v, char *key, struct json **slot)
{
	if ((v->n & (v->n - 1)) == 0) { /* WHY: grow at each power of two */
		size_t cap = v->n ? v->n * 2 : 1;
		struct json *k = realloc(v->kid, cap * sizeof(*k));
		char **ks;

		if (!k)
			return -1;
		v->kid = k;
		if (v->type == JSON_OBJ) {
			if (!(ks = realloc(v->key, cap * sizeof(*ks))))
				return -1;
			v->key = ks;
		}
	}
	if (v->type == JSON_OBJ)
		v->key[v->n] = key;
	*slot = &v->kid[v->n++];
	memset(*slot, 0, sizeof(**slot));
	return 0;
}

static int members(struct jp *j, struct json *v, int depth, char close)
{
	ws(j);
	if (*j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		struct json *slot;

		ws(j);
		if (v->type == JSON_OBJ) {
			if (*j->p++ != '"' || !(key = string(j)))
				return j->err = j->err ? j->err : "a key expected", -1;
			ws(j);
			if (*j->p++ != ':') {
				free(key);
				return j->err = "':' expected", -1;
			}
		}
		if (push(v, key, &slot) < 0) {
			free(key);
			return j->err = "out of memory", -1;
		}
		if (value(j, slot, depth + 1) < 0)
			return -1;
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != close)
			return j->err = "',' or a closing bracket expected", -1;
		return 0;
	}
}

static int value(struct jp *j, struct json *v, int depth)
{
	char *end;

	if (depth > JSON_DEPTH)
		return j->err = "nested too deep", -1;
	ws(j);
	switch (*j->p) {
	case '{': j->p++; v->type = JSON_OBJ; return members(j, v, depth, '}');
	case '[': j->p++; v->type = JSON_ARR; return members(j, v, depth, ']');
	case '"':
		j->p++;
		v->type = JSON_STR;
		return (v->str = string(j)) ? 0 : -1;
	case 't': case 'f': case 'n':
		if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
			v->type = *j->p == 't' ? JSON_BOOL : JSON_NULL;
			v->num = *j->p == 't';
			j->p += 4;
			return 0;
		}
		if (!strncmp(j->p, "false", 5)) {
			v->type = JSON_BOOL;
			j->p += 5;
			return 0;
		}
		break;
	default:
		v->num = strtod(j->p, &end);
		if (end != j->p) {
			v->type = JSON_NUM;
			j->p = end;
			return 0;
		}
	}
	return j->err = "a value expected", -1;
}

static void release(struct json *v)
{
	for (size_t i = 0; i < v->n; i++) {
		release(&v->kid[i]);
		if (v->type == JSON_OBJ)
			free(v->key[i]);
	}
	free(v->kid);
	free(v->key);
	free(v->str);
}

struct json *json_parse(const char *s, const char **err)
{
	struct jp j = { s, NULL };
	struct json *v = calloc(1, sizeof(*v));

	if (!v) {
		*err = "out of memory";
		return NULL;
	}
	if (value(&j, v, 0) == 0) {
		ws(&j);
		if (!*j.p)
			return v;
		j.err = "text after the value";
	}
	*err = j.err;
	json_free(v);
	return NULL;
}

void json_free(struct json *j)
{
	if (!j)
		return;
	release(j);
	free(j);
}

const struct json *json_get(const struct json *o, const char *key)
{
	if (!o || o->type != JSON_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->key[i], key))
			return &o->kid[i];
	return NULL;
}

double json_num(const struct json *o, const char *key, double dflt)
{
	const struct json *v = json_get(o, key);

	return v && v->type == JSON_NUM ? v->num : dflt;
}

const char *json_str(const struct json *o, const char *key)
{
	const struct json *v = json_get(o, key);

	return v && v->type == JSON_STR ? v->str : "";
}
