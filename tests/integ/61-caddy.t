#!/usr/bin/perl
# Caddy 2.6 in front (doc/proxies.md's recipe): HTTP/3 from hxload through Caddy to hxterm over h1 and h2c, the latency split through it, resumption and 0-RTT, SSE not bunched, WebSocket, gRPC; without default_sni the QUIC handshake fails and hxload says what Caddy answered and suggests --sni.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Time::HiRes qw(sleep time);
use HxTest;

my $caddy = '/usr/bin/caddy';
plan skip_all => 'no caddy (apt-get install caddy)' unless -x $caddy;
my $t0 = time;
my $hx = start_hx('-t', '1');
my $dir = tempdir(CLEANUP => 1);
my ($p1, $p2, $ph) = (free_port(), free_port(), free_port());

# Caddy on <conf>, HOME in <dir> (its CA, its autosave): its pid once both TLS ports listen, or undef
sub caddy_run {
    my ($name, $conf) = @_;
    open my $fh, '>', "$dir/$name" or die "$dir/$name: $!";
    print $fh $conf;
    close $fh;
    local $ENV{HOME} = $dir;
    local $ENV{XDG_CONFIG_HOME} = "$dir/config";
    local $ENV{XDG_DATA_HOME} = "$dir/data";
    my $pid = spawn_bg("$dir/$name.out", $caddy, 'run', '--adapter', 'caddyfile', '--config', "$dir/$name");
    # WHY twice: the first start makes Caddy's CA and a certificate (about a second here)
    return $pid if wait_port($p1) && wait_port($p2) || (sleep(3), wait_port($p1) && wait_port($p2));
    open my $o, '<', "$dir/$name.out";
    diag(join '', <$o>);
    return undef;
}
my $conf = recipe('caddy', 8000 => $hx, 8444 => $p1, 8445 => $p2, 8080 => $ph, '/tmp/hxproxy' => $dir);
my $cpid = caddy_run('Caddyfile', $conf);
unless ($cpid) {
    fail('caddy did not come up on the recipe');
    done_testing();
    exit;
}
pass("caddy is up with doc/proxies.md's Caddyfile (pid $cpid)");
sleep 0.3;    # WHY: the UDP listeners come with the TCP ones, a moment after

# ---------- h3 in front, h1 and h2c behind ----------
for my $p ([ $p1, 'h1' ], [ $p2, 'h2c' ]) {
    my $j = hxload_json("--h3 -c 2 -m 4 -n 400 --verify 'https://127.0.0.1:$p->[0]/?s=1k&t=1'");
    ok($j && $j->{status}{200} == 400 && $j->{verify}{bodies} == 400 && $j->{connections}{h3} >= 1,
       "hxload --h3 -> Caddy -> hxterm $p->[1]: 400 answers over h3, bodies verified");
    ok($j && $j->{server_ms}{n} == 400 && $j->{server_ms}{p50} >= 1.0 && $j->{other_ms}{n} == 400,
       sprintf('... the split through it: server p50 %.3f ms (t=1), other p50 %.3f ms (Caddy and the path)',
               $j ? ($j->{server_ms}{p50}, $j->{other_ms}{p50}) : (0, 0)));
}
my $r = hxload_json("--h3 --close --0rtt -c 1 -n 20 'https://127.0.0.1:$p1/?s=10'");
ok($r && $r->{status}{200} == 20 && $r->{connections}{resumed} >= 15 && $r->{connections}{early} >= 15,
   sprintf('h3, a connection per request: %d of 20 resumed, 0-RTT taken on %d, refused on %d (as the client sees them)',
           $r ? ($r->{connections}{resumed}, $r->{connections}{early}, $r->{connections}{early_rejected}) : (0, 0, 0)));
my ($o) = curl_hx('-sk', '-o', '/dev/null', '-w', '%{http_version}', "https://127.0.0.1:$p1/?s=10");
is($o, '2', 'curl over TLS: h2 in front');

# ---------- SSE, WebSocket, gRPC ----------
my $e = hxload_json("--h3 --sse -c 1 -n 1 'https://127.0.0.1:$p1/?sse=1&n=5&d=150&s=10'");
ok($e && $e->{events}{n} == 5 && $e->{events}{bunched} == 0,
   sprintf('sse=1 through Caddy over h3: %d events, %d bunched (Caddy flushes each)',
           $e ? ($e->{events}{n}, $e->{events}{bunched}) : (0, 0)));
my $w = hxload_json("-c 2 -n 100 --verify 'wss://127.0.0.1:$p1/?ws=echo'");
ok($w && $w->{status}{200} == 100 && $w->{connections}{ws} >= 1, 'wss:// through Caddy: 100 messages echoed and verified');
my $g = hxload_json("-c 2 -n 50 'grpcs://127.0.0.1:$p2/?s=100&n=3'");
ok($g && $g->{grpc}{OK} == 50 && $g->{grpc}{messages} == 150,
   sprintf('grpcs:// through Caddy to h2c: %d calls OK, %d messages', $g ? ($g->{grpc}{OK}, $g->{grpc}{messages}) : (0, 0)));

# ---------- no default_sni: the handshake fails, and hxload says what Caddy said ----------
kill 'TERM', $cpid;
waitpid($cpid, 0);
(my $nosni = $conf) =~ s/^\s*default_sni .*\n//m;
isnt($nosni, $conf, 'the recipe without its default_sni line');
$cpid = caddy_run('Caddyfile.nosni', $nosni);
sleep 0.3;
my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $err = `timeout 20 $hxload -q --h3 -c 1 -n 2 'https://127.0.0.1:$p1/?s=10' 2>&1`;
like($err, qr/refused the QUIC handshake: alert [^;]+; no SNI was sent .*--sni/,
     "without default_sni: hxload names Caddy's alert and suggests --sni: $err");
my $s = hxload_json("--h3 --sni 127.0.0.1 -c 1 -n 5 'https://127.0.0.1:$p1/?s=10'");
is($s && $s->{status}{200}, 5, '... and with --sni 127.0.0.1 the same run is answered');

kill 'TERM', $cpid;
waitpid($cpid, 0);
is(stop_hx(), 0, 'hxterm stops cleanly');
diag(sprintf('the test took %.1f s', time - $t0));
done_testing();
