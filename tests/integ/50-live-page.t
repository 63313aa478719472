#!/usr/bin/perl
# The live page in headless Chromium on a server that has served for 35 s: at least 30 s of history at once (/history.json, 10 minutes kept), the rates, generation quantiles and a hover tooltip that hold the server's numbers, columns that say their window, no request leaving the page.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use Time::HiRes qw(sleep);
use HxTest;

my ($bin) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
plan skip_all => 'no chromium (scripts/deps test installs it)' unless $bin;

my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $sport = free_port();
my $port = start_hx('-t', '1', '--stats', "127.0.0.1:$sport");
my $dir = tempdir(CLEANUP => 1);

# WHY 35 s: the page must show 30 s of history the moment it opens; 50
# requests a second of 2 ms each, the generation time the server measures
system("$hxload -q -R 50 -c 2 -d 35 'http://127.0.0.1:$port/?s=1k&t=2' >/dev/null 2>&1");
is($? >> 8, 0, 'a 35 s load ran');

my $h = eval { decode_json(`curl -s --max-time 5 http://127.0.0.1:$sport/history.json`) } // {};
my @s = @{ $h->{samples} // [] };
ok(@s >= 30 && $h->{keep} == 600, scalar(@s) . ' samples kept, one a second (600 at most: 10 minutes)');
my ($h1) = grep { $h->{protocols}[$_] eq 'h1' } 0 .. $#{ $h->{protocols} // [] };
my @busy = grep { $_->{rps}[$h1] > 30 && $_->{rps}[$h1] < 70 } @s;
ok(@busy >= 25, scalar(@busy) . ' of them at about 50 h1 requests a second');
my @gen = grep { $_->{gen} && $_->{gen}[0] > 0 && $_->{gen}[0] <= $_->{gen}[1] } @s;
ok(@gen >= 25, 'each busy second has its generation p50 and p99 (' . scalar(@gen) . ')');
my $since = $s[-3]{t};
my $later = eval { decode_json(`curl -s --max-time 5 'http://127.0.0.1:$sport/history.json?since=$since'`) } // {};
ok(@{ $later->{samples} // [] } >= 2 && $later->{samples}[0]{t} > $since, '?since= gives only what came after');

my ($dom, $out, $png) = chromium("http://127.0.0.1:$sport/#probe", 4000, "$dir/live.png");
my ($span) = $dom =~ /charts: the last (\d+) s/;
ok(($span // 0) >= 30, 'right after it opened, the page shows the last ' . ($span // '?') . ' s');
my @all = $dom =~ /<i data-series="all" data-x="(-?[\d.]+)" data-value="([\d.]+)"/g;
ok(@all / 2 >= 30, 'its requests-per-second chart has ' . (@all / 2) . ' points of history');
my ($gm) = $dom =~ /<div id="gen-marks"[^>]*>(.*?)<\/div>/s;
my @p99 = ($gm // '') =~ /<i data-series="p99" data-x="-?[\d.]+" data-value="([\d.]+)"/g;
ok(@p99 >= 25 && !grep({ $_ <= 0 } @p99), 'the generation chart: a p99 each second (' . scalar(@p99) . ')');
like($dom, qr/<th>req\/s \(last second\)<\/th><th>req\/s \(last minute\)<\/th>/, 'the table\'s columns say their window');
like($dom, qr/generation time, last minute: p50 <span id="gen-p50">[\d.]+<\/span> ms/, '... and so does the generation time');
my ($b0) = $dom =~ /thread 0 <span id="busy-0">(\d+)<\/span> %, (\d+)/;
ok(defined $b0 && $b0 <= 100, "the worker's busy share from two reads: " . ($b0 // '-') . ' % (0 to 100)');
my ($tip) = $dom =~ /<canvas id="rps"[^>]*data-tooltip="([^"]*)"/;
like($tip // '', qr/^-?[\d.]+ s \| h1: [\d.]+ \/s$/, "hovering the last h1 point: '" . ($tip // '') . "'");
is($out, 0, 'no request left the page');
ok(-s $png, 'a screenshot was taken');
system("cp $png /tmp/hxterm-live.png") if $ENV{HX_KEEP_SHOTS};

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
