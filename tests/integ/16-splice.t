#!/usr/bin/perl
# --splice: clear-text bodies tee'd from a pipe and spliced to the socket arrive byte-exact,
# pipelined with others, cut by faults, and every pipe goes back (no fd leak).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IO::Socket::INET;
use HxTest;

my $port = start_hx('-t', '1', '--splice', '--rspbuf', '256k');
my $h = "Host: x\r\n";
sub nfds { my @f = glob('/proc/' . hx_pid() . '/fd/*'); return scalar @f }

# the worker's pipes exist from the start; count the fds once warm
my ($buf) = raw_exchange("GET /?s=70000 HTTP/1.1\r\n${h}Connection: close\r\n\r\n");
my @r = parse_responses($buf);
ok(@r == 1 && pattern_ok($r[0]{body}, 70000), '70000 bytes spliced, pattern intact');
my $fds = nfds();

for my $s (65536, 65537, 262144, 262143, 1048576 + 7, 3 * 1048576) {
    ($buf) = raw_exchange("GET /?s=$s HTTP/1.1\r\n${h}Connection: close\r\n\r\n", 5);
    @r = parse_responses($buf);
    ok(@r == 1 && $r[0]{status} == 200 && pattern_ok($r[0]{body}, $s),
       "s=$s spliced byte-exact");
}

# the same bytes with S=0 (writev) and with R=1 (random source pipe)
my ($a) = raw_exchange("GET /?s=500000 HTTP/1.1\r\n${h}Connection: close\r\n\r\n", 5);
my ($b) = raw_exchange("GET /?s=500000&S=0 HTTP/1.1\r\n${h}Connection: close\r\n\r\n", 5);
my @ra = parse_responses($a);
my @rb = parse_responses($b);
ok(@ra == 1 && @rb == 1 && $ra[0]{body} eq $rb[0]{body}, 'spliced body equals the S=0 (writev) body');
($buf) = raw_exchange("GET /?s=300000&R=1 HTTP/1.1\r\n${h}Connection: close\r\n\r\n", 5);
@r = parse_responses($buf);
ok(@r == 1 && random_ok($r[0]{body}, 300000), 'R=1: 300000 random bytes spliced');

# pipelined: small, spliced, small, spliced with keep-alive in between
($buf) = raw_exchange("GET /?s=10 HTTP/1.1\r\n$h\r\nGET /?s=200000 HTTP/1.1\r\n$h\r\n"
                    . "GET /?s=20 HTTP/1.1\r\n$h\r\nGET /?s=100000 HTTP/1.1\r\n${h}Connection: close\r\n\r\n", 5);
@r = parse_responses($buf);
ok(@r == 4 && (join ',', map { length $_->{body} } @r) eq '10,200000,20,100000'
   && !grep({ !pattern_ok($_->{body}, length $_->{body}) } @r), 'four pipelined responses, two spliced, in order');

# HEAD: no body at all
($buf) = raw_exchange("HEAD /?s=300000 HTTP/1.1\r\n${h}Connection: close\r\n\r\n");
like($buf, qr/\AHTTP\/1.1 200 [^\r]*\r\n(?:[^\r\n]+\r\n)*Content-Length: 300000\r\n(?:[^\r\n]+\r\n)*\r\n\z/,
     'HEAD of a spliced size: the head only');

# X=: the body is cut where asked and the connection closes
my $end;
($buf, $end) = raw_exchange("GET /?s=400000&X=150000 HTTP/1.1\r\n$h\r\n", 5);
my ($body) = $buf =~ /\r\n\r\n(.*)\z/s;
ok(pattern_ok($body, 150000) && $end eq 'eof',
   'X=150000: 150000 spliced bytes, then close');

# a client that reads part of a large body and leaves: its pipe is closed, not leaked
for (1 .. 5) {
    my $c = connect_hx();
    print $c "GET /?s=50m HTTP/1.1\r\n$h\r\n";
    my $got = '';
    sysread($c, $got, 65536) for 1 .. 3;
    close $c;
}
# a client that reads it all keeps the connection
my $c = connect_hx();
for (1 .. 3) {
    print $c "GET /?s=1m HTTP/1.1\r\n$h\r\n";
}
print $c "GET /?s=5 HTTP/1.1\r\n${h}Connection: close\r\n\r\n";
($buf) = read_all($c, 5);
@r = parse_responses($buf);
ok(@r == 4 && length $r[2]{body} == 1048576 && $r[3]{body} eq '.1234', 'three spliced 1m bodies on one connection, then a small one');
close $c;
select undef, undef, undef, 0.5;
is(nfds(), $fds, "no descriptor leaked: $fds before and after (pipes reused or closed)");

# --splice with TLS: the TLS port never splices, bodies still exact
stop_hx();
$port = start_hx('-tls', '-t', '1', '--splice', '--no-h3');
my $tp = hx_tls_port();
my ($out) = curl_hx('-sk', "https://127.0.0.1:$tp/?s=300000");
ok(pattern_ok($out, 300000), 'TLS with --splice: 300000 bytes by SSL_write');
($out) = curl_hx('-s', "http://127.0.0.1:$port/?s=300000");
ok(pattern_ok($out, 300000), 'clear port of the same server: spliced');
is(stop_hx(), 0, 'clean stop');

done_testing();
