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
my $data = "$FindBin::Bin/../data/compare";
my $dir = tempdir(CLEANUP => 1);
my @runs = map { my $f = "$dir/" . ($_ =~ s{.*/|\.xz$}{}gr); system("xz -dc $_ > $f") == 0 or BAIL_OUT("xz: $_"); $f }
    sort glob("$data/run*.json.xz");
is(scalar @runs, 12, '12 recorded runs of one setting');

# the verdicts that say the setting changed something
my %change = map { $_ => 1 } ('faster', 'slower', 'higher', 'lower', 'more server CPU', 'less server CPU');

sub verdicts {
    my $out = `$hxload compare --json @_ 2>&1`;
    my $j = eval { decode_json($out) } or BAIL_OUT("compare @_: $out");
    return ($j, [ map { $j->{metrics}{$_}{verdict} } sort keys %{ $j->{metrics} } ]);
}

# 1 vs 1: all 66 pairs; WHY --resamples 500: the intervals come from the
# resamples' standard error, which 500 hold as well as 2000, in a quarter
# of the time
my ($pairs, $flagged, $differ, $noted) = (0, 0, 0, 0);
for my $i (0 .. $#runs) {
    for my $k ($i + 1 .. $#runs) {
        my ($j, $v) = verdicts('--resamples 500', $runs[$i], $runs[$k]);
        $pairs++;
        $flagged++ if grep { $change{$_} } @$v;
        $differ++ if grep { $_ eq 'runs differ' } @$v;
        $noted++ if ($j->{run_noise} // "") eq "unknown";
    }
}
is($noted, $pairs, "1 vs 1: every answer says the run-to-run noise is unknown");
ok($flagged <= 0.05 * $pairs, "1 vs 1: $flagged of $pairs identical pairs called a change of setting "
   . "($differ had runs that differ beyond their own seconds)");

# 3 vs 3: disjoint triples drawn by a fixed generator (as a user who
# alternates the settings would have them), 100 pairs of them
my ($seed, $triples, $tflagged, %fig) = (43, 0, 0);
sub draw { $seed = ($seed * 1103515245 + 12345) % 2**31; return $seed % $_[0] }
for (1 .. 100) {
    my @p = @runs;
    for (my $i = $#p; $i > 0; $i--) { my $k = draw($i + 1); @p[$i, $k] = @p[$k, $i] }
    my ($j, $v) = verdicts(@p[0 .. 2], 'vs', @p[3 .. 5]);
    $triples++;
    my @f = grep { $change{ $j->{metrics}{$_}{verdict} } } keys %{ $j->{metrics} };
    $tflagged++ if @f;
    $fig{$_}++ for @f;
    is($j->{run_noise} // "", "estimated", '3 vs 3: the run-to-run noise estimated') if $triples == 1;
}
ok($tflagged <= 0.05 * $triples, "3 vs 3: $tflagged of $triples pairs of identical triples flagged on some figure"
   . (%fig ? ' (' . join(', ', map { "$_ $fig{$_}" } sort keys %fig) . ')' : ''));
done_testing();
