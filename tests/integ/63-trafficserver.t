#!/usr/bin/perl
# Apache Traffic Server 9.2 in front (doc/proxies.md's runroot and config, run from a temp dir as whoever runs the test): the cache table beside Varnish's (no-cache, s-maxage, Age, Vary), told by its Via codes; revalidation by hxterm's 304, a range from a kept answer, hxload's hits and the split over the misses.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use Test::More;
use Time::HiRes qw(sleep time);
use HxTest;

my $ts = '/usr/bin/traffic_server';
plan skip_all => 'no traffic_server (apt-get install trafficserver)' unless -x $ts && -d '/etc/trafficserver';
my $t0 = time;
my $hx = start_hx('-t', '1');
my $dir = tempdir(CLEANUP => 1);
my $tp = free_port();
mkdir "$dir/$_" for qw(log run var cache);
system('cp', '-r', '/etc/trafficserver', "$dir/etc") == 0 or die 'cannot copy /etc/trafficserver';
my %sub = (8000 => $hx, 8080 => $tp, '/tmp/hxproxy' => $dir);
for ([ 'runroot.yaml', recipe('ats-runroot', %sub) ], [ 'etc/records.config', recipe('ats-records', %sub) ],
     [ 'etc/remap.config', recipe('ats-remap', %sub) ], [ 'etc/storage.config', recipe('ats-storage', %sub) ]) {
    open my $fh, '>', "$dir/$_->[0]" or die "$dir/$_->[0]: $!";
    print $fh $_->[1];
    close $fh;
}
my $tpid = spawn_bg("$dir/ts.out", $ts, "--run-root=$dir/runroot.yaml");
unless (wait_port($tp) || wait_port($tp)) {
    diag(`cat $dir/ts.out $dir/log/diags.log 2>&1`);
    fail('traffic_server did not come up on the recipe');
    done_testing();
    exit;
}
pass("traffic_server is up from a temp dir with doc/proxies.md's runroot and config (pid $tpid)");
my $a = "http://127.0.0.1:$tp";

# the cache lookup's code in Via ([cHs f ]: H a fresh hit, M a miss, S stale)
sub get {
    my ($st, $h, $body) = curl_head(@_);
    my %h = %$h;
    ($h{c}) = ($h{via} // '') =~ /\[c(.)/;
    $h{c} //= '-';
    return ($st // 0, \%h, $body // '');
}
# cache warming takes a moment after the port opens
for (1 .. 20) { last if (get("$a/?s=1&H=X-W:$_"))[0] == 200; sleep 0.2 }

my (undef, $m1) = get("$a/?s=1000&m=60");
my (undef, $m2, $b2) = get("$a/?s=1000&m=60");
ok($m1->{c} eq 'M' && $m2->{c} eq 'H' && $m2->{'x-rsp'} eq $m1->{'x-rsp'} && $m2->{'x-hxterm-made'} eq $m1->{'x-hxterm-made'}
   && pattern_ok($b2, 1000), "m=60: a miss, then a fresh hit ($m2->{via}) repeating X-rsp and X-Hxterm-Made");
my %table = ('s=2&m=60&age=30' => 'M H', 's=2&m=0&M=60' => 'M H', 's=2&c=0&m=60' => 'M S', 's=2&m=60&M=0' => 'M S',
             's=2&m=2&age=5' => 'M S', 's=2&cc=private&m=60' => 'M M', 's=2&cc=no-store&m=60' => 'M M',
             's=3' => 'M M', 's=3&L=1' => 'M M', 's=3&e=1' => 'M M');
for my $u (sort keys %table) {
    is(join(' ', map { (get("$a/?$u"))[1]{c} } 1, 2), $table{$u}, "$u: $table{$u} (doc/proxies.md's table)");
}
get("$a/?s=6&c=0&m=60&e=1");
my (undef, $nc) = get("$a/?s=6&c=0&m=60&e=1");
ok($nc->{c} eq 'S' && $nc->{'x-rsp'} =~ /code=304/,
   "c=0&m=60&e=1 (no-cache, an ETag): kept, and revalidated each time by If-None-Match: hxterm's 304 ($nc->{via})");
my @vary = map { my (undef, $h) = get('-H', "Accept-Language: $_", "$a/?s=10&m=60&V=Accept-Language");
                 "$h->{c}:$h->{'x-hxterm-vary'}" } qw(en en fr fr en);
is("@vary", 'M:en H:en M:fr H:fr H:en', 'V=Accept-Language: one answer per value (alternates)');
get("$a/?s=5000&m=60&e=1");
my ($rs, $rh, $rb) = get('-r', '1000-1999', "$a/?s=5000&m=60&e=1");
ok($rs == 206 && $rh->{c} eq 'H' && $rb eq pattern(1000, 1000), 'a range of a kept answer: 206 from the cache, the right bytes');
get("$a/?s=300&L=1&m=1");
sleep 2.1;
my ($vs, $vh, $vb) = get("$a/?s=300&L=1&m=1");
ok($vs == 200 && $vh->{c} eq 'S' && $vh->{'x-rsp'} =~ /code=304/ && pattern_ok($vb, 300),
   "L=1&m=1, stale: revalidated at once ($vh->{via}), hxterm's 304, the kept body served");

my $j = hxload_json("-c 1 -n 300 '$a/?s=1k&t=2&m=60&H=X-T:hits'");
my $c = $j ? $j->{cache} : {};
ok($j && $c->{misses} == 1 && $c->{hits} == 299 && $j->{server_ms}{n} == 1 && $j->{hit_ms}{n} == 299,
   "hxload -c 1 -n 300 through Traffic Server: $c->{hits} hits, $c->{misses} miss; the server row over the miss alone");

kill 'TERM', $tpid;
waitpid($tpid, 0);
is(stop_hx(), 0, 'hxterm stops cleanly');
diag(sprintf('the test took %.1f s', time - $t0));
done_testing();
