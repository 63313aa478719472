#!/usr/bin/perl
# Pipelining: 100 requests in one write answered in order, bodies verified; keep-alive reuse.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use HxTest;

start_hx('-t', '1');

my $req = '';
my @sizes = map { ($_ * 977) % 70000 } 0 .. 99;
for my $i (0 .. 99) {
    my $extra = $i % 10 == 3 ? '&k=1000' : '';
    $req .= "GET /?s=$sizes[$i]&H=X-Seq:$i$extra HTTP/1.1\r\nHost: x\r\n\r\n";
}
$req .= "GET /?s=1&C=1 HTTP/1.1\r\nHost: x\r\n\r\n";
my ($buf, $end) = raw_exchange($req, 5);
is($end, 'eof', 'the server closes after C=1');
my @r = parse_responses($buf);
is(scalar @r, 101, '101 responses to 101 pipelined requests');
my ($order, $bodies) = (1, 1);
for my $i (0 .. 99) {
    $order &&= ($r[$i]{headers} && HxTest::get_hdr($r[$i], 'X-Seq') // -1) == $i;
    $bodies &&= pattern_ok($r[$i]{body}, $sizes[$i]);
}
ok($order, 'responses come in request order');
ok($bodies, 'every body has its size and the pattern');

# a request split across many writes, then pipelined behind a body
my $c = connect_hx();
for my $piece ("GE", "T /?s=5 HT", "TP/1.1\r", "\nHost: x\r\n", "\r", "\n") {
    print $c $piece;
    select undef, undef, undef, 0.02;
}
print $c "POST /?s=2 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /?s=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
($buf) = read_all($c, 3);
@r = parse_responses($buf);
is(scalar @r, 3, 'a head split in six writes, then a POST with a body and a GET behind it');
is_deeply([ map { length $_->{body} } @r ], [ 5, 2, 3 ], 'each answered with its own size');

# keep-alive: many requests on one connection, one at a time
$c = connect_hx();
my $ok = 1;
for my $i (1 .. 50) {
    print $c "GET /?s=$i HTTP/1.1\r\nHost: x\r\n\r\n";
    my $got = '';
    while ($got !~ /\r\n\r\n/ || length($got) < index($got, "\r\n\r\n") + 4 + $i) {
        my $n = sysread($c, $got, 65536, length $got) or last;
    }
    my @x = parse_responses($got);
    $ok &&= @x == 1 && length $x[0]{body} == $i;
}
ok($ok, '50 sequential requests on one kept-alive connection');
close $c;

# HTTP/1.0: closes by default, keeps alive when asked
($buf, $end) = raw_exchange("GET /?s=4 HTTP/1.0\r\n\r\n");
ok($buf =~ /^HTTP\/1\.0 200/ && $buf =~ /Connection: close/ && $end eq 'eof', 'HTTP/1.0: answered 1.0, closed');
$c = connect_hx();
print $c "GET /?s=4 HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /?s=6 HTTP/1.0\r\n\r\n";
($buf, $end) = read_all($c, 3);
@r = parse_responses($buf);
ok(@r == 2 && HxTest::get_hdr($r[0], 'Connection') eq 'keep-alive' && $end eq 'eof',
   'HTTP/1.0 keep-alive honoured, then closed');
$c = connect_hx();
print $c "GET /?s=4&K=1 HTTP/1.0\r\n\r\nGET /?s=6&K=1 HTTP/1.0\r\n\r\n";
($buf, $end) = read_all($c, 1);
@r = parse_responses($buf);
ok(@r == 2 && $end eq 'timeout', 'K=1 keeps an HTTP/1.0 connection open');
$c = connect_hx();
print $c "GET /?s=4&C=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /?s=6 HTTP/1.1\r\nHost: x\r\n\r\n";
($buf, $end) = read_all($c, 3);
@r = parse_responses($buf);
ok(@r == 1 && HxTest::get_hdr($r[0], 'Connection') eq 'close' && $end eq 'eof', 'C=1 closes after the response');
$c = connect_hx();
print $c "GET /?s=1000000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
shutdown($c, 1);
($buf, $end) = read_all($c, 3);
@r = parse_responses($buf);
ok(@r == 1 && length $r[0]{body} == 1000000 && $end eq 'eof', 'a client that half-closes still gets it all');

# X-Client goes to the E=1 request alone, not to the connection's later ones
# (it once stuck to every answer after an E=1 had passed)
$buf = raw_exchange("GET /?s=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /?E=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                    . "GET /?s=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
@r = parse_responses($buf);
is(join(' ', map { scalar grep { lc $_->[0] eq 'x-client' } @{ $_->{headers} } } @r), '0 1 0',
   'X-Client on the E=1 answer only, not before or after it on the same connection');

is(stop_hx(), 0, 'clean stop');

# the same head again is taken from the thread's memo, not parsed again
# (hxterm_h1_memo_requests_total); another head in between is parsed, and
# each answer is the one its own head asked for
{
    my $sp = HxTest::free_port();
    start_hx('-t', '1', '--stats', "127.0.0.1:$sp");
    my $memo = sub { my ($n) = `curl -s http://127.0.0.1:$sp/metrics` =~ /^hxterm_h1_memo_requests_total (\d+)$/m; $n };
    my $m0 = $memo->();
    my $a = "GET /?s=7&H=X-Which:a HTTP/1.1\r\nHost: m\r\n\r\n";
    my $b = "GET /?H=X-Which:b HTTP/1.1\r\nHost: m\r\nX-Hxterm: s=11\r\n\r\n";
    my ($buf) = raw_exchange(($a x 20) . "GET /?s=1&C=1 HTTP/1.1\r\nHost: m\r\n\r\n", 5);
    my @r = parse_responses($buf);
    my $m1 = $memo->();
    ok(@r == 21 && !grep({ length $_->{body} != 7 || HxTest::get_hdr($_, 'X-Which') ne 'a' } @r[0 .. 19]),
       'twenty alike heads pipelined: twenty answers of 7 bytes');
    is(($m1 // 0) - ($m0 // 0), 19, 'nineteen of them from the memo (hxterm_h1_memo_requests_total)');
    ($buf) = raw_exchange(($a . $b . $b) x 3 . "GET /?s=1&C=1 HTTP/1.1\r\nHost: m\r\n\r\n", 5);
    @r = parse_responses($buf);
    is(join(',', map { length($_->{body}) . HxTest::get_hdr($_, 'X-Which') } @r[0 .. 8]), join(',', ('7a', '11b', '11b') x 3),
       'a, b, b three times: each its own answer (X-Hxterm read from the memo too)');
    is(($memo->() // 0) - ($m1 // 0), 3, '... the second b of each three from the memo, which keeps the last head alone');
    is(stop_hx(), 0, 'clean stop');
}
done_testing();
