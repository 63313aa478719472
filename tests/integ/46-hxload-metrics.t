#!/usr/bin/perl
# hxload --metrics ADDR: while it runs, its figures in Prometheus text (read by python3-prometheus-client's parser), growing from scrape to scrape; the port closed once the run is done; a bad or taken address refused.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use IO::Socket::INET;
use Test::More;
use Time::HiRes qw(sleep time);
use HxTest;

my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $port = start_hx('-t', '1');
my $mp = free_port();

my $kid = fork // die;
if (!$kid) {
    open STDOUT, '>', '/dev/null';
    exec $hxload, '-q', '-R', '200', '-d', '5', '--metrics', "127.0.0.1:$mp", "http://127.0.0.1:$port/?s=10";
    exit 127;
}

# the families and values, as Prometheus's own parser reads them
sub scrape {
    my $out = `curl -s --max-time 3 http://127.0.0.1:$mp/metrics | /usr/bin/python3 -c '
import sys
from prometheus_client.parser import text_string_to_metric_families
for f in text_string_to_metric_families(sys.stdin.read()):
    for s in f.samples:
        q = s.labels.get("quantile")
        print(f.type, s.name + ("/" + q if q else ""), s.value)
' 2>&1`;
    my %v = map { my @w = split; ($w[1] => [ $w[0], $w[2] ]) } grep { /^\w+ \S+ \S+$/ } split /\n/, $out;
    return (\%v, $out);
}

# <bytes> sent raw to the metrics port: what came back
sub raw_metrics {
    my $s = IO::Socket::INET->new("127.0.0.1:$mp") or return '';
    print $s $_[0];
    my ($buf) = read_all($s, 3);
    return $buf;
}

sleep 2.5;
# twenty idle clients hold connections to the port: the scrape is answered beside them
my @idle = grep defined, map { IO::Socket::INET->new("127.0.0.1:$mp") } 1 .. 20;
is(scalar @idle, 20, '20 idle connections to the metrics port');
my $t0 = time;
my ($a, $raw) = scrape();
my $ta = time;
my $dt = $ta - $t0;
ok($dt < 2, sprintf('... a scrape beside them answered at once (%.2f s)', $dt));
ok($a->{hxload_requests_total} && $a->{hxload_requests_total}[0] eq 'counter', 'requests: a counter') or diag($raw);
ok($a->{hxload_requests_total} && $a->{hxload_requests_total}[1] >= 150 && $a->{hxload_requests_total}[1] <= 500,
   'about 200 a second of the window so far (' . ($a->{hxload_requests_total} ? $a->{hxload_requests_total}[1] : '?') . ')');
ok($a->{hxload_errors_total} && $a->{hxload_errors_total}[1] == 0, 'no error');
ok($a->{hxload_target_requests_per_second} && $a->{hxload_target_requests_per_second}[0] eq 'gauge'
   && $a->{hxload_target_requests_per_second}[1] == 200, 'the target rate, a gauge');
ok($a->{'hxload_latency_seconds/0.99'} && $a->{'hxload_latency_seconds/0.99'}[0] eq 'summary'
   && $a->{'hxload_latency_seconds/0.99'}[1] > 0 && $a->{'hxload_latency_seconds/0.99'}[1] < 1,
   'latency: a summary with a p99 in seconds');
# bad input: one answer each, at once, what the server's stats port answers
for my $case (["\x16\x03\x01\x02\x00\x01", 400, 'a TLS hello'], ["get /metrics HTTP/1.1\r\n\r\n", 405, 'a lowercase get'],
              ["DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 405, 'DELETE'],
              ["GET /metrics HTTP/1.1\r\nX: " . ('a' x 9000) . "\r\n\r\n", 431, 'a 9 KB head']) {
    like(raw_metrics($case->[0]), qr{^HTTP/1\.1 $case->[1] [^\r]*\r\n.*\r\n\r\n[^\n]+\n\z}s,
         "metrics port, $case->[2]: $case->[1] with a one-line reason");
}
like(raw_metrics("GET http://x/metrics HTTP/1.1\r\n\r\n"), qr{^HTTP/1\.1 200 .*^hxload_requests_total \d}ms,
     'metrics port, absolute-form: the page');
close $_ for @idle;
# WHY counted from the first scrape: the run lasts 5 s, what came between used some of it
sleep(1.5 - (time - $ta)) if time - $ta < 1.5;
my ($b) = scrape();
ok($b->{hxload_requests_total} && $b->{hxload_requests_total}[1] > $a->{hxload_requests_total}[1],
   'a later scrape: more requests (' . ($b->{hxload_requests_total} ? $b->{hxload_requests_total}[1] : '?') . ')');
ok($b->{hxload_latency_seconds_count} && $b->{hxload_latency_seconds_count}[1] == $b->{hxload_requests_total}[1],
   '... the latency count is the requests');
waitpid($kid, 0);
is($? >> 8, 0, 'the run ends well');
ok(!IO::Socket::INET->new("127.0.0.1:$mp"), 'its metrics port is closed after it');

my $o = `$hxload --metrics nowhere 'http://127.0.0.1:$port/' 2>&1`;
ok(($? >> 8) == 2 && $o =~ /--metrics 'nowhere': expected HOST:PORT/, 'a bad address: refused') or diag($o);
my $hold = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0) or die;
$o = `$hxload --metrics 127.0.0.1:${\ $hold->sockport} -n 5 'http://127.0.0.1:$port/' 2>&1`;
ok(($? >> 8) == 2 && $o =~ /--metrics: cannot listen there/, 'a port another socket has: refused') or diag($o);
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
