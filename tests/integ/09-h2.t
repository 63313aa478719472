#!/usr/bin/perl
# HTTP/2 and TLS with real clients: curl (prior knowledge, Upgrade, ALPN h2, TLS h1.1), nghttp, h2load, openssl.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(time);
use HxTest;

my $port = start_hx('-tls', '-t', '2');
my $tls = hx_tls_port();
my $clear = "http://127.0.0.1:$port";
my $https = "https://127.0.0.1:$tls";

# curl over each way in: the body verified, the timing headers measured
for my $way ([ 'h2c prior knowledge', '--http2-prior-knowledge', $clear, qr{^HTTP/2 200} ],
             [ 'h2c Upgrade', '--http2', $clear, qr{^HTTP/1.1 101 .*^HTTP/2 200}ms ],
             [ 'TLS ALPN h2', '--http2', $https, qr{^HTTP/2 200} ],
             [ 'TLS http/1.1', '--http1.1', $https, qr{^HTTP/1.1 200} ]) {
    my ($name, $flag, $base, $status) = @$way;
    my ($out, $rc) = curl_hx('-k', '-i', $flag, "$base/?s=100000&t=30");
    is($rc, 0, "$name: curl succeeds");
    like($out, $status, "$name: protocol and status");
    like($out, qr{^x-rsp: id=\S+, code=200, cache=1, size=100000, time=30 ms \(([\d.]+) real\)\r$}mi, "$name: X-rsp");
    my ($real) = $out =~ /\(([\d.]+) real\)/;
    ok($real >= 30 && $real < 500, "$name: real $real ms measured");
    my ($body) = $out =~ /\r\n\r\n(?!HTTP)(.*)\z/s;
    ok(pattern_ok($body, 100000), "$name: body verified");
}

sub h2 { my ($q, @o) = @_; return curl_hx('--http2-prior-knowledge', @o, "$clear/$q") }

my ($out, $rc) = h2('?s=70000&k=1000', '-i');
ok($out =~ /^HTTP\/2 200/ && $out !~ /content-length/i, 'k=: no content-length on h2');
($out) = h2('?s=3m&R=1');
ok(length $out == 3 << 20 && random_ok(substr($out, 0, 1000), 1000), 'R=1: 3 MiB of random bytes');
($out) = h2('?r=503&s=5&c=0&H=X-Two:a%20b&e=1', '-i');
ok($out =~ /^HTTP\/2 503/ && $out =~ /^cache-control: no-cache\r$/m && $out =~ /^x-two: a b\r$/m &&
   $out =~ /^etag: "[0-9a-f]+"\r$/m, 'r, c, H (lower-cased), e');
($out) = h2('?s=5', '-I');
ok($out =~ /^HTTP\/2 200/ && $out =~ /^content-length: 5\r$/m, 'HEAD over h2');
($out) = h2('?E=1', '-H', 'X-Mine: hello');
like($out, qr/^x-mine: hello\r$/m, 'E=1 echoes the request headers');
($out) = h2('?s=zz', '-i');
ok($out =~ /^HTTP\/2 400/ && $out =~ /bad item 's=zz'/, 'a bad item: 400 naming it');
($out) = h2('?');
like($out, qr/s=<size>/, 'help page over h2');
($out) = h2('?s=4', '-H', 'X-Hxterm: r=202&s=9', '-i');
ok($out =~ /^HTTP\/2 202/ && $out =~ /^content-length: 4\r$/m, 'X-Hxterm over h2');
($out) = h2('?z=30k', '-i');
ok(length($out) > 29000, 'z=30k pads the head');
($out) = h2('?s=10', '--data-binary', 'x' x 100000, '-i');
like($out, qr/^HTTP\/2 200/, 'a 100 kB request body is drained');

# faults: x= resets the stream, X= ends the connection
($out, $rc) = h2('?s=100000&x=5000');
ok($rc != 0 && length $out <= 5000, "x=5000: stream reset (curl exit $rc, " . length($out) . ' bytes)');
($out, $rc) = h2('?s=100000&X=5000');
ok($rc != 0 && length $out == 5000, "X=5000: connection closed after 5000 bytes (curl exit $rc)");

# nghttp: trailers, DATA frame sizes, several streams on one connection
my $v = `nghttp -nv '$clear/?s=20k&T=x-done:1' 2>&1`;
like($v, qr/recv \(stream_id=\d+\) x-done: 1/, 'nghttp: trailer x-done received');
$v = `nghttp -nv '$clear/?s=5000&k=1000' 2>&1`;
my @lens = $v =~ /recv DATA frame <length=(\d+)/g;
is_deeply(\@lens, [ (1000) x 5 ], 'k=1000: DATA frames of 1000 bytes');
$v = `nghttp -n -s '$clear/?t=300' '$clear/?t=100' '$clear/?s=1' 2>&1`;
like($v, qr/^\s*\d+\s.*\/\?s=1\n.*\/\?t=100\n.*\/\?t=300/ms, 'three streams finish in the order of their waits');

# h2load: mixed sizes, all 2xx, h2c and TLS
for my $u ("$clear/?s=100", "$https/?s=1k-20k") {
    my $r = `h2load -c 4 -m 20 -n 2000 '$u' 2>&1`;
    like($r, qr/requests: 2000 total, 2000 started, 2000 done, 2000 succeeded/, "h2load 2000 requests on $u");
    like($r, qr/status codes: 2000 2xx/, 'all 2xx');
}

# openssl: ALPN, dates, SAN, both key types
my $s = `echo | openssl s_client -connect 127.0.0.1:$tls -alpn h2 2>/dev/null`;
like($s, qr/ALPN protocol: h2/, 'ALPN h2 selected');
$s = `echo | openssl s_client -connect 127.0.0.1:$tls -alpn http/1.1 2>/dev/null`;
like($s, qr/ALPN protocol: http\/1.1/, 'ALPN http/1.1 selected');
for my $kind ([ 'RSA', 'RSA-PSS+SHA256:RSA+SHA256', qr/Public-Key: \(2048 bit\)/ ],
              [ 'ECDSA', 'ECDSA+SHA256', qr/ASN1 OID: prime256v1/ ]) {
    my ($name, $sigalgs, $want) = @$kind;
    my $pem = `echo | openssl s_client -connect 127.0.0.1:$tls -tls1_2 -sigalgs '$sigalgs' 2>/dev/null | openssl x509 2>/dev/null`;
    ok($pem =~ /BEGIN CERTIFICATE/, "$name certificate offered");
    open my $fh, '|-', "openssl x509 -noout -text -checkend 0 > /tmp/hx-cert-$$ 2>&1" or die;
    print $fh $pem;
    close $fh;
    is($? >> 8, 0, "$name certificate valid now (checkend)");
    my $text = do { local (@ARGV, $/) = "/tmp/hx-cert-$$"; <> };
    like($text, $want, "$name key type");
    like($text, qr/DNS:localhost.*IP Address:127\.0\.0\.1/s, "$name SAN has localhost and 127.0.0.1");
    like($text, qr/Subject: CN ?= ?hxterm/, "$name CN hxterm");
    my ($nb) = $text =~ /Not Before: (.*)/;
    ok($nb, "$name not-before: $nb");
}
unlink "/tmp/hx-cert-$$";

is(stop_hx(), 0, 'clean stop');

# a request header list over --bufsize: 431 on that stream, the connection goes on
$port = start_hx('-t', '1', '--bufsize', '4k');
my ($big, $brc) = curl_hx('--http2-prior-knowledge', '-i', '-H', 'X-Big: ' . ('b' x 5000),
                          "http://127.0.0.1:$port/?s=1");
like($big, qr/^HTTP\/2 431/m, 'h2 header list over --bufsize: 431');
like($big, qr/header list larger than the buffer/, 'with its reason');
my $two = `nghttp -nv -H 'x-big: @{['b' x 5000]}' 'http://127.0.0.1:$port/?s=1' 'http://127.0.0.1:$port/?s=2' 2>&1`;
is(scalar(() = $two =~ /recv DATA frame <length=55, flags=0x01/g), 2,
   'two such streams on one connection are both answered: a 431 does not end the connection');

# --h2-enc-table: response fields enter the encoder's table (later header blocks are shorter), or not at 0
sub header_blocks {
    my $p = shift;
    my $v = `nghttp -nv @{[map { "'http://127.0.0.1:$p/?s=$_'" } 1 .. 4]} 2>&1`;
    return $v =~ /recv HEADERS frame <length=(\d+)/g;
}
my @len = header_blocks($port);
ok(@len == 4 && $len[3] < $len[0] - 20, "default encoder table: header blocks of @len bytes");
is(stop_hx(), 0, 'clean stop');
$port = start_hx('-t', '1', '--h2-enc-table', '0');
@len = header_blocks($port);
ok(@len == 4 && !grep({ abs($_ - $len[0]) > 3 } @len), "--h2-enc-table 0: every block literal, @len bytes");
is(stop_hx(), 0, 'clean stop');
done_testing();
