#!/usr/bin/perl
# hxload compare on 12 recorded identical runs (tests/data/compare, made by its record script): how often it calls runs of one setting different, one run a side and three, must stay at 5 % or under.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
# WHY a sample under a sanitizer: 166 compares cost 6 s plain but over a
# minute there (1 in 6: 11 s, and CI is at its limit); the sample runs the
# same code, the rates are the plain run's
my $sample = `nm -D $hxload 2>/dev/null` =~ /__(?:asan|tsan)_init/ ? 20 : 1;
my $data = "$FindBin::Bin/../data/compare";
my $dir = tempdir(CLEANUP => 1);
my @runs = map { my $f = "$dir/" . ($_ =~ s{.*/|\.xz$}{}gr); system("xz -dc $_ > $f") == 0 or BAIL_OUT("xz: $_"); $f }
    sort glob("$data/run*.json.xz");
is(scalar @runs, 12, '12 recorded runs of one setting');

# the verdicts that say the setting changed something
my %change = map { $_ => 1 } ('faster', 'slower', 'higher', 'lower', 'more server CPU', 'less server CPU');

sub verdicts {
    # WHY no shell: one exec a compare, not two
    open(my $fh, '-|', $hxload, 'compare', '--json', map { split / / } @_) or BAIL_OUT("$hxload: $!");
    my $out = do { local $/; <$fh> };
    close $fh;
    my $j = eval { decode_json($out) } or BAIL_OUT("compare @_: $out");
    return ($j, [ map { $j->{metrics}{$_}{verdict} } sort keys %{ $j->{metrics} } ]);
}

# 1 vs 1: all 66 pairs; WHY --resamples 500: the intervals come from the
# resamples' standard error, which 500 hold as well as 2000, in a quarter
# of the time
my ($pairs, $flagged, $differ, $noted, $nth) = (0, 0, 0, 0, 0);
for my $i (0 .. $#runs) {
    for my $k ($i + 1 .. $#runs) {
        next if $nth++ % $sample;
        my ($j, $v) = verdicts('--resamples 500', $runs[$i], $runs[$k]);
        $pairs++;
        $flagged++ if grep { $change{$_} } @$v;
        $differ++ if grep { $_ eq 'runs differ' } @$v;
        $noted++ if ($j->{run_noise} // "") eq "unknown";
    }
}
is($noted, $pairs, "1 vs 1: every answer says the run-to-run noise is unknown");
ok($flagged <= 0.05 * $pairs || $sample > 1, "1 vs 1: $flagged of $pairs identical pairs called a change of setting "
   . "($differ had runs that differ beyond their own seconds)");

# 3 vs 3: disjoint triples drawn by a fixed generator (as a user who
# alternates the settings would have them), 100 pairs of them
my ($seed, $triples, $tflagged, %fig) = (43, 0, 0);
sub draw { $seed = ($seed * 1103515245 + 12345) % 2**31; return $seed % $_[0] }
for my $n (1 .. 100) {
    my @p = @runs;
    for (my $i = $#p; $i > 0; $i--) { my $k = draw($i + 1); @p[$i, $k] = @p[$k, $i] }
    next if $n % $sample;
    my ($j, $v) = verdicts(@p[0 .. 2], 'vs', @p[3 .. 5]);
    $triples++;
    my @f = grep { $change{ $j->{metrics}{$_}{verdict} } } keys %{ $j->{metrics} };
    $tflagged++ if @f;
    $fig{$_}++ for @f;
    is($j->{run_noise} // "", "estimated", '3 vs 3: the run-to-run noise estimated') if $triples == 1;
}
diag("under a sanitizer: 1 pair in $sample, the rates not asserted") if $sample > 1;
ok($tflagged <= 0.05 * $triples || $sample > 1, "3 vs 3: $tflagged of $triples pairs of identical triples flagged on some figure"
   . (%fig ? ' (' . join(', ', map { "$_ $fig{$_}" } sort keys %fig) . ')' : ''));
done_testing();
