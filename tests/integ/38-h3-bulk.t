#!/usr/bin/perl
# HTTP/3 at HTTP/2's pace: 16 MiB bodies on one connection within 10 times what HTTP/2 over TLS takes in the same run (a lost GSO batch once held each for a 30 ms probe timeout: 26 MB/s), every byte verified, no datagram the server failed to send; a new connection's first response within 2 ms of h2's (pacing by the initial RTT held it 21 ms).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use JSON::PP;
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $sp = free_port();
start_hx('-tls', '-t', '1', '--stats', "127.0.0.1:$sp");
my $tls = hx_tls_port();

# one connection, -n 5 bodies of <size>: (p50 ms, answered, hxload's exit code)
sub bulk {
    my ($proto, $size) = @_;
    my $out = `timeout 60 $hxload -q --json --verify $proto -c 1 -m 1 -n 5 'https://127.0.0.1:$tls/?s=$size' 2>&1`;
    my $rc = $? >> 8;
    my ($line) = grep { /^\{"hxload"/ } split /\n/, $out;
    my $j = eval { decode_json($line // '') } // {};
    return ($j->{latency_ms}{p50} // 1e9, $j->{requests} // 0, $rc, $j);
}

my ($h2, $n2, $rc2) = bulk('--h2', '16m');
ok($rc2 == 0 && $n2 == 5, "h2 over TLS: 5 bodies of 16 MiB, p50 $h2 ms");
my ($h3, $n3, $rc3, $j) = bulk('--h3', '16m');
ok($rc3 == 0 && $n3 == 5 && ($j->{verify}{bodies} // 0) == 5, 'h3: 5 bodies of 16 MiB on one connection, every byte verified');
# WHY 10 times: HTTP/3's per-packet crypto costs 2 to 3 times TCP's here; the
# stall cost 18 times (p50 500 ms against 28). Under a sanitizer our h3
# framing is instrumented and OpenSSL's TLS is not: 30 times there
my $k = HxTest::sanitized() ? 30 : 10;
ok($h3 < $k * $h2, sprintf('h3 p50 %.1f ms is within %d times h2\'s %.1f ms (%.1f times)', $h3, $k, $h2, $h3 / ($h2 || 1)));
my ($m1) = bulk('--h3', '1m');
my ($m2) = bulk('--h2', '1m');
ok($m1 < $k * $m2, sprintf('1 MiB: h3 p50 %.2f ms within %d times h2\'s %.2f ms', $m1, $k, $m2));

# a new connection's first response: ngtcp2 paced the first flight by its
# 333 ms initial RTT, on both sides, and held it 21 ms
sub ttfb_close {
    my ($proto) = @_;
    my $out = `timeout 60 $hxload -q --json $proto -c 1 -n 50 --close 'https://127.0.0.1:$tls/?s=100' 2>&1`;
    my ($line) = grep { /^\{"hxload"/ } split /\n/, $out;
    my $r = eval { decode_json($line // '') } // {};
    return (($r->{ttfb_ms} // {})->{p50} // 1e9, $r->{requests} // 0);
}
# WHY 8 ms under a sanitizer: our QUIC and h3 code is instrumented there,
# OpenSSL's TLS is not; a TSan pass on a busy host read 2.75 against 0.66,
# and the pacing this catches held the first response 21 ms
my $slack = HxTest::sanitized() ? 8 : 2;
my ($t2, $c2) = ttfb_close('--h2');
my ($t3, $c3) = ttfb_close('--h3');
ok($c2 == 50 && $c3 == 50 && $t3 < $t2 + $slack,
   sprintf('--close, a connection a request: h3 TTFB p50 %.2f ms, within %d ms of h2 over TLS (%.2f ms)', $t3, $slack, $t2));

# the server counts every datagram it could not send
my $m = `curl -s http://127.0.0.1:$sp/metrics`;
like($m, qr/^hxterm_quic_send_errors_total 0$/m, 'no datagram failed to leave (hxterm_quic_send_errors_total 0)');
# WHY: a GSO batch once took a packet longer than its first, which the
# kernel cut into garbage datagrams: for no connection, dropped or reset
like($m, qr/^hxterm_quic_datagrams_total\{outcome="dropped"\} 0$/m, '... and none came that was not a packet of a connection (dropped 0)');
like($m, qr/^hxterm_quic_datagrams_total\{outcome="stateless_reset"\} 0$/m, '... (stateless_reset 0)');
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
