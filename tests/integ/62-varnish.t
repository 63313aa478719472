#!/usr/bin/perl
# Varnish 7.1 in front (doc/proxies.md's recipe): the caching keys give hits, misses and revalidations (304 from hxterm), Vary keeps a value each, a range comes from a kept answer, a hit repeats X-rsp and X-Hxterm-Made; hxload counts the hits and splits over the misses alone; sse=1 is streamed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Time::HiRes qw(sleep time);
use HxTest;

my $varnishd = '/usr/sbin/varnishd';
plan skip_all => 'no varnishd (apt-get install varnish)' unless -x $varnishd;
my $t0 = time;
my $hx = start_hx('-t', '1');
my $dir = tempdir(CLEANUP => 1);
my $vp = free_port();
open my $fh, '>', "$dir/hxterm.vcl" or die "$dir/hxterm.vcl: $!";
print $fh recipe('varnish', 8000 => $hx);
close $fh;
# WHY -j none: run as whoever runs the test, root or not, without the jail's users
my $vpid = spawn_bg("$dir/varnishd.out", $varnishd, '-F', '-j', 'none', '-f', "$dir/hxterm.vcl",
                    '-a', "127.0.0.1:$vp", '-n', "$dir/varnish", '-s', 'malloc,16m');
unless (wait_port($vp) || (sleep(5), wait_port($vp))) {
    open my $o, '<', "$dir/varnishd.out";
    diag(join '', <$o>);
    fail('varnishd did not come up on the recipe');
    done_testing();
    exit;
}
pass("varnishd is up with doc/proxies.md's VCL, in front of hxterm (pid $vpid)");
my $v = "http://127.0.0.1:$vp";

# curl -i: (status, headers {lc name => value}, body); a hit: X-Varnish has two ids
sub get {
    my ($st, $h, $body) = curl_head(@_);
    my %h = %$h;
    $h{hit} = ($h{'x-varnish'} // '') =~ /^\d+ \d+$/ ? 1 : 0;
    return ($st // 0, \%h, $body // '');
}
sub hits { my ($u, @a) = @_; join ' ', map { (get(@a, "$v/?$u"))[1]{hit} } 1, 2 }

# ---------- the keys ----------
my (undef, $a1, $b1) = get("$v/?s=1000&m=60");
my (undef, $a2, $b2) = get("$v/?s=1000&m=60");
ok(!$a1->{hit} && $a2->{hit}, 'm=60: a miss, then a hit');
ok($a2->{'x-rsp'} eq $a1->{'x-rsp'} && $a2->{'x-hxterm-made'} eq $a1->{'x-hxterm-made'},
   "... the hit repeats X-rsp and X-Hxterm-Made ($a2->{'x-hxterm-made'}): the answer hxterm made once");
ok(pattern_ok($b2, 1000), '... its body whole');
my %table = ('s=2&m=60&age=30' => '0 1', 's=2&m=2&age=5' => '0 0', 's=2&m=0&M=60' => '0 1', 's=2&m=60&M=0' => '0 0',
             's=2&c=0&m=60' => '0 0', 's=2&cc=private&m=60' => '0 0', 's=2&cc=no-store&m=60' => '0 0',
             's=3' => '0 1');
for my $u (sort keys %table) {
    is(hits($u), $table{$u}, "$u: hit? $table{$u} (the table in doc/proxies.md)");
}
my (undef, $ag) = get("$v/?s=2&m=60&age=30");
ok($ag->{age} >= 30, "age=30: the hit says Age $ag->{age}");
my (undef, $nk) = get("$v/?s=3");
ok(!exists $nk->{'x-hxterm-made'}, '... no key: kept, but no X-Hxterm-Made to tell its hits by');

# ---------- Vary ----------
my @vary = map { my (undef, $h) = get('-H', "Accept-Language: $_", "$v/?s=10&m=60&V=Accept-Language");
                 "$h->{hit}:$h->{'x-hxterm-vary'}" } qw(en en fr fr en);
is("@vary", '0:en 1:en 0:fr 1:fr 1:en', 'V=Accept-Language: a miss then a hit per value, each the answer for its value');

# ---------- a range of a kept answer ----------
get("$v/?s=5000&m=60&L=1");
my ($rs, $rh, $rb) = get('-r', '1000-1999', "$v/?s=5000&m=60&L=1");
ok($rs == 206 && $rh->{hit} && $rb eq pattern(1000, 1000) && $rh->{'content-range'} eq 'bytes 1000-1999/5000',
   'Range 1000-1999 of a kept answer: 206 from the cache, the pattern at its offset');

# ---------- revalidation: stale, then If-Modified-Since / If-None-Match, hxterm's 304 ----------
for my $k ('L=1', 'e=1') {
    my (undef, $f) = get("$v/?s=300&m=1&$k");
    sleep 1.3;
    my (undef, $g) = get("$v/?s=300&m=1&$k");    # stale: served in grace, refetched behind it
    my ($st, $r, $b);
    for (1 .. 20) {
        sleep 0.1;
        ($st, $r, $b) = get("$v/?s=300&m=1&$k");
        last if $r->{'x-rsp'} =~ /code=304/;
    }
    ok($g->{'x-rsp'} eq $f->{'x-rsp'} && $r->{'x-rsp'} =~ /code=304/ && $st == 200 && pattern_ok($b, 300),
       "$k&m=1, stale: served once more, revalidated behind it (hxterm answered 304: X-rsp now '$r->{'x-rsp'}'), "
       . 'the kept body served again with 200');
}

# ---------- hxload: the hits counted, the split over the misses ----------
my $j = hxload_json("-c 4 -n 2000 '$v/?s=1k&t=2&m=60'");
my $c = $j ? $j->{cache} : {};
ok($j && $j->{requests} == 2000 && $c->{hits} + $c->{misses} == 2000 && $c->{misses} >= 1 && $c->{hits} >= 1900,
   "hxload -n 2000 through Varnish, t=2&m=60: $c->{hits} hits, $c->{misses} misses, of $j->{requests}");
ok($j && $j->{server_ms}{n} == $c->{misses} && $j->{hit_ms}{n} == $c->{hits},
   "... the server row over the misses alone ($j->{server_ms}{n}), the hit row over the hits ($j->{hit_ms}{n})");
ok($j && $j->{server_ms}{p50} >= 2.0, "... the misses' server time is hxterm's t=2 ($j->{server_ms}{p50} ms)");
my $d = hxload_json("-c 2 -n 200 'http://127.0.0.1:$hx/?s=1k&m=60'");
ok($d && $d->{cache}{hits} == 0 && $d->{cache}{misses} == 200, 'straight at hxterm: 200 misses, no hit');

# ---------- sse=1 ----------
my $e = hxload_json("--sse -c 1 -n 1 '$v/?sse=1&n=5&d=150&s=10'");
ok($e && $e->{events}{n} == 5 && $e->{events}{bunched} == 0,
   "sse=1 through Varnish: $e->{events}{n} events, $e->{events}{bunched} bunched (it streams them)");

is(stop_hx(), 0, 'hxterm stops cleanly');
diag(sprintf('the test took %.1f s', time - $t0));
done_testing();
