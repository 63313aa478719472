#!/usr/bin/perl
# Connection behaviours a proxy must survive (issue 45 §4): a connection's end after N requests (--conn-requests, maxreq=) on h1, h2c and h2 counted by hxload with 0 errors, through HAProxy and nginx.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use HxTest;

my $dir = tempdir(CLEANUP => 1);
my $port = start_hx('-tls', '-t', '1', '--conn-requests', '10');
my $tls = hx_tls_port();

# ---- 1. the end after N requests: Connection: close on h1, GOAWAY on h2 ----
for my $u ("http://127.0.0.1:$port/?s=100", "h2c://127.0.0.1:$port/?s=100", "https://127.0.0.1:$tls/?s=100",
           "h2c://127.0.0.1:$port/?s=100&maxreq=7") {
    my $j = hxload_json("-c 4 -n 200 -d 10 '$u'") // {};
    my $n = $u =~ /maxreq=(\d+)/ ? $1 : 10;
    my $g = $j->{connections}{goaway} // -1;
    is($j->{requests} // 0, 200, "$u: 200 answered");
    is($j->{errors_total} // -1, 0, '... 0 errors');
    # WHY a range: the last connection of each of 4 ends with the run, not the limit
    ok($g >= int(200 / $n) - 4 && $g <= int(200 / $n), "... $g connections ended by the server after $n requests");
}
# -m 8: the streams sent past the GOAWAY are not processed (ours) or refused (nghttp2's): sent again
my $j = hxload_json("-c 2 -m 8 -n 300 -d 10 'h2c://127.0.0.1:$port/?s=10'") // {};
is($j->{requests} // 0, 300, 'h2c -m 8: 300 answered');
is($j->{errors_total} // -1, 0, '... 0 errors');
ok(($j->{schedule}{retried} // 0) > 0, "... $j->{schedule}{retried} streams above a GOAWAY sent again");

# curl: Connection: close on the 2nd answer of maxreq=2, a new connection for the 3rd
my $v = `curl -sv 'http://127.0.0.1:$port/?maxreq=2' 'http://127.0.0.1:$port/' 'http://127.0.0.1:$port/' 2>&1`;
my @close = $v =~ /^< Connection: close/mig;
my @conn = $v =~ /^\* Connected to/mg;
ok(@close == 1 && @conn == 2, 'curl: maxreq=2 says Connection: close once, 3 requests on 2 connections');
# nghttp: GOAWAY names the last stream taken, the streams above it are not answered
$v = `nghttp -nv 'http://127.0.0.1:$port/?maxreq=2' 'http://127.0.0.1:$port/?s=1' 'http://127.0.0.1:$port/?s=2' 2>&1`;
my ($last) = $v =~ /recv GOAWAY.*\n.*last_stream_id=(\d+), error_code=NO_ERROR/;
my @ans = $v =~ /recv HEADERS frame .*stream_id=(\d+)>/g;
ok($last && "@ans" eq join(' ', grep { $_ <= $last } @ans) && @ans == 2,
   "nghttp: GOAWAY NO_ERROR last_stream_id=" . ($last // '?') . ", streams @ans answered");

# ---- through proxies: what each does with a backend that ends its connections ----
SKIP: {
    skip 'no haproxy', 4 unless -x '/usr/sbin/haproxy';
    my ($h1, $h2) = (free_port(), free_port());
    ok(haproxy_http($dir, $h1, $port), 'haproxy (h1 to the backend) is up');
    ok(haproxy_http($dir, $h2, $port, { server => 'proto h2' }), 'haproxy (h2c to the backend) is up');
    for my $p ($h1, $h2) {
        my $r = hxload_json("-c 4 -n 200 -d 10 'http://127.0.0.1:$p/?s=100'") // {};
        ok(($r->{requests} // 0) == 200 && ($r->{errors_total} // -1) == 0 && ($r->{connections}{goaway} // -1) == 0,
           "haproxy :$p: 200 answered, 0 errors, its client connections kept (" . ($r->{connections}{goaway} // '?') . ' ended)');
    }
}
SKIP: {
    skip 'no nginx', 2 unless -x '/usr/sbin/nginx';
    my $np = free_port();
    my $ng = nginx_run($dir, $np, <<"EOF2");
http {
    upstream hx { server 127.0.0.1:$port; keepalive 8; }
    server { listen 127.0.0.1:$np; location / { proxy_pass http://hx; proxy_http_version 1.1; proxy_set_header Connection ""; } }
}
EOF2
    ok($ng, 'nginx (keepalive to the backend) is up');
    my $r = hxload_json("-c 4 -n 200 -d 10 'http://127.0.0.1:$np/?s=100'") // {};
    ok(($r->{requests} // 0) == 200 && ($r->{errors_total} // -1) == 0 && ($r->{connections}{goaway} // -1) == 0,
       "nginx: 200 answered, 0 errors, its client connections kept (" . ($r->{connections}{goaway} // '?') . ' ended)');
}

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
