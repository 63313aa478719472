#!/usr/bin/perl
# The backend a proxy expects: PROXY protocol v1/v2 (curl, raw headers, HAProxy send-proxy-v2, nginx stream proxy_protocol, hxload), Unix sockets (curl, HAProxy, hxload), client certificates on TLS and QUIC.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IO::Socket::INET;
use IO::Socket::UNIX;
use File::Temp qw(tempdir);
use JSON::PP;
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $hxterm = $ENV{HXTERM} // 'build/hxterm';
my $dir = tempdir(CLEANUP => 1);
my ($pp, $ppt, $st) = (free_port(), free_port(), free_port());
my $sock = "$dir/hx.sock";
my $port = start_hx('-t', '2', '--head-timeout', '1000', '-L', "127.0.0.1:$pp:$ppt,proxy",
                    '-L', "unix:$sock,mode=0640", '--stats', "127.0.0.1:$st",
                    '--access-log', "$dir/access.log", '--no-h3');
my @kids;

sub trim { my $s = shift; $s =~ s/\s+$//; return $s }

sub spawn {
    my $pid = spawn_bg("$dir/kid.out", @_);
    push @kids, $pid;
    return $pid;
}

sub stats {
    my $c = IO::Socket::INET->new("127.0.0.1:$st") or die;
    print $c "GET /stats.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    my ($buf) = read_all($c, 3);
    return decode_json($buf =~ s/^.*?\r\n\r\n//sr);
}

# curl: (X-Client value or '', curl's local port, body, exit code)
sub curl {
    my ($args) = @_;
    my $out = `curl -s -k -i -w '\\n%{local_port}' $args 2>/dev/null`;
    my $rc = $? >> 8;
    my ($xc) = $out =~ /^x-client: ([^\r\n]*)/mi;
    my ($lp) = $out =~ /\n(\d+)$/;
    my ($body) = $out =~ /\r\n\r\n(.*)\n\d*$/s;
    return ($xc // '', $lp // 0, $body // '', $rc);
}

# a raw connection to <p> sending <bytes>: what came back and how it ended
sub raw {
    my ($p, $bytes, $timeout) = @_;
    my $c = IO::Socket::INET->new("127.0.0.1:$p") or die;
    binmode $c;
    print $c $bytes;
    my ($buf, $end) = read_all($c, $timeout // 3);
    return ($buf, $end);
}

sub v2_header {
    my ($src, $sport, $dst, $dport, $tlv) = @_;
    my $addr = pack('a4a4nn', (map { pack 'C4', split /\./ } $src, $dst), $sport, $dport);
    my $body = $addr . ($tlv // '');
    return "\r\n\r\n\0\r\nQUIT\n" . pack('CCn', 0x21, 0x11, length $body) . $body;
}

my $s0 = stats();

# ---------- PROXY protocol ----------
{
    my ($xc, $lp, $body, $rc) = curl("--haproxy-protocol 'http://127.0.0.1:$pp/?s=10'");
    is($rc, 0, 'curl --haproxy-protocol (v1) to a proxy listener: answered');
    like($xc, qr/^addr=127\.0\.0\.1:$lp, proxy=v1, via=127\.0\.0\.1:$lp$/, "X-Client names curl and v1: $xc");
    ($xc, $lp, $body, $rc) = curl("--haproxy-protocol --http2 'https://127.0.0.1:$ppt/?s=10'");
    is($rc, 0, 'curl --haproxy-protocol over TLS (h2): the header is read before the ClientHello');
    like($xc, qr/^addr=127\.0\.0\.1:$lp, proxy=v1/, "X-Client on h2 over TLS: $xc");
    ($xc, $lp, $body, $rc) = curl("'http://127.0.0.1:$port/?s=10'");
    is($xc, '', 'a listener without ,proxy sends no X-Client');

    my $tlv = "\x01\x00\x02h2" . "\x02\x00\x0bexample.org";
    my ($buf, $end) = raw($pp, v2_header('192.0.2.7', 40001, '198.51.100.1', 80, $tlv)
                            . "GET /?s=5&E=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    my ($r) = parse_responses($buf);
    is($r && $r->{status}, 200, 'a raw v2 header with TLVs, then a request: 200');
    like(get_hdr($r, 'x-client') // '', qr/^addr=192\.0\.2\.7:40001, proxy=v2, via=127\.0\.0\.1:\d+, alpn=h2, authority=example\.org$/,
         'X-Client: the v2 source, the proxy it came through, ALPN and authority TLVs');
    ($buf) = raw($pp, "PROXY TCP6 2001:db8::9 2001:db8::1 5555 80\r\nGET /?s=1 HTTP/1.0\r\n\r\n");
    ($r) = parse_responses($buf);
    like(get_hdr($r, 'x-client') // '', qr/^addr=\[2001:db8::9\]:5555, proxy=v1/, 'a v1 TCP6 source');
    ($buf) = raw($pp, "\r\n\r\n\0\r\nQUIT\n" . pack('CCn', 0x20, 0x00, 0) . "GET /?s=1 HTTP/1.0\r\n\r\n");
    ($r) = parse_responses($buf);
    like(get_hdr($r, 'x-client') // '', qr/^addr=127\.0\.0\.1:\d+, proxy=v2-local/, 'v2 LOCAL (a health check): the socket\'s address');
    # the header in pieces: read once whole
    {
        my $c = IO::Socket::INET->new("127.0.0.1:$pp") or die;
        my $h = "PROXY TCP4 203.0.113.5 127.0.0.1 6000 80\r\n";
        for my $piece (substr($h, 0, 3), substr($h, 3, 20), substr($h, 23)) {
            print $c $piece;
            $c->flush;
            sleep 0.05;
        }
        print $c "GET /?s=2 HTTP/1.0\r\n\r\n";
        ($buf) = read_all($c, 3);
        ($r) = parse_responses($buf);
        like(get_hdr($r, 'x-client') // '', qr/^addr=203\.0\.113\.5:6000/, 'a v1 header sent in three pieces is read whole');
    }

    # bad and missing headers: closed without an answer, counted
    for my $case ([ "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 'a request without a PROXY header' ],
                  [ "PROXY TCP4 1.2.3 1.2.3.4 1 2\r\nGET / HTTP/1.0\r\n\r\n", 'a v1 header with a bad address' ],
                  [ "PROXY TCP4 1.2.3.4 1.2.3.5 1 2 \r\nGET / HTTP/1.0\r\n\r\n", 'a v1 header with a trailing space' ],
                  [ "PROXY TCP4 192.0.2.7\0garbage 192.0.2.1 40001 443\r\nGET / HTTP/1.0\r\n\r\n", 'a NUL inside a v1 IPv4 address' ],
                  [ "PROXY TCP6 ::1\0zzzz ::1 40001 443\r\nGET / HTTP/1.0\r\n\r\n", 'a NUL inside a v1 IPv6 address' ],
                  [ v2_header('1.2.3.4', 1, '1.2.3.5', 2, "\x01\x00\x09h2") . "GET / HTTP/1.0\r\n\r\n", 'a v2 TLV past the header' ]) {
        my ($b, $e) = raw($pp, $case->[0]);
        is($b, '', "$case->[1]: no answer");
        # WHY either: the header's bytes are left unread, so the close may be a RST
        like($e, qr/^(eof|error:Connection reset)/, "$case->[1]: closed ($e)");
    }
    my $t0 = time;
    my ($b, $e) = raw($pp, "PROXY TCP4 ", 4);
    my $took = time - $t0;
    ok($b eq '' && $e =~ /^(eof|error:Connection reset)/ && $took > 0.8 && $took < 2.5, sprintf('half a header: closed after --head-timeout 1000 (%.2f s)', $took));
    ($xc) = curl("'http://127.0.0.1:$port/?s=1'");
    ($b) = raw($port, "GET /?s=3 HTTP/1.0\r\n\r\n");
    like($b, qr/^HTTP\/1\.0 200/, 'the other listener is unaffected');

    my $s1 = stats();
    is($s1->{early_closes}{proxy_bad} - $s0->{early_closes}{proxy_bad}, 6, '/stats.json: 6 bad PROXY headers counted');
    is($s1->{early_closes}{proxy_timeout} - $s0->{early_closes}{proxy_timeout}, 1, '/stats.json: 1 PROXY header timed out');
    is($s1->{proxy_headers}{v2} - $s0->{proxy_headers}{v2}, 2, '/stats.json: 2 v2 headers taken');
    is($s1->{proxy_headers}{v1} - $s0->{proxy_headers}{v1}, 4, '/stats.json: 4 v1 headers taken');

    # hxload as the proxy
    for my $v ('v1', 'v2') {
        my $out = `timeout 30 $hxload -q --json -c 3 -n 300 --verify --proxy-protocol $v 'http://127.0.0.1:$pp/?s=1k' 2>&1`;
        my ($j) = map { decode_json($_) } grep { /^\{"hxload"/ } split /\n/, $out;
        is($j && $j->{status}{200}, 300, "hxload --proxy-protocol $v: 300 answered and verified");
    }
    my $out = `timeout 30 $hxload -q --json -c 2 -n 100 --proxy-protocol v2 'https://127.0.0.1:$ppt/?s=1k' 2>&1`;
    my ($j) = map { decode_json($_) } grep { /^\{"hxload"/ } split /\n/, $out;
    is($j && $j->{status}{200}, 100, 'hxload --proxy-protocol v2 over TLS: 100 answered');
    my $s2 = stats();
    is($s2->{proxy_headers}{v1} - $s1->{proxy_headers}{v1}, 3, 'hxload sent one v1 header per connection');
    is($s2->{proxy_headers}{v2} - $s1->{proxy_headers}{v2}, 5, '... and one v2 per connection (3 clear, 2 TLS)');
    $out = `timeout 30 $hxload -q -c 1 -n 5 'http://127.0.0.1:$pp/' 2>&1`;
    like($out, qr/--proxy-protocol/, 'hxload without the header against a proxy listener: a hint names --proxy-protocol');
}

# ---------- access log: the PROXY source ----------
{
    sleep 1.3; # WHY: the log is flushed once a second
    open my $fh, '<', "$dir/access.log" or die;
    my @l = map { decode_json($_) } <$fh>;
    my ($e) = grep { $_->{client} eq '192.0.2.7:40001' } @l;
    ok($e, 'the access log names the PROXY source as the client');
    like($e->{x_client} // '', qr/authority=example\.org/, '... and carries X-Client');
}

# ---------- Unix socket ----------
{
    my @s = stat $sock;
    ok(-S $sock, "-L unix:$sock made a socket");
    is($s[2] & 0777, 0640, 'with mode=0640');
    my ($xc, $lp, $body, $rc) = curl("--unix-socket $sock 'http://x/?s=100'");
    is($rc, 0, 'curl --unix-socket: answered');
    is($body, pattern(100), '... the 100-byte pattern');
    ($xc, $lp, $body, $rc) = curl("--unix-socket $sock 'http://x/?s=10&E=1'");
    like($xc, qr/^addr=unix$/, 'E=1 over a Unix socket: X-Client addr=unix');
    ($xc, $lp, $body, $rc) = curl("--unix-socket $sock --http2-prior-knowledge 'http://x/?s=100'");
    is($body, pattern(100), 'h2c by prior knowledge over the Unix socket');
    my $out = `timeout 30 $hxload -q --json -c 4 -n 400 --verify --unix-socket $sock 'h2c://x/?s=4k' 2>&1`;
    my ($j) = map { decode_json($_) } grep { /^\{"hxload"/ } split /\n/, $out;
    is($j && $j->{status}{200}, 400, 'hxload --unix-socket h2c://: 400 verified');

    my $err = `$hxterm -q -L unix:$sock 2>&1`;
    is($? >> 8, 2, 'a second hxterm on the same socket: exit 2');
    like($err, qr/another process answers on it/, "... saying why: " . trim($err));
    open my $f, '>', "$dir/plain" or die;
    close $f;
    $err = `$hxterm -q -L unix:$dir/plain 2>&1`;
    like($err, qr/no socket/, "a path that is a plain file is refused: " . trim($err));
    $err = `$hxterm -q -L 'unix:$sock,mode=999' 2>&1`;
    like($err, qr/octal/, "mode=999 refused: " . trim($err));
    $err = `$hxterm -q -L '127.0.0.1:1,mode=0600' 2>&1`;
    like($err, qr/mode= is for unix/, "mode= on a TCP address refused: " . trim($err));
    $err = `$hxterm -q -L '127.0.0.1:1,bogus' 2>&1`;
    like($err, qr/unknown listener option/, "an unknown option refused: " . trim($err));
    # a stale socket file (no process) is replaced
    my $stale = "$dir/stale.sock";
    { my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => $stale, Listen => 1) or die; close $l }
    ok(-S $stale, 'a stale socket file is left');
    my $pid = spawn($hxterm, '-q', '-t', '1', '-L', "unix:$stale", '--no-h3');
    my $up = 0;
    for (1 .. 100) { last if ($up = IO::Socket::UNIX->new(Peer => $stale)); sleep 0.05 }
    ok($up, 'hxterm replaced the stale socket and answers on it');
    kill 'TERM', $pid;
    waitpid($pid, 0);
    @kids = grep { $_ != $pid } @kids;
    ok(!-e $stale, 'the socket file is removed at exit');
}

# ---------- HAProxy: send-proxy-v2, a Unix-socket server ----------
SKIP: {
    my $haproxy = -x '/usr/sbin/haproxy' ? '/usr/sbin/haproxy' : '';
    skip 'no haproxy', 4 unless $haproxy;
    my ($h1, $h2) = (free_port(), free_port());
    open my $cfg, '>', "$dir/h.cfg" or die;
    print $cfg <<"EOF";
global
    maxconn 200
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend pp
    bind 127.0.0.1:$h1
    default_backend pp
backend pp
    server s1 127.0.0.1:$pp send-proxy-v2
frontend ux
    bind 127.0.0.1:$h2
    default_backend ux
backend ux
    server s2 $sock
EOF
    close $cfg;
    spawn($haproxy, '-db', '-f', "$dir/h.cfg");
    ok(wait_port($h1) && wait_port($h2), 'haproxy is up');
    my ($xc, $lp, $body, $rc) = curl("'http://127.0.0.1:$h1/?s=2k'");
    like($xc, qr/^addr=127\.0\.0\.1:$lp, proxy=v2, via=127\.0\.0\.1:(\d+)/, "through HAProxy send-proxy-v2, X-Client names curl's own port $lp: $xc");
    is($body, pattern(2048), '... and the body is whole');
    ($xc, $lp, $body, $rc) = curl("'http://127.0.0.1:$h2/?s=3k'");
    is($body, pattern(3072), 'HAProxy server on the Unix socket: the body is whole');
}

# ---------- nginx stream proxy_protocol on ----------
SKIP: {
    my $mod = '/usr/lib/nginx/modules/ngx_stream_module.so';
    my $np = free_port();
    my $ng = nginx_run($dir, $np, <<"EOF", $mod);
stream {
    server {
        listen 127.0.0.1:$np;
        proxy_pass 127.0.0.1:$pp;
        proxy_protocol on;
    }
}
EOF
    skip 'no nginx with the stream module (libnginx-mod-stream)', 2 unless $ng;
    ok($ng, 'nginx (stream, proxy_protocol on) is up');
    my ($xc, $lp, $body, $rc) = curl("'http://127.0.0.1:$np/?s=1k'");
    like($xc, qr/^addr=127\.0\.0\.1:$lp, proxy=v1, via=127\.0\.0\.1:\d+$/, "through nginx, X-Client names curl's port $lp: $xc");
}

is(stop_hx(), 0, 'hxterm stops cleanly');
ok(!-e $sock, 'its Unix socket is removed');

# ---------- client certificates ----------
sub mk {
    my ($cmd) = @_;
    system("$cmd >/dev/null 2>&1") == 0 or die "failed: $cmd";
}
mk("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $dir/ca.key -out $dir/ca.pem -days 2 -subj /CN=hxtest-ca");
mk("openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $dir/cl.key -out $dir/cl.csr -subj '/O=hxtest/CN=client.test'");
mk("openssl x509 -req -in $dir/cl.csr -CA $dir/ca.pem -CAkey $dir/ca.key -CAcreateserial -out $dir/cl.pem -days 2");
mk("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $dir/o.key -out $dir/o.pem -days 2 -subj /CN=other");

{
    my $err = `$hxterm -q --client-cert require 2>&1`;
    like($err, qr/needs --client-ca/, "--client-cert without --client-ca refused: " . trim($err));
    $err = `$hxterm -q --client-ca $dir/ca.pem --client-cert maybe 2>&1`;
    like($err, qr/request or require/, "--client-cert maybe refused: " . trim($err));
    $err = `$hxterm -q --client-ca $dir/nothing.pem 2>&1`;
    like($err, qr/--client-ca .*no PEM certificate/, "a missing --client-ca file refused: " . trim($err));
}

$port = start_hx('-tls', '-t', '1', '--client-ca', "$dir/ca.pem", '--client-cert', 'require',
                 '--access-log', "$dir/mtls.log");
my $tls = hx_tls_port();
{
    my ($xc, $lp, $body, $rc) = curl("--cert $dir/cl.pem --key $dir/cl.key 'https://127.0.0.1:$tls/?s=10'");
    is($rc, 0, 'require: curl with a certificate of the CA is answered');
    like($xc, qr/^addr=127\.0\.0\.1:$lp, cert="CN=client\.test,O=hxtest"$/, "X-Client names the subject: $xc");
    ($xc, $lp, $body, $rc) = curl("--http1.1 --cert $dir/cl.pem --key $dir/cl.key 'https://127.0.0.1:$tls/?s=10'");
    like($xc, qr/cert="CN=client\.test,O=hxtest"/, 'the same on HTTP/1.1');
    my $e = `curl -sS -k 'https://127.0.0.1:$tls/?s=10' 2>&1`;
    like($e, qr/alert certificate required/, "require, no certificate: the handshake fails with the alert: " . trim($e));
    $e = `curl -sS -k --tlsv1.2 --tls-max 1.2 'https://127.0.0.1:$tls/?s=10' 2>&1`;
    like($e, qr/alert handshake failure/, "... on TLS 1.2 too (handshake failure): " . trim($e));
    $e = `curl -sS -k --cert $dir/o.pem --key $dir/o.key 'https://127.0.0.1:$tls/?s=10' 2>&1`;
    like($e, qr/alert unknown ca/, "a certificate of another CA: unknown ca: " . trim($e));
    my $out = `timeout 30 $hxload -q -c 1 -n 5 'https://127.0.0.1:$tls/' 2>&1`;
    like($out, qr/alert certificate required/, "hxload without --cert names the alert: " . trim($out));
    $out = `timeout 30 $hxload -q --json -c 2 -n 50 --cert $dir/cl.pem --key $dir/cl.key 'https://127.0.0.1:$tls/?s=1k' 2>&1`;
    my ($j) = map { decode_json($_) } grep { /^\{"hxload"/ } split /\n/, $out;
    is($j && $j->{status}{200}, 50, 'hxload --cert: 50 answered over TLS');
    $out = `timeout 30 $hxload -q --json -c 1 -n 20 --h3 --cert $dir/cl.pem --key $dir/cl.key 'https://127.0.0.1:$tls/?s=1k' 2>&1`;
    ($j) = map { decode_json($_) } grep { /^\{"hxload"/ } split /\n/, $out;
    is($j && $j->{status}{200}, 20, 'hxload --h3 --cert: 20 answered over QUIC (GnuTLS verified it)');
    $out = `timeout 30 $hxload -q -c 1 -n 5 --h3 'https://127.0.0.1:$tls/' 2>&1`;
    like($out, qr/refused the QUIC handshake: alert certificate required/, "QUIC without a certificate: refused, named: " . trim($out));
    sleep 1.3;
    open my $fh, '<', "$dir/mtls.log" or die;
    my @h3 = grep { $_->{proto} eq 'h3' } map { decode_json($_) } <$fh>;
    is(scalar @h3, 20, 'the access log has the 20 h3 requests');
    ok(!grep({ ($_->{x_client} // '') !~ /cert="CN=client\.test,O=hxtest"/ } @h3), '... each naming the QUIC client certificate');
}
stop_hx();

$port = start_hx('-tls', '-t', '1', '--client-ca', "$dir/ca.pem", '--no-h3');
$tls = hx_tls_port();
{
    my ($xc, $lp, $body, $rc) = curl("'https://127.0.0.1:$tls/?s=10'");
    is($rc, 0, '--client-ca alone (request): a client without a certificate is answered');
    like($xc, qr/^addr=127\.0\.0\.1:$lp, cert=none$/, "X-Client says cert=none: $xc");
    ($xc) = curl("--cert $dir/cl.pem --key $dir/cl.key 'https://127.0.0.1:$tls/?s=10'");
    like($xc, qr/cert="CN=client\.test,O=hxtest"/, 'request, with a certificate: its subject');
    my $e = `curl -sS -k --cert $dir/o.pem --key $dir/o.key 'https://127.0.0.1:$tls/?s=10' 2>&1`;
    like($e, qr/alert unknown ca/, 'request, a certificate that does not verify: refused all the same');
    ($xc) = curl("'http://127.0.0.1:$port/?s=10'");
    is($xc, '', 'the clear port sends no X-Client');
}
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
