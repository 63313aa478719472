#!/usr/bin/perl
# hxload --source: connections spread over local addresses (hxterm's access log shows them); in a network namespace whose port range is 101 ports, 1,000 connections to one port fail cleanly from one address and all succeed from ten.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use HxTest;

my $hxterm = $ENV{HXTERM} // "$FindBin::Bin/../../build/hxterm";
my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";
my $dir = tempdir(CLEANUP => 1);

# ---------- ten source addresses, seen by the server ----------
my $port = start_hx('-t', '1', '--access-log', "$dir/access.log");
my $out = `$hxload -q --json -c 20 -n 400 --source 127.0.0.2-127.0.0.11 'http://127.0.0.1:$port/?s=10' 2>&1`;
my $j = eval { decode_json($out) };
is($j && $j->{requests}, 400, '400 requests from --source 127.0.0.2-127.0.0.11, all answered') or diag($out);
is(stop_hx(), 0, 'hxterm stops cleanly');
my %src;
open my $al, '<', "$dir/access.log" or die;
while (<$al>) { $src{$1}++ if /"client": "([\d.]+):\d+"/ }
close $al;
is_deeply([sort keys %src], [sort map { "127.0.0.$_" } 2 .. 11], "the access log shows the ten source addresses");

# bad lists refused with one line, exit 2
for ([ '10.0.0.9-10.0.0.1', 'two IPv4 addresses in order' ], [ '10.0.0.0/8', 'N from 16 to 32' ],
     [ 'nope', 'not an IPv4 or IPv6 address' ], [ '::1', 'an IPv6 address for an IPv4 target' ]) {
    my ($spec, $why) = @$_;
    my $o = `$hxload --source '$spec' 'http://127.0.0.1:1/' 2>&1`;
    ok(($? >> 8) == 2 && $o =~ /\Q$why\E/, "--source '$spec': refused ($why)") or diag($o);
}

# ---------- 101 local ports: one address runs out, ten do not ----------
SKIP: {
    skip 'no unshare -n here (needs root, or user namespaces)', 5
        unless system('unshare -n true 2>/dev/null') == 0 && -x '/usr/sbin/sysctl' && -x '/usr/sbin/ip';
    open my $sh, '>', "$dir/ns.sh" or die;
    print $sh <<"SH";
set -e
ip link set lo up
sysctl -q -w net.ipv4.ip_local_port_range='40000 40100'
ulimit -n 8192
$hxterm -q -t 1 -L 127.0.0.1:8080 --no-defer-accept >/dev/null 2>&1 &
pid=\$!
for i in \$(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && break; sleep 0.1; done
rc=0; $hxload -q -c 1000 -n 3000 --timeout 5 'http://127.0.0.1:8080/?s=1' >/dev/null 2>$dir/one.err || rc=\$?
echo \$rc >$dir/one.rc
$hxload -q --json -c 1000 -n 3000 --timeout 5 --source 127.0.0.2-127.0.0.11 'http://127.0.0.1:8080/?s=1' \\
    >$dir/ten.json 2>$dir/ten.err || true
kill \$pid; wait \$pid || true
SH
    close $sh;
    system('timeout', '120', 'unshare', '-n', 'sh', "$dir/ns.sh");
    my $slurp = sub { open my $f, '<', $_[0] or return ''; local $/; my $s = <$f>; close $f; $s };
    my $ten = eval { decode_json($slurp->("$dir/ten.json")) };
    my $err1 = $slurp->("$dir/one.err");
    like($err1, qr/no local port left to connect from \(net\.ipv4\.ip_local_port_range 40000-40100/,
         'one address: a clear line naming the port range') or diag($err1);
    ok($slurp->("$dir/one.rc") == 1 && $err1 =~ /connect failed to 127\.0\.0\.1:8080: Cannot assign requested address/,
       'one address: the run stops, exit 1, the connect error named');
    ok($ten && $ten->{connections}{opened} >= 1000, 'ten addresses: 1,000 connections made ('
       . ($ten ? $ten->{connections}{opened} : '?') . ')') or diag($slurp->("$dir/ten.err"));
    ok($ten && $ten->{requests} == 3000 && !$ten->{errors}{connect}, 'ten addresses: all 3,000 requests answered, no connect error');
    unlike($slurp->("$dir/ten.err"), qr/no local port left/, 'ten addresses: no line about ports');
}
done_testing();
