#!/usr/bin/perl
# The saturation guard: a 1-thread hxterm's busy share and run queue on /metrics and /stats.json (0 to 1); hxload ab through HAProxy with --backend-stats marking a round where the backend was saturated void (16-byte writes, closed loop) and an unsaturated one (t=2 waits) not; find's saturated step void, no bound moved.
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
plan skip_all => 'no haproxy' unless -x '/usr/sbin/haproxy';
my $sport = free_port();
my $port = start_hx('-t', '1', '--stats', "127.0.0.1:$sport");
my $stats = "http://127.0.0.1:$sport/stats.json";
my $hp = free_port();
ok(haproxy_http($dir, $hp, $port), 'haproxy is up');

my $m = `curl -s --max-time 5 http://127.0.0.1:$sport/metrics`;
my ($busy) = $m =~ /^hxterm_thread_busy_seconds_total\{thread="0"\} ([\d.]+)$/m;
my ($rq) = $m =~ /^hxterm_thread_run_queue\{thread="0"\} (\d+)$/m;
my ($cpu) = $m =~ /^hxterm_thread_cpu_seconds_total\{thread="0"\} ([\d.]+)$/m;
ok(defined $busy && defined $rq && defined $cpu,
   "/metrics: thread 0 busy " . ($busy // '-') . " s, CPU " . ($cpu // '-') . " s, run queue " . ($rq // '-'));
ok($m =~ /# TYPE hxterm_thread_busy_seconds_total counter/ && $m =~ /# TYPE hxterm_thread_run_queue gauge/,
   '... a counter and a gauge');

# WHY 16-byte writes (p=16): a thousand send() calls a response cost the
# server far more than the client or HAProxy, which read them in bulk
my $q = 's=16k&p=16';
my $out = `timeout 60 $hxload ab --rounds 2 --closed -d 1 -c 16 --backend-stats $stats --keep $dir/sat --html $dir/ab.html 'http://127.0.0.1:$port/?$q' 'http://127.0.0.1:$hp/?$q' 2>$dir/err`;
is($? >> 8, 1, 'saturated: exit 1 (rounds left out)') or diag(`cat $dir/err`);
like($out, qr/^round \d+ +backend saturated: void \(thread 0 busy \d+ % > 80 %\) in [AB]\d/m, 'the text marks the round void');
like($out, qr/^verdict: backend saturated: void in \d of 2 rounds/m, '... and the verdict blames the backend') or diag($out);
my $html = do { local $/; open my $f, '<', "$dir/ab.html" or die; <$f> };
ok($html =~ /"void_rounds": [12]/ && $html =~ /backend-void/, 'the page carries the void rounds and says so');
my ($nv) = $html =~ /"void_rounds": (\d)/;
my $again = eval { decode_json(`$hxload ab --json --from $dir/sat http://a/ http://b/ 2>/dev/null`) } // {};
is($again->{backend}{void_rounds} // -1, $nv, "--from the kept runs: the same $nv void round(s) (a1.backend ...)");
$again = eval { decode_json(`$hxload ab --json --from $dir/sat --backend-busy 100 http://a/ http://b/ 2>/dev/null`) } // {};
is($again->{backend}{void_rounds} // -1, 0, '... none against --backend-busy 100');

# find: its first step saturates the backend (straight at it: the void, not the proxy, is what is checked here)
my $f = eval { decode_json(`timeout 30 $hxload find --json --slo 'p99<50ms' --start 20000 --step-duration 1 --step-warmup 0 --max-steps 3 -c 32 --keep $dir/find --backend-stats $stats 'http://127.0.0.1:$port/?$q' 2>$dir/err3`) } // {};
my $st = ($f->{steps} // [])->[0] // {};
is($st->{verdict} // '', 'backend saturated: void', 'find: the step is void (' . ($st->{why} // '-') . ')') or diag(`cat $dir/err3`);
ok(($f->{bound} // '') eq 'backend' && !$f->{held_rps} && !$f->{missed_rps} && @{ $f->{steps} // [] } == 1,
   '... no bound moved, the search ended there');

my $s1 = eval { decode_json(`curl -s --max-time 5 $stats`) } // {};
my $j = eval { decode_json(`timeout 60 $hxload ab --json --rounds 2 -R 50 -c 2 -d 1 --keep $dir/unsat --backend-stats $stats 'http://127.0.0.1:$port/?t=2' 'http://127.0.0.1:$hp/?t=2' 2>$dir/err2`) } // {};
is($? >> 8, 0, 'unsaturated (t=2 waits): exit 0') or diag(`cat $dir/err2`);
my $b = $j->{backend} // {};
is($b->{void_rounds} // -1, 0, 'no round void');
my @sh = map { ($_->{a_busy}, $_->{b_busy}) } @{ $b->{rounds} // [] };
ok(@sh == 4 && !grep({ $_ < 0 || $_ > 0.5 } @sh), 'each run\'s busiest worker under half busy: ' . join(' ', @sh));
unlike($j->{verdict} // '', qr/saturated/, 'the verdict is on the proxy');

my $s2 = eval { decode_json(`curl -s --max-time 5 $stats`) } // {};
my ($w1, $w2) = ($s1->{per_thread}[0] // {}, $s2->{per_thread}[0] // {});
my $wall = (($s2->{uptime_s} // 0) - ($s1->{uptime_s} // 0)) || 1;
my $share = (($w2->{busy_s} // -1) - ($w1->{busy_s} // 0)) / $wall;
my $cshare = (($w2->{cpu_s} // -1) - ($w1->{cpu_s} // 0)) / $wall;
ok($share >= 0 && $share <= 1 && $cshare >= 0 && $cshare <= 1,
   sprintf('/stats.json: busy share %.3f, CPU share %.3f over the unsaturated runs (0 to 1)', $share, $cshare));
ok(defined $w2->{run_queue} && $w2->{run_queue} >= 0, "... its run queue: " . ($w2->{run_queue} // '-'));
# bad input
for my $bad (["ab --backend-busy 0 http://a/ http://b/", 'a percentage, 1 to 100'],
             ["ab --backend-stats 127.0.0.1:9 http://a/ http://b/", 'http://HOST:PORT/stats.json'],
             ["find --slo p99\\<1ms --backend-busy 101 http://a/", 'a percentage, 1 to 100'],
             ["find --slo p99\\<1ms --backend-stats ftp://x/ http://a/", 'http://HOST:PORT/stats.json']) {
    my $e = `$hxload $bad->[0] 2>&1 >/dev/null`;
    ok($? >> 8 == 2 && index($e, $bad->[1]) >= 0, "hxload $bad->[0]: exit 2, says '$bad->[1]'") or diag($e);
}
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
