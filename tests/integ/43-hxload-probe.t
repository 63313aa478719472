#!/usr/bin/perl
# hxload --probe: a reference probe on its own connection beside the load, its latency reported apart (text and JSON); with no load it measures what a plain run at its rate does; it stops with the load.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use JSON::PP;
use Test::More;
use Time::HiRes qw(time);
use HxTest;

my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $port = start_hx('-t', '1');
my $url = "http://127.0.0.1:$port/?s=1k";

sub run_json { hxload_json("@_") }

# beside a saturating closed loop
my $j = run_json("-c 32 -m 4 -d 3 --probe 50 '$url'");
my $p = $j && $j->{probe};
ok($p, 'the JSON has a probe block');
ok($p && $p->{requests} >= 100 && $p->{requests} <= 200,
   'the probe sent its own 50 a second for 3 s (' . ($p ? $p->{requests} : '?') . ' requests)');
ok($p && $p->{errors} == 0 && $p->{latency_ms}{p99} > 0 && $p->{latency_ms}{p50} <= $p->{latency_ms}{p99},
   "its latency, apart: p50 $p->{latency_ms}{p50} ms, p99 $p->{latency_ms}{p99} ms");
ok($j && $j->{requests} > 20 * $p->{requests}, "the load's own figures are the load's ($j->{requests} requests)");
is($j && $j->{connections}{opened}, 32, "... its 32 connections, the probe's not among them");

# no load: it measures what a plain -R 50 run does
my $plain = run_json("-R 50 -c 1 -d 3 '$url'");
my $quiet = run_json("-R 5 -c 1 -d 3 --probe 50 '$url'");
my ($a, $b) = ($plain && $plain->{latency_ms}{p50}, $quiet && $quiet->{probe}{latency_ms}{p50});
ok($a && $b && $b < 3 * $a + 0.2 && $a < 3 * $b + 0.2,
   "with no load, the probe's p50 ($b ms) is a plain -R 50 run's ($a ms), within noise");

# the text report says it; -n ends the probe with the load
my $t0 = time;
my $text = `$hxload -n 2000 -c 4 --probe 20 '$url' 2>&1`;
like($text, qr/^probe +20 req\/s on its own connection, beside the load: \d+ requests, 0 errors; latency p50 [\d.]+/m,
     'the text report has the probe line');
ok(time - $t0 < 8, sprintf('-n 2000: the probe stopped with the load (%.1f s, not -d\'s 10)', time - $t0));

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
