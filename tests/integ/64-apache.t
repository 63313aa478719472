#!/usr/bin/perl
# Apache httpd 2.4 in front (doc/proxies.md's recipe): mod_proxy_http to hxterm's h1, mod_proxy_http2 to its h2c, mod_proxy_wstunnel for WebSocket, mod_cache's hits, misses and revalidations counted by hxload and told by X-Cache.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Time::HiRes qw(sleep time);
use HxTest;

my $httpd = '/usr/sbin/apache2';
plan skip_all => 'no apache2 (apt-get install apache2)' unless -x $httpd;
my $t0 = time;
my $hx = start_hx('-t', '1');
my $dir = tempdir(CLEANUP => 1);
chmod 0755, $dir;
my $ap = free_port();
open my $fh, '>', "$dir/apache.conf" or die "$dir/apache.conf: $!";
print $fh recipe('apache', 8000 => $hx, 8080 => $ap, '/tmp/hxproxy' => $dir);
close $fh;
my $apid = spawn_bg("$dir/apache.out", $httpd, '-f', "$dir/apache.conf", '-DFOREGROUND');
unless (wait_port($ap)) {
    diag(`cat $dir/apache.out $dir/apache-error.log 2>&1`);
    fail('apache2 did not come up on the recipe');
    done_testing();
    exit;
}
pass("apache2 is up with doc/proxies.md's config (pid $apid)");
my $a = "http://127.0.0.1:$ap";

sub get {
    my ($st, $h, $body) = curl_head(@_);
    my %h = %$h;
    ($h{cache}) = ($h{'x-cache'} // '') =~ /^(\w+)/;
    return ($st // 0, \%h, $body // '');
}

# ---------- the three proxy modules ----------
my $j = hxload_json("-c 2 -n 200 --verify '$a/?s=1k&t=1'");
ok($j && $j->{status}{200} == 200 && $j->{verify}{bodies} == 200 && $j->{server_ms}{n} == 200 && $j->{server_ms}{p50} >= 1.0,
   'mod_proxy_http: h1 -> h1, 200 verified, the split through it (server t=1)');
$j = hxload_json("-c 2 -m 4 -n 200 --verify 'h2c://127.0.0.1:$ap/h2/?s=1k'");
ok($j && $j->{status}{200} == 200 && $j->{verify}{bodies} == 200 && $j->{connections}{h2} >= 1,
   'mod_http2 + mod_proxy_http2: h2c in front, h2c to hxterm, 200 verified');
my (undef, $h2) = get("$a/h2/?s=10");
my (undef, $h1) = get("$a/?s=10");
ok(exists $h2->{'x-rsp'} && exists $h1->{'x-rsp'}, '... both answered by hxterm (X-rsp)');
$j = hxload_json("-c 2 -n 100 --verify 'ws://127.0.0.1:$ap/ws/?ws=echo'");
ok($j && $j->{status}{200} == 100 && $j->{connections}{ws} >= 1, 'mod_proxy_wstunnel: 100 WebSocket messages echoed, verified');

# ---------- mod_cache ----------
my (undef, $m1) = get("$a/?s=1000&m=60");
my (undef, $m2, $b2) = get("$a/?s=1000&m=60");
ok($m1->{cache} eq 'MISS' && $m2->{cache} eq 'HIT' && $m2->{'x-rsp'} eq $m1->{'x-rsp'}
   && $m2->{'x-hxterm-made'} eq $m1->{'x-hxterm-made'} && pattern_ok($b2, 1000),
   'm=60: MISS, then HIT repeating X-rsp and X-Hxterm-Made, the body whole');
my %table = ('s=2&m=60&age=30' => 'MISS HIT', 's=2&m=2&age=5' => 'MISS MISS', 's=2&m=0&M=60' => 'MISS HIT',
             's=2&m=60&M=0' => 'MISS MISS', 's=2&c=0&m=60' => 'MISS MISS', 's=2&cc=private&m=60' => 'MISS MISS',
             's=2&cc=no-store&m=60' => 'MISS MISS', 's=3' => 'MISS MISS', 's=3&L=1' => 'MISS MISS');
for my $u (sort keys %table) {
    is(join(' ', map { (get("$a/?$u"))[1]{cache} // '-' } 1, 2), $table{$u}, "$u: $table{$u} (doc/proxies.md's table)");
}
my @vary = map { my (undef, $h) = get('-H', "Accept-Language: $_", "$a/?s=10&m=60&V=Accept-Language");
                 "$h->{cache}:$h->{'x-hxterm-vary'}" } qw(en en fr fr);
is("@vary", 'MISS:en HIT:en MISS:fr HIT:fr', 'V=Accept-Language: one answer per value');
get("$a/?s=5000&m=60&e=1");
my ($rs, $rh, $rb) = get('-r', '1000-1999', "$a/?s=5000&m=60&e=1");
ok($rs == 206 && $rh->{cache} eq 'HIT' && $rb eq pattern(1000, 1000), 'a range of a kept answer: 206, HIT, the right bytes');
get("$a/?s=300&L=1&m=1");
sleep 2.1;    # WHY 2.1: whole seconds
my ($vs, $vh, $vb) = get("$a/?s=300&L=1&m=1");
ok($vs == 200 && $vh->{cache} eq 'REVALIDATE' && $vh->{'x-rsp'} =~ /code=304/ && pattern_ok($vb, 300),
   "L=1&m=1, stale: REVALIDATE, hxterm answered 304 ($vh->{'x-rsp'}), the kept body served");

# ---------- hxload's hits ----------
$j = hxload_json("-c 1 -n 300 '$a/?s=1k&t=2&m=60&H=X-T:hits'");
my $c = $j ? $j->{cache} : {};
ok($j && $c->{misses} == 1 && $c->{hits} == 299 && $j->{server_ms}{n} == 1 && $j->{hit_ms}{n} == 299,
   "hxload -c 1 -n 300 through mod_cache: $c->{hits} hits, $c->{misses} miss; the server row over the miss alone");

kill 'TERM', $apid;
waitpid($apid, 0);
is(stop_hx(), 0, 'hxterm stops cleanly');
diag(sprintf('the test took %.1f s', time - $t0));
done_testing();
