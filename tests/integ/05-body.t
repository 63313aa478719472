#!/usr/bin/perl
# Request bodies: Content-Length and chunked drained, 100-continue, A=1, B=.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(time);
use HxTest;

my $port = start_hx('-t', '1');
my $h = "Host: x\r\n";

my ($buf) = raw_exchange("POST /?s=4 HTTP/1.1\r\n${h}Content-Length: 10\r\n\r\n0123456789"
                       . "GET /?s=2 HTTP/1.1\r\n${h}Connection: close\r\n\r\n");
my @r = parse_responses($buf);
ok(@r == 2 && length $r[0]{body} == 4 && length $r[1]{body} == 2, 'Content-Length body drained, next request served');

($buf) = raw_exchange("POST /?s=4 HTTP/1.1\r\n${h}Transfer-Encoding: chunked\r\n\r\n"
                    . "3\r\nabc\r\n10;x=y\r\n0123456789abcdef\r\n0\r\nT: 1\r\n\r\n"
                    . "GET /?s=2 HTTP/1.1\r\n${h}Connection: close\r\n\r\n");
@r = parse_responses($buf);
ok(@r == 2 && length $r[0]{body} == 4 && length $r[1]{body} == 2, 'chunked body with trailers drained');

# a large upload through curl
my $big = 'u' x (3 * 1024 * 1024);
open my $fh, '>', "/tmp/hx-upload-$$" or die;
print $fh $big;
close $fh;
my ($out, $rc) = curl_hx('-i', '--data-binary', "\@/tmp/hx-upload-$$", "http://127.0.0.1:$port/?s=11");
like($out, qr/\AHTTP\/1.1 100 Continue\r\n\r\nHTTP\/1.1 200 /, '3 MiB upload with curl: 100 Continue, then 200');
($out) = curl_hx('-i', '-H', 'Transfer-Encoding: chunked', '--data-binary', "\@/tmp/hx-upload-$$",
                 "http://127.0.0.1:$port/?s=11");
like($out, qr/^HTTP\/1.1 200 /m, '3 MiB chunked upload answered 200');
unlink "/tmp/hx-upload-$$";

# 100-continue by hand: the server asks for the body, then answers
my $c = connect_hx();
print $c "POST /?s=3 HTTP/1.1\r\n${h}Content-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n";
($buf) = read_all($c, 0.5);
is($buf, "HTTP/1.1 100 Continue\r\n\r\n", '100 Continue before the body');
print $c "hello";
($buf) = read_all($c, 3);
@r = parse_responses($buf);
ok(@r == 1 && $r[0]{status} == 200 && length $r[0]{body} == 3, 'then the response');

# A=1: the response comes before the body is sent
$c = connect_hx();
print $c "POST /?s=3&A=1 HTTP/1.1\r\n${h}Content-Length: 5\r\n\r\n";
($buf) = read_all($c, 0.5);
@r = parse_responses($buf);
ok(@r == 1 && $r[0]{status} == 200, 'A=1: answered before the body');
print $c "helloGET /?s=1 HTTP/1.1\r\n${h}Connection: close\r\n\r\n";
($buf) = read_all($c, 3);
@r = parse_responses($buf);
ok(@r == 1 && length $r[0]{body} == 1, 'A=1: the body is drained after, the connection goes on');

# without A=1, no answer until the whole body is in
$c = connect_hx();
print $c "POST /?s=3 HTTP/1.1\r\n${h}Content-Length: 5\r\n\r\nhel";
($buf) = read_all($c, 0.4);
is($buf, '', 'no answer while the body is incomplete');
print $c "lo";
($buf) = read_all($c, 0.5);
ok(scalar(parse_responses($buf)) == 1, 'answered once it is complete');

# B=4: answered after 4 body bytes, the rest drained after
$c = connect_hx();
print $c "POST /?s=3&B=4 HTTP/1.1\r\n${h}Content-Length: 10\r\n\r\n0123";
($buf) = read_all($c, 0.5);
ok(scalar(parse_responses($buf)) == 1, 'B=4: answered after 4 bytes');
print $c "456789GET /?s=2 HTTP/1.1\r\n${h}Connection: close\r\n\r\n";
($buf) = read_all($c, 3);
@r = parse_responses($buf);
ok(@r == 1 && length $r[0]{body} == 2, 'B=4: the rest drained, the next request served');

# B=0 with chunked
$c = connect_hx();
print $c "POST /?s=3&B=0 HTTP/1.1\r\n${h}Transfer-Encoding: chunked\r\n\r\n";
($buf) = read_all($c, 0.5);
ok(scalar(parse_responses($buf)) == 1, 'B=0: answered before any chunk');
print $c "2\r\nab\r\n0\r\n\r\nGET /?s=2 HTTP/1.1\r\n${h}Connection: close\r\n\r\n";
($buf) = read_all($c, 3);
@r = parse_responses($buf);
ok(@r == 1 && length $r[0]{body} == 2, 'B=0: chunks drained after, next request served');

is(stop_hx(), 0, 'clean stop');
done_testing();
