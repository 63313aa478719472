#!/usr/bin/perl
# Token streams: sse=1 with ttft= (the first event's delay), s= drawn per event and done=1 on h1, h2 and h3; hxload --sse times the first event, the gaps as sent and as received, events per second; through HAProxy with option http-no-delay nothing is held back (its defaults hold each event until the next), through nginx (gzip on events) events come bunched and held; hxload ab compares the same rows.
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
my $q = 'sse=1&n=5&s=1-60&d=20&ttft=200&done=1';

# the raw stream: [DONE] last, sizes drawn per event, the first event 200 ms after the head
my ($out) = curl_hx('-w', '\n%{time_starttransfer}', "http://127.0.0.1:$port/?$q");
my ($ttfb) = $out =~ /\n([\d.]+)\z/;
my @data = $out =~ /^data: \d{16} (.*)$/mg;
my %len = map { length($_) => 1 } @data;
ok(@data == 5 && keys(%len) >= 2, 'five events, sizes drawn per event: ' . join(' ', map { length } @data));
like($out, qr/\ndata: \[DONE\]\n\n/, 'done=1: data: [DONE] after the last event');
ok(defined $ttfb && $ttfb < 0.15, "the head at once (first byte after ${\ ($ttfb // '?')} s), the first event later");
($out) = curl_hx('-i', "http://127.0.0.1:$port/?sse=1&ttft=x");
like($out, qr{^HTTP/1\.1 400 .*expected ttft=MS}s, 'ttft=x: 400, says why');

# hxload --sse on each protocol: the first event ttft= after the send, gaps d= apart
for my $p ([ 'h1', '', "http://127.0.0.1:$port" ], [ 'h2', '--h2', "https://127.0.0.1:$tls" ],
           [ 'h3', '--h3', "https://127.0.0.1:$tls" ]) {
    my ($name, $flag, $url) = @$p;
    my $j = hxload_json("--sse -c 2 -d 0.7 $flag '$url/?$q'") // {};
    my ($f, $gs, $gr, $eps) = (($j->{first_event_ms}{p50} // -1), ($j->{gap_sent_ms}{p50} // -1),
                               ($j->{gap_recv_ms}{p50} // -1), ($j->{events}{per_second_p50} // -1));
    ok($f >= 195 && $f < 600 && $gs >= 19 && $gs < 60 && $gr >= 10 && $gr < 60 && $eps > 15 && $eps < 55
       && ($j->{events}{streams} // 0) >= 2,
       "$name: first event p50 $f ms, gaps p50 $gs ms sent, $gr received, $eps events/s");
}

my $dir = tempdir(CLEANUP => 1);
sub held {
    my ($url, @more) = @_;
    my $j = hxload_json("--sse -c 2 -d 0.7 @more '$url/?$q'") // {};
    return ($j->{event_ms}{p50} // -1, $j->{events}{bunched} // -1, $j->{events}{n} // 0, $j->{gap_recv_ms}{p50} // -1);
}
SKIP: {
    my ($hp, $hn) = (free_port(), free_port());
    my $ha = haproxy_http($dir, $hp, $port);
    my $hb = haproxy_http($dir, $hn, $port, { defaults => 'option http-no-delay' });
    skip 'no haproxy', 2 unless $ha && $hb;
    my ($held, $bunched, $n, $gr) = held("http://127.0.0.1:$hn");
    ok($n >= 10 && $held >= 0 && $held < 10 && $bunched <= 0.1 * $n,
       "through HAProxy, option http-no-delay: $n events, held p50 $held ms, $bunched bunched, gaps received p50 $gr ms");
    # the same rows in ab. WHY HAProxy's defaults there: 2.6 holds each
    # event until the next comes (and the head until the first), which the
    # rows show; the assertion is on the rows, a later HAProxy may not hold
    my $ab = `timeout 60 $hxload ab --json --sse --keep $dir/keep --rounds 2 -c 2 -R 4 -d 0.7 'http://127.0.0.1:$port/?$q' 'http://127.0.0.1:$hp/?$q' 2>$dir/ab.err`;
    my $f = (eval { decode_json($ab) } // {})->{figures} // {};
    my ($fe, $ev) = map { $f->{$_} // {} } 'first_event_ms.p50', 'event_ms.p50';
    ok(defined $fe->{diff} && $fe->{diff} > -20 && defined $ev->{diff} && exists $f->{'gap_recv_ms.p99'}
       && exists $f->{'events.per_second_p50'},
       sprintf('hxload ab --sse, HAProxy defaults: first event p50 B - A %+.3f ms, event held p50 %+.3f ms; gap and rate rows there',
               $fe->{diff} // -1, $ev->{diff} // -1)) or diag(`cat $dir/ab.err`);
    kill 'TERM', $ha, $hb;
    waitpid($_, 0) for $ha, $hb;
}

SKIP: {
    my $pg = free_port();
    # WHY gzip: nginx 1.22 with proxy_buffering on passes each event on as
    # it reads it (48-sse.t); its gzip filter holds them until a block fills
    my $ng = nginx_run($dir, $pg, "http {\n    server { listen 127.0.0.1:$pg; location / { proxy_pass "
                       . "http://127.0.0.1:$port; proxy_http_version 1.1; proxy_buffering on; gzip on; "
                       . "gzip_types text/event-stream; gzip_min_length 0; } }\n}\n");
    skip 'no nginx', 1 unless $ng;
    my ($held, $bunched, $n, $gr) = held("http://127.0.0.1:$pg", '-H', "'Accept-Encoding: gzip'");
    ok($n >= 10 && $held >= 15 && $bunched >= 0.5 * $n && $gr < 10,
       "through nginx (gzip on events): $n events, held p50 $held ms, $bunched bunched, gaps received p50 $gr ms");
    kill 'TERM', $ng;
    waitpid($ng, 0);
}

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
