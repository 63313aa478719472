#!/usr/bin/perl
# Deployment: the systemd unit passes systemd-analyze verify, deploy/ passes scripts/check-deploy, the Containerfile's command serves when run directly, make deb builds a package holding both programs, both man pages and the unit.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use File::Temp qw(tempdir);
use IO::Socket::INET;
use JSON::PP;
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $top = "$FindBin::Bin/../..";
my $hxterm = $ENV{HXTERM} // "$top/build/hxterm";
my $dir = tempdir(CLEANUP => 1);

sub slurp { local (@ARGV, $/) = @_; return <> // '' }

# the unit, with ExecStart on this build and the man page where man finds it
SKIP: {
    skip 'no systemd-analyze', 2 unless -x '/usr/bin/systemd-analyze';
    (my $unit = slurp("$top/deploy/hxterm.service")) =~ s{/usr/bin/hxterm}{$hxterm};
    open my $f, '>', "$dir/hxterm.service" or die;
    print $f $unit;
    close $f;
    mkdir "$dir/man";
    mkdir "$dir/man/man1";
    system('cp', "$top/doc/hxterm.1", "$dir/man/man1/");
    my $out = `MANPATH=$dir/man systemd-analyze verify $dir/hxterm.service 2>&1`;
    is($? >> 8, 0, 'systemd-analyze verify deploy/hxterm.service') or diag($out);
    my $u = slurp("$top/deploy/hxterm.service");
    ok($u =~ /^Type=notify$/m && $u =~ /^DynamicUser=yes$/m && $u =~ /^CapabilityBoundingSet=CAP_NET_BIND_SERVICE$/m
       && $u =~ /^LimitNOFILE=\d+$/m && $u =~ m{^ExecReload=/bin/kill -HUP \$MAINPID$}m,
       'the unit: Type=notify, DynamicUser, only CAP_NET_BIND_SERVICE, LimitNOFILE, reload reopens the log');
}

my $chk = `$top/scripts/check-deploy 2>&1`;
is($? >> 8, 0, 'scripts/check-deploy: the manifests and the Containerfile carry what a fleet needs') or diag($chk);

# the Containerfile's ENTRYPOINT and CMD, run directly (ports moved to free ones)
{
    my $cmd = decode_json(`$top/scripts/check-deploy --entrypoint`);
    my ($p1, $p2, $p3) = (free_port(), free_port(), free_port());
    my @argv = map { s/^:8000:8443$/127.0.0.1:$p1:$p2/r =~ s/^:9100$/127.0.0.1:$p3/r } @$cmd;
    $argv[0] = $hxterm;
    my $pid = fork // die;
    if (!$pid) { open STDERR, '>', '/dev/null'; exec(@argv) or POSIX::_exit(127) }
    my $ok = 0;
    for (1 .. 100) { last if ($ok = IO::Socket::INET->new("127.0.0.1:$p3") ? 1 : 0); sleep 0.05 }
    my $m = `curl -s http://127.0.0.1:$p3/metrics`;
    my $r = `curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$p1/?s=10'`;
    like($m, qr/^hxterm_info\{/m, "the container's command (@$cmd): /metrics answers");
    is($r, '200', '... and the test port serves');
    kill 'TERM', $pid;
    waitpid $pid, 0;
}

# the Debian package: built, and what it holds
SKIP: {
    skip 'the plain build makes the package (not the sanitized ones)', 5 unless $hxterm =~ m{/build/hxterm$};
    skip 'no dpkg-buildpackage or debhelper (scripts/deps deb installs them)', 5
        unless -x '/usr/bin/dpkg-buildpackage' && -x '/usr/bin/dh';
    my $out = `make -s -C $top deb 2>&1`;
    is($? >> 8, 0, 'make deb') or diag($out);
    my ($deb) = glob("$top/build-deb/hxterm_*.deb");
    my $list = $deb ? `dpkg-deb -c $deb` : '';
    my @want = ('./usr/bin/hxterm', './usr/bin/hxload', './usr/share/man/man1/hxterm.1.gz',
                './usr/share/man/man1/hxload.1.gz', './lib/systemd/system/hxterm.service', './etc/default/hxterm');
    my @miss = grep { index($list, " $_\n") < 0 && index($list, " $_ ") < 0 } @want;
    is_deeply(\@miss, [], 'the package holds both programs, both man pages, the unit and its defaults') or diag($list);
    my $info = $deb ? `dpkg-deb -f $deb Package Version Depends` : '';
    like($info, qr/^Package: hxterm\nVersion: 0\.1\.0\nDepends: .*libnghttp2/s, 'its control fields, shared-library dependencies found');
    system("dpkg-deb -x $deb $dir/root") if $deb;
    like(`$dir/root/usr/bin/hxterm -v 2>&1`, qr/^hxterm 0\.1\.0/, "the packaged hxterm runs");
    like(`$dir/root/usr/bin/hxload -v 2>&1`, qr/^hxload 0\.1\.0/, '... and hxload');
}
done_testing();
