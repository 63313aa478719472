/* hxload's URL reader (url.c): schemes, hosts (names, IPv4, [IPv6]), ports, paths; a bad URL exits 2 with one line. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lc_cli.h"
#include "tap.h"

static void fresh(void)
{
	for (int i = 0; i < lc_target.npaths; i++)
		free(lc_target.paths[i].path);
	free(lc_target.paths);
	memset(&lc_target, 0, sizeof(lc_target));
}

static void good(void)
{
	fresh();
	lc_url_parse("https://example.com:8443/a/b?s=1k&t=5", 1);
	ok(lc_tg->tls && lc_tg->proto == LC_AUTO && lc_tg->port == 8443, "https, its port");
	is_str(lc_tg->host, "example.com", "... the host");
	is_str(lc_tg->authority, "example.com:8443", "... the authority, as written");
	is_str(lc_tg->paths[0].path, "/a/b?s=1k&t=5", "... the path with its query");
	lc_url_parse("https://example.com:8443/c", 0);
	ok(lc_tg->npaths == 2, "a second URL on the same target (--urls)");
	fresh();
	lc_url_parse("http://[::1]:81", 1);
	ok(!lc_tg->tls && lc_tg->port == 81, "http, [IPv6]:port");
	is_str(lc_tg->host, "::1", "... the host without brackets");
	is_str(lc_tg->paths[0].path, "/", "... no path: /");
	fresh();
	lc_url_parse("h2c://127.0.0.1?s=1", 1);
	ok(lc_tg->proto == LC_H2 && lc_tg->port == 80, "h2c: HTTP/2 in clear, port 80");
	is_str(lc_tg->paths[0].path, "/?s=1", "... a query alone gets its /");
	fresh();
	lc_url_parse("wss://h", 1);
	ok(lc_tg->proto == LC_WS && lc_tg->tls && lc_tg->port == 443, "wss: a WebSocket over TLS, port 443");
}

/* <url> refused: exit 2, one line naming the problem */
static int refused(const char *url, int first, const char *want)
{
	int fd[2], st;
	char buf[512] = "";
	pid_t pid;
	ssize_t n, got = 0;

	fflush(stdout);
	if (pipe(fd) < 0 || (pid = fork()) < 0)
		return 0;
	if (!pid) {
		dup2(fd[1], 2);
		if (!first)
			lc_url_parse("http://a:1/", 1);
		lc_url_parse(url, first);
		_exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = 0;
	close(fd[0]);
	waitpid(pid, &st, 0);
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 2 && strstr(buf, want))) {
		printf("# '%s': %s", url, buf);
		return 0;
	}
	return 1;
}

static void bad(void)
{
	ok(refused("ftp://h/", 1, "use http://"), "an unknown scheme");
	ok(refused("http:///x", 1, "no host"), "no host");
	ok(refused("http://u:p@h/", 1, "user:password@"), "credentials in the URL");
	ok(refused("http://h:0/", 1, "1 to 65535"), "port 0");
	ok(refused("http://h:65536/", 1, "1 to 65535"), "port 65536");
	ok(refused("http://[::1/", 1, "unclosed ["), "an unclosed [");
	ok(refused("http://h/a#f", 1, "#fragment"), "a fragment");
	ok(refused("http://h/a b", 1, "space or control"), "a space in the path");
	ok(refused("http://b:1/", 0, "not on the first URL"), "--urls: another host");
}

int main(void)
{
	good();
	bad();
	return done_testing();
}
