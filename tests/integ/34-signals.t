#!/usr/bin/perl
# Signal storms (3000 SIGHUP, 3000 SIGUSR1, 3000 SIGHUP during a drain) with --access-log, --stats and h1, h2c, h3 under load: the process lives, serves, and logs every request.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use JSON::PP;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxterm = $ENV{HXTERM} // 'build/hxterm';
my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $dir = tempdir(CLEANUP => 1);
my $log = "$dir/access.log";
my ($port, $tls, $sport) = (free_port(), free_port(), free_port());

# WHY not start_hx: SIGUSR1 writes the figures to stderr, 3000 times
my $pid = spawn_bg("$dir/err", $hxterm, '-q', '-t', '2', '-L', "127.0.0.1:$port:$tls", '--stats', "127.0.0.1:$sport",
                   '--access-log', $log, split(' ', $ENV{HX_ARGS} // ''));
ok(wait_port($port) && wait_port($sport), 'started with the access log writer and the stats thread');

my $status;
sub alive {
    return 0 if defined $status;
    return 1 if waitpid($pid, POSIX::WNOHANG()) == 0;
    $status = $?;
    return 0;
}
sub storm {
    my ($sig, $n) = @_;
    my $sent = 0;
    for (1 .. $n) { kill($sig, $pid) or last; $sent++ }
    return $sent;
}
sub lines { open my $h, '<', $log or return 0; my $n = 0; $n++ while <$h>; return $n }
sub served {
    my $c = IO::Socket::INET->new("127.0.0.1:$port") or return 0;
    print $c "GET /?s=5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    local $/;
    return (<$c> // '') =~ m{^HTTP/1\.1 200 .*\r\n\r\n\.1234\z}s;
}

# load on every protocol while the signals arrive; each hxload counts what it got
my %load = (h1 => "http://127.0.0.1:$port/?s=100", h2c => "h2c://127.0.0.1:$port/?s=100",
            h3 => "https://127.0.0.1:$tls/?s=100");
my %kid;
for my $p (sort keys %load) {
    $kid{$p} = spawn_bg("$dir/$p.json", 'timeout', '60', $hxload, '--json', '-q', '-c', '2', '-n', '3000',
                        ($p eq 'h3' ? '--h3' : ()), $load{$p});
}
sleep 0.3;
is(storm('HUP', 3000), 3000, '3000 SIGHUP sent');
ok(alive(), '... and the process lives');
is(storm('USR1', 3000), 3000, '3000 SIGUSR1 sent');
ok(alive(), '... and the process lives');
my $total = 0;
for my $p (sort keys %load) {
    waitpid($kid{$p}, 0);
    my $j = eval { decode_json(do { local (@ARGV, $/) = ("$dir/$p.json"); <> } // '') } // {};
    my $ok = $j->{requests};
    is($ok // -1, 3000, "$p: 3000 answered during the storms");
    $total += $ok // 0;
}
ok(served(), 'it still serves');
my $reports = () = do { local (@ARGV, $/) = ("$dir/err"); <> } =~ /"uptime_s"|"requests"/g;
ok($reports > 0, "SIGUSR1 reports written ($reports)");

# a drain, a long request in flight, and 3000 SIGHUP on top
my $c = IO::Socket::INET->new("127.0.0.1:$port") or die;
print $c "GET /?s=7&t=1500 HTTP/1.1\r\nHost: x\r\n\r\n";
sleep 0.2;
kill 'TERM', $pid;
sleep 0.1;
is(storm('HUP', 3000), 3000, 'SIGTERM (a drain), then 3000 SIGHUP');
my ($buf) = read_all($c, 5);
like($buf, qr{^HTTP/1\.1 200 .*\r\n\r\n\.123456\z}s, 'the request in flight is answered during the drain');
my $t0 = time;
sleep 0.05 while alive() && time - $t0 < 15;
ok(!alive(), 'the drain ends');
is($status // -1, 0, '... with exit 0, not killed by a signal');
is(lines(), $total + 2, "the access log holds every request: $total + 2");

done_testing();
