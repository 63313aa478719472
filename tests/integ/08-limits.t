#!/usr/bin/perl
# -n connection limit across threads, IPv6 listening, install target.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IO::Socket::IP;
use HxTest;

start_hx('-t', '2', '-n', '2');
my @held = map { connect_hx() } 1 .. 2;
print $_ "GET /?s=1 HTTP/1.1\r\nHost: x\r\n\r\n" for @held;
for (@held) { my ($b) = read_all($_, 0.3); like($b, qr/^HTTP\/1.1 200/, 'a connection under -n 2 is served') }
my $third = connect_hx();
print $third "GET /?s=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my ($buf) = read_all($third, 0.5);
is($buf, '', 'the third connection waits in the backlog');
print { $held[0] } "GET /?s=2 HTTP/1.1\r\nHost: x\r\n\r\n";
($buf) = read_all($held[0], 0.3);
like($buf, qr/^HTTP\/1.1 200/, 'existing connections keep working at the limit');
close $held[0];
($buf) = read_all($third, 2);
my @r = parse_responses($buf);
ok(@r == 1 && length $r[0]{body} == 3, 'once one closes, the waiting one is served');
is(stop_hx(), 0, 'clean stop');

# IPv6 loopback
SKIP: {
    my $p = free_port();
    my $pid = fork // die;
    if (!$pid) { exec $ENV{HXTERM} // 'build/hxterm', '-q', '-t', '1', '-L', "[::1]:$p"; exit 127 }
    my $c;
    for (1 .. 50) { $c = IO::Socket::IP->new(PeerHost => '::1', PeerPort => $p) and last; select undef, undef, undef, 0.05 }
    skip 'no IPv6 loopback here', 1 unless $c;
    print $c "GET /?s=6 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    ($buf) = read_all($c, 2);
    @r = parse_responses($buf);
    ok(@r == 1 && length $r[0]{body} == 6, 'serves on [::1]');
    kill 'TERM', $pid;
    waitpid $pid, 0;
}

# make install puts the binary and the man page under DESTDIR
my $dest = "/tmp/hx-install-$$";
system("make -s install DESTDIR=$dest PREFIX=/usr >/dev/null 2>&1");
ok(-x "$dest/usr/bin/hxterm" && -f "$dest/usr/share/man/man1/hxterm.1", 'make install DESTDIR=... PREFIX=...');
system("rm -rf $dest");
done_testing();
