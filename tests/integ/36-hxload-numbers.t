#!/usr/bin/perl
# hxload's figures mean what their names say: one window for bytes and requests (-w), the whole response split (ttfb = server + other, body = paced + other, latency = queue + ttfb + body), the counters' identities under faults on every protocol, an unkept schedule, no short tail interval, the rate over the time to the last answer counted, --verify counted, tail percentiles against --log, nginx's GOAWAY recycling no error.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $dir = tempdir(CLEANUP => 1);
my $port = start_hx('-tls', '-t', '2');
my $tls = hx_tls_port();

# runs hxload; returns (the JSON, exit code, stderr)
sub run {
    my ($args) = @_;
    my $out = `timeout 60 $hxload -q --json $args 2>$dir/err`;
    my $rc = $? >> 8;
    my $err = do { local (@ARGV, $/) = ("$dir/err"); <> // '' };
    my ($last) = grep { /^\{"hxload"/ } split /\n/, $out;
    return ($last ? decode_json($last) : {}, $rc, $err);
}
sub hsum { my ($j, $n) = @_; return $j->{histograms}{$n}{sum} // -1 }

# 1. -w: the warm-up's bytes are not the window's
for my $u ("http://127.0.0.1:$port/?s=256k", "h2c://127.0.0.1:$port/?s=256k", "--h3 https://127.0.0.1:$tls/?s=256k") {
    my ($j) = run("-c 4 -d 1 -w 0.5 $u");
    ok($j->{requests} > 0 && $j->{bytes} == $j->{requests} * 262144,
       "-w 0.5, $u: bytes per request exactly the body, " . ($j->{requests} ? $j->{bytes} / $j->{requests} : 'none'));
}

# 1b. the rate over the time to the last answer: 4 answers that take 3 s,
# sent in a 1 s window and counted, are 4 in 3 s, not 4 in the window's 1
{
    my ($j) = run("-c 4 -d 1 --timeout 20 'http://127.0.0.1:$port/?s=10&t=3000'");
    ok($j->{requests} == 4 && $j->{seconds} >= 2.9 && $j->{requests_per_second} < 1.5,
       "answers in flight at the end: $j->{requests} in $j->{seconds} s, $j->{requests_per_second} req/s (was 4.0 over the 1 s window)");
}

# 2. the whole response split: a 10k body in 1k pieces, 10 ms apart, no proxy
{
    my ($j) = run("-c 2 -n 20 'http://127.0.0.1:$port/?s=10k&p=1k&d=10'");
    # WHY min >= 80, not 90: a client late to read the head (a loaded host) counts
    # part of the pacing in ttfb, and body_paced is never more than the body
    ok($j->{body_paced_ms}{min} >= 80 && $j->{body_paced_ms}{p50} == 90 && $j->{body_paced_ms}{max} == 90,
       "body_paced: the server's 9 pauses of 10 ms (X-rsp pace=)")
        or diag("body_paced $j->{body_paced_ms}{min}..$j->{body_paced_ms}{max} ms, body $j->{body_ms}{min}..$j->{body_ms}{max} ms");
    ok($j->{other_ms}{p50} < 20, "other (the head's time beyond the server) stays small: p50 $j->{other_ms}{p50} ms, not the body's 90");
    ok($j->{body_other_ms}{p50} < 20, "body_other (the body beyond the pacing): p50 $j->{body_other_ms}{p50} ms");
    is(hsum($j, 'latency'), hsum($j, 'ttfb') + hsum($j, 'body'), 'closed loop: latency = ttfb + body, request by request (their sums)');
    is(hsum($j, 'body'), hsum($j, 'body_paced') + hsum($j, 'body_other'), 'body = body_paced + body_other');
    my $t = hsum($j, 'ttfb'), my $so = hsum($j, 'server') + hsum($j, 'other');
    ok(abs($t - $so) <= $t / 100, "ttfb = server + other (sums $t and $so us)");
    my ($jo) = run("-c 2 -R 200 -d 2 'http://127.0.0.1:$port/?s=10k&p=5k&d=3'");
    is(hsum($jo, 'latency'), hsum($jo, 'queue') + hsum($jo, 'ttfb') + hsum($jo, 'body'), 'open loop: latency = queue + ttfb + body');
}

# 3. the counters' identities, under faults on each protocol and a failing --verify
for my $case (["h1 x=", "-c 4 -d 1 'http://127.0.0.1:$port/?s=10k&x=5k'"],
              ["h1 X= and answers", "-c 4 -d 1 'http://127.0.0.1:$port/?s=10k&X=5k:30+0'"],
              ["h2c x=", "-c 2 -m 4 -d 1 'h2c://127.0.0.1:$port/?s=10k&x=5k:50+0'"],
              ["h3 x=", "-c 2 -m 4 -d 1 --h3 'https://127.0.0.1:$tls/?s=10k&x=5k:50+0'"],
              ["ws x=", "-c 4 -d 1 'ws://127.0.0.1:$port/?ws=gen&s=100&n=50&x=4k'"],
              ["--verify failing", "-c 2 -n 200 --verify 'http://127.0.0.1:$port/?E=1&s=100'"]) {
    my ($j) = run($case->[1]);
    my $s = $j->{schedule} // {};
    my $kinds = 0;
    $kinds += $_ for values %{ $j->{errors} // {} };
    is(($j->{requests} // -1) + ($s->{failed} // 0) + ($s->{end_timeout} // 0), $s->{sent} // -2,
       "$case->[0]: sent $s->{sent} = answered $j->{requests} + failed $s->{failed} + unanswered $s->{end_timeout}");
    is($kinds, $j->{errors_total} // -1, "$case->[0]: errors by kind add up to errors_total ($kinds)");
    is(($s->{failed} // 0) + ($s->{end_timeout} // 0) + ($j->{connections}{errors} // 0), $j->{errors_total} // -1,
       "$case->[0]: errors_total = failed + unanswered + connections that failed before a request ($j->{connections}{errors})");
    if ($case->[0] =~ /verify/) {
        ok($j->{requests} == 0 && $j->{bytes} == 0 && $j->{errors}{body} == 200,
           '--verify failing every body: 0 answered, 0 bytes, 200 body errors (no MB/s of bodies that failed)');
    }
}

# 4. an unreachable rate: exit 1 with one line; --fail-on unsent names it
{
    my ($j, $rc, $err) = run("-c 2 -R 1000000 -d 1 'http://127.0.0.1:$port/'");
    is($rc, 1, '-R 1000000: the schedule cannot be kept: exit 1');
    like($err, qr/\Ahxload: the schedule was not kept: \d+ of \d+ due requests never sent \([\d.]+ %\)[^\n]*\n\z/, '... in one line');
    (undef, $rc) = run("-c 2 -R 1000000 -d 1 --fail-on 'unsent>1%' 'http://127.0.0.1:$port/'");
    is($rc, 3, "--fail-on 'unsent>1%': exit 3");
    (undef, $rc, $err) = run("-c 2 -R 200 -d 1 'http://127.0.0.1:$port/'");
    ok($rc == 0 && $err eq '', '-R 200: kept, exit 0, nothing said');
}

# 5. no interval a fraction of the others: the tail joins the one before
{
    my ($j) = run("-c 2 -R 300 -d 2.1 --interval 0.5 'http://127.0.0.1:$port/'");
    my @iv = @{ $j->{intervals} // [] };
    my $sum = 0;
    $sum += $_->{requests} for @iv;
    ok(@iv >= 3 && !grep({ $_->{seconds} < 0.25 } @iv),
       'intervals of 0.5 s over 2.1 s: none under half of one (' . join(' ', map { $_->{seconds} } @iv) . ')');
    is($sum, $j->{requests}, "... and their requests still add up to the run's ($sum)");
}

# 6. --verify that passes says what it checked
{
    my ($j) = run("-c 2 -n 100 --verify 'http://127.0.0.1:$port/?s=1000'");
    ok($j->{verify}{bodies} == 100 && $j->{verify}{bytes} == 100000 && $j->{verify}{share} == 1,
       '--verify: 100 bodies, 100000 bytes verified, share 1');
    my $text = `timeout 60 $hxload -q -c 2 -n 100 --verify 'http://127.0.0.1:$port/?s=1000' 2>&1`;
    like($text, qr/^verified 100 bodies, 100000 bytes, byte for byte$/m, '... and the text says so');
}

# 7. the tail's percentiles against every sample of --log (t=1:99.9+200: one in a thousand waits 200 ms)
{
    my ($j) = run("-c 50 -n 20000 --log $dir/tail.log 'http://127.0.0.1:$port/?t=1:99.9+200'");
    open my $l, '<', "$dir/tail.log" or die;
    my @lat = sort { $a <=> $b } map { (split)[1] } <$l>;
    is(scalar @lat, 20000, '--log: 20000 samples');
    for my $q ([ 'p99', 0.99 ], [ 'p999', 0.999 ], [ 'p9999', 0.9999 ]) {
        my $rank = int($q->[1] * @lat + 0.5);
        my $exact = $lat[$rank - 1] / 1000;
        my $got = $j->{latency_ms}{$q->[0]};
        ok(abs($got - $exact) <= $exact / 64 + 0.002, "$q->[0] $got ms within one bucket of the samples' $exact ms");
    }
    is($j->{latency_ms}{max}, $lat[-1] / 1000, "max is the samples' max ($lat[-1] us)");
    ok($j->{latency_ms}{p9999} > 150, 'the 200 ms tail shows at p99.99');
}

# 8. nginx recycling h2 connections (keepalive_requests 100): no error, the recycling counted
SKIP: {
    my $np = free_port();
    my $ng = nginx_run($dir, $np, <<"EOF");
http {
    server {
        listen 127.0.0.1:$np http2;
        keepalive_requests 100;
        location / { proxy_pass http://127.0.0.1:$port; }
    }
}
EOF
    skip 'no nginx, or it did not start', 4 unless $ng;
    my ($j, $rc, $err) = run("-c 1 -n 3000 --fail-on 'errors>0' 'h2c://127.0.0.1:$np/?s=1'");
    is($rc, 0, "3000 h2 requests through nginx recycling every 100: --fail-on errors>0 passes") or diag($err);
    ok($j->{requests} == 3000 && $j->{errors_total} == 0, "... 3000 answered, $j->{errors_total} errors");
    ok($j->{connections}{goaway} >= 29, "... the connections nginx ended with a graceful GOAWAY counted ($j->{connections}{goaway})");
    ($j, $rc) = run("-c 4 -m 8 -d 2 'h2c://127.0.0.1:$np/?s=1'");
    ok($rc == 0 && $j->{errors_total} == 0 && $j->{schedule}{failed} == 0,
       "-c 4 -m 8 -d 2: 0 errors, 0 failed; $j->{schedule}{retried} refused streams sent again");
    kill 'QUIT', $ng;
}

is(stop_hx(), 0, 'clean stop');
done_testing();
