/* The older tools' command lines (haterm's, httpterm's, httpterm's configuration file) rewritten into hxterm's options, the rest refused by name. */
#ifndef HX_COMPAT_H
#define HX_COMPAT_H

/* Rewrites <argv> (<argc> words, argv[0] the program) into a new vector in
 * *<out> of hxterm options only, *<outc> words, NULL-terminated, its
 * strings alive for the whole run. <takes_arg>(word) tells whether an
 * hxterm option word takes the next word as its value (that word is
 * copied, never read as an option). Returns 0, or -1 after one line naming
 * what hxterm cannot map. */
int compat_argv(int argc, char **argv, int (*takes_arg)(const char *opt), int *outc, char ***out);

/* --tcp-bind-opts accept-proxy, or a `listen ... accept-proxy`: every TCP
 * listener takes a PROXY header first (set by compat_argv) */
extern int compat_accept_proxy;

#endif
