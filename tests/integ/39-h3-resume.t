#!/usr/bin/perl
# hxload's HTTP/3 sessions: --close resumes them, --0rtt sends a resumed connection's request in 0-RTT and hxterm (--early-data) answers it as early (its counter of early=1 requests), a server that refuses 0-RTT gets the requests again after the handshake, all answered.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use JSON::PP;
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';

# one run: its JSON report and exit code
sub run {
    my ($args) = @_;
    my $tls = hx_tls_port();
    my $out = `timeout 60 $hxload -q --json --h3 -c 1 -n 50 --close $args 'https://127.0.0.1:$tls/?s=100' 2>&1`;
    my ($line) = grep { /^\{"hxload"/ } split /\n/, $out;
    return (eval { decode_json($line // '') } // {}, $? >> 8, $out);
}

sub early_requests {
    my ($sp) = @_;
    my ($n) = `curl -s http://127.0.0.1:$sp/metrics` =~ /^hxterm_early_requests_total\{proto="h3"\} (\d+)$/m;
    return $n // -1;
}

my $sp = free_port();
start_hx('-tls', '-t', '1', '--early-data', '--stats', "127.0.0.1:$sp");
my ($r, $rc) = run('');
my $c = $r->{connections} // {};
ok($rc == 0 && ($r->{requests} // 0) == 50, '--close --h3: 50 requests, 50 connections');
ok(($c->{resumed} // 0) >= 45, "... $c->{resumed} of them resumed (at least 90 %)");
is(early_requests($sp), 0, '... none in 0-RTT without --0rtt');
($r, $rc) = run('--no-resume');
is($r->{connections}{resumed} // -1, 0, '--no-resume: none resumed');

($r, $rc) = run('--0rtt');
$c = $r->{connections} // {};
ok($rc == 0 && ($r->{requests} // 0) == 50 && !($r->{errors_total} // 1), '--0rtt: 50 requests answered, no error');
ok(($c->{early} // 0) >= 45 && !($c->{early_rejected} // 1),
   "... 0-RTT taken on $c->{early} connections (at least 90 %), refused on none");
my $e = early_requests($sp);
ok($e >= $c->{early}, "... hxterm answered $e requests as early (early=1 in X-rsp), one a connection");
is(stop_hx(), 0, 'hxterm stops cleanly');

# a server that takes no early data: the requests go again after the handshake
start_hx('-tls', '-t', '1', '--stats', "127.0.0.1:$sp");
($r, $rc, my $out) = run('--0rtt');
$c = $r->{connections} // {};
ok($rc == 0 && ($r->{requests} // 0) == 50 && !($r->{errors_total} // 1), 'no --early-data: 50 requests answered, no error')
    or diag($out);
ok(($c->{early_rejected} // 0) >= 45 && !$c->{early}, "... 0-RTT refused on $c->{early_rejected} connections, taken on none");
is(early_requests($sp), 0, '... and none answered as early');
is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
