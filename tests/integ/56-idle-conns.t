#!/usr/bin/perl
# Thousands of idle connections held (h1, h2c, h2 over TLS) with a checked load beside them: each right, the memory each costs bounded; hxload's own per connection.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IPC::Open2;
use POSIX ();
use Time::HiRes qw(sleep);
use HxTest;

# Per idle connection, KiB of the server's user-space RSS (VmRSS): wide
# bounds over today's figures (this test: h1 0.50, h2c 1.48, h2 TLS 13.5;
# h2c was 17.9 before our engine gave its working state back when idle);
# issue 38's goal: h1 0.5, h2 2
use constant MAX_H1_KIB    => 1.5;
use constant MAX_H2C_KIB   => 6;
use constant MAX_H2TLS_KIB => 40;
# hxterm at rest, one worker, a clear and a TLS + QUIC port: 11.5 MB today,
# 9.8 of it the libraries' pages (issue 38's goal: 8); a bound that catches
# a start-up step that touches megabytes (a table zeroed, a pool filled)
use constant MAX_REST_MB   => 16;
# hxterm's RSS once they all closed over its rest: 1.26-1.40 here (1.30-
# 1.32 before the worker freed its spares before each trim and trimmed in
# steps; it varies with the order of the closes), most of it the TLS
# connections' pages, pinned by what outlived them in the worker's arena; a
# bound that catches a heap kept whole (3.4 held, as the 89 MB after 5,000
# h2c before the worker trimmed at all); issue 38's goal: 1.1, which
# bench/mem's h2c figure meets (1.03-1.06)
use constant MAX_CLOSED_RATIO => 2;
# hxload's own per connection (peak RSS over -c 100's, mostly idle: -R 100)
use constant MAX_HXLOAD_KIB => 2;

my ($N1, $N2, $NT, $NL) = (7000, 7000, 1000, 10000);
my $need = $N1 + $N2 + $NT + 200;
my $hard = nofile_raise($need);
plan skip_all => "the open-file limit ($hard) is below the $need this test holds" if $hard < $need;
plan skip_all => 'python3-h2 is not installed' if system('/usr/bin/python3 -c "import h2" 2>/dev/null');

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $holder = "$FindBin::Bin/../../bench/mem-idle.py";
my $port = start_hx('-tls', '-t', '1');
my $tls = hx_tls_port();

sub rss { open my $f, '<', "/proc/$_[0]/status" or return 0; local $/; (<$f> =~ /^VmRSS:\s+(\d+)/m)[0] // 0 }

# a holder of <n> <mode> connections: its pid and pipes, once they are all held
my @held;
sub hold {
    my ($mode, $p, $n) = @_;
    my $pid = open2(my $out, my $in, 'timeout', '60', $holder, $mode, '127.0.0.1', $p, $n, '/?s=100');
    my $line = <$out> // '';
    like($line, qr/^ready $n$/, "$n $mode connections held, each answered 200 in full") or diag($line, <$out>);
    push @held, [ $pid, $in, $out ];
}

my $rest = rss(hx_pid());
my %kib;
my $before = $rest;
for ([ 'h1', $port, $N1 ], [ 'h2c', $port, $N2 ], [ 'h2tls', $tls, $NT ]) {
    my ($mode, $p, $n) = @$_;
    hold($mode, $p, $n);
    sleep 0.1;
    my $now = rss(hx_pid());
    $kib{$mode} = ($now - $before) / $n;
    $before = $now;
}
diag(sprintf 'hxterm at rest %.1f MB; KiB per idle connection: h1 %.2f, h2c %.2f, h2 TLS %.2f',
     $rest / 1024, $kib{h1}, $kib{h2c}, $kib{h2tls});
cmp_ok($rest / 1024, '<=', MAX_REST_MB, "hxterm at rest <= @{[MAX_REST_MB]} MB");
cmp_ok($kib{h1}, '<=', MAX_H1_KIB, "an idle h1 connection costs <= @{[MAX_H1_KIB]} KiB");
cmp_ok($kib{h2c}, '<=', MAX_H2C_KIB, "an idle h2c connection costs <= @{[MAX_H2C_KIB]} KiB");
cmp_ok($kib{h2tls}, '<=', MAX_H2TLS_KIB, "an idle h2 TLS connection costs <= @{[MAX_H2TLS_KIB]} KiB");

# a load beside them, every body checked
for my $url ("http://127.0.0.1:$port/?s=4k", "h2c://127.0.0.1:$port/?s=4k", "https://127.0.0.1:$tls/?s=4k") {
    my $out = `timeout 30 $hxload -q --json -c 8 -m 4 -n 1000 --verify '$url' 2>&1`;
    my ($reqs) = $out =~ /"requests": (\d+)/;
    my ($ok) = $out =~ /"200": (\d+)/;
    my ($ver) = $out =~ /"verify": \{"share": [\d.]+, "bodies": (\d+)/;
    ok(($reqs // 0) == 1000 && ($ok // 0) == 1000 && ($ver // 0) == 1000 && $? == 0,
       "$url beside them: 1000 answers, 1000 of 200, 1000 verified") or diag($out);
}

for my $h (@held) {
    my ($pid, $in, $out) = @$h;
    print $in "\n";
    my $line = <$out> // '';
    close $in;
    waitpid($pid, 0);
}
is(`curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$port/?s=10'`, '200', 'hxterm answers once they closed');
my $closed = rss(hx_pid());
diag(sprintf 'hxterm once they closed %.1f MB (at rest %.1f MB)', $closed / 1024, $rest / 1024);
cmp_ok($closed / $rest, '<=', MAX_CLOSED_RATIO, "once they closed, hxterm's RSS within @{[MAX_CLOSED_RATIO]} of its rest");

# hxload's own memory per connection (its connections mostly idle)
# WHY VmHWM read while it runs: its peak, with no /usr/bin/time needed
my %peak;
for my $c (100, $NL) {
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', '/dev/null';
        { exec 'timeout', '30', $hxload, '-q', '-c', $c, '-R', '100', '-d', '1', "http://127.0.0.1:$port/?s=10" }
        POSIX::_exit(127);
    }
    my $hwm = 0;
    while (waitpid($pid, POSIX::WNOHANG()) == 0) {
        # WHY the child of timeout: hxload itself
        my ($k) = `pgrep -P $pid` =~ /(\d+)/;
        if ($k && open my $f, '<', "/proc/$k/status") {
            local $/;
            my ($v) = <$f> =~ /^VmHWM:\s+(\d+)/m;
            $hwm = $v if $v && $v > $hwm;
        }
        sleep 0.1;
    }
    $peak{$c} = $hwm;
}
my $per = (($peak{$NL} // 0) - ($peak{100} // 0)) / ($NL - 100);
diag(sprintf 'hxload peak RSS: -c 100 %.1f MB, -c %d %.1f MB: %.2f KiB per connection',
     ($peak{100} // 0) / 1024, $NL, ($peak{$NL} // 0) / 1024, $per);
ok($peak{100} && $peak{$NL} && $per <= MAX_HXLOAD_KIB, "hxload at -c $NL costs <= @{[MAX_HXLOAD_KIB]} KiB a connection");

done_testing();
