#!/usr/bin/perl
# hxload --hlog FILE: HdrHistogram's interval log, read back by Debian's libhdrhistogram-java (HistogramLogProcessor): one line an interval, the same count, percentiles and maximum as hxload's own report, the server part under its tag.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use HxTest;

my $jar = '/usr/share/java/hdrhistogram.jar';
plan skip_all => 'needs java and libhdrhistogram-java' unless -r $jar && `sh -c 'command -v java'`;

my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $dir = tempdir(CLEANUP => 1);
my $port = start_hx('-t', '1');
my $url = "http://127.0.0.1:$port/?t=2&s=100";

my $json = `$hxload -q -R 300 -c 4 -d 3 --hlog $dir/run.hlog --json '$url'`;
is($? >> 8, 0, 'the run ends well');
my $j = decode_json($json);
my $lat = $j->{latency_ms};

# the file as HdrHistogram's tools expect it
open my $f, '<', "$dir/run.hlog" or die "no hlog: $!";
my @lines = <$f>;
close $f;
my ($start) = map { /^#\[StartTime: ([\d.]+) / ? $1 : () } @lines;
ok(defined $start && abs($start - $j->{start}) < 0.01, "its StartTime is the window's start ($start)");
ok((grep { /^#\[Histogram log format version 1\.3\]$/ } @lines), 'the format version 1.3');
my @plain = grep { /^\d+\.\d+,\d+\.\d+,\d+\.\d+,HISTF/ } @lines;
is(scalar @plain, scalar @{ $j->{intervals} }, 'one untagged line an interval (' . scalar(@plain) . ')');
is(scalar(grep { /^Tag=server,/ } @lines), scalar @plain, '... and one tagged server each');

# the distribution, as HistogramLogProcessor prints it: values in ms
sub processor {
    my @tag = @_ ? ('-tag', @_) : ();
    my $out = `java -cp $jar org.HdrHistogram.HistogramLogProcessor -i $dir/run.hlog @tag 2>&1`;
    my %d = (out => $out);
    ($d{count}) = $out =~ /Total count\s*=\s*(\d+)/;
    ($d{max}) = $out =~ /#\[Max\s*=\s*([\d.]+)/;
    ($d{mean}) = $out =~ /#\[Mean\s*=\s*([\d.]+)/;
    for (split /\n/, $out) {
        next unless /^\s*([\d.]+)\s+([\d.]+)\s+\d+/;
        my ($v, $q) = ($1, $2);
        $d{p50} //= $v if abs($q - 0.5) < 1e-9;
        $d{p90} //= $v if abs($q - 0.9) < 1e-9;
    }
    return \%d;
}
sub near { my ($a, $b, $pct) = @_; return defined $a && abs($a - $b) <= $b * $pct / 100 + 0.002 }

my $d = processor();
is($d->{count}, $j->{requests}, "HistogramLogProcessor counts the run's requests ($j->{requests})") or diag($d->{out});
ok(near($d->{p50}, $lat->{p50}, 1), "its p50 is hxload's ($d->{p50} ~ $lat->{p50} ms)");
ok(near($d->{p90}, $lat->{p90}, 1), "its p90 is hxload's ($d->{p90} ~ $lat->{p90} ms)");
ok(near($d->{max}, $lat->{max}, 1), "its maximum is hxload's ($d->{max} ~ $lat->{max} ms)");
ok(near($d->{mean}, $lat->{mean}, 2), "its mean is hxload's within its buckets ($d->{mean} ~ $lat->{mean} ms)");
my $s = processor('server');
is($s->{count}, $j->{requests}, 'the server tag: every request');
ok(near($s->{p50}, $j->{server_ms}{p50}, 1), "... its p50 is hxload's server p50 ($s->{p50} ~ $j->{server_ms}{p50} ms)");
ok($s->{p50} < $d->{p50}, '... under the latency');

my $o = `$hxload -q -n 1 --hlog /nonexistent/dir/x.hlog '$url' 2>&1`;
ok(($? >> 8) == 2 && $o =~ m{--hlog: cannot create '/nonexistent/dir/x.hlog'}, 'an unwritable file: one line, exit 2') or diag($o);

done_testing();
