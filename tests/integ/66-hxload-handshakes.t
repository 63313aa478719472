#!/usr/bin/perl
# hxload --handshakes: full, resumed and 0-RTT handshakes in exact shares on h1 (0-RTT as TLS early data) and h2 over TLS and on h3, against hxterm with an ECDSA P-256 and an RSA-2048 certificate (hxterm's own counters agree), a server that declines tickets (openssl s_server) counted as "asked resumed, got full", whose only group is P-384 retried once (HelloRetryRequest) and offered P-384 first after, early data refused (HAProxy between two hxterm, one ticket key, one taking early data) sent again, bad mixes refused; hxload's close_notify on the connections it is done with.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use JSON::PP;
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $dir = tempdir(CLEANUP => 1);
system("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $dir/ec.key -out $dir/ec.pem "
       . "-days 2 -subj /CN=localhost 2>/dev/null") == 0 or BAIL_OUT('openssl cannot make an ECDSA certificate');
system("openssl req -x509 -newkey rsa:2048 -nodes -keyout $dir/rsa.key -out $dir/rsa.pem -days 2 "
       . "-subj /CN=localhost 2>/dev/null") == 0 or BAIL_OUT('openssl cannot make an RSA certificate');

# one run of 100 connections: its JSON report, exit code and output
sub run {
    my ($mix, $args, $port) = @_;
    my $out = `timeout 30 $hxload -q --json -t 1 -c 1 -n 100 --handshakes $mix $args 'https://127.0.0.1:$port/?s=100' 2>&1`;
    my ($line) = grep { /^\{"hxload"/ } split /\n/, $out;
    return (eval { decode_json($line // '') } // {}, $? >> 8, $out);
}

# hxterm's counters: TLS handshakes over TCP resumed, requests in 0-RTT over h3, in early data over h1
sub metrics {
    my ($sp) = @_;
    my $m = `curl -s http://127.0.0.1:$sp/metrics`;
    my ($res) = $m =~ /^hxterm_tls_handshakes_total\{version="1\.3",resumed="true"\} (\d+)$/m;
    my ($early) = $m =~ /^hxterm_early_requests_total\{proto="h3"\} (\d+)$/m;
    my ($early1) = $m =~ /^hxterm_early_requests_total\{proto="h1-tls"\} (\d+)$/m;
    return ($res // -1, $early // -1, $early1 // -1);
}

# asked and got by kind, as "full/resumed/0rtt"
sub kinds {
    my ($r, $what) = @_;
    return join '/', map { $r->{handshakes}{kinds}{$_}{$what} // -1 } qw(full resumed 0rtt);
}

my $sp = free_port();
for my $cert (qw(ec rsa)) {
    my $port = start_hx('-tls', '-t', '1', '--cert', "$dir/$cert.pem", '--key', "$dir/$cert.key", '--early-data',
                        '--stats', "127.0.0.1:$sp");
    my $tls = hx_tls_port();
    for my $p (qw(h1 h2)) {
        my $mix = $p eq 'h1' ? '70:25:5' : '70:30:0';
        my ($res0, undef, $e0) = metrics($sp);
        my ($r, $rc, $out) = run($mix, "--$p --server-pid " . hx_pid(), $tls);
        my ($res1, undef, $e1) = metrics($sp);
        (my $want = $mix) =~ tr/:/\//;
        ok($rc == 0 && kinds($r, 'asked') eq $want && kinds($r, 'got') eq $want,
           "$cert $p $mix: asked and got $want (" . kinds($r, 'got') . ')') or diag($out);
        is($res1 - $res0, 30, "... hxterm resumed 30 of them");
        my $busy = $r->{handshakes}{server_busy} // -1;
        ok($busy > 0 && $busy <= 1.05, "... hxterm's share of the CPUs it may run on: $busy");
        is($r->{connections}{hello_retries} // -1, 0, '... no HelloRetryRequest (our first key share, X25519, is one hxterm takes)');
        is($e1 - $e0, 5, '... and answered 5 requests that came in TLS early data') if $p eq 'h1';
        ok(($r->{handshakes}{kinds}{full}{tls_ms}{n} // 0) == 70 && ($r->{handshakes}{kinds}{full}{connect_ms}{n} // 0) == 70
           && ($r->{handshakes}{kinds}{resumed}{first_byte_ms}{n} // 0) == ($p eq 'h1' ? 25 : 30)
           && ($r->{handshakes}{kinds}{'0rtt'}{first_byte_ms}{n} // 0) == ($p eq 'h1' ? 5 : 0), '... each kind timed apart');
    }
    if ($cert eq 'ec') {
        # at a rate: a connection opens when its request is due (none held open ahead)
        my ($r, $rc, $out) = run('70:30:0', '--h1 -n 200 -R 400 -d 5 -c 10', $tls);
        ok($rc == 0 && kinds($r, 'asked') eq '140/60/0' && ($r->{connections}{opened} // 0) == 200,
           "-R 400 -n 200: 200 connections, asked 140 full, 60 resumed (" . kinds($r, 'asked') . ')') or diag($out);
    }
    my (undef, $e0) = metrics($sp);
    my ($r, $rc, $out) = run('70:25:5', '--h3', $tls);
    my (undef, $e1) = metrics($sp);
    ok($rc == 0 && kinds($r, 'asked') eq '70/25/5' && kinds($r, 'got') eq '70/25/5',
       "$cert h3 70:25:5: asked and got 70 full, 25 resumed, 5 0-RTT (" . kinds($r, 'got') . ')') or diag($out);
    is($e1 - $e0, 5, '... hxterm answered 5 requests in 0-RTT');
    is(stop_hx(), 0, 'hxterm stops cleanly');
}

# a server that takes no ticket back (stateful tickets, no cache): declined; and whose only
# key-share group is P-384: the first connection retried (HelloRetryRequest), none after
SKIP: {
    my $sport = free_port();
    my $spid = spawn_bg("$dir/s_server.out", 'openssl', 's_server', '-quiet', '-www', '-no_ticket', '-no_cache',
                        '-groups', 'P-384', '-accept', $sport, '-cert', "$dir/ec.pem", '-key', "$dir/ec.key");
    skip('openssl s_server did not start', 3) unless wait_port($sport);
    my $out = `timeout 30 $hxload -q --json -t 1 -c 1 -n 20 --handshakes 1:1:0 --h1 https://127.0.0.1:$sport/ 2>&1`;
    my ($line) = grep { /^\{"hxload"/ } split /\n/, $out;
    my $r = eval { decode_json($line // '') } // {};
    ok(($r->{handshakes}{asked_resumed_got_full} // 0) == 10 && ($r->{handshakes}{no_ticket} // 1) == 0,
       "s_server -no_cache: asked resumed, got full: 10, a ticket offered each time") or diag($out);
    is(kinds($r, 'got'), '20/0/0', '... all 20 full');
    is($r->{connections}{hello_retries} // -1, 1, 's_server -groups P-384: 1 HelloRetryRequest of 20 (the 19 after offer P-384 first)');
    kill 'TERM', $spid;
}

# a server that resumes but takes no early data (its tickets allow none): 0-RTT asked, resumed got
SKIP: {
    my $sport = free_port();
    my $spid = spawn_bg("$dir/s_server2.out", 'openssl', 's_server', '-quiet', '-www', '-accept', $sport,
                        '-cert', "$dir/ec.pem", '-key', "$dir/ec.key");
    skip('openssl s_server did not start', 1) unless wait_port($sport);
    my $out = `timeout 30 $hxload -q --json -t 1 -c 1 -n 20 --handshakes 0:1:1 --h1 https://127.0.0.1:$sport/ 2>&1`;
    my ($line) = grep { /^\{"hxload"/ } split /\n/, $out;
    my $r = eval { decode_json($line // '') } // {};
    ok(($r->{handshakes}{asked_0rtt_got_resumed} // 0) == 10 && kinds($r, 'asked') eq '0/10/10',
       's_server without -early_data: asked 0-RTT, got resumed: 10 of 10') or diag($out);
    kill 'TERM', $spid;
}

# early data refused: two hxterm with one ticket key, one with --early-data, behind HAProxy in TCP
# mode taking turns: a ticket of the first with early data offered to the second is resumed, its
# early data refused, and the request sent again after the handshake (no error)
SKIP: {
    skip('no haproxy', 3) unless -x '/usr/sbin/haproxy';
    open my $k, '>', "$dir/k.keys" or die;
    print $k "# keys\n", `head -c 80 /dev/urandom | base64 -w0`, "\n";
    close $k;
    my @ports = map { free_port() } 1 .. 3;
    my @hx = map { spawn_bg("$dir/hx$_.out", $ENV{HXTERM} // 'build/hxterm', '-q', '-t', '1', '--no-h3', '-L',
                            "127.0.0.1:" . free_port() . ":$ports[$_]", '--ticket-keys', "$dir/k.keys", '--cert',
                            "$dir/ec.pem", '--key', "$dir/ec.key", $_ ? () : '--early-data') } 0, 1;
    open my $h, '>', "$dir/hap.cfg" or die;
    print $h "global\n  nbthread 1\ndefaults\n  mode tcp\n  timeout connect 2s\n  timeout client 10s\n"
        . "  timeout server 10s\nlisten l\n  bind 127.0.0.1:$ports[2]\n  balance roundrobin\n"
        . "  server a 127.0.0.1:$ports[0]\n  server b 127.0.0.1:$ports[1]\n";
    close $h;
    my $hap = spawn_bg("$dir/hap.out", 'haproxy', '-f', "$dir/hap.cfg", '-db');
    skip('hxterm or haproxy did not start', 3) unless wait_port($ports[0]) && wait_port($ports[1]) && wait_port($ports[2]);
    my $out = `timeout 30 $hxload -q --json -t 1 -c 1 -n 40 --handshakes 0:0:1 --h1 https://127.0.0.1:$ports[2]/ 2>&1`;
    my ($line) = grep { /^\{"hxload"/ } split /\n/, $out;
    my $r = eval { decode_json($line // '') } // {};
    my $c = $r->{connections} // {};
    ok(($c->{early_rejected} // 0) >= 1, "early data refused on $c->{early_rejected} connections, taken on $c->{early}")
        or diag($out);
    ok(($r->{requests} // 0) == 40 && ($r->{status}{200} // 0) == 40 && !($r->{errors_total} // 1),
       '... all 40 requests answered 200, no error');
    is($r->{schedule}{retried} // -1, $c->{early_rejected} // -2, '... the refused ones sent again after the handshake');
    kill 'TERM', $hap, @hx;
}

# the connections hxload is done with end with its close_notify (RFC 8446 6.1), so that a proxy in
# front does not count them as aborted: --close (4 connections), then a keep-alive one ended with the
# run, then --idle's two held to the end (and the run's one); a TLS server in Python says how each ended (an EOF without close_notify raises an SSL error)
{
    my $sport = free_port();
    open my $py, '>', "$dir/notify.py" or die;
    print $py <<'EOF';
import socket, ssl, sys, threading, time
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[2] + '/ec.pem', sys.argv[2] + '/ec.key')
ctx.options &= ~ssl.OP_IGNORE_UNEXPECTED_EOF  # WHY: Python 3.11 sets it, and reads such an EOF as a clean end
ls = socket.create_server(('127.0.0.1', int(sys.argv[1])))
ls.settimeout(0.2)
ends = []
def serve(s):
    try:
        t = ctx.wrap_socket(s, server_side=True, suppress_ragged_eofs=False)
    except OSError:
        return  # WHY: wait_port's probe, no TLS
    buf = b''
    try:
        while True:
            d = t.recv(65536)
            if not d:
                return ends.append('close_notify')
            buf += d
            while b'\r\n\r\n' in buf:
                buf = buf.split(b'\r\n\r\n', 1)[1]
                t.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    except ssl.SSLEOFError:
        ends.append('eof')
    except Exception as e:
        ends.append(type(e).__name__)
end = time.time() + 15
while len(ends) < 7 and time.time() < end:
    try:
        threading.Thread(target=serve, args=(ls.accept()[0],), daemon=True).start()
    except socket.timeout:
        pass
print(' '.join(sorted(ends)), flush=True)
EOF
    close $py;
    my $spid = spawn_bg("$dir/notify.out", '/usr/bin/python3', "$dir/notify.py", $sport, $dir);
    wait_port($sport);
    my $out = `timeout 20 $hxload -q -t 1 -c 1 -n 4 --close --h1 https://127.0.0.1:$sport/ 2>&1`;
    $out .= `timeout 20 $hxload -q -t 1 -c 1 -n 4 --h1 https://127.0.0.1:$sport/ 2>&1`;
    # WHY -d: --idle's connections are held to the end of a timed run
    $out .= `timeout 20 $hxload -q -t 1 -c 1 -d 0.5 --idle 2 --h1 https://127.0.0.1:$sport/ 2>&1`;
    waitpid($spid, 0);
    my $ends = do { local (@ARGV, $/) = "$dir/notify.out"; <> } // '';
    like($ends, qr/^(close_notify ){6,}close_notify$/m,
         "hxload's own closes (--close, the run's end, --idle's held ones) send close_notify: $ends") or diag($out);
}

# bad input: one line, exit 2
for my $bad ('1:2', '-1:2:3', '0:0:0', '1:2:3:4', 'a:b:c') {
    my $err = `$hxload --handshakes '$bad' https://127.0.0.1:1/ 2>&1`;
    ok($? >> 8 == 2 && $err =~ /^hxload: --handshakes '\Q$bad\E': /, "--handshakes '$bad': exit 2, one line") or diag($err);
}
my $err = `$hxload --handshakes 1:1:0 http://127.0.0.1:1/ 2>&1`;
ok($? >> 8 == 2 && $err =~ /--handshakes needs an https:\/\/ URL/, 'on http://: exit 2, one line');
$err = `$hxload --handshakes 1:1:1 --h2 https://127.0.0.1:1/ 2>&1`;
ok($? >> 8 == 2 && $err =~ /0-RTT is built for --h1 and --h3/, 'a 0-RTT share on h2: exit 2, one line');
done_testing();
