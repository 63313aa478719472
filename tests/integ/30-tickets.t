#!/usr/bin/perl
# Shared session tickets (--ticket-keys): resumption across two hxterm processes and a restart, rotation on SIGHUP; TLS 1.3 early data (--early-data) on HTTP/1.1 and h2, said in X-rsp; the close_notify that ends a connection (h1, h2, WebSocket), which keeps its session resumable, not after x=/X=; openssl s_client, s_time and python3-h2 as clients.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use MIME::Base64;
use Time::HiRes qw(sleep);
use POSIX ();
use HxTest;

my $hxterm = $ENV{HXTERM} // 'build/hxterm';
my $dir = tempdir(CLEANUP => 1);

sub key_file {
    my ($path, @keys) = @_;
    open my $f, '>', $path or die;
    print $f "# hxterm ticket keys\n", map { "$_\n" } @keys;
    close $f;
}
sub new_key { my $n = shift // 80; return encode_base64(join('', map { chr int rand 256 } 1 .. $n), '') }

my ($k1, $k2, $k48) = (new_key(), new_key(), new_key(48));
key_file("$dir/a.keys", $k1);
key_file("$dir/b.keys", $k1);
open my $r, '>', "$dir/req" or die;
print $r "GET /?s=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
close $r;

# openssl s_client to 127.0.0.1:<port>: (New|Reused, the X-rsp line, early data status, all output)
sub sclient {
    my ($port, $args) = @_;
    my $out = `timeout 10 openssl s_client -connect 127.0.0.1:$port $args -ign_eof < $dir/req 2>&1`;
    my ($state) = $out =~ /^(New|Reused), TLSv/m;
    my ($xrsp) = $out =~ /^X-rsp: ([^\r\n]*)/m;
    my ($early) = $out =~ /^Early data was (accepted|rejected)/m;
    return ($state // '', $xrsp // '', $early // '', $out);
}

# a second hxterm, beside the one of HxTest; WHY up to three tries: a port
# free_port gave may be another test's by the time it binds
sub start_b {
    my @args = @_;
    for (1 .. 3) {
        my ($p, $t) = (free_port(), free_port());
        my $pid = spawn_bg("$dir/b.out", $hxterm, '-q', '-t', '1', '-L', "127.0.0.1:$p:$t", '--no-h3', @args);
        return ($pid, $t) if wait_port($t, $pid);
        last if kill 0, $pid; # still starting after the wait: not a port taken
    }
    die "hxterm B did not start: " . `cat $dir/b.out`;
}

{
    my $err = `$hxterm -q --ticket-keys $dir/nothing 2>&1`;
    like($err, qr/--ticket-keys .*cannot open it/, 'a missing key file: one line');
    key_file("$dir/bad.keys", 'not-a-key');
    $err = `$hxterm -q --ticket-keys $dir/bad.keys 2>&1`;
    like($err, qr/line 2: not base64 of 48 or 80 bytes/, 'a bad key names its line');
    is($? >> 8, 2, '... and exits 2');
}

# --check loads the key file as the start does: the same line, exit 2
{
    open my $f, '>', "$dir/empty.keys" or die;
    close $f;
    open $f, '>', "$dir/bin.keys" or die;
    print $f "\xff\xfe\x00\x01\x80\x81\n\x02\x03";
    close $f;
    key_file("$dir/garbage.keys", 'garbage');
    key_file("$dir/short.keys", new_key(32));
    for my $k (qw(empty garbage bin short)) {
        my $l = '127.0.0.1:' . free_port() . ':' . free_port();
        my $start = `timeout 10 $hxterm -q -L $l --ticket-keys $dir/$k.keys 2>&1`;
        my $src = $? >> 8;
        my $chk = `timeout 10 $hxterm -q -L $l --ticket-keys $dir/$k.keys --check 2>&1`;
        my $crc = $? >> 8;
        ok($src == 2 && $start =~ /^hxterm: --ticket-keys \S+$k\.keys/, "a $k key file: the start refuses it ($start)");
        ok($crc == 2 && $chk eq $start, "... and so does --check: exit 2 ($crc), the same line") or diag($chk);
    }
    key_file("$dir/good.keys", new_key());
    my $chk = `timeout 10 $hxterm -q -L 127.0.0.1:${\ free_port()} --ticket-keys $dir/good.keys --check 2>&1`;
    is($? >> 8, 0, 'a good key file: --check exits 0') or diag($chk);
}

my $port = start_hx('-tls', '-t', '1', '--no-h3', '--ticket-keys', "$dir/a.keys", '--early-data');
my $tls = hx_tls_port();
my ($bpid, $btls) = start_b('--ticket-keys', "$dir/b.keys");

# ---------- one fleet, one set of tickets ----------
{
    my ($st, $x) = sclient($tls, "-sess_out $dir/s13");
    is($st, 'New', 'A: a full TLS 1.3 handshake, its ticket saved');
    like($x, qr/code=200/, 'A answers');
    ($st) = sclient($btls, "-sess_in $dir/s13");
    is($st, 'Reused', 'B, another process with the same --ticket-keys, resumes the session A issued');
    ($st) = sclient($tls, "-tls1_2 -sess_out $dir/s12");
    is($st, 'New', 'TLS 1.2: a full handshake on A');
    ($st) = sclient($btls, "-tls1_2 -sess_in $dir/s12");
    is($st, 'Reused', 'TLS 1.2: B resumes it too');
    my ($cpid, $ctls) = start_b();
    ($st) = sclient($ctls, "-sess_in $dir/s13");
    is($st, 'New', 'a process without the keys cannot resume it (a full handshake, no error)');
    kill 'TERM', $cpid;
    waitpid($cpid, 0);
}

# ---------- early data ----------
{
    my ($st, $x, $early) = sclient($tls, "-sess_in $dir/s13 -early_data $dir/req");
    is($early, 'accepted', '--early-data: the request sent as early data is accepted');
    like($x, qr/code=200, cache=1, early=1, size=3/, "X-rsp says early=1: $x");
    ($st, $x) = sclient($tls, "-sess_in $dir/s13");
    unlike($x, qr/early=/, 'a resumed request not in early data has no early=1');
    ($st, $x, $early) = sclient($btls, "-sess_in $dir/s13 -early_data $dir/req");
    is($early, 'rejected', 'B without --early-data rejects it (the client sends the request again)');
    like($x, qr/code=200, cache=1, size=3/, '... and answers it, without early=1');
    my $py = `timeout 30 /usr/bin/python3 - $tls $dir 2>&1 <<'EOF'
import sys, subprocess, h2.connection, h2.config, h2.events
port, d = sys.argv[1], sys.argv[2]
def client(goaway):
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding='utf-8'))
    c.initiate_connection()
    c.send_headers(1, [(':method', 'GET'), (':path', '/?s=5'), (':scheme', 'https'), (':authority', 'x')], end_stream=True)
    if goaway:
        c.close_connection()  # WHY: the server then closes, and s_client ends
    return c
def run(extra):
    open(d + '/h2req', 'wb').write(client(True).data_to_send())
    p = subprocess.run(['openssl', 's_client', '-connect', '127.0.0.1:' + port, '-alpn', 'h2', '-quiet'] + extra,
                       stdin=open(d + '/h2req', 'rb') if '-early_data' not in extra else subprocess.DEVNULL,
                       capture_output=True, timeout=5)
    r = client(False)
    r.data_to_send()
    for e in r.receive_data(p.stdout):
        if isinstance(e, h2.events.ResponseReceived):
            return dict(e.headers).get('x-rsp')
print('full:', run(['-sess_out', d + '/sh2']))
print('early:', run(['-sess_in', d + '/sh2', '-early_data', d + '/h2req']))
EOF
`;
    like($py, qr/^full: id=.*code=200, cache=1, size=5/m, 'h2: a full handshake with ALPN h2');
    like($py, qr/^early: id=.*code=200, cache=1, early=1, size=5/m, 'h2: a stream whose HEADERS came as early data says early=1');
}

# ---------- rotation on SIGHUP ----------
{
    key_file("$dir/b.keys", $k2);
    kill 'HUP', $bpid;
    sleep 0.3;
    my ($st) = sclient($btls, "-sess_in $dir/s13");
    is($st, 'New', 'SIGHUP with only a new key: the old tickets no longer open');
    key_file("$dir/b.keys", $k2, $k1);
    kill 'HUP', $bpid;
    sleep 0.3;
    ($st) = sclient($btls, "-sess_in $dir/s13 -sess_out $dir/s13b");
    is($st, 'Reused', 'the new key first, the old one second: the old tickets open again');
    key_file("$dir/b.keys", $k2);
    kill 'HUP', $bpid;
    sleep 0.3;
    ($st) = sclient($btls, "-sess_in $dir/s13b");
    is($st, 'Reused', 'the ticket B renewed then is sealed with the new key');
    key_file("$dir/b.keys", 'garbage');
    kill 'HUP', $bpid;
    sleep 0.3;
    ($st) = sclient($btls, "-sess_in $dir/s13b");
    is($st, 'Reused', 'a bad file on SIGHUP keeps the keys in use');
    my $log = do { local (@ARGV, $/) = ("$dir/b.out"); <> // '' };
    like($log, qr/--ticket-keys .*line 2: not base64/, '... and says why on stderr');
    key_file("$dir/b.keys", $k48);
    kill 'HUP', $bpid;
    sleep 0.3;
    ($st) = sclient($btls, "-sess_out $dir/s48");
    ($st) = sclient($btls, "-sess_in $dir/s48");
    is($st, 'Reused', 'a 48-byte key (AES-128) seals and opens tickets');
}

# ---------- QUIC: tickets and 0-RTT (gtlsclient) ----------
SKIP: {
    skip 'no gtlsclient', 4 unless grep { -x "$_/gtlsclient" } split /:/, $ENV{PATH};
    # gtlsclient to <port>: the X-rsp it printed (--session-file, --tp-file keep what 0-RTT needs)
    my $h3 = sub {
        my ($p, $tag) = @_;
        my $out = `timeout 10 gtlsclient --no-quic-dump --no-http-dump --session-file=$dir/q$tag.sess --tp-file=$dir/q$tag.tp --exit-on-all-streams-close 127.0.0.1 $p 'https://127.0.0.1:$p/?s=5' 2>&1`;
        my ($x) = $out =~ /\[x-rsp: ([^\]]*)\]/;
        return ($x // '', $out);
    };
    key_file("$dir/q.keys", $k1);
    # a server on fresh ports, again on others when it did not come up
    # (CI once found its ports taken between free_port() and the listen)
    my $spawn_q = sub {
        my ($tag, @more) = @_;
        for (1 .. 3) {
            my ($p, $t) = (free_port(), free_port());
            my $pid = spawn_bg("$dir/q$tag.out", $hxterm, '-q', '-t', '1', '-L', "127.0.0.1:$p:$t", '--ticket-keys',
                               "$dir/q.keys", @more);
            return ($pid, $t) if wait_port($t);
            kill 'TERM', $pid;
            waitpid($pid, 0);
            diag("q$tag did not come up: " . `cat $dir/q$tag.out`);
        }
        die "q$tag: no server";
    };
    my ($qa, $ta) = $spawn_q->('a', '--early-data');
    # WHY B before A's first ticket: GnuTLS takes no 0-RTT with a ticket
    # older than its own start (its anti-replay window)
    my ($qb, $tb) = $spawn_q->('b', '--early-data');
    my ($x) = $h3->($ta, 'a');
    like($x, qr/code=200, cache=1, size=5/, "h3: a first connection, its ticket kept: $x");
    ($x) = $h3->($ta, 'a');
    like($x, qr/code=200, cache=1, early=1, size=5/, "h3 --early-data: the request sent in 0-RTT says early=1: $x");
    system("cp $dir/qa.sess $dir/qb.sess; cp $dir/qa.tp $dir/qb.tp");
    ($x) = $h3->($tb, 'b');
    like($x, qr/early=1/, "h3: another process with the same --ticket-keys takes the first one's ticket and its 0-RTT: $x");
    kill 'TERM', $qb;
    waitpid($qb, 0);
    ($qb, $tb) = $spawn_q->('c');
    system("cp $dir/qa.sess $dir/qc.sess; cp $dir/qa.tp $dir/qc.tp");
    ($x) = $h3->($tb, 'c');
    ok($x =~ /code=200/ && $x !~ /early=/, "h3 without --early-data: the 0-RTT request is sent again and answered without early=1: $x");
    kill 'TERM', $qa, $qb;
    waitpid($_, 0) for $qa, $qb;
}

# ---------- the end of a connection: TLS's close_notify ----------
# WHY: without it OpenSSL's client reads the close as a truncation ("unexpected
# eof", exit 1) and marks the session not resumable (RFC 8446 6.1)
# the s_client command that sends <bytes> to <port>, then reads to the end
sub sclose_cmd {
    my ($port, $bytes, $args, $name) = @_;
    open my $f, '>:raw', "$dir/$name.req" or die;
    print $f $bytes;
    close $f;
    return "timeout 10 openssl s_client -connect 127.0.0.1:$port -ign_eof $args < $dir/$name.req";
}
# (its exit status, its output)
sub sclose {
    my $out = `${\ sclose_cmd(@_, 'close')} 2>&1`;
    return ($? >> 8, $out);
}
sub slurp { open my $f, '<:raw', $_[0] or return ''; local $/; return scalar <$f> }
sub h1req { return "GET /?$_[0] HTTP/1.1\r\nHost: x\r\n$_[1]\r\n" }
# an h2 GET (preface, SETTINGS, HEADERS with END_STREAM): :method GET,
# :scheme https, :path and :authority literal, not indexed
sub h2req {
    my $path = shift;
    my $hb = "\x82\x87\x04" . chr(length $path) . $path . "\x01\x01x";
    my $frame = sub { my ($type, $flags, $sid, $p) = @_; substr(pack('N', length $p), 1) . pack('CCN', $type, $flags, $sid) . $p };
    return "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" . $frame->(4, 0, 0, '') . $frame->(1, 5, 1, $hb);
}
sub clean_end {
    my ($what, $rc, $out) = @_;
    ok($rc == 0 && $out =~ /closed$/m && $out !~ /unexpected eof/, "$what: the server's close_notify ends it (s_client exits $rc)")
        or diag(join "\n", grep { /eof|closed|error|errno/i } split /\n/, $out);
}
{
    clean_end('h1, Connection: close', sclose($tls, h1req('s=3', "Connection: close\r\n"), ''));
    clean_end('h1, C=1 on TLS 1.2', sclose($tls, h1req('s=3&C=1', ''), '-tls1_2'));
    clean_end('h1, the keep-alive idle timeout (w=200)', sclose($tls, h1req('s=3&w=200', ''), ''));
    clean_end('h1, the request limit (maxreq=2)', sclose($tls, h1req('s=3', '') . h1req('s=3&maxreq=2', ''), ''));
    clean_end('h2 over TLS, GOAWAY after the request limit (maxreq=1)', sclose($tls, h2req('/?s=3&maxreq=1'), '-alpn h2'));
    my $ws = h1req('ws=echo', "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" .
                   "Sec-WebSocket-Version: 13\r\n") . "\x88\x82\x01\x02\x03\x04\x02\xea"; # close 1000, masked
    clean_end('a WebSocket, after both close frames', sclose($tls, $ws, ''));
    my ($rc, $out) = sclose($tls, h1req('s=1000&X=10', ''), '');
    ok($rc == 1 && $out =~ /unexpected eof/ && $out !~ /closed$/m, "X=: the cut body ends without close_notify, as a truncation (s_client exits $rc)");
    ($rc, $out) = sclose($tls, h1req('s=1000&x=10', ''), '');
    ok($rc != 0 && $out !~ /closed$/m, "x=: a reset, no close_notify (s_client exits $rc)");
    # WHY s_time: it resumes the session of the connection that just ended,
    # where s_client -sess_out saves each ticket as it comes
    my $t = `timeout 20 openssl s_time -connect 127.0.0.1:$tls -www '/?s=3' -reuse -time 1 2>&1`;
    my ($line) = $t =~ /^([*r]+)$/m;
    my ($new, $reused) = map { scalar(() = ($line // '') =~ /\Q$_\E/g) } '*', 'r';
    ok($reused > 0 && $reused > 10 * $new, "s_time -reuse: the sessions of connections the server closed resume ($reused resumed, $new new)")
        or diag($t);
}

# ---------- a restart resumes ----------
stop_hx();
$port = start_hx('-tls', '-t', '1', '--no-h3', '--ticket-keys', "$dir/a.keys");
$tls = hx_tls_port();
{
    my ($st) = sclient($tls, "-sess_in $dir/s13");
    is($st, 'Reused', 'a restarted hxterm with the same key file resumes the sessions it issued before');
}
# a drain (SIGTERM on B) ends its idle connections with close_notify too
{
    my @kids = map {
        my ($name, $bytes, $args) = @$_;
        [$name, spawn_bg("$dir/$name.out", 'sh', '-c', sclose_cmd($btls, $bytes, $args, $name))]
    } ['h1', h1req('s=3', ''), ''], ['h2', h2req('/?s=3'), '-alpn h2'];
    for (1 .. 50) {
        last unless grep { !(-s "$dir/$_->[0].out" && slurp("$dir/$_->[0].out") =~ /x-rsp/i) } @kids;
        sleep 0.1;
    }
    kill 'TERM', $bpid;
    waitpid($bpid, 0);
    for (@kids) {
        waitpid($_->[1], 0);
        clean_end("a drain (SIGTERM), an idle $_->[0] connection", $? >> 8, slurp("$dir/$_->[0].out"));
    }
}
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
