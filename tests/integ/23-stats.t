#!/usr/bin/perl
# --stats: /metrics counts a mixed h1/h2/h3 run exactly and parses as Prometheus text, /stats.json agrees, the live page draws it in Chromium, bad input.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IO::Socket::INET;
use File::Temp qw(tempdir);
use JSON::PP;
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxterm = $ENV{HXTERM} // 'build/hxterm';
my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $py = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
my $dir = tempdir(CLEANUP => 1);
my $sport = free_port();
my $port = start_hx('-tls', '-t', '2', '--stats', "127.0.0.1:$sport");
my $tls = hx_tls_port();

sub get {
    my ($path, $method) = @_;
    my $s = IO::Socket::INET->new("127.0.0.1:$sport") or return ('', '');
    print $s ($method // 'GET') . " $path HTTP/1.1\r\nHost: x\r\n\r\n";
    local $/;
    my $r = <$s> // '';
    my ($h, $b) = split /\r\n\r\n/, $r, 2;
    return ($h // '', $b // '');
}

# every sample of /metrics, parsed by the Prometheus client library: "name{l="v",...}" => value
sub scrape {
    my (undef, $text) = get('/metrics');
    open my $f, '>', "$dir/m.txt" or die;
    print $f $text;
    close $f;
    my $out = `$py - $dir/m.txt 2>&1 <<'EOF'
import json, sys
from prometheus_client.parser import text_string_to_metric_families
res = {}
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        lab = ",".join('%s="%s"' % (k, v) for k, v in sorted(s.labels.items()))
        res["%s{%s}" % (s.name, lab)] = s.value
print(json.dumps(res))
EOF
`;
    my $m = eval { decode_json($out) };
    return $m // do { diag("parser: $out"); {} };
}

# WHY: start_hx's probe connected and closed; wait for the server to have
# ended it, or it lands in the run's counts
for (1 .. 100) {
    my (undef, $js) = get('/stats.json');
    last if ((eval { decode_json($js) } // {})->{protocols}{h1}{connections_closed} // 0) >= 1;
    sleep 0.02;
}
my $m0 = scrape();
ok(keys %$m0 > 100, 'the Prometheus parser reads /metrics (' . scalar(keys %$m0) . ' samples)');
is($m0->{'hxterm_info{name="' . `hostname -s` =~ s/\s+//r . '",threads="2",version="0.1.0"}'} // 1, 1, 'hxterm_info');

# a run of known counts on each protocol
my @runs = ([ 'h1', "-c 2 -n 100 'http://127.0.0.1:$port/?s=10'", 2, 100, '2xx' ],
            [ 'h2c', "-c 2 -n 200 'h2c://127.0.0.1:$port/?s=10'", 2, 200, '2xx' ],
            [ 'h1-tls', "-c 3 -n 300 --h1 'https://127.0.0.1:$tls/?s=10&r=404'", 3, 300, '4xx' ],
            [ 'h2', "-c 2 -n 400 --h2 'https://127.0.0.1:$tls/?t=4'", 2, 400, '2xx' ],
            [ 'h3', "-c 2 -n 500 --h3 'https://127.0.0.1:$tls/?s=10'", 2, 500, '2xx' ]);
my $during;
for my $r (@runs) {
    if ($r->[0] eq 'h2') {
        # scraped while it runs: the counters move and still parse
        my $pid = fork // die;
        if (!$pid) { exec("$hxload -q $r->[1] >/dev/null 2>&1") or POSIX::_exit(127) }
        # WHY polled: one scrape 0.4 s in came before the first answer or after
        # the last on a loaded host (CI); a scrape that saw all 400 answered
        # (hxload not yet gone) is not "during" either: the next one is taken.
        # WHY t=4: 200 answers a connection, 0.8 s at least, room for the scrapes
        my $k = 'hxterm_requests_total{code="2xx",proto="h2"}';
        my $base = $m0->{$k} // 0;
        for (1 .. 300) {
            select(undef, undef, undef, 0.02);
            last if waitpid($pid, POSIX::WNOHANG()) == $pid;
            my $s = scrape();
            my $now = ($s->{$k} // 0) - $base;
            if ($now > 0 && $now < 400) { $during = $s; last }
        }
        waitpid $pid, 0;
        next;
    }
    system("timeout 60 $hxload -q $r->[1] >/dev/null 2>&1");
}
sleep 0.3; # the last connections' closes
my $m1 = scrape();
my $d = sub { my $k = shift; ($m1->{$k} // 0) - ($m0->{$k} // 0) };
for my $r (@runs) {
    my ($p, undef, $conns, $n, $class) = @$r;
    is($d->("hxterm_requests_total{code=\"$class\",proto=\"$p\"}"), $n, "$p: $n responses $class");
    is($d->("hxterm_connections_opened_total{proto=\"$p\"}"), $conns, "$p: $conns connections opened");
    is($d->("hxterm_connections_closed_total{proto=\"$p\"}"), $conns, "$p: ... and closed");
    is($d->("hxterm_requests_per_connection_count{proto=\"$p\"}"), $conns, "$p: requests per connection: $conns connections");
    is($d->("hxterm_requests_per_connection_sum{proto=\"$p\"}"), $n, "$p: ... carrying $n requests");
    is($d->("hxterm_generation_seconds_count{proto=\"$p\"}"), $n, "$p: $n generation times");
}
for my $p ('h1', 'h2c', 'h1-tls', 'h2', 'h3') {
    my $n = (grep { $_->[0] eq $p } @runs)[0][2];
    is($d->("hxterm_connection_closes_total{proto=\"$p\",reason=\"peer\"}"), $n, "$p: the $n connections were closed by the peer (hxload)");
}
ok($d->('hxterm_generation_seconds_sum{proto="h2"}') >= 400 * 0.004, 'h2 t=4: the generation time sums at least 400 x 4 ms');
is($d->('hxterm_timer_lateness_seconds_count{}'), 400, "400 t= waits' lateness");
my $tls_hs = 0;
$tls_hs += $d->("hxterm_tls_handshakes_total{resumed=\"$_->[1]\",version=\"$_->[0]\"}")
    for [ '1.3', 'false' ], [ '1.3', 'true' ], [ '1.2', 'false' ], [ '1.2', 'true' ];
is($tls_hs, 5, '5 TLS handshakes (3 h1, 2 h2)');
my $thr = $d->('hxterm_thread_requests_total{thread="0"}') + $d->('hxterm_thread_requests_total{thread="1"}');
is($thr, 1500, "requests by thread add up to 1500");
ok($during && ($during->{'hxterm_requests_total{code="2xx",proto="h2"}'} // 0) > ($m0->{'hxterm_requests_total{code="2xx",proto="h2"}'} // 0)
   && ($during->{'hxterm_requests_total{code="2xx",proto="h2"}'} // 0) < ($m1->{'hxterm_requests_total{code="2xx",proto="h2"}'} // 0),
   'scraped during the h2 run: between the before and after counts');

# /stats.json: the same figures
my (undef, $js) = get('/stats.json');
my $j = eval { decode_json($js) } // {};
is($j->{protocols}{h3}{requests} - ($m0->{'hxterm_requests_total{code="2xx",proto="h3"}'} // 0), 500, '/stats.json: h3 requests');
is($j->{protocols}{'h1-tls'}{status}{'4xx'}, $m1->{'hxterm_requests_total{code="4xx",proto="h1-tls"}'}, '/stats.json: h1-tls 4xx as /metrics');
is(scalar @{ $j->{per_thread} }, 2, '/stats.json: two threads');

# refused requests, faults
{
    my @socks;
    for my $req ("GARBAGE\r\n\r\n", map { "GET /?$_ HTTP/1.1\r\nHost: x\r\n\r\n" } 's=100k&x=1000', 's=10&C=1', 's=10&w=200') {
        my $c = connect_hx($port);
        print $c $req;
        read_all($c, $req =~ /w=200/ ? 1.5 : 1);
        push @socks, $c;
    }
    close $_ for @socks; # WHY: a server-side close lingers until the client's FIN
    sleep 0.3;
    my $m2 = scrape();
    for my $r ([ 'bad_request', 'GARBAGE' ], [ 'fault', 'x=1000' ], [ 'server', 'C=1' ], [ 'idle', 'w=200' ]) {
        is(($m2->{"hxterm_connection_closes_total{proto=\"h1\",reason=\"$r->[0]\"}"} // 0)
           - ($m1->{"hxterm_connection_closes_total{proto=\"h1\",reason=\"$r->[0]\"}"} // 0), 1, "$r->[1]: a close counted as $r->[0]");
    }
    is(($m2->{'hxterm_bad_requests_total{code="400"}'} // 0) - ($m1->{'hxterm_bad_requests_total{code="400"}'} // 0), 1,
       'a malformed request: bad_requests_total{code="400"} + 1');
    is(($m2->{'hxterm_faults_total{kind="reset"}'} // 0) - ($m1->{'hxterm_faults_total{kind="reset"}'} // 0), 1,
       'x=1000: faults_total{kind="reset"} + 1');
}

# h2 and h3 resets, and QUIC datagrams that made no connection
{
    my $m2 = scrape();
    system("timeout 20 $hxload -q -c 1 -n 3 'h2c://127.0.0.1:$port/?s=100k&x=1000' >/dev/null 2>&1");
    system("timeout 20 $hxload -q --h3 -c 1 -n 2 'https://127.0.0.1:$tls/?s=100k&x=1000' >/dev/null 2>&1");
    my $u = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$tls", Proto => 'udp') or die;
    $u->send("\xff\x00\x01");                                        # not QUIC: a long header cut short
    $u->send("\x40" . ("\x11" x 17) . ("\x22" x 60));               # short header, no such connection
    $u->send("\xc0\x1a\x2a\x3a\x4a\x08" . ("\x33" x 8) . "\x08" . ("\x44" x 8) . ("\x00" x 1200)); # unknown version
    sleep 0.3;
    my $m3 = scrape();
    my $dd = sub { ($m3->{$_[0]} // 0) - ($m2->{$_[0]} // 0) };
    is($dd->('hxterm_h2_resets_sent_total{code="internal_error"}'), 3, 'h2 x=: 3 RST_STREAM INTERNAL_ERROR sent');
    is($dd->('hxterm_h3_resets_sent_total{code="internal_error"}'), 2, 'h3 x=: 2 RESET_STREAM H3_INTERNAL_ERROR sent');
    is($dd->('hxterm_quic_datagrams_total{outcome="dropped"}'), 1, 'a datagram that is not QUIC: dropped, counted');
    is($dd->('hxterm_quic_datagrams_total{outcome="stateless_reset"}'), 1, 'a short header for no connection: a stateless reset');
    is($dd->('hxterm_quic_datagrams_total{outcome="version_negotiation"}'), 1, 'an unknown version: version negotiation');
}

# the listener's own answers
my ($h) = get('/nothing');
like($h, qr{^HTTP/1.1 404}, 'an unknown path: 404');
($h) = get('/metrics', 'POST');
like($h, qr{^HTTP/1.1 405}, 'POST: 405');
($h, my $b) = get('/metrics', 'HEAD');
ok($h =~ /Content-Length: [1-9]/ && $b eq '', 'HEAD: the length, no body');
($h, $b) = get('/');
ok($h =~ m{Content-Type: text/html} && $b =~ /<canvas id="rps"/ && $b !~ /(?:src|href)=["']?https?:/,
   '/: the live page, no external asset');

# bad input on the stats port: one answer each, at once
sub raw_stats {
    my ($bytes, $wait) = @_;
    my $s = IO::Socket::INET->new("127.0.0.1:$sport") or return ('', 0);
    my $t0 = time;
    print $s $bytes;
    my ($buf) = read_all($s, $wait // 5);
    return ($buf, time - $t0);
}
for my $case (["\x00\x01\x02\r\n\r\n", 400, 'a head starting with NUL'], ["\x16\x03\x01\x02\x00\x01", 400, 'a TLS hello'],
              ["GET /metrics\x00 HTTP/1.1\r\n", 400, 'a NUL inside the request line'],
              ["DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 405, 'DELETE'],
              ["GET /metrics HTTP/1.1\r\nX: " . ('a' x 9000) . "\r\n\r\n", 431, 'a 9 KB head']) {
    my ($buf, $dt) = raw_stats($case->[0]);
    like($buf, qr{^HTTP/1\.1 $case->[1] [^\r]*\r\n.*\r\n\r\n[^\n]+\n\z}s, "$case->[2]: $case->[1] with a one-line reason");
    ok($dt < 1, sprintf('... at once (%.2f s)', $dt));
}
like((raw_stats("DELETE / HTTP/1.1\r\n\r\n"))[0], qr/\r\nAllow: GET, HEAD\r\n/, '405 names the methods allowed');
# the forms a server must accept: absolute-form (RFC 9112 3.2.2, curl through
# a proxy sends it), and a method that is a token but not ours (methods are
# case-sensitive: "get" is not GET)
{
    my $o = `curl -s -i --max-time 5 -x http://127.0.0.1:$sport http://stats.example/metrics 2>&1`;
    ok($o =~ m{^HTTP/1\.1 200 } && $o =~ /^hxterm_requests_total[ {]/m, 'absolute-form (curl -x): 200, the metrics')
        or diag(substr($o, 0, 200));
    $o = `curl -s -i --max-time 5 -x http://127.0.0.1:$sport 'http://stats.example?since=0' 2>&1`;
    ok($o =~ m{^HTTP/1\.1 200 } && $o =~ m{Content-Type: text/html}, 'absolute-form with no path: "/", the page')
        or diag(substr($o, 0, 200));
    $o = `curl -s -i --max-time 5 -X get http://127.0.0.1:$sport/metrics 2>&1`;
    ok($o =~ m{^HTTP/1\.1 405 } && $o =~ /\r\nAllow: GET, HEAD\r\n/, 'a lowercase get (curl -X get): 405 with Allow')
        or diag(substr($o, 0, 200));
    my ($buf) = raw_stats("GET /" . ('m' x 300) . " HTTP/1.1\r\n\r\n");
    like($buf, qr{^HTTP/1\.1 414 }, 'a target over 255 bytes: 414, not cut');
    ($buf) = raw_stats("GET http:///metrics HTTP/1.1\r\n\r\n");
    like($buf, qr{^HTTP/1\.1 400 }, 'absolute-form without a host: 400');
}
{
    my ($buf, $dt) = raw_stats("GET /metr", 5);
    ok($buf =~ m{^HTTP/1\.1 408 } && $dt > 1.5 && $dt < 4.5, sprintf('half a head: 408 after its 2 s deadline (%.2f s)', $dt));
}

# 50 silent clients and 10 that drip a byte at a time: every scrape is still answered
{
    my @silent = map { IO::Socket::INET->new("127.0.0.1:$sport") } 1 .. 50;
    my @drip = map { IO::Socket::INET->new("127.0.0.1:$sport") } 1 .. 10;
    ok(!grep(!defined, @silent, @drip), '60 clients hold the stats port');
    my ($worst, $good, $i) = (0, 0, 0);
    for (1 .. 100) {
        if (!($i++ % 10)) { for (@drip) { syswrite($_, 'G') if $_ } }
        my $t0 = time;
        my ($hh, $bb) = get('/metrics');
        my $dt = time - $t0;
        $worst = $dt if $dt > $worst;
        $good++ if $hh =~ m{^HTTP/1\.1 200} && $bb =~ /^hxterm_requests_total/m;
    }
    is($good, 100, '100 sequential scrapes answered beside them');
    ok($worst < 2, sprintf('the slowest within 2 s (%.3f s; 100 ms expected)', $worst));
    close $_ for grep defined, @silent, @drip;
}

# the live page in headless Chromium: its table shows the server's figures
SKIP: {
    my ($chromium) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
    skip 'no chromium', 3 unless $chromium;
    my ($dom) = chromium("http://127.0.0.1:$sport/", 3500);
    my (undef, $js2) = get('/stats.json');
    my $now = eval { decode_json($js2) } // {};
    like($dom, qr/id="total-h3">$now->{protocols}{h3}{requests}</, "the page's h3 total is the server's ($now->{protocols}{h3}{requests})");
    like($dom, qr/id="total-requests">$now->{requests}</, "... and so is the total ($now->{requests})");
    like($dom, qr/<div id="rps-marks"[^>]*>(?:(?!<\/div>).)*<i data-series="h3"/s, 'the requests-per-second chart has an h3 line');
}

# bad --stats: exit 2 with a reason
for my $bad ([ '127.0.0.1', qr/--stats/ ], [ "127.0.0.1:$sport", qr/--stats|in use/ ]) {
    my $out = `timeout 10 $hxterm -q -L 127.0.0.1:@{[free_port()]} --stats $bad->[0] 2>&1`;
    is($? >> 8, 2, "--stats $bad->[0]: exit 2");
    like($out, $bad->[1], "--stats $bad->[0]: says why");
}

is(stop_hx(), 0, 'clean stop');
done_testing();
