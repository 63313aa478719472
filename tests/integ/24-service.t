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
