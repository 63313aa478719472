#!/usr/bin/perl
# hxload compare and --server-pid: runs of known different rates (1600 a second with t=10 against 400 with t=40) told apart with the right sign over three runs a side, one run a side only called runs that differ, runs of the same setting called indistinguishable, the server's CPU per request and per MiB measured and compared, and bad input refused.
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
my $port = start_hx('-t', '1');
my $pid = hx_pid();

sub run {
    my ($name, $args) = @_;
    # WHY exit 1 too: a stall of a shared machine can leave a few due
    # requests unsent (1.9 % once here), which the run says and compare
    # does not mind: the rate is still set by -R
    my $rc = system("timeout 60 $hxload -q --json -c 80 -d 2 --server-pid $pid $args > $dir/$name.json 2>$dir/err") >> 8;
    $rc <= 1 or BAIL_OUT("hxload failed: " . `cat $dir/err`);
    my ($last) = grep { /^\{"hxload"/ } split /\n/, do { local (@ARGV, $/) = ("$dir/$name.json"); <> };
    return decode_json($last);
}

sub compare {
    my ($args) = @_;
    my $out = `$hxload compare --json $args 2>&1`;
    return ($? >> 8, $out =~ /^\{/ ? decode_json($out) : undef, $out);
}

# WHY open loop at 1600 and 400 a second, t=10 against t=40: the rate and
# the server's time are set by the load and the query, not by the machine's
# noise (closed-loop runs of t=20 here moved by 40 % while eight jobs
# shared two cores); a quarter, not a half: under ASan and that load an
# open-loop run that stalled left a half's interval holding 0 (-76 to +14 %);
# each run costs the server more than one 10 ms tick of /proc/PID/stat, so
# it has a CPU figure to compare. Three runs a side, alternated: compare
# calls a setting faster or slower only over runs (one run a side cannot
# tell it from the machine)
my %url = (a => "-R 1600 'http://127.0.0.1:$port/?t=10&s=1k'", b => "-R 400 'http://127.0.0.1:$port/?t=40&s=1k'");
my ($a1, $b1) = (run('a1', $url{a}), run('b1', $url{b}));
run($_, $url{ substr($_, 0, 1) }) for qw(a2 b2 a3 b3);

ok(scalar @{ $a1->{intervals} } >= 2, '--json carries the intervals (' . scalar(@{ $a1->{intervals} }) . ')');
my $iv = $a1->{intervals}[0];
ok(defined $iv->{latency}{buckets} && $iv->{requests} > 0, '... each with its requests and latency histogram');
ok($a1->{server_cpu}{us} > 0 && $a1->{server_cpu}{us_per_request} > 0 && $a1->{server_cpu}{us_per_mib} > 0,
   "--server-pid: the server's CPU in the window ($a1->{server_cpu}{us} us, "
   . sprintf('%.1f us per request)', $a1->{server_cpu}{us_per_request}));
my $sum = 0;
$sum += $_->{server_cpu_us} for @{ $a1->{intervals} };
is($sum, $a1->{server_cpu}{us}, '... the intervals\' CPU adds up to the run\'s');

my ($rc, $j, $out) = compare("$dir/a1.json $dir/b1.json");
my $text;
is($rc, 0, 'compare A B: exit 0');
my $r = $j->{metrics}{requests_per_second};
is($j->{unit}, 'intervals', '... one run a side: resampling its intervals');
is($j->{run_noise}, 'unknown', '... the run-to-run noise said unknown');
# WHY either: two seconds a run leave an interval as wide as the machine's
# noise makes it; what one run a side must never say is "slower"
ok($r->{verdict} =~ /^(?:runs differ|no difference detectable)$/ && $r->{diff_pct} < -60 && $r->{diff_pct} > -90,
   sprintf('400 a second against 1600: %s, %.1f %% (95 %% CI %.1f to %.1f), no claim on the setting',
           $r->{verdict}, $r->{diff_pct}, $r->{ci_lo_pct}, $r->{ci_hi_pct}));
ok($j->{figures} >= 10 && abs($j->{level_each} - (100 - 5 / $j->{figures})) < 1e-3,
   "... the 95 % shared by the $j->{figures} figures (each $j->{level_each} %)");
ok($j->{metrics}{server_cpu_us_per_request}, '... the server CPU per request compared too');
$text = `$hxload compare $dir/a1.json $dir/b1.json`;
like($text, qr/^one run a side: how much runs of one setting differ cannot be estimated/m, '... and the text says so');
like($text, qr/^verdict: (?:B's run was \d+\.\d % slower than A's .*may be the machine, not the setting|no difference in throughput detectable .*)\n\z/m,
     '... its verdict line claims no slower setting');
my $ab = "$dir/a1.json $dir/a2.json $dir/a3.json vs $dir/b1.json $dir/b2.json $dir/b3.json";
($rc, $j) = compare($ab);
$r = $j->{metrics}{requests_per_second};
ok($j->{a}{runs} == 3 && $j->{b}{runs} == 3 && $j->{unit} eq 'runs' && $j->{run_noise} eq 'estimated'
   && $r->{verdict} eq 'slower', sprintf('three runs a side (vs): over the runs, slower (%.1f %%, CI %.1f to %.1f)',
   $r->{diff_pct}, $r->{ci_lo_pct}, $r->{ci_hi_pct}));
is($j->{metrics}{p50_ms}{verdict}, 'higher', '... and its p50 higher');
($rc, $j) = compare("$dir/b1.json $dir/b2.json $dir/b3.json vs $dir/a1.json $dir/a2.json $dir/a3.json");
is($j->{metrics}{requests_per_second}{verdict}, 'faster', 'the other way round: faster');
($rc, $j) = compare("$dir/a1.json vs $dir/b1.json $dir/b2.json");
ok($j->{metrics}{requests_per_second}{df} == 1 && $j->{metrics}{requests_per_second}{ci_lo_pct} < $j->{metrics}{requests_per_second}{diff_pct},
   'one run against two: B\'s spread lent to A, 1 degree of freedom');
($rc, $j, $out) = compare("--level 99 $dir/a1.json $dir/a2.json");
$r = $j->{metrics}{requests_per_second};
like($r->{verdict}, qr/^(?:no difference detectable|within noise|runs differ)$/,
   sprintf('the same setting twice: %s (%.2f %%, 99 %% CI %.2f to %.2f)', $r->{verdict}, $r->{diff_pct}, $r->{ci_lo_pct}, $r->{ci_hi_pct}));
($rc, $j) = compare("--noise 100 $ab");
ok($j->{noise_pct} == 100 && $j->{metrics}{requests_per_second}{verdict} eq 'within noise',
   '--noise 100: a quarter of the rate is within noise');
($rc, $j) = compare("--noise 0 $ab");
is($j->{metrics}{requests_per_second}{verdict}, 'slower', '--noise 0: slower again');
$text = `$hxload compare --noise 100 $ab`;
like($text, qr/^verdict: B differs from A by -\d+\.\d % \(95 % CI [-+\d.]+ to [-+\d.]+ %\), within the 100 % noise \(--noise\)\n\z/m,
     '... and the text says so');
$text = `$hxload compare $ab`;
like($text, qr/^verdict: B is \d+\.\d % slower than A \(95 % CI/m, "the text ends with one verdict line");
like($text, qr/over the runs: Welch's t/m, '... and says the runs were the units');

# run-level units: merged files have no intervals
system("$hxload merge --json $dir/$_.json > $dir/m$_.json") for qw(a1 a2 a3 b1 b2 b3);
($rc, $j) = compare("$dir/ma1.json $dir/ma2.json $dir/ma3.json vs $dir/mb1.json $dir/mb2.json $dir/mb3.json");
ok($rc == 0 && $j->{unit} eq 'runs' && $j->{metrics}{requests_per_second}{verdict} eq 'slower',
   'runs without intervals (merged): the runs are the units, slower');
($rc, $j, $out) = compare("$dir/ma1.json $dir/mb1.json");
is($rc, 2, 'one run a side without intervals: refused, exit 2');
like($out, qr/needs two intervals or runs/, "... saying why: " . ($out =~ s/\s+$//r));
{
    # a histogram whose buckets do not add up to its n: refused, not read
    # with samples missing (merge stops at the max's bucket)
    my $t = do { local (@ARGV, $/) = ("$dir/a1.json"); <> };
    $t =~ s/("histograms": \{"latency": \{"n": )(\d+)/$1 . ($2 + 1)/e or BAIL_OUT('no latency histogram');
    open(my $fh, '>', "$dir/bad.json") or die;
    print $fh $t;
    close $fh;
    ($rc, $j, $out) = compare("$dir/bad.json $dir/a2.json $dir/a3.json vs $dir/b1.json");
    ok($rc == 2 && $out =~ /bad\.json': not an hxload --json result/, 'a histogram whose buckets miss a sample: refused, named');
}
($rc, $j, $out) = compare("$dir/a1.json");
is($rc, 2, 'one file: usage, exit 2');
($rc, $j, $out) = compare("$dir/a1.json $dir/nothing.json");
like($out, qr/cannot read/, 'a missing file named');
($rc, $j, $out) = compare("--level 20 $dir/a1.json $dir/b1.json");
is($rc, 2, '--level 20 refused');
($rc, $j, $out) = compare("--noise 150 $dir/a1.json $dir/b1.json");
ok($rc == 2 && $out =~ /--noise '150': a percentage, 0 to 100/, '--noise 150 refused, its range named');
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
