#!/usr/bin/perl
# hxload --shard I/N and --shards N (JOB_COMPLETION_INDEX): shards started together take every N-th send time of one schedule; hxload merge of them is the whole run (due, sent, answered, the rate), its percentiles the pooled --log samples'; -c and -n are divided; merge adds up --handshakes' and --idle's objects.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use Time::HiRes qw(time);
use HxTest;

my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $dir = tempdir(CLEANUP => 1);
my $port = start_hx('-tls', '-t', '1');
my $url = "http://127.0.0.1:$port/?s=100";
my $at = sprintf('%.3f', time + 1.5);

# two shards side by side, one named by --shard, one by a Kubernetes Indexed Job's index
my @kids;
for my $i (0, 1) {
    my $pid = fork // die;
    if (!$pid) {
        my @shard = $i ? ('--shards', '2') : ('--shard', '0/2');
        local $ENV{JOB_COMPLETION_INDEX} = $i;
        open STDOUT, '>', "$dir/s$i.json" or die;
        exec $hxload, '-q', '--json', '-R', '400', '-d', '3', '-c', '4', '--start-at', $at, '--log', "$dir/s$i.log",
            @shard, $url;
        exit 127;
    }
    push @kids, $pid;
}
waitpid($_, 0) for @kids;
my @s = map { my $t = do { local $/; open my $f, '<', "$dir/s$_.json" or die; <$f> }; decode_json($t) } 0, 1;
for my $i (0, 1) {
    is($s[$i]{schedule}{scheduled}, 600, "shard $i: 600 of the schedule's 1,200 send times");
    is($s[$i]{connections}{opened}, 2, "shard $i: 2 of the 4 connections");
    is($s[$i]{schedule}{target_rps}, 200, "shard $i: its rate, 200 of 400");
}
my $m = decode_json(scalar `$hxload merge --json $dir/s0.json $dir/s1.json`);
is($m->{schedule}{scheduled}, 1200, 'merged: 1,200 due, the whole schedule (400/s for 3 s)');
ok($m->{schedule}{sent} == 1200 && $m->{requests} == 1200, 'merged: 1,200 sent, 1,200 answered');
is($m->{schedule}{target_rps}, 400, 'merged: the target rate 400');

# the merged percentiles are the pooled samples'
my @lat;
for my $i (0, 1) {
    open my $f, '<', "$dir/s$i.log" or die;
    while (<$f>) { push @lat, (split)[1] / 1000 }
}
@lat = sort { $a <=> $b } @lat;
is(scalar(@lat), 1200, 'the two --log files hold 1,200 samples');
for my $q ([ 'p50', 0.5 ], [ 'p99', 0.99 ]) {
    my ($name, $p) = @$q;
    my $pooled = $lat[int($p * @lat + 0.5) - 1];
    my $merged = $m->{latency_ms}{$name};
    ok(abs($merged - $pooled) <= 0.02 * $pooled + 0.01,
       sprintf('merged %s %.3f ms = the pooled samples\' %.3f ms (within the histogram\'s 1 %%)', $name, $merged, $pooled));
}

# -n divided; bad shards refused
my @n = map { decode_json(scalar `$hxload -q --json -n 1001 -c 2 --shard $_/2 '$url'`)->{requests} } 0, 1;
is_deeply(\@n, [501, 500], '-n 1001 in two shards: 501 and 500');
for ([ '--shard 2/2', 'expected I/N' ], [ '--shard 1', 'expected I/N' ], [ '--shards 3', 'JOB_COMPLETION_INDEX is not set' ],
     [ '-c 1 --shard 0/2', 'fewer connections (-c) than shards' ]) {
    my ($o, $why) = @$_;
    local $ENV{JOB_COMPLETION_INDEX};
    delete $ENV{JOB_COMPLETION_INDEX};
    my $out = `$hxload $o '$url' 2>&1`;
    ok(($? >> 8) == 2 && $out =~ /\Q$why\E/, "$o: refused ($why)") or diag($out);
}
# --handshakes and --idle side by side: merge adds their objects up (counts and histograms)
my $hs = "timeout 30 $hxload -q --json -c 1 -n 20 --handshakes 1:1:0 --idle 20 https://127.0.0.1:@{[hx_tls_port()]}/?s=100";
system("$hs >$dir/h0.json 2>/dev/null & $hs >$dir/h1.json 2>/dev/null & wait");
my @h = map { my $t = do { local $/; open my $f, '<', "$dir/h$_.json" or die; <$f> }; decode_json($t) } 0, 1;
my $hm = decode_json(scalar `$hxload merge --json --force $dir/h0.json $dir/h1.json`);
my $k = $hm->{handshakes}{kinds} // {};
is(join('/', map { $k->{$_}{asked} // -1 } qw(full resumed 0rtt)), '20/20/0', 'merged handshakes: 20 full and 20 resumed asked');
is($k->{full}{tls_ms}{n} + $k->{resumed}{tls_ms}{n}, 40, 'merged: 40 TLS times in the histograms');
my $p50 = sub { $_[0]{handshakes}{kinds}{full}{tls_ms}{p50} };
my ($lo, $hi) = sort { $a <=> $b } map { $p50->($_) } @h;
ok($p50->($hm) >= $lo * 0.98 && $p50->($hm) <= $hi * 1.02,
   sprintf 'merged full TLS p50 %.3f ms between the runs\' (%.3f, %.3f)', $p50->($hm), $lo, $hi);
my $im = $hm->{idle} // {};
ok(($im->{n} // 0) == 40 && ($im->{answered} // 0) == 40 && ($im->{held} // 0) == 40, 'merged idle: 40 opened, answered, held');
is(join(' ', map { sprintf '%.3f', $_->{kib_per_connection} } @{ $im->{rss} // [] }),
   join(' ', map { sprintf '%.3f', $_->{idle}{rss}[0]{kib_per_connection} } @h), 'merged idle: each run\'s RSS row, its own KiB');
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
