#!/usr/bin/perl
# Faults (x= reset, X= truncation) and timeouts (idle, w=, head 408, body 408, send, TLS handshake).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(time);
use HxTest;

start_hx('-t', '1', '--idle-timeout', '400', '--head-timeout', '500', '--send-timeout', '500',
         '--body-timeout', '600');
my $h = "Host: x\r\n";

# X=N: a clean close after N body bytes
my ($buf, $end) = raw_exchange("GET /?s=100000&X=3000 HTTP/1.1\r\n$h\r\n");
my ($head, $body) = split /\r\n\r\n/, $buf, 2;
like($head, qr/Content-Length: 100000/, 'X=: the full length is announced');
is(length $body, 3000, 'X=3000: exactly 3000 body bytes');
ok($body eq HxTest::pattern(3000), 'and they are the pattern');
is($end, 'eof', 'then a clean close');

# x=N: a reset after N body bytes
($buf, $end) = raw_exchange("GET /?s=100000&x=2000 HTTP/1.1\r\n$h\r\n");
($head, $body) = split /\r\n\r\n/, $buf // '', 2;
# WHY exact: on loopback the bytes before the reset are in the client's
# buffer when the RST comes, and Linux hands them out before the error
ok(pattern_ok($body, 2000), 'x=2000: exactly 2000 body bytes of the pattern, then the reset')
    or diag('got ' . length($body // '') . ' bytes');
like($end, qr/^error:.*reset/i, "x=: the connection is reset ($end)");

# faults in chunked mode cut inside the framing
($buf, $end) = raw_exchange("GET /?s=1000&k=100&X=250 HTTP/1.1\r\n$h\r\n");
unlike($buf, qr/\r\n0\r\n\r\n\z/, 'chunked X=: no last chunk');
is($end, 'eof', 'chunked X=: closed');

# idle keep-alive timeout
my $c = connect_hx();
my $t0 = time;
print $c "GET /?s=1 HTTP/1.1\r\n$h\r\n";
($buf, $end) = read_all($c, 3);
my $idle = (time - $t0) * 1000;
ok($end eq 'eof' && $idle >= 380 && $idle < 1500, "idle connection closed after --idle-timeout ($idle ms)");

# w= overrides it for this connection
$c = connect_hx();
$t0 = time;
print $c "GET /?s=1&w=1200 HTTP/1.1\r\n$h\r\n";
($buf, $end) = read_all($c, 3);
$idle = (time - $t0) * 1000;
ok($end eq 'eof' && $idle >= 1150 && $idle < 2500, "w=1200 kept it open $idle ms");

# a head that never ends: 408 after --head-timeout
$c = connect_hx();
$t0 = time;
print $c "GET / HTTP/1.1\r\nHost: x\r\n";
($buf, $end) = read_all($c, 3);
my $tmo = (time - $t0) * 1000;
like($buf, qr/^HTTP\/1.1 408 /, "slow head answered 408 after $tmo ms");
ok($tmo >= 480 && $tmo < 1500, 'near --head-timeout');

# slowloris: one byte at a time does not extend the head timeout
$c = connect_hx();
$t0 = time;
my $closed = 0;
for my $ch (split //, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " . ('s' x 100)) {
    last unless print $c $ch;
    select undef, undef, undef, 0.05;
    last if time - $t0 > 2;
}
($buf) = read_all($c, 2);
like($buf, qr/^HTTP\/1.1 408 /, 'a byte every 50 ms still gets 408');

# a request body that stops coming: 408 after --body-timeout of silence
$c = connect_hx();
print $c "POST /?s=3 HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789";
$t0 = time;
($buf, $end) = read_all($c, 3);
$tmo = (time - $t0) * 1000;
like($buf, qr/^HTTP\/1.1 408 [^\r]*\r\n.*\r\n\r\nrequest body not received in time\n\z/s, "stalled body answered 408 after $tmo ms");
ok($tmo >= 580 && $tmo < 1800 && $end eq 'eof', "near --body-timeout, then closed ($end)");

# a body that trickles (a byte every 200 ms) is not cut: the timeout is for silence
$c = connect_hx();
print $c "POST /?s=3 HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nConnection: close\r\n\r\n";
for (1 .. 6) { select undef, undef, undef, 0.2; print $c 'b' }
($buf) = read_all($c, 3);
like($buf, qr/^HTTP\/1.1 200 /, 'a body trickling for 1.2 s under a 600 ms --body-timeout: 200');

# a client that stops reading is dropped after --send-timeout
$c = connect_hx();
setsockopt($c, Socket::SOL_SOCKET(), Socket::SO_RCVBUF(), 4096);
print $c "GET /?s=1g HTTP/1.1\r\n$h\r\n";
sleep 2;
my $got = 0;
my $err = '';
while (1) {
    my $n = sysread($c, my $chunk, 1 << 20);
    if (!defined $n) { $err = "$!"; last }
    last if !$n;
    $got += $n;
}
ok($got < 1 << 30, "a stalled reader of s=1g got $got bytes and was dropped ($err)");

# the server is fine afterwards
($buf) = raw_exchange("GET /?s=7 HTTP/1.1\r\n${h}Connection: close\r\n\r\n");
my @r = parse_responses($buf);
ok(@r == 1 && length $r[0]{body} == 7, 'still serving');

is(stop_hx(), 0, 'clean stop');

# a TLS handshake that never completes is closed after --head-timeout
start_hx('-tls', '-t', '1', '--no-h3', '--head-timeout', '500');
$c = connect_hx(hx_tls_port());
print $c "\x16\x03\x01\x00\x80\x01"; # the start of a ClientHello, no more
$t0 = time;
($buf, $end) = read_all($c, 3);
$tmo = (time - $t0) * 1000;
ok($end eq 'eof' && $buf eq '' && $tmo >= 450 && $tmo < 1800, "half a ClientHello: closed after $tmo ms ($end)");
my ($out) = curl_hx('-sk', "https://127.0.0.1:" . hx_tls_port() . "/?s=5");
is($out, '.1234', 'TLS still served');
is(stop_hx(), 0, 'clean stop (TLS)');
done_testing();
