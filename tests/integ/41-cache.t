#!/usr/bin/perl
# A cache in front: Cache-Control by key (m=, M=, c=0, cc=), Age, X-Hxterm-Made, Last-Modified (L=1) with If-Modified-Since, the preconditions by method and field in RFC 9110's order (three date forms, lists over lines), a Range (206 at the right offset, 416, If-Range; several: multipart/byteranges) on h1, h2 and h3; then nginx's proxy_cache: a miss, a hit, a revalidation by If-Modified-Since, a range from the cache, private and no-store never kept.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Time::HiRes qw(sleep);
use HxTest;

my $port = start_hx('-tls', '-t', '1');
my $tport = hx_tls_port();
my $url = "http://127.0.0.1:$port";

# curl -i: (status, headers {lc name => value}, body)
sub get {
    my (@args) = @_;
    my ($out) = curl_hx('-i', @args);
    my ($head, $body) = split /\r\n\r\n/, $out, 2;
    my ($st) = $head =~ /^HTTP\/\S+ (\d+)/;
    my %h = map { /^([^:]+):\s*(.*)$/ ? (lc $1 => $2) : () } split /\r\n/, $head;
    return ($st // 0, \%h, $body // '');
}

# ---------- Cache-Control and Last-Modified ----------
my ($st, $h, $b) = get("$url/?s=100&m=60&M=600");
is($h->{'cache-control'}, 'max-age=60, s-maxage=600', 'm=60&M=600: Cache-Control max-age and s-maxage');
(undef, $h) = get("$url/?s=1&m=0&c=0");
is($h->{'cache-control'}, 'no-cache, max-age=0', 'c=0&m=0: both said');
(undef, $h) = get("$url/?s=1&cc=private+no-store&m=5&age=7");
ok($h->{'cache-control'} eq 'private, no-store, max-age=5' && $h->{age} eq '7',
   "cc=private+no-store&m=5&age=7: Cache-Control '$h->{'cache-control'}', Age: $h->{age}");
my (undef, $ha) = get("$url/?s=1&m=5");
is($ha->{'cache-control'}, 'max-age=5', '... and the next request without cc= has none of its directives (one worker)');
my (undef, $hb) = get("$url/?s=1&m=5");
ok($ha->{'x-hxterm-made'} && $hb->{'x-hxterm-made'} > $ha->{'x-hxterm-made'},
   'X-Hxterm-Made: each fresh answer its own making time (epoch us)');
my ($cst, undef, $cb) = get("$url/?cc=public+bogus");
ok($cst == 400 && $cb =~ /expected cc=public, private/, 'cc=bogus: 400, names the directives');
(undef, $h) = get("$url/?s=1");
ok(!exists $h->{'cache-control'} && !exists $h->{'last-modified'} && !exists $h->{'accept-ranges'},
   'no key: no Cache-Control, Last-Modified or Accept-Ranges');
(undef, $h) = get("$url/?s=1&L=1");
is($h->{'accept-ranges'}, 'bytes', 'L=1 (a cache test): Accept-Ranges: bytes');
(undef, $h) = get("$url/?s=10&L=1");
my $lm = $h->{'last-modified'} // '';
like($lm, qr/^\w{3}, \d\d \w{3} 2025 \d\d:\d\d:\d\d GMT$/, "L=1: Last-Modified, an IMF-fixdate before 2026 ($lm)");
(undef, $h) = get("$url/?s=10&L=1");
is($h->{'last-modified'}, $lm, '... the same for the same target');
(undef, $h) = get("$url/?s=11&L=1");
isnt($h->{'last-modified'}, $lm, '... another for another target');
($st, $h, $b) = get('-H', "If-Modified-Since: $lm", "$url/?s=10&L=1");
ok($st == 304 && $b eq '', 'If-Modified-Since: its own date: 304, no body');
($st) = get('-H', 'If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT', "$url/?s=10&L=1");
is($st, 200, 'If-Modified-Since: an older date: 200');
($st) = get('-H', 'If-Modified-Since: not a date', "$url/?s=10&L=1");
is($st, 200, 'If-Modified-Since: not a date: 200 (ignored)');
($st) = get('-H', "If-Modified-Since: $lm", '-H', 'If-None-Match: "other"', "$url/?s=10&L=1&e=1");
is($st, 200, 'If-None-Match takes precedence over If-Modified-Since (RFC 9110 13.2.2)');

# ---------- Vary ----------
(undef, $h) = get('-H', 'Accept-Language: fr', "$url/?s=5&V=Accept-Language");
ok($h->{vary} eq 'Accept-Language' && $h->{'x-hxterm-vary'} eq 'fr', 'V=Accept-Language: Vary, and the value it answered for');
(undef, $h) = get("$url/?s=5&V=Accept-Language");
is($h->{'x-hxterm-vary'}, '-', '... none sent: -');
(undef, $h) = get('-k', '--http2', '-H', 'Accept-Language: de', "https://127.0.0.1:$tport/?s=5&V=Accept-Language");
is($h->{'x-hxterm-vary'}, 'de', '... on h2 too');
($st) = get("$url/?V=a(b");
is($st, 400, 'V= not a header name: 400');

# ---------- ranges ----------
($st, $h, $b) = get('-r', '1000-1999', "$url/?s=10000");
ok($st == 206 && $b eq pattern(1000, 1000),
   'Range bytes=1000-1999: 206, the pattern at offset 1000');
is($h->{'content-range'}, 'bytes 1000-1999/10000', '... Content-Range');
is($h->{'content-length'}, 1000, '... Content-Length of the part');
like($h->{'x-rsp'}, qr/code=206, .*size=1000,/, '... X-rsp says 206 and its 1000 bytes');
($st, $h, $b) = get('-r', '9990-', "$url/?s=10000");
ok($st == 206 && $b eq pattern(10, 9990) && $h->{'content-range'} eq 'bytes 9990-9999/10000', 'bytes=9990-: the rest');
($st, $h, $b) = get('-r', '-7', "$url/?s=10000");
ok($st == 206 && $b eq pattern(7, 9993), 'bytes=-7: the last 7');
($st, $h, $b) = get('-r', '5000-99999', "$url/?s=10000");
ok($st == 206 && length($b) == 5000 && $h->{'content-range'} eq 'bytes 5000-9999/10000', 'an end past the body: cut to it');
($st, $h, $b) = get('-r', '10000-', "$url/?s=10000");
ok($st == 416 && $h->{'content-range'} eq 'bytes */10000' && $b eq '', 'a start at the end: 416, bytes */10000');
($st, undef, $b) = get('-r', '0-0,1-1,2-2,3-3,4-4,5-5,6-6,7-7,8-8', "$url/?s=100");
ok($st == 200 && pattern_ok($b, 100), 'nine ranges: the whole body, 200 (8 parts at most)');
($st, undef, $b) = get('-H', 'Range: lines=1-2', "$url/?s=100");
ok($st == 200 && pattern_ok($b, 100), 'another unit: ignored, 200');
($st) = get('-r', '0-9', "$url/?s=100&k=10");
is($st, 200, 'a chunked body (k=): no range, 200');
($st) = get('-r', '0-9', "$url/?s=100&x=50");
is($st, 200, 'a body with a fault (x=): no range, 200');
($st) = get('-r', '0-9', '-d', 'x', "$url/?s=100");
is($st, 200, 'a POST: no range (GET alone, RFC 9110 14.2)');
($st, undef, $b) = get('-r', '0-9', "$url/?s=100&R=1");
ok($st == 206 && length $b == 10, 'random bytes (R=1): ranged too');
(undef, $h) = get("$url/?s=100&e=1&L=1");
my ($tag, $date) = ($h->{etag}, $h->{'last-modified'});
($st) = get('-r', '0-9', '-H', "If-Range: $tag", "$url/?s=100&e=1&L=1");
is($st, 206, 'If-Range: the entity tag: 206');
($st) = get('-r', '0-9', '-H', "If-Range: $date", "$url/?s=100&e=1&L=1");
is($st, 206, 'If-Range: the Last-Modified date: 206');
($st, undef, $b) = get('-r', '0-9', '-H', 'If-Range: "stale"', "$url/?s=100&e=1&L=1");
ok($st == 200 && pattern_ok($b, 100), 'If-Range: another tag: the whole body, 200');
($st, undef, $b) = get('-r', '0-9', '-H', 'If-Range: Sat, 01 Jan 2000 00:00:00 GMT', "$url/?s=100&e=1&L=1");
is($st, 200, 'If-Range: another date: 200');

# several ranges: multipart/byteranges, each part at its offset
($st, $h, $b) = get('-r', '0-4,10-14,-3', "$url/?s=100");
my @parts = $b =~ /\r\n--hxterm-byteranges\r\nContent-Type: text\/plain\r\nContent-Range: bytes (\d+)-(\d+)\/100\r\n\r\n/g;
ok($st == 206 && $h->{'content-type'} eq 'multipart/byteranges; boundary=hxterm-byteranges' && "@parts" eq '0 4 10 14 97 99',
   "three ranges: 206 multipart/byteranges, parts @parts");
my @data = $b =~ /\r\n\r\n(.*?)\r\n--hxterm-byteranges/sg;
is_deeply(\@data, [ pattern(5, 0), pattern(5, 10), pattern(3, 97) ], '... each part the pattern at its offset');
like($b, qr/\r\n--hxterm-byteranges--\r\n\z/, '... closed by the final delimiter');
is(length($b), $h->{'content-length'}, '... Content-Length its length');
($st, $h, $b) = get('-r', '500-600,0-9', "$url/?s=100");
ok($st == 206 && $h->{'content-range'} eq 'bytes 0-9/100' && $b eq pattern(10, 0), 'one of two satisfiable: a single part');

# h2 and h3 carry them too
($st, $h, $b) = get('-k', '--http2', '-r', '1-2,5-6', "https://127.0.0.1:$tport/?s=100");
ok($st == 206 && $b =~ /bytes 1-2\/100.*bytes 5-6\/100/s, 'h2: several ranges, multipart');
($st, $h, $b) = get('-k', '--http2', '-r', '100-149', "https://127.0.0.1:$tport/?s=1000&L=1&m=5");
ok($st == 206 && $b eq pattern(50, 100) && $h->{'content-range'} eq 'bytes 100-149/1000' && $h->{'last-modified'},
   'h2: 206 at its offset, Content-Range, Last-Modified');
($st) = get('-k', '--http2', '-H', "If-Modified-Since: $date", "https://127.0.0.1:$tport/?s=100&e=1&L=1");
is($st, 304, 'h2: If-Modified-Since: 304');
my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $j = `$hxload --h3 -q --json -n 20 -c 2 -H 'Range: bytes=10-19' 'https://127.0.0.1:$tport/?s=1000' 2>&1`;
ok($j =~ /"206":\s*20\b/ && $j =~ /"bytes":\s*200\b/, 'h3: 20 ranged requests answered 206, 10 bytes each (hxload)')
    or diag(substr($j, 0, 400));

# ---------- preconditions (RFC 9110 13): every date form, lists, methods ----------
# <reqs>: [method, target, [header lines]] pipelined on one h1 connection
# (raw, so that a field can come in two lines): the responses, parsed
sub raw_h1 {
    my (@reqs) = @_;
    my $wire = '';
    for my $i (0 .. $#reqs) {
        my ($m, $t, $hs) = @{ $reqs[$i] };
        $wire .= "$m $t HTTP/1.1\r\nHost: x\r\n" . join('', map { "$_\r\n" } @$hs) .
                 ($m eq 'POST' ? "Content-Length: 0\r\n" : '') . ($i == $#reqs ? "Connection: close\r\n" : '') . "\r\n";
    }
    return parse_responses(scalar raw_exchange($wire), heads => [ map { $_->[0] eq 'HEAD' } @reqs ]);
}
my $ct = '/?s=100&e=1&L=1';
(undef, $h) = get("$url$ct");
my ($ctag, $clm) = ($h->{etag}, $h->{'last-modified'});
# the issue's forms of a date after any Last-Modified (all are before 2026)
my %after = (imf => 'Wed, 31 Dec 2025 23:59:59 GMT', rfc850 => 'Wednesday, 31-Dec-25 23:59:59 GMT',
             asctime => 'Wed Dec 31 23:59:59 2025');
my $before = 'Sat, 01 Jan 2000 00:00:00 GMT';
my @r = raw_h1(map { [ 'GET', $ct, [ "If-Modified-Since: $after{$_}" ] ] } qw(imf rfc850 asctime));
is(join(' ', map { $_->{status} } @r), '304 304 304',
   'If-Modified-Since after Last-Modified as IMF-fixdate, RFC 850 and asctime: 304 each (RFC 9110 5.6.7)');
@r = raw_h1([ 'GET', $ct, [ 'If-Unmodified-Since: Saturday, 01-Jan-00 00:00:00 GMT' ] ],
            [ 'GET', $ct, [ "If-Unmodified-Since: $after{asctime}" ] ],
            [ 'GET', "$ct&r=404", [ 'If-None-Match: *' ] ]);
ok($r[0]{status} == 412 && $r[0]{body} =~ /^If-Unmodified-Since: [^\n]*\n\z/ && $r[1]{status} == 200,
   'If-Unmodified-Since (RFC 850) before Last-Modified: 412 with a one-line reason; after it (asctime): 200');
is($r[2]{status}, 404, '... ignored when the answer would not be a 2xx (r=404, RFC 9110 13.2.1)');

# If-Range: neither a strong tag nor its exact date keeps no range (13.1.5)
@r = raw_h1([ 'GET', $ct, [ 'Range: bytes=0-9', 'If-Range:' ] ],
            [ 'GET', $ct, [ 'Range: bytes=0-9', 'If-Range: garbage' ] ],
            [ 'GET', $ct, [ 'Range: bytes=0-9', "If-Range: W/$ctag" ] ],
            [ 'GET', $ct, [ 'Range: bytes=0-9', "If-Range: $ctag", "If-Range: $ctag" ] ],
            [ 'GET', $ct, [ 'Range: bytes=0-9', "If-Range: $ctag" ] ]);
ok($r[0]{status} == 200 && pattern_ok($r[0]{body}, 100), 'an empty If-Range: 200, the whole body');
is(join(' ', map { $_->{status} } @r[1 .. 4]), '200 200 200 206',
   '... a bare word, a weak tag, two lines: 200; its strong tag alone: 206');
my ($y, $mo, $d, $hms) = $clm =~ /^\w+, (\d\d) (\w{3}) (\d{4}) (\S+) GMT$/ ? ($3, $2, $1, $4) : ();
my %wd = (Mon => 'Monday', Tue => 'Tuesday', Wed => 'Wednesday', Thu => 'Thursday', Fri => 'Friday',
          Sat => 'Saturday', Sun => 'Sunday');
my $wday = $wd{ substr $clm, 0, 3 };
@r = raw_h1([ 'GET', $ct, [ 'Range: bytes=0-9', "If-Range: $wday, $d-$mo-" . substr($y, 2) . " $hms GMT" ] ],
            [ 'GET', $ct, [ 'Range: bytes=0-9', sprintf('If-Range: %s %s %2d %s %s', substr($clm, 0, 3), $mo, $d, $hms, $y) ] ]);
is(join(' ', map { $_->{status} } @r), '206 206', "If-Range: its Last-Modified ($clm) in RFC 850's and asctime's forms: 206");

# several field lines of one list field are one list (RFC 9110 5.3)
@r = raw_h1([ 'GET', $ct, [ "If-None-Match: $ctag", 'If-None-Match: "other"' ] ],
            [ 'GET', $ct, [ 'If-None-Match: "other"', 'If-None-Match: "more", ' . $ctag ] ],
            [ 'PUT', $ct, [ "If-Match: $ctag", 'If-Match: "other"' ] ],
            [ 'PUT', $ct, [ 'If-Match: "a"', 'If-Match: "b"' ] ]);
is(join(' ', map { $_->{status} } @r), '304 304 200 412',
   'h1: If-None-Match in two lines, its tag in the first or the second: 304; If-Match likewise: 200, neither: 412');

# method x field x match (RFC 9110 13.1, 13.2.2), on one connection
my @fields = ([ "If-Match: $ctag", 'If-Match, its tag', '200 200 200 200' ],
              [ 'If-Match: "other"', 'If-Match, another', '412 412 412 412' ],
              [ "If-None-Match: $ctag", 'If-None-Match, its tag', '304 304 412 412' ],
              [ 'If-None-Match: *', 'If-None-Match: *', '304 304 412 412' ],
              [ 'If-None-Match: "other"', 'If-None-Match, another', '200 200 200 200' ],
              [ "If-Modified-Since: $after{imf}", 'If-Modified-Since, after', '304 304 200 200' ],
              [ "If-Modified-Since: $before", 'If-Modified-Since, before', '200 200 200 200' ],
              [ "If-Unmodified-Since: $after{imf}", 'If-Unmodified-Since, after', '200 200 200 200' ],
              [ "If-Unmodified-Since: $before", 'If-Unmodified-Since, before', '412 412 412 412' ],
              [ "If-Match: \"other\"\r\nIf-None-Match: $ctag", 'If-Match fails before If-None-Match', '412 412 412 412' ],
              [ "If-None-Match: \"other\"\r\nIf-Modified-Since: $after{imf}", 'If-Modified-Since ignored with If-None-Match', '200 200 200 200' ],
              [ "If-Match: $ctag\r\nIf-Unmodified-Since: $before", 'If-Unmodified-Since ignored with If-Match', '200 200 200 200' ]);
my @methods = qw(GET HEAD POST DELETE);
@r = raw_h1(map { my $f = $_; map { [ $_, $ct, [ $f->[0] ] ] } @methods } @fields);
for my $i (0 .. $#fields) {
    my @got = map { $_->{status} // '-' } @r[ 4 * $i .. 4 * $i + 3 ];
    is("@got", $fields[$i][2], "$fields[$i][1]: GET HEAD POST DELETE answered @got");
}
my ($p412) = grep { ($_->{status} // 0) == 412 } @r[ 8 .. 11 ];
ok($p412 && $p412->{body} =~ /^If-None-Match matched: [^\n]*\n\z/ && get_hdr($p412, 'content-type') eq 'text/plain',
   'a POST with a matching If-None-Match: 412, its reason one line of text/plain');

# h2 (nghttp) and h3 (hxload) read the lines as one list too, and the method
SKIP: {
    skip 'no nghttp', 2 unless `which nghttp 2>/dev/null`;
    my $o = `nghttp -v -H 'if-none-match: $ctag' -H 'if-none-match: "other"' 'https://127.0.0.1:$tport$ct' 2>&1`;
    like($o, qr/recv \(stream_id=\d+\) :status: 304/, 'h2: If-None-Match in two lines, its tag in the first: 304');
    $o = `nghttp -v -H ':method: DELETE' -H 'if-none-match: *' 'http://127.0.0.1:$port$ct' 2>&1`;
    like($o, qr/:status: 412.*If-None-Match matched/s, 'h2c: DELETE with If-None-Match: * is 412, with its reason');
}
$j = `$hxload --h3 -q --json -n 4 -c 1 -H 'If-None-Match: $ctag' -H 'If-None-Match: "other"' 'https://127.0.0.1:$tport$ct' 2>&1`;
ok($j =~ /"304":\s*4\b/, 'h3: If-None-Match in two lines, its tag in the first: 304 (hxload)') or diag(substr($j, 0, 400));
$j = `$hxload --h3 -q --json -n 4 -c 1 --method POST -H 'If-Modified-Since: $after{imf}' 'https://127.0.0.1:$tport$ct' 2>&1`;
ok($j =~ /"200":\s*4\b/, 'h3: a POST with If-Modified-Since after it: ignored, 200') or diag(substr($j, 0, 400));

# ---------- nginx proxy_cache in front ----------
SKIP: {
    my $dir = tempdir(CLEANUP => 1);
    my $np = free_port();
    my $ng = nginx_run($dir, $np, <<"EOF");
http {
    proxy_cache_path $dir/ng/cache keys_zone=c:1m;
    server {
        listen 127.0.0.1:$np;
        location / {
            proxy_pass http://127.0.0.1:$port;
            proxy_http_version 1.1;
            proxy_cache c;
            proxy_cache_revalidate on;
            add_header X-Cache \$upstream_cache_status always;
        }
    }
}
EOF
    skip 'no nginx', 20 unless $ng;
    ok($ng, 'nginx with proxy_cache is up');
    my $n = "http://127.0.0.1:$np";
    my ($s1, $h1, $b1) = get("$n/?s=5000&L=1&m=2");
    is($h1->{'x-cache'}, 'MISS', 'the first answer: a miss, from hxterm');
    my ($s2, $h2, $b2) = get("$n/?s=5000&L=1&m=2");
    is($h2->{'x-cache'}, 'HIT', 'the second: a hit');
    is($h2->{'x-rsp'}, $h1->{'x-rsp'}, '... the very answer hxterm gave (its X-rsp, real time included)');
    ok(pattern_ok($b2, 5000), '... its body whole');
    my ($s3, $h3, $b3) = get('-r', '4000-4099', "$n/?s=5000&L=1&m=2");
    ok($s3 == 206 && ($h3->{'x-cache'} // '') eq 'HIT' && $b3 eq pattern(100, 4000), 'a range of it: 206 from the cache, the right bytes')
        or diag("$s3 " . join(', ', map { "$_=$h3->{$_}" } sort keys %$h3) . ' ' . length($b3));
    # WHY 3.2 s: nginx counts whole seconds; max-age=2 is stale 3 s after at the latest
    sleep 3.2;
    my ($s4, $h4, $b4) = get("$n/?s=5000&L=1&m=2");
    is($h4->{'x-cache'}, 'REVALIDATED', 'once stale (max-age=2): revalidated by If-Modified-Since (hxterm said 304)');
    ok($s4 == 200 && pattern_ok($b4, 5000) && $h4->{'x-rsp'} eq $h1->{'x-rsp'}, '... and the cached answer served again');
    my %seen;
    for my $lang (qw(en en fr fr)) {
        my (undef, $hv) = get('-H', "Accept-Language: $lang", "$n/?s=10&m=60&V=Accept-Language");
        push @{ $seen{$lang} }, [ $hv->{'x-cache'} // '', $hv->{'x-hxterm-vary'} // '' ];
    }
    is_deeply($seen{en}, [ [ 'MISS', 'en' ], [ 'HIT', 'en' ] ], 'V=Accept-Language: en a miss, then a hit');
    is($seen{fr}[0][0], 'MISS', '... fr is another answer for nginx, not the cached en (Vary)');
    is($seen{fr}[1][0], 'HIT', '... then a hit of its own');
    is($seen{fr}[1][1], 'fr', '... whose value is fr');
    my ($sm, $hm1) = get("$n/?s=50&m=60");
    my (undef, $hm2) = get("$n/?s=50&m=60");
    ok($hm2->{'x-cache'} eq 'HIT' && $hm2->{'x-hxterm-made'} eq $hm1->{'x-hxterm-made'},
       'a hit carries the X-Hxterm-Made of the answer kept: a cached answer told from a fresh one');
    for my $cc (qw(private no-store)) {
        my @c = map { (get("$n/?s=50&m=60&cc=$cc"))[1]{'x-cache'} // '' } 1, 2;
        ok(!grep({ $_ eq 'HIT' } @c), "cc=$cc&m=60: nginx never serves it from its cache (@c)");
    }
    my ($s5, $h5) = get("$n/?s=5000&L=1&m=2&c=0");
    isnt($h5->{'x-cache'}, 'HIT', 'c=0 (no-cache): never a hit');
    my ($s6, $h6) = get("$n/?s=5000&L=1&m=2&c=0");
    isnt($h6->{'x-cache'}, 'HIT', '... the second time either');
    # hxload tells the hits (X-Hxterm-Made and X-rsp repeated) and splits over the misses alone
    my $hj = hxload_json("-c 1 -n 200 '$n/?s=1k&t=2&m=60'");
    my $hc = $hj ? $hj->{cache} : {};
    is_deeply([ $hc->{hits}, $hc->{misses} ], [ 199, 1 ], 'hxload -c 1 -n 200 through proxy_cache: 199 hits, 1 miss');
    ok($hj && $hj->{server_ms}{n} == 1 && $hj->{server_ms}{p50} >= 2.0 && $hj->{hit_ms}{n} == 199,
       '... the server row over the miss alone (t=2), the hit row over the hits');
    my $dj = hxload_json("-c 1 -n 50 'http://127.0.0.1:$port/?s=1k&m=60'");
    ok($dj && $dj->{cache}{hits} == 0 && $dj->{cache}{misses} == 50, '... straight at hxterm: 50 misses, no hit');
}

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
