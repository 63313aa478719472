#!/usr/bin/perl
# Running as a service: -D exits 2 on a start-up error and 0 once serving, --pidfile, NOTIFY_SOCKET READY=1 and STOPPING=1, a port in use refused unless --share-port.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::INET;
use IO::Socket::UNIX;
use IO::Select;
use Socket qw(SOCK_DGRAM);
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxterm = $ENV{HXTERM} // 'build/hxterm';
my $dir = tempdir(CLEANUP => 1);
my $busy = start_hx();

sub served {
    my $p = shift;
    my $s = IO::Socket::INET->new("127.0.0.1:$p") or return 0;
    print $s "GET /?s=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    local $/;
    return (<$s> // '') =~ /^HTTP\/1.1 200/;
}

# a port another process listens on: exit 2 naming it, from the foreground process under -D too
for my $d ('', '-D') {
    my $t0 = time;
    my $out = `timeout 20 $hxterm $d -q -L 127.0.0.1:$busy 2>&1`;
    is($? >> 8, 2, "$d a port in use: exit 2");
    like($out, qr/127\.0\.0\.1:$busy: Address already in use \(another process has it; --share-port shares it\)/,
         "$d ... saying so");
}
{
    my $pid = fork // die;
    if (!$pid) { exec($hxterm, '-q', '--share-port', '-L', "127.0.0.1:$busy") or POSIX::_exit(127) }
    sleep 1.5;
    is(waitpid($pid, POSIX::WNOHANG()), 0, '--share-port: it binds and runs beside the first');
    kill 'TERM', $pid;
    waitpid $pid, 0;
}

# -D with --pidfile: the foreground process exits 0 once the daemon serves
{
    my $port = free_port();
    my $pf = "$dir/hx.pid";
    my $rc = system($hxterm, '-D', '-q', '-L', "127.0.0.1:$port", '--pidfile', $pf) >> 8;
    is($rc, 0, '-D: exit 0 once serving');
    ok(served($port), '... and it serves at once, no wait needed');
    my $pid = do { local (@ARGV, $/) = ($pf); <> } // '';
    chomp $pid;
    ok($pid =~ /^\d+$/ && kill(0, $pid), "--pidfile holds the daemon's pid ($pid)");
    kill 'TERM', $pid;
    my $t0 = time;
    sleep 0.05 while kill(0, $pid) && time - $t0 < 10;
    ok(!kill(0, $pid), 'SIGTERM ends it');
    ok(!-e $pf, '... and the pid file is removed');
}

# a port named twice in one command line: exit 2, one line, before binding anything
{
    my $p = free_port();
    my $q = free_port();
    for my $case (["127.0.0.1:$p:$p"], ["127.0.0.1:$p", "127.0.0.1:$p,proxy"], [":$p", "127.0.0.1:$p"],
                  ["127.0.0.1:$q-" . ($q + 2), "127.0.0.1:" . ($q + 1)]) {
        my @l = map { ('-L', $_) } @$case;
        my $out = `timeout 20 $hxterm -q @l 2>&1`;
        is($? >> 8, 2, "-L @$case: exit 2");
        like($out, qr/\A[^\n]*:\d+ and [^\n]*:\d+: one port named twice on the command line[^\n]*\n\z/, '... in one line')
            or diag($out);
    }
    my $out = `timeout 20 $hxterm -q -L 127.0.0.1:$p --stats 127.0.0.1:$p 2>&1`;
    is($? >> 8, 2, '--stats on a port -L has: exit 2');
    system("timeout 20 $hxterm -q -L 127.0.0.1:$p -L [::1]:$p --check 2>/dev/null");
    is($? >> 8, 0, 'the same port on two addresses that do not overlap is fine');
}

# --pidfile is a lock: a second instance is refused while the first runs;
# --finish replaces the holder, and only the file's own instance removes it
{
    my $pf = "$dir/lock.pid";
    my ($p1, $p2, $p3) = (free_port(), free_port(), free_port());
    is(system($hxterm, '-D', '-q', '-L', "127.0.0.1:$p1", '--pidfile', $pf) >> 8, 0, 'a first daemon with --pidfile');
    my $first = do { local (@ARGV, $/) = ($pf); <> } // '';
    chomp $first;
    my $out = `timeout 20 $hxterm -D -q -L 127.0.0.1:$p2 --pidfile $pf 2>&1`;
    is($? >> 8, 2, 'a second one with the same --pidfile: exit 2');
    like($out, qr/^hxterm: --pidfile \Q$pf\E: held by a running hxterm \(pid $first\)/, '... naming the holder');
    ok(!served($p2), '... and it does not serve');
    my $now = do { local (@ARGV, $/) = ($pf); <> } // '';
    is($now, "$first\n", 'the file still names the first');
    is(system($hxterm, '-D', '-q', '-L', "127.0.0.1:$p3", '--pidfile', $pf, '--finish', $first) >> 8, 0,
       '--finish <the holder>: the replacement starts');
    my $t0 = time;
    sleep 0.05 while kill(0, $first) && time - $t0 < 10;
    ok(!kill(0, $first), 'the old one drained and ended');
    my $new = do { local (@ARGV, $/) = ($pf); <> } // '';
    chomp $new;
    ok($new =~ /^\d+$/ && $new != $first && kill(0, $new), "the file names the replacement ($new), left by the old one");
    kill 'TERM', $new;
    $t0 = time;
    sleep 0.05 while kill(0, $new) && time - $t0 < 10;
    ok(!-e $pf, 'its owner removes it at exit');
}

# NOTIFY_SOCKET: READY=1 once serving, STOPPING=1 when the drain starts
{
    my $path = "$dir/notify";
    my $ns = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $path) or die "notify socket: $!";
    my $port = free_port();
    local $ENV{NOTIFY_SOCKET} = $path;
    my $pid = fork // die;
    if (!$pid) { exec($hxterm, '-q', '-L', "127.0.0.1:$port") or POSIX::_exit(127) }
    my $msg = '';
    my $sel = IO::Select->new($ns);
    $ns->recv($msg, 256) if $sel->can_read(20);
    like($msg, qr/^READY=1\nMAINPID=$pid$/, 'NOTIFY_SOCKET: READY=1 with MAINPID');
    ok(served($port), '... when it already serves');
    kill 'TERM', $pid;
    $msg = '';
    $ns->recv($msg, 256) if $sel->can_read(10);
    is($msg, 'STOPPING=1', 'SIGTERM: STOPPING=1');
    waitpid $pid, 0;
    is($? >> 8, 0, 'exit 0');
}

is(stop_hx(), 0, 'clean stop');
done_testing();
