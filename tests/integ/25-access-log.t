#!/usr/bin/perl
# --access-log: one JSON line per request with the right fields on h1, h1-tls, h2c and h3, --access-log-sample, SIGHUP reopens, '-' is stdout, a bad path exits 2.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxterm = $ENV{HXTERM} // 'build/hxterm';
my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $dir = tempdir(CLEANUP => 1);
my $log = "$dir/access.log";

sub lines {
    my $f = shift;
    open my $h, '<', $f or return ();
    my @l = map { eval { decode_json($_) } // { bad => $_ } } <$h>;
    return @l;
}
sub load { system("timeout 60 $hxload -q @_ >/dev/null 2>&1") }

my $port = start_hx('-tls', '-t', '2', '--access-log', $log);
my $tls = hx_tls_port();
sleep 0.2;
my $probe = () = lines($log); # start_hx's probe sent no request: no line
load("-c 2 -n 100 'http://127.0.0.1:$port/a?s=10&t=1'");
load("-c 1 -n 30 --h1 'https://127.0.0.1:$tls/b?s=20&r=404'");
load("-c 2 -n 50 'h2c://127.0.0.1:$port/c?s=30'");
load("-c 2 -n 50 --h3 'https://127.0.0.1:$tls/d%22q?s=40'");
is(stop_hx(), 0, 'clean stop (the buffers are written at exit)');
my @l = lines($log);
is(scalar @l, 230, 'one line per request: 230');
is(scalar(grep { $_->{bad} } @l), 0, 'every line is JSON');
my %by;
push @{ $by{$_->{proto}} }, $_ for @l;
is(scalar @{ $by{h1} // [] }, 100, 'h1: 100 lines');
is(scalar @{ $by{'h1-tls'} // [] }, 30, 'h1-tls: 30 lines');
is(scalar @{ $by{h2c} // [] }, 50, 'h2c: 50 lines');
is(scalar @{ $by{h3} // [] }, 50, 'h3: 50 lines');
ok(!grep({ $_->{target} ne '/a?s=10&t=1' || $_->{status} != 200 || $_->{bytes} != 10 || $_->{wait_ms} != 1
           || $_->{gen_us} < 1000 } @{ $by{h1} }), 'h1: target, status, bytes, wait and a generation time over 1 ms');
ok(!grep({ $_->{status} != 404 || $_->{target} ne '/b?s=20&r=404' } @{ $by{'h1-tls'} }), 'h1-tls: 404 and the target');
ok(!grep({ $_->{target} ne '/d%22q?s=40' } @{ $by{h3} }), 'h3: the target as sent');
ok(!grep({ $_->{client} !~ /^127\.0\.0\.1:\d+$/ } @l), 'the client address and port on each line');
ok(!grep({ $_->{thread} !~ /^[01]$/ } @l), 'the thread on each line');
my %conn;
$conn{$_->{client}}{$_->{conn_req}}++ for @{ $by{h2c} };
is(scalar(keys %conn), 2, 'h2c: two connections');
ok(!grep({ my $k = keys %{ $conn{$_} }; join(',', sort { $a <=> $b } keys %{ $conn{$_} }) ne join(',', 1 .. $k) } keys %conn),
   'h2c: each connection numbers its requests from 1, one line each');
ok(abs($l[-1]{time} - time) < 60 && $l[0]{time} <= $l[-1]{time} + 1, 'times are epoch seconds');

# one in ten
unlink $log;
$port = start_hx('-t', '1', '--access-log', $log, '--access-log-sample', '10');
load("-c 2 -n 1000 'http://127.0.0.1:$port/?s=1'");
stop_hx();
is(scalar(() = lines($log)), 100, '--access-log-sample 10: 100 lines for 1000 requests');

# SIGHUP: logrotate moves the file, the server opens it again by its name
unlink $log;
$port = start_hx('--access-log', $log);
load("-c 1 -n 20 'http://127.0.0.1:$port/'");
sleep 1.3; # the once-a-second flush
rename $log, "$log.1";
kill 'HUP', hx_pid();
sleep 0.3;
load("-c 1 -n 7 'http://127.0.0.1:$port/'");
stop_hx();
is(scalar(() = lines("$log.1")), 20, 'SIGHUP: the rotated file holds the lines before it');
is(scalar(() = lines($log)), 7, '... and the reopened one those after');

# '-': stdout
{
    my $p = free_port();
    my $pid = open(my $out, '-|', $hxterm, '-q', '-L', "127.0.0.1:$p", '--access-log', '-') or die;
    sleep 1;
    load("-c 1 -n 5 'http://127.0.0.1:$p/?s=3'");
    kill 'TERM', $pid;
    my @o = grep { /^\{/ } <$out>;
    close $out;
    is(scalar @o, 5, "--access-log -: 5 lines on stdout");
}

my $o = `$hxterm -q -L 127.0.0.1:@{[free_port()]} --access-log /nonexistent/dir/x 2>&1`;
is($? >> 8, 2, 'an access log that cannot be opened: exit 2');
like($o, qr{--access-log /nonexistent/dir/x: No such file}, '... saying why');
done_testing();
