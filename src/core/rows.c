/* Counter rows: added up, written as JSON members and as Prometheus families. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rows.h"

void rows_add(const struct row *rows, size_t n, void *dst, const void *src)
{
	for (size_t k = 0; k < n; k++)
		for (unsigned i = 0; i < rows[k].n; i++)
			*row_at(&rows[k], dst, i) += *row_at(&rows[k], src, i);
}

void rows_fput(void *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(file, fmt, ap);
	va_end(ap);
}

static int in_group(const struct row *r, const char *group)
{
	return group ? r->group && !strcmp(r->group, group) : !r->group;
}

void rows_json(const struct row_out *o, const struct row *rows, size_t n, const void *base, const char *group)
{
	for (size_t k = 0; k < n; k++) {
		const struct row *r = &rows[k];

		if (!in_group(r, group))
			continue;
		if (!r->label) {
			o->put(o->to, ", \"%s\": %llu", r->json, (unsigned long long)*row_at(r, base, 0));
			continue;
		}
		o->put(o->to, ", \"%s\": {", r->json);
		for (unsigned i = 0, first = 1; i < r->n; i++)
			if (row_jv(r, i)) {
				o->put(o->to, "%s\"%s\": %llu", first ? "" : ", ", row_jv(r, i),
				       (unsigned long long)*row_at(r, base, i));
				first = 0;
			}
		o->put(o->to, "}");
	}
}

void rows_metrics(const struct row_out *o, const char *prefix, const struct row *rows, size_t n, const void *base)
{
	for (size_t k = 0; k < n; k++) {
		const struct row *r = &rows[k];

		if (!r->name)
			continue;
		o->put(o->to, "# HELP %s%s %s\n# TYPE %s%s counter\n", prefix, r->name, r->help, prefix, r->name);
		for (unsigned i = 0; i < r->n; i++)
			if (!r->label)
				o->put(o->to, "%s%s %llu\n", prefix, r->name, (unsigned long long)*row_at(r, base, i));
			else if (r->lv[i])
				o->put(o->to, "%s%s{%s=\"%s\"} %llu\n", prefix, r->name, r->label, r->lv[i],
				       (unsigned long long)*row_at(r, base, i));
	}
}
