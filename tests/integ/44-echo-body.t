#!/usr/bin/perl
# E=2: the request body sent back, byte for byte, with its Content-Type: on h1 (Content-Length and chunked), h2 (both engines' framing), h3 (hxload); refused with A=1 or B=, 413 past 16 MiB; through nginx, which re-frames a chunked upload.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use HxTest;

my $dir = tempdir(CLEANUP => 1);
my $port = start_hx('-tls', '-t', '1');
my $tport = hx_tls_port();
my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";

open my $f, '>', "$dir/in.bin" or die;
print $f join('', map { chr(int(rand(256))) } 1 .. 300_000);
close $f;
my $in = do { local $/; open my $g, '<', "$dir/in.bin" or die; binmode $g; <$g> };

sub echo_of {
    my (@args) = @_;
    unlink "$dir/out.bin";
    my ($head) = curl_hx('-D', '-', '-o', "$dir/out.bin", @args);
    my $out = do { local $/; open my $g, '<', "$dir/out.bin" or return ('', $head); binmode $g; <$g> };
    return ($out, $head);
}

my ($out, $head) = echo_of('--data-binary', "\@$dir/in.bin", '-H', 'Content-Type: application/x-probe',
                           "http://127.0.0.1:$port/?E=2");
ok($out eq $in, 'h1, Content-Length: 300,000 random bytes sent back as they came');
like($head, qr/^Content-Type: application\/x-probe\r$/mi, '... with their Content-Type');
like($head, qr/^X-rsp: .*size=300000,/mi, '... X-rsp says their size');
($out) = echo_of('-H', 'Transfer-Encoding: chunked', '--data-binary', "\@$dir/in.bin", "http://127.0.0.1:$port/?E=2");
ok($out eq $in, 'h1, chunked: the payload, not its framing');
(undef, $head) = echo_of("http://127.0.0.1:$port/?E=2");
like($head, qr/^Content-Length: 0\r$/mi, 'no body: an empty answer');
like($head, qr/^Content-Type: application\/octet-stream\r$/mi, '... and no Content-Type: octets');
for my $i (1 .. 3) {
    ($out) = echo_of('-k', '--http2', '--data-binary', "\@$dir/in.bin", "https://127.0.0.1:$tport/?E=2");
    ok($out eq $in, "h2 over TLS ($i of 3): the body whole, though its stream is gone before its last frame is sent");
}
($out) = echo_of('--http2-prior-knowledge', '--data-binary', "\@$dir/in.bin", "http://127.0.0.1:$port/?E=2");
ok($out eq $in, 'h2c: the same');
my $j = `$hxload -q --h3 --json -n 20 -c 2 --body 5000 'https://127.0.0.1:$tport/?E=2' 2>&1`;
my $jj = eval { decode_json($j) };
ok($jj && $jj->{requests} == 20 && $jj->{bytes} == 100_000, 'h3: 20 bodies of 5,000 bytes, each sent back (hxload)')
    or diag($j);
my ($bad) = curl_hx('-i', '-d', 'x', "http://127.0.0.1:$port/?E=2&A=1");
like($bad, qr/^HTTP\/1.1 400 .*E=2 answers after the whole body: not with A=1 or B=/ms, 'E=2 with A=1: 400, said why');
($bad) = curl_hx('-i', "http://127.0.0.1:$port/?E=3");
like($bad, qr/^HTTP\/1.1 400 .*E=1 echoes the request head, E=2 its body/ms, 'E=3: 400');
open $f, '>', "$dir/big.bin" or die;
print $f "z" x (16 * 1024 * 1024 + 1);
close $f;
my ($code) = curl_hx('-o', '/dev/null', '-w', '%{http_code}', '--data-binary', "\@$dir/big.bin", "http://127.0.0.1:$port/?E=2");
is($code, '413', 'a body past 16 MiB: 413');
($code) = curl_hx('-o', '/dev/null', '-w', '%{http_code}', "http://127.0.0.1:$port/?s=1");
is($code, '200', '... and the connection after it is served');

SKIP: {
    my $np = free_port();
    my $ng = nginx_run($dir, $np, <<"EOF");
http {
    client_max_body_size 1m;
    server {
        listen 127.0.0.1:$np;
        location / { proxy_pass http://127.0.0.1:$port; proxy_http_version 1.1; }
    }
}
EOF
    skip 'no nginx', 2 unless $ng;
    ($out, $head) = echo_of('-H', 'Transfer-Encoding: chunked', '-H', 'Content-Type: text/x-up',
                            '--data-binary', "\@$dir/in.bin", "http://127.0.0.1:$np/?E=2");
    ok($out eq $in, 'through nginx, which buffers a chunked upload and re-frames it: the body whole');
    like($head, qr/^Content-Type: text\/x-up\r$/mi, '... its Content-Type too');
}
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
