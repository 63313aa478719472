#!/usr/bin/perl
# hxload's open loop gives each connection its share: at a rate one connection could carry alone, -c 6 -R 1000 sends about a sixth of the requests on each of its connections (h1, h2 over TLS, h3), as hxterm's access log sees them by client port.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $dir = tempdir(CLEANUP => 1);
my $log = "$dir/access.log";
my $port = start_hx('-tls', '-t', '1', '--access-log', $log);
my $tls = hx_tls_port();
my %url = (h1 => "http://127.0.0.1:$port/?s=10", 'h2' => "https://127.0.0.1:$tls/?s=10", h3 => "https://127.0.0.1:$tls/?s=10");
my %opt = (h1 => '', 'h2' => '--h2', h3 => '--h3');
# WHY 600 at 1,000 a second: one connection answers a request in well under
# a millisecond here, so the first connection with a free slot could take
# every send time (before: 1,994 of 2,000 on one connection of 10)
for my $p (qw(h1 h2 h3)) {
    my $out = `timeout 30 $hxload -q --json $opt{$p} -c 6 -m 1 -R 1000 -n 600 '$url{$p}' 2>&1`;
    my ($line) = $out =~ /^(\{"hxload".*)$/m;
    my $j = eval { decode_json($line // '') } // {};
    is($j->{requests} // 0, 600, "$p: 600 requests answered") or diag(substr($out, 0, 1000));
}
is(stop_hx(), 0, 'hxterm stops cleanly (the log is written at exit)');
my %per;
open my $fh, '<', $log or die "$log: $!";
while (<$fh>) {
    my $l = eval { decode_json($_) } or next;
    my $p = $l->{proto} =~ /^h1/ ? 'h1' : $l->{proto} =~ /^h2/ ? 'h2' : $l->{proto};
    $per{$p}{$l->{client}}++;
}
for my $p (qw(h1 h2 h3)) {
    my @n = sort { $a <=> $b } values %{ $per{$p} // {} };
    ok(@n == 6 && $n[0] >= 50 && $n[-1] <= 150,
       "$p: 6 connections, each 50 to 150 of the 600 requests: " . join(' ', @n));
}
done_testing();
