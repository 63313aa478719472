#!/usr/bin/perl
# A cache in front: Cache-Control by key (m=, M=, c=0, cc=), Age, X-Hxterm-Made, Last-Modified (L=1) with If-Modified-Since, a Range (206 at the right offset, 416, If-Range; several: multipart/byteranges) on h1, h2 and h3; then nginx's proxy_cache: a miss, a hit, a revalidation by If-Modified-Since, a range from the cache, private and no-store never kept.
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
    skip 'no nginx', 17 unless $ng;
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
}

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
