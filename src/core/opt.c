/* The option table's engine: defaults, getopt's tables, setting a row from its value, -h and the dump, for every program's table alike. */
#include <stdio.h>
#include <string.h>

#include "num.h"
#include "opt.h"

static uint64_t get_num(const void *base, const struct opt *o)
{
	const char *p = (const char *)base + o->off;

	switch (o->size) {
	case 1: return *(const uint8_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

static void put_num(void *base, const struct opt *o, uint64_t v)
{
	char *p = (char *)base + o->off;

	switch (o->size) {
	case 1: *(uint8_t *)p = (uint8_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = v; break;
	}
}

void opt_defaults(const struct opt *t, void *base)
{
	for (; t->kind != OPT_END; t++) {
		if (t->kind == OPT_NUM && t->dflt)
			put_num(base, t, t->dflt);
		else if (t->kind == OPT_STR && t->sdflt)
			*(const char **)((char *)base + t->off) = t->sdflt;
	}
}

static int has_opt(const struct opt *o)
{
	return o->kind > OPT_TEXT;
}

int opt_getopt(const struct opt *t, char *shorts, size_t ns, struct option *lo, size_t nlo)
{
	size_t s = 0, l = 0;

	if (ns < 2 || !nlo)
		return -1;
	shorts[s++] = ':';
	for (int i = 0; t[i].kind != OPT_END; i++) {
		const struct opt *o = &t[i];

		if (!has_opt(o))
			continue;
		if (o->sname) {
			if (s + 3 > ns)
				return -1;
			shorts[s++] = o->sname;
			if (o->arg)
				shorts[s++] = ':';
		}
		if (o->lname) {
			if (l + 2 > nlo)
				return -1;
			lo[l++] = (struct option){ o->lname, o->arg ? required_argument : no_argument, NULL,
						   o->sname ? o->sname : 256 + i };
		}
	}
	shorts[s] = 0;
	lo[l] = (struct option){ 0 };
	return 0;
}

const struct opt *opt_row(const struct opt *t, int key)
{
	for (int i = 0; t[i].kind != OPT_END; i++)
		if (has_opt(&t[i]) && (key >= 256 ? i == key - 256 : t[i].sname == key))
			return &t[i];
	return NULL;
}

const char *opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->lname)
		snprintf(buf, len, "--%s", o->lname);
	else
		snprintf(buf, len, "-%c", o->sname);
	return buf;
}

int opt_set(const struct opt *o, void *base, const char *arg, char *why, size_t len)
{
	char name[64];
	const char *err = NULL;
	uint64_t v;

	switch (o->kind) {
	case OPT_FLAG:
	case OPT_CLEAR:
		put_num(base, o, o->kind == OPT_FLAG);
		return 0;
	case OPT_CONST:
		put_num(base, o, o->val);
		return 0;
	case OPT_STR:
		*(const char **)((char *)base + o->off) = arg;
		return 0;
	case OPT_FN:
		return o->set ? o->set(arg, why, len) : o->set_at(o, base, arg, why, len);
	case OPT_NUM:
		if (o->parse ? o->parse(arg, &v, &err) < 0 : num_plain(arg, strlen(arg), &v, &err) < 0)
			return snprintf(why, len, "%s '%s': %s", opt_name(o, name, sizeof(name)), arg, err), -1;
		if ((v < o->min || v > o->max) && o->range)
			return snprintf(why, len, "%s '%s': out of range (%s)", opt_name(o, name, sizeof(name)), arg,
					o->range), -1;
		if (v < o->min || v > o->max)
			return snprintf(why, len, "%s '%s': out of range [%llu, %llu]", opt_name(o, name, sizeof(name)),
					arg, (unsigned long long)o->min, (unsigned long long)o->max), -1;
		put_num(base, o, v);
		return 0;
	}
	return snprintf(why, len, "%s: not an option that takes a value", opt_name(o, name, sizeof(name))), -1;
}

/* a row's first column: "-v, --version", "--h2-window <n>" */
static void head_of(const struct opt *o, char *buf, size_t len)
{
	if (o->head)
		snprintf(buf, len, "%s", o->head);
	else if (o->sname && o->lname)
		snprintf(buf, len, "-%c, --%s%s%s", o->sname, o->lname, o->arg ? " " : "", o->arg ? o->arg : "");
	else if (o->lname)
		snprintf(buf, len, "--%s%s%s", o->lname, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(buf, len, "-%c%s%s", o->sname, o->arg ? " " : "", o->arg ? o->arg : "");
}

void opt_usage(FILE *f, const struct opt *t, int col)
{
	char head[128];

	for (; t->kind != OPT_END; t++) {
		const char *h = t->help;

		if (!h)
			continue;
		if (t->kind == OPT_TEXT) {
			fprintf(f, "%s\n", h);
			continue;
		}
		head_of(t, head, sizeof(head));
		/* WHY two spaces after a long head: it reads as the help's start */
		if (strlen(head) <= (size_t)col - 3)
			fprintf(f, "  %-*s", col - 2, head);
		else
			fprintf(f, "  %s  ", head);
		for (;;) {
			size_t n = strcspn(h, "\n");

			fprintf(f, "%.*s\n", (int)n, h);
			if (!h[n])
				break;
			h += n + 1;
			fprintf(f, "%*s", col, "");
		}
	}
}

void opt_dump(FILE *f, const struct opt *t, const void *base)
{
	char name[64];

	for (; t->kind != OPT_END; t++) {
		const char *s;

		if (!has_opt(t) || (t->hide && t->hide(base)))
			continue;
		if (t->dump) {
			t->dump(f, t, base);
			continue;
		}
		switch (t->kind) {
		case OPT_FLAG:
			if (get_num(base, t))
				fprintf(f, "%s\n", opt_name(t, name, sizeof(name)));
			break;
		case OPT_NUM:
			fprintf(f, "%s %llu\n", opt_name(t, name, sizeof(name)), (unsigned long long)get_num(base, t));
			break;
		case OPT_STR:
			if ((s = *(const char *const *)((const char *)base + t->off)))
				fprintf(f, "%s '%s'\n", opt_name(t, name, sizeof(name)), s);
			break;
		}
	}
}

int opt_takes_arg(const struct opt *t, const char *w)
{
	if (w[0] != '-')
		return 0;
	for (; t->kind != OPT_END; t++) {
		if (!has_opt(t) || !t->arg)
			continue;
		if (w[1] != '-' ? t->sname && w[1] == t->sname && !w[2] : t->lname && !strcmp(w + 2, t->lname))
			return 1;
	}
	return 0;
}

const struct opt *opt_word(const struct opt *t, const char *w, const char **val)
{
	*val = NULL;
	if (w[0] != '-' || !w[1])
		return NULL;
	for (; t->kind != OPT_END; t++) {
		size_t n = t->lname ? strlen(t->lname) : 0;

		if (!has_opt(t))
			continue;
		if (w[1] == '-' && n && !strncmp(w + 2, t->lname, n) && (!w[2 + n] || w[2 + n] == '=')) {
			*val = w[2 + n] ? w + 3 + n : NULL;
			return t;
		}
		if (w[1] != '-' && t->sname == w[1]) {
			*val = w[2] ? w + 2 : NULL;
			return t;
		}
	}
	return NULL;
}
