#!/usr/bin/perl
# sse=1, server-sent events: over h1 (chunked, close-delimited), h2 and h3 with real clients (curl, gtlsclient), stamped and spaced as d= says (drawn per event), resumed by Last-Event-ID, cut by x=, bad items refused; hxload --sse measures each event's delay, and through nginx sees none bunched where it passes events on and most bunched where its gzip holds them.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use HxTest;

my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $port = start_hx('-tls', '-t', '1');
my $tls = hx_tls_port();
my $base = "http://127.0.0.1:$port";

# the events of a body: [id, stamp (epoch us), data, retry]
sub events {
    my @ev;
    for my $blk (split /\n\n/, $_[0]) {
        my %f = map { /^(\w+): ?(.*)$/ ? ($1 => $2) : () } split /\n/, $blk;
        next unless defined $f{data};
        my ($ts, $data) = $f{data} =~ /^(\d{16}) (.*)$/;
        push @ev, [ $f{id}, $ts, $data, $f{retry} ];
    }
    return @ev;
}

my ($out, $rc) = curl_hx('-i', "$base/?sse=1&n=4&s=30&d=100&retry=2500");
my ($head, $body) = split /\r\n\r\n/, $out, 2;
like($head, qr{^Content-Type: text/event-stream\r$}mi, 'h1: Content-Type: text/event-stream');
like($head, qr{^Transfer-Encoding: chunked\r$}mi, '... chunked');
like($head, qr{^Cache-Control: no-cache\r$}mi, '... not to be cached');
my @ev = events($body // '');
is_deeply([ map { $_->[0] } @ev ], [ map { sprintf '%010d', $_ } 1 .. 4 ], 'four events, ids 1 to 4');
ok(!grep({ length($_->[2] // '') != 30 || ($_->[3] // '') ne '2500' } @ev), '... each with 30 bytes of data and retry: 2500');
my @gap = map { ($ev[$_][1] - $ev[$_ - 1][1]) / 1000 } 1 .. $#ev;
ok(@gap == 3 && !grep({ $_ < 99 || $_ > 1000 } @gap), "... stamped at their sends, 100 ms apart (@gap ms)");
like($head, qr{X-rsp: [^\r]*pace=300 ms}, '... X-rsp says the pace (3 pauses of 100 ms)');

# d= drawn per event
($out) = curl_hx("$base/?sse=1&n=7&s=1&d=10-80");
@ev = events($out);
@gap = map { ($ev[$_][1] - $ev[$_ - 1][1]) / 1000 } 1 .. $#ev;
my ($lo, $hi) = (sort { $a <=> $b } @gap)[0, -1];
ok(@gap == 6 && $lo >= 9.5 && $hi - $lo > 3, sprintf('d=10-80: drawn per event (%.1f to %.1f ms)', $lo // 0, $hi // 0));

# close-delimited, resumed, cut
($out) = curl_hx('-i', "$base/?sse=1&n=2&s=5&b=0");
($head, $body) = split /\r\n\r\n/, $out, 2;
ok($head !~ /^(Transfer-Encoding|Content-Length):/mi && $head =~ /^Connection: close\r$/mi && events($body) == 2,
   'b=0: close-delimited, two events');
($out) = curl_hx('-H', 'Last-Event-ID: 0000000003', "$base/?sse=1&n=5&s=5");
is_deeply([ map { $_->[0] + 0 } events($out) ], [ 4, 5 ], 'Last-Event-ID: 3 resumes at 4');
($out) = curl_hx('-i', '-H', 'Last-Event-ID: 5', "$base/?sse=1&n=5&s=5");
like($out, qr{^HTTP/1\.1 204 }, '... every event had: 204, an EventSource does not reconnect');
($out) = curl_hx('-i', '-H', 'Last-Event-ID: abc', "$base/?sse=1&n=5&s=5");
like($out, qr{^HTTP/1\.1 400 .*Last-Event-ID: expected the decimal id}s, '... an id hxterm never sent: 400, says why');
my $len = 40 + 10; # one event of s=10
($out, $rc) = curl_hx("$base/?sse=1&n=5&s=10&x=" . ($len * 2 + 5));
ok($rc != 0 && events($out) == 2, "x=: the stream cut after two events and 5 bytes (curl exit $rc)");

for my $bad (['sse=2', qr/expected sse=1/], ['sse=1&retry=x', qr/expected retry=MS/], ['sse=1&E=1', qr/not with E= or ws=/],
             ['sse=1&n=1m&s=1k', qr/above 16 MiB/]) {
    ($out) = curl_hx('-i', "$base/?$bad->[0]");
    like($out, qr{^HTTP/1\.1 400 .*$bad->[1]}s, "?$bad->[0]: 400, says why");
}

# h2 and h3
($out) = curl_hx('--http2-prior-knowledge', "$base/?sse=1&n=3&s=8&d=20");
is(scalar(events($out)), 3, 'h2c: three events');
my $dir = tempdir(CLEANUP => 1);
$out = `timeout 20 gtlsclient --no-quic-dump --no-http-dump --exit-on-all-streams-close --download=$dir 127.0.0.1 $tls 'https://127.0.0.1:$tls/?sse=1&n=3&s=8&d=20' 2>&1`;
my ($file) = glob("$dir/*");
my $h3 = $file && do { local $/; open my $fh, '<', $file; <$fh> } // '';
is(scalar(events($h3)), 3, 'h3 (gtlsclient): three events');

# hxload --sse: each event's delay
sub sse_run {
    my ($url, @more) = @_;
    my $j = eval { decode_json(`$hxload -q --json --sse -c 2 -d 2 @more '$url' 2>&1`) } // {};
    return ($j->{events}{n} // 0, $j->{events}{bunched} // -1, $j->{event_ms}{p50} // -1);
}
my ($n, $bunched, $p50) = sse_run("$base/?sse=1&n=5&s=20&d=50");
ok($n >= 60 && $bunched <= 0.05 * $n && $p50 >= 0 && $p50 < 20,
   "hxload --sse, direct: $n events, $bunched bunched, delay p50 $p50 ms");

SKIP: {
    my $td = tempdir(CLEANUP => 1);
    my ($pb, $pg) = (free_port(), free_port());
    my $loc = "proxy_pass http://127.0.0.1:$port; proxy_http_version 1.1; proxy_buffering on;";
    my $ng = nginx_run($td, $pg, "http {\n    server { listen 127.0.0.1:$pb; location / { $loc } }\n"
                       . "    server { listen 127.0.0.1:$pg; location / { $loc gzip on; gzip_types text/event-stream; "
                       . "gzip_min_length 0; } }\n}\n");
    skip 'no nginx', 2 unless $ng;
    # WHY gzip to see bunching: nginx 1.22 with proxy_buffering on passes each
    # event on as it reads it; its gzip filter holds them until a deflate block fills
    ($n, $bunched, $p50) = sse_run("http://127.0.0.1:$pb/?sse=1&n=5&s=20&d=50", '-H', "'Accept-Encoding: gzip'");
    ok($n >= 60 && $bunched <= 0.05 * $n, "through nginx, proxy_buffering on: $n events, $bunched bunched (p50 $p50 ms)");
    ($n, $bunched, $p50) = sse_run("http://127.0.0.1:$pg/?sse=1&n=5&s=20&d=50", '-H', "'Accept-Encoding: gzip'");
    ok($n >= 60 && $bunched >= 0.5 * $n && $p50 >= 25,
       "through nginx with gzip on events: $n events, $bunched bunched, delay p50 $p50 ms");
    kill 'TERM', $ng;
    waitpid($ng, 0);
}

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
