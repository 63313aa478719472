#!/usr/bin/perl
# Graceful drain on SIGTERM (h1 and h2 in flight finish, exit 0), a second signal exits at once, SIGUSR1 counters.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use JSON::PP ();
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $bin = $ENV{HXTERM} // 'build/hxterm';
my $errf = "/tmp/hx-drain-$$.err";

sub spawn {
    my ($port, @args) = @_;
    my $pid = fork // die;
    if (!$pid) {
        open STDERR, '>', $errf;
        exec $bin, '-L', "127.0.0.1:$port", '-t', '2', @args, split(' ', $ENV{HX_ARGS} // '') or POSIX::_exit(127);
    }
    for (1 .. 100) { last if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port"); sleep 0.05 }
    return $pid;
}

sub wait_exit {
    my ($pid, $limit) = @_;
    my $end = time + $limit;
    while (time < $end) {
        return $? if waitpid($pid, POSIX::WNOHANG()) == $pid;
        sleep 0.02;
    }
    kill 'KILL', $pid;
    waitpid $pid, 0;
    return -1;
}

# h1 and h2 requests in flight when SIGTERM comes: both complete, then exit 0
my $port = free_port();
my $pid = spawn($port, '--drain-timeout', '5000');
my $h1 = connect_hx($port);
print $h1 "GET /?t=1000&s=10 HTTP/1.1\r\nHost: x\r\n\r\n";
open my $h2, '-|', "nghttp -n -s 'http://127.0.0.1:$port/?t=1000&s=20' 2>&1" or die;
my $idle = connect_hx($port);
# WHY: with TCP_DEFER_ACCEPT a connection that sent nothing is not accepted
# yet; one that was served once is idle on the server's side
print $idle "GET /?s=1 HTTP/1.1\r\nHost: x\r\n\r\n";
sleep 0.3;
sysread($idle, my $first, 4096);
like($first // '', qr/\AHTTP\/1.1 200 /, 'the idle connection had one response');
kill 'TERM', $pid;
sleep 0.2;
my $refused = !IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port");
ok($refused, 'no new connections once draining');
my ($buf, $end) = read_all($h1, 3);
my @r = parse_responses($buf);
ok(@r == 1 && $r[0]{status} == 200 && length $r[0]{body} == 10, 'the h1 t=1000 in flight completes with 200');
is(HxTest::get_hdr($r[0], 'Connection'), 'close', 'with Connection: close');
is($end, 'eof', 'then the connection closes');
my $nghttp = do { local $/; <$h2> };
close $h2;
is($? >> 8, 0, 'the h2 t=1000 in flight completes (nghttp exit 0)');
($buf, $end) = read_all($idle, 1);
is($end, 'eof', 'an idle keep-alive connection was closed');
is(wait_exit($pid, 5), 0, 'the process exits 0 after the drain');

# WHY: a drain once spun the workers at 100 % of a core (the wake-up
# eventfd was level-triggered and never read); a request waiting t=3000
# must cost next to nothing while it waits
sub cpu_ticks {
    my $pid = shift;
    open my $f, '<', "/proc/$pid/stat" or return 0;
    my @f = split ' ', (<$f> =~ s/^.*\) //r);
    return $f[11] + $f[12]; # utime + stime, after the comm field
}
$port = free_port();
$pid = spawn($port, '--drain-timeout', '10000');
my $waiting = connect_hx($port);
print $waiting "GET /?t=3000&s=5 HTTP/1.1\r\nHost: x\r\n\r\n";
sleep 0.3;
kill 'TERM', $pid;
sleep 0.2;
my ($c0, $w0) = (cpu_ticks($pid), time);
sleep 2;
my ($c1, $w1) = (cpu_ticks($pid), time);
my $tck = POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100;
my $share = ($c1 - $c0) / $tck / ($w1 - $w0);
ok($share < 0.05, sprintf('draining with a t=3000 request in flight: %.1f %% of a core (< 5 %%)', 100 * $share));
($buf, $end) = read_all($waiting, 3);
@r = parse_responses($buf);
ok(@r == 1 && $r[0]{status} == 200 && $r[0]{body} eq '.1234', 'the t=3000 request completes during the drain');
is(wait_exit($pid, 5), 0, 'and the process exits 0');

# HTTP/3: an idle connection gets CONNECTION_CLOSE at once and a busy one
# once its last exchange is done, so the process leaves then; it once waited
# for the clients to go (--drain-timeout, 10 s here)
SKIP: {
    skip 'gtlsclient is not installed', 5 unless -x '/usr/bin/gtlsclient';
    my ($cp, $tp) = (free_port(), free_port());
    my $qpid = fork // die;
    if (!$qpid) {
        open STDERR, '>', '/dev/null';
        exec $bin, '-q', '-L', "127.0.0.1:$cp:$tp", '-t', '2', '--drain-timeout', '10000',
            split(' ', $ENV{HX_ARGS} // '') or POSIX::_exit(127);
    }
    for (1 .. 100) { last if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$cp"); sleep 0.05 }
    my $dir = "/tmp/hx-drain-h3-$$";
    mkdir "$dir-idle"; mkdir "$dir-busy";
    # WHY no --exit-on-all-streams-close: the clients stay on their connections
    my $client = sub {
        my ($d, $q) = @_;
        my $c = fork // die;
        if (!$c) {
            open STDOUT, '>', '/dev/null'; open STDERR, '>', '/dev/null';
            exec('timeout', '20', 'gtlsclient', '-q', "--download=$d", '127.0.0.1', $tp, "https://127.0.0.1:$tp/$q")
                or POSIX::_exit(127);
        }
        return $c;
    };
    my $idle_c = $client->("$dir-idle", '?s=3');
    my $t_busy = time;
    my $busy_c = $client->("$dir-busy", '?s=10&t=1500');
    sleep 0.5;
    my $t0 = time;
    kill 'TERM', $qpid;
    my $st = wait_exit($qpid, 8);
    my $gone = time - $t0;
    is($st, 0, 'h3: the drain ends with exit 0');
    my $done_at = $t_busy + 1.5 - $t0; # when the busy exchange could end, from the signal
    # WHY more under a sanitizer: its exit checks the heap for leaks
    my $slack = HxTest::sanitized() ? 3 : 1;
    ok($gone >= $done_at - 0.05 && $gone < $done_at + $slack,
       sprintf('... %.2f s after SIGTERM, within %d s of the t=1500 exchange\'s end (%.2f s)', $gone, $slack, $done_at));
    is(wait_exit($idle_c, 3) >> 8, 0, '... the idle connection was closed, so its client left (exit 0)');
    is(wait_exit($busy_c, 3) >> 8, 0, '... and the busy one\'s client too');
    my $body = do { local (@ARGV, $/) = glob("$dir-busy/*"); <> } // '';
    is($body, HxTest::pattern(10), '... after its whole response');
    system('rm', '-rf', "$dir-idle", "$dir-busy");
}

# a second signal does not wait
$port = free_port();
$pid = spawn($port, '--drain-timeout', '20000');
my $slow = connect_hx($port);
print $slow "GET /?t=10000 HTTP/1.1\r\nHost: x\r\n\r\n";
sleep 0.2;
kill 'TERM', $pid;
sleep 0.2;
my $t0 = time;
kill 'INT', $pid;
is(wait_exit($pid, 5), 0, 'a second signal exits 0');
ok(time - $t0 < (HxTest::sanitized() ? 3 : 1), 'at once');

# SIGUSR1 reports per-thread counters on stderr
$port = free_port();
$pid = spawn($port, '-q');
my ($c) = connect_hx($port);
print $c "GET /?s=1 HTTP/1.1\r\nHost: x\r\n\r\n";
read_all($c, 0.3);
kill 'USR1', $pid;
sleep 0.3;
kill 'TERM', $pid;
wait_exit($pid, 5);
my $err = do { local (@ARGV, $/) = $errf; <> } // '';
my ($usr1) = $err =~ /^hxterm: (\{.*\})$/m;
my $j = eval { JSON::PP::decode_json($usr1 // '') } // {};
is(scalar @{ $j->{per_thread} // [] }, 2, "SIGUSR1: /stats.json's figures, a record per thread");
is($j->{requests}, 1, 'counting the request served');
is($j->{protocols}{h1}{status}{'2xx'}, 1, '... as an h1 2xx');

# TCP_DEFER_ACCEPT: a silent connection is not accepted until its first bytes
sub accepted_count {
    my $pid = shift;
    kill 'USR1', $pid;
    sleep 0.3;
    my $e = do { local (@ARGV, $/) = $errf; <> } // '';
    $e =~ tr/\0//d; # WHY: truncated under the server's open descriptor, the file starts with a hole
    my ($last) = (grep { /^hxterm: \{/ } split /\n/, $e)[-1] // '';
    my $n = 0;
    $n += $_->{accepted} for @{ (eval { JSON::PP::decode_json(substr($last, 8)) } // {})->{per_thread} // [] };
    return $n;
}
$port = free_port();
$pid = spawn($port);
truncate $errf, 0;
my $silent = connect_hx($port);
sleep 0.3;
# WHY: spawn's probe connected and closed: its FIN counts as first bytes
is(accepted_count($pid), 1, 'default: a connection that sent nothing is not accepted yet (only the closed probe was)');
print $silent "GET /?s=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
($buf, $end) = read_all($silent, 2);
ok($buf =~ /\AHTTP\/1.1 200 .*\r\n\r\n\.12\z/s && $end eq 'eof', 'its first request is served at once, then the close');
kill 'TERM', $pid;
wait_exit($pid, 5);

# --no-defer-accept: accepted at once, and a drain closes it even if it never spoke
$port = free_port();
$pid = spawn($port, '--no-defer-accept');
truncate $errf, 0;
$silent = connect_hx($port);
sleep 0.3;
is(accepted_count($pid), 1 + 1, '--no-defer-accept: accepted at once (with spawn\'s probe)');
kill 'TERM', $pid;
($buf, $end) = read_all($silent, 2);
is($end, 'eof', 'and closed by the drain without a byte sent');
is(wait_exit($pid, 5), 0, 'exit 0');

unlink $errf;
done_testing();
