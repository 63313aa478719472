#!/usr/bin/perl
# 500 slowloris connections trickling request heads: a normal client is served meanwhile, they all get 408.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IO::Select;
use Time::HiRes qw(time sleep);
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $port = start_hx('-t', '2', '--head-timeout', '2000');
my @crowd;
for (1 .. 500) {
    my $s = connect_hx();
    print $s "GET /?s=1 HTTP/1.1\r\n";
    push @crowd, $s;
}
is(scalar @crowd, 500, '500 slow connections open');

# while they trickle, a normal client runs
my $pid = open(my $load, '-|', "$hxload -q --json -c 2 -n 400 --verify 'http://127.0.0.1:$port/?s=2k'") or die;
my $t0 = time;
my $i = 0;
while (time - $t0 < 1.5) {
    my $s = $crowd[$i++ % @crowd];
    print $s "X";
    sleep 0.002;
}
my $json = do { local $/; <$load> };
close $load;
my ($reqs) = $json =~ /"requests": (\d+)/;
my ($p99) = $json =~ /"latency_ms": \{[^}]*"p99": ([\d.]+)/;
is($reqs, 400, 'the normal client got its 400 responses');
ok($json =~ /"errors": \{"connect": 0, "tls": 0, "timeout": 0, "reset": 0, "protocol": 0, "body": 0\}/, 'without an error');
ok($p99 < 50, "p99 $p99 ms while 500 connections trickle");

# after --head-timeout, every slow connection got its 408 and was closed
sleep 1.2;
my ($got408, $closed) = (0, 0);
for my $s (@crowd) {
    my ($buf, $end) = read_all($s, 0.2);
    $got408++ if $buf =~ /^HTTP\/1.1 408 /;
    $closed++ if $end eq 'eof';
}
is($got408, 500, 'all 500 answered 408 Request Timeout');
is($closed, 500, 'and closed');
is(stop_hx(), 0, 'clean stop');
done_testing();
