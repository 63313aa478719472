/* hxload's JSON reader (json.c): what its reports hold (numbers, strings with escapes, nesting), and malformed text refused with a reason. */
#include <stdlib.h>

#include "json.h"
#include "tap.h"

static void reads(void)
{
	const char *err = NULL;
	struct json *j = json_parse("{\"a\": 1.5e3, \"s\": \"x\\\"y\\\\\\u00e9\\u003c\\u20ac\", \"t\": true, \"n\": null,"
				    " \"o\": {\"k\": [1, 2, {\"z\": -3}]}}", &err);
	const struct json *o, *k;

	ok(j && j->type == JSON_OBJ && j->n == 5, "an object of 5 members");
	if (!j)
		return;
	ok(json_num(j, "a", 0) == 1500, "a number with an exponent");
	is_str(json_str(j, "s"), "x\"y\\\xc3\xa9<\xe2\x82\xac", "a string with escapes, \\u as UTF-8 (1, 2 and 3 bytes)");
	ok(json_get(j, "t")->type == JSON_BOOL && json_get(j, "t")->num == 1, "true");
	ok(json_get(j, "n")->type == JSON_NULL, "null");
	ok(json_num(j, "missing", 42) == 42, "a missing number: the default");
	is_str(json_str(j, "missing"), "", "a missing string: \"\"");
	o = json_get(j, "o");
	k = o ? json_get(o, "k") : NULL;
	ok(k && k->type == JSON_ARR && k->n == 3 && k->kid[2].type == JSON_OBJ && json_num(&k->kid[2], "z", 0) == -3,
	   "nested: an array holding an object");
	json_free(j);
}

static void refuses(void)
{
	static const char *const bad[] = { "", "{", "{\"a\" 1}", "{\"a\": }", "[1, 2", "\"open", "{\"a\": 1,}",
					   "tru", "{\"a\": 1} x", "[01x]" };
	int n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *err = NULL;
		struct json *j = json_parse(bad[i], &err);

		if (!j && err && *err)
			n++;
		else
			printf("# accepted or no reason: '%s'\n", bad[i]);
		json_free(j);
	}
	is_int(n, (int)(sizeof(bad) / sizeof(bad[0])), "malformed text refused, each with a reason");
}

/* nesting deeper than the reader allows is refused, not a stack overflow */
static void deep(void)
{
	char *s = malloc(200001);
	const char *err = NULL;
	struct json *j;

	for (int i = 0; i < 100000; i++)
		s[i] = '[', s[200000 - 1 - i] = ']';
	s[200000] = 0;
	j = json_parse(s, &err);
	ok(!j && err, "100 000 nested arrays: refused (%s)", err ? err : "accepted");
	json_free(j);
	free(s);
}

int main(void)
{
	reads();
	refuses();
	deep();
	return done_testing();
}
