#!/usr/bin/perl
# nghttpx in front (doc/proxies.md's recipe): h2 over TLS and h2c in front, h2c to hxterm (proto=h2) and HTTP/1.1 under /h1/, the latency split through it, gRPC calls and their messages.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Time::HiRes qw(sleep time);
use HxTest;

my $nghttpx = '/usr/sbin/nghttpx';
plan skip_all => 'no nghttpx (apt-get install nghttp2-proxy)' unless -x $nghttpx;
my $t0 = time;
my $hx = start_hx('-t', '1');
my $dir = tempdir(CLEANUP => 1);
system("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=127.0.0.1 "
       . "-addext subjectAltName=IP:127.0.0.1 -keyout $dir/key.pem -out $dir/cert.pem 2>/dev/null") == 0
    or die 'openssl req failed';
my ($tp, $cp) = (free_port(), free_port());
open my $fh, '>', "$dir/nghttpx.conf" or die "$dir/nghttpx.conf: $!";
print $fh recipe('nghttpx', 8000 => $hx, 8444 => $tp, 8080 => $cp, '/tmp/hxproxy' => $dir);
close $fh;
my $npid = spawn_bg("$dir/nghttpx.out", $nghttpx, "--conf=$dir/nghttpx.conf");
unless (wait_port($tp) && wait_port($cp)) {
    diag(`cat $dir/nghttpx.out $dir/nghttpx-error.log 2>&1`);
    fail('nghttpx did not come up on the recipe');
    done_testing();
    exit;
}
pass("nghttpx is up with doc/proxies.md's config (pid $npid)");

my $j = hxload_json("--h2 -c 2 -m 4 -n 400 --verify 'https://127.0.0.1:$tp/?s=1k&t=1'");
ok($j && $j->{status}{200} == 400 && $j->{verify}{bodies} == 400 && $j->{connections}{h2} >= 1,
   'h2 over TLS in front, h2c to hxterm: 400 verified');
ok($j && $j->{server_ms}{n} == 400 && $j->{server_ms}{p50} >= 1.0 && $j->{other_ms}{n} == 400,
   sprintf('... the split through it: server p50 %.3f ms (t=1), other p50 %.3f ms',
           $j ? ($j->{server_ms}{p50}, $j->{other_ms}{p50}) : (0, 0)));
$j = hxload_json("-c 2 -m 4 -n 200 --verify 'h2c://127.0.0.1:$cp/?s=1k'");
ok($j && $j->{status}{200} == 200 && $j->{connections}{h2} >= 1, 'h2c in front: 200 verified');
$j = hxload_json("-c 2 -n 200 --verify 'http://127.0.0.1:$cp/h1/?s=1k'");
ok($j && $j->{status}{200} == 200 && $j->{verify}{bodies} == 200, '/h1/: HTTP/1.1 to hxterm, 200 verified');
my ($o) = curl_hx('-sk', '--http2', '-D', '-', '-o', '/dev/null', "https://127.0.0.1:$tp/?s=10");
like($o, qr/^x-rsp: id=.*code=200/mi, "curl --http2: hxterm's X-rsp through it");
$j = hxload_json("-c 2 -n 50 'grpcs://127.0.0.1:$tp/?s=100&n=3'");
ok($j && $j->{grpc}{OK} == 50 && $j->{grpc}{messages} == 150,
   sprintf('grpcs:// through nghttpx: %d calls OK, %d messages (trailers passed)', $j ? ($j->{grpc}{OK}, $j->{grpc}{messages}) : (0, 0)));
$j = hxload_json("-c 1 -n 20 'grpcs://127.0.0.1:$tp/?s=100&n=2&r=503'");
ok($j && $j->{grpc}{UNAVAILABLE} == 20, 'r=503: 20 calls UNAVAILABLE, the grpc-status trailer through it');

kill 'TERM', $npid;
waitpid($npid, 0);
is(stop_hx(), 0, 'hxterm stops cleanly');
diag(sprintf('the test took %.1f s', time - $t0));
done_testing();
