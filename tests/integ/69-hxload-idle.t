#!/usr/bin/perl
# hxload --idle: 3000 idle h1 connections held beside a checked load (hxterm counts them open, RSS per connection sane), 100 held over TLS, all closed by HAProxy's timeout client at ~2 s and counted so; h2c PINGs keep them past hxterm's idle timeout; the run's end says GOAWAY on held h2 connections, close_notify on TLS ones (66); bad counts refused.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use Time::HiRes qw(sleep);
use HxTest;

my $N = 3000;
my $need = 2 * $N + 500; # WHY twice: HAProxy holds a client and a server side per connection
my $hard = nofile_raise($need);
plan skip_all => "the open-file limit ($hard) is below the $need this test holds" if $hard < $need;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $dir = tempdir(CLEANUP => 1);

# bad counts: exit 2 and a line naming the option
for my $bad ('-1', 'x') {
    my $err = `$hxload --idle '$bad' http://127.0.0.1:1/ 2>&1`;
    is($? >> 8, 2, "--idle '$bad': exit 2");
    like($err, qr/--idle/, "--idle '$bad': a line naming it") or diag($err);
}

my $sp = free_port();
my $port = start_hx('-tls', '-t', '1', '--stats', "127.0.0.1:$sp");
my $url = "http://127.0.0.1:$port/?s=1k";

# the load beside 3000 held, and hxterm's own count of them while they are
open my $run, '-|', "$hxload -q --json -c 4 -R 1000 -d 1500ms --verify --idle $N --pid hxterm=@{[hx_pid()]} '$url' 2>$dir/err"
    or die "hxload: $!";
my $active = 0;
for (1 .. 20) {
    sleep 0.1;
    ($active) = `curl -s http://127.0.0.1:$sp/stats.json` =~ /"connections_active": (\d+)/;
    last if ($active //= 0) >= $N;
}
my $out = do { local $/; <$run> };
close $run;
my $j = eval { JSON::PP::decode_json($out) };
ok($j && $j->{idle}, 'the JSON has an idle object') or diag("stdout: $out; stderr: ", `cat $dir/err`);
BAIL_OUT('no idle object') unless $j && $j->{idle};
my $i = $j->{idle};
cmp_ok($active, '>=', $N, "hxterm counted $N connections active while they were held ($active)");
is($i->{answered}, $N, "$N answered their one request");
is($i->{held}, $N, "$N held to the end, none closed ($i->{closed})");
ok($j->{requests} >= 1000 && $j->{status}{200} == $j->{requests} && $j->{errors_total} == 0
   && $j->{verify}{bodies} == $j->{requests}, "the load beside them: $j->{requests} answers, each 200, verified");
my ($hx) = grep { $_->{name} eq 'hxterm' } @{ $i->{rss} };
my ($self) = grep { $_->{name} eq 'hxload' } @{ $i->{rss} };
ok($hx && $hx->{kib_per_connection} >= 0.2 && $hx->{kib_per_connection} <= 20,
   sprintf 'hxterm: %.2f KiB per idle connection (0.2 to 20)', $hx ? $hx->{kib_per_connection} : -1);
ok($self && $self->{kib_per_connection} < 2,
   sprintf 'hxload itself: %.2f KiB per idle connection (< 2)', $self ? $self->{kib_per_connection} : -1);

# over TLS (ALPN picks h2): each held
my $t = hxload_json("-c 1 -R 200 -d 500ms --idle 100 https://127.0.0.1:@{[hx_tls_port()]}/?s=100");
ok($t && $t->{idle}{answered} == 100 && $t->{idle}{held} == 100,
   sprintf 'https: 100 answered and held (%d, %d)', $t->{idle}{answered} // -1, $t->{idle}{held} // -1);

# through HAProxy, timeout client 2s: every idle one closed by it, ~2 s idle
SKIP: {
    skip 'haproxy is not installed', 3 unless -x '/usr/sbin/haproxy';
    my $hp = free_port();
    open my $cfg, '>', "$dir/h.cfg" or die;
    print $cfg "global\n    maxconn @{[$N + 200]}\n    nbthread 1\ndefaults\n    mode http\n    timeout connect 5s\n"
             . "    timeout client 2s\n    timeout server 30s\n    timeout http-keep-alive 2s\nfrontend fe\n"
             . "    bind 127.0.0.1:$hp\n    default_backend be\nbackend be\n    server s1 127.0.0.1:$port\n";
    close $cfg;
    spawn_bg("$dir/h.out", '/usr/sbin/haproxy', '-db', '-f', "$dir/h.cfg");
    skip 'haproxy did not start', 3 unless wait_port($hp);
    my $p = hxload_json("-c 2 -R 500 -d 2700ms --idle $N http://127.0.0.1:$hp/?s=100");
    my $pi = $p ? $p->{idle} : {};
    is($pi->{answered} // 0, $N, "through HAProxy: $N answered");
    is($pi->{closed} // 0, $N, "... all $N closed by HAProxy (timeout client 2s)");
    ok(($pi->{first_close_s} // 0) >= 1.5 && ($pi->{last_close_s} // 9) <= 2.9,
       sprintf '... after %.2f to %.2f s idle (1.5 to 2.9)', $pi->{first_close_s} // -1, $pi->{last_close_s} // -1);
}

# h2c: hxterm's idle timeout closes silent ones; PINGs keep them
my $p2 = free_port();
spawn_bg("$dir/hx2.out", $ENV{HXTERM} // 'build/hxterm', '-L', "127.0.0.1:$p2", '-q', '-t', '1', '--idle-timeout', '700');
wait_port($p2) or die 'the second hxterm did not start';
my $quiet = hxload_json("-c 1 -R 200 -d 1500ms --idle 500 h2c://127.0.0.1:$p2/?s=100");
ok($quiet && $quiet->{idle}{closed} == 500 && $quiet->{idle}{first_close_s} >= 0.5,
   sprintf 'h2c, no PING: 500 closed by its idle timeout (%d, first at %.2f s)', $quiet->{idle}{closed} // -1,
   $quiet->{idle}{first_close_s} // -1);
my $ping = hxload_json("-c 1 -R 200 -d 1500ms --idle 500 --idle-ping 300ms h2c://127.0.0.1:$p2/?s=100");
ok($ping && $ping->{idle}{held} == 500 && $ping->{idle}{pings} >= 1000,
   sprintf 'h2c, PING every 300 ms: 500 held past it (%d, %d PINGs)', $ping->{idle}{held} // -1, $ping->{idle}{pings} // -1);

# the run's end on held h2 connections: GOAWAY NO_ERROR before the close
# (RFC 9113 6.8), not a bare FIN a proxy in front counts as an abort; an
# h2c server of raw frames says how each connection ended
{
    my $sport = free_port();
    open my $py, '>', "$dir/h2end.py" or die;
    print $py <<'PY';
import socket, struct, sys, threading, time
ls = socket.create_server(('127.0.0.1', int(sys.argv[1])))
ls.settimeout(0.2)
ends = []
def serve(s):
    buf, seen = b'', 'eof'
    while True:
        d = s.recv(65536)
        if not d:
            return ends.append(seen)
        buf += d
        if buf.startswith(b'PRI * HTTP/2.0'):
            buf = buf[24:]
            s.sendall(b'\0\0\0\4\0\0\0\0\0')
        while len(buf) >= 9:
            n = int.from_bytes(buf[:3], 'big')
            if len(buf) < 9 + n:
                break
            t, sid = buf[3], struct.unpack('>I', buf[5:9])[0] & 0x7fffffff
            if t == 1:  # HEADERS: 200, END_STREAM
                s.sendall(b'\0\0\1\1\5' + struct.pack('>I', sid) + b'\x88')
            if t == 7:
                seen = 'goaway'
            buf = buf[9 + n:]
end = time.time() + 15
while len(ends) < 3 and time.time() < end:
    try:
        threading.Thread(target=serve, args=(ls.accept()[0],), daemon=True).start()
    except socket.timeout:
        pass
time.sleep(0.3)
print(' '.join(sorted(ends)), flush=True)
PY
    close $py;
    my $spid = spawn_bg("$dir/h2end.out", '/usr/bin/python3', "$dir/h2end.py", $sport);
    wait_port($sport);
    my $out = `timeout 20 $hxload -q -c 1 -R 20 -d 0.5 --idle 2 h2c://127.0.0.1:$sport/ 2>&1`;
    waitpid($spid, 0);
    my $ends = do { local (@ARGV, $/) = "$dir/h2end.out"; <> } // '';
    my $goaways = () = $ends =~ /goaway/g;
    ok($goaways >= 3, "h2c: the load's connection and the two held end with GOAWAY at the run's end ($ends)") or diag($out);
}

done_testing();
