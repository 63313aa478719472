/* Whether hxload's run goes on: an interrupt, the one fatal line, a bad command line, any success yet. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "lc_fate.h"

static atomic_int interrupted;
static atomic_int fatal_seen;        /* nothing can work: a connection never made, a mismatch */
static char fatal_msg[1024];
static atomic_int any_success;
static atomic_int silent_closes;      /* cleartext connections closed before a byte came */
static pthread_mutex_t fatal_lock = PTHREAD_MUTEX_INITIALIZER;

void lc_die(const char *fmt, const char *arg)
{
	fprintf(stderr, "hxload: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

void lc_interrupt(void)
{
	interrupted = 1;
}

int lc_interrupted(void)
{
	return interrupted;
}

const char *lc_fatal(void)
{
	return fatal_seen ? fatal_msg : NULL;
}

void lc_fatal_set(const char *msg)
{
	pthread_mutex_lock(&fatal_lock);
	if (!fatal_seen) {
		snprintf(fatal_msg, sizeof(fatal_msg), "hxload: %s", msg);
		fatal_seen = 1;
	}
	pthread_mutex_unlock(&fatal_lock);
}

void lc_success(void)
{
	any_success = 1;
}

int lc_succeeded(void)
{
	return any_success;
}

int lc_silent_close(void)
{
	return atomic_fetch_add(&silent_closes, 1) + 1;
}
