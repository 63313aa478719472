#!/usr/bin/perl
# Measured times: waits honoured, X-rsp real close to what the client saw, waits never block others.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use Time::HiRes qw(time);
use IO::Select;
use HxTest;

start_hx('-t', '2');

my $t0 = time;
my $buf = raw_exchange("GET /?t=300 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my $wall = (time - $t0) * 1000;
my ($r) = parse_responses($buf);
my ($real) = HxTest::get_hdr($r, 'X-rsp') =~ /\(([\d.]+) real\)/;
ok($wall >= 300, "t=300 answered after $wall ms");
ok($real >= 300, "X-rsp real $real ms >= 300");
# WHY wider in a sanitized build: ThreadSanitizer's accept and first read alone
# have taken 6 ms (CI, 2026-12-02), time the server cannot see; WHY 15 ms
# plain: the io_uring pass beside a busy chain saw 5.8 ms (306.4 against
# real 300.6, 2026-12-06), Perl's connect and read on a loaded machine
my $near = HxTest::sanitized() ? 25 : 15;
ok(abs($wall - $real) < $near, "X-rsp real within $near ms of the client's wall time ($wall, real $real)");
like(HxTest::get_hdr($r, 'Server-Timing'), qr/^wait;dur=300, gen;dur=\Q$real\E$/, 'Server-Timing says the same');

# 50 concurrent t=500: they wait together
my @c = map { connect_hx() } 1 .. 50;
$t0 = time;
print $_ "GET /?t=500 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" for @c;
my $done = 0;
my $sel = IO::Select->new(@c);
my %got;
while ($sel->count && time - $t0 < 5) {
    for my $s ($sel->can_read(1)) {
        my $n = sysread($s, $got{$s}, 65536, length($got{$s} // ''));
        if (!$n) { $sel->remove($s); $done++ if ($got{$s} // '') =~ /^HTTP\/1.1 200/ }
    }
}
my $elapsed = (time - $t0) * 1000;
is($done, 50, '50 concurrent t=500 all answered 200');
ok($elapsed >= 500 && $elapsed < 900, "in $elapsed ms, well under 2 x 500");

# a slow request does not delay a fast one on another connection
my $slow = connect_hx();
print $slow "GET /?t=800 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
$t0 = time;
$buf = raw_exchange("GET /?s=10 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my $fast = (time - $t0) * 1000;
ok($fast < 200, "a plain request answered in $fast ms while another waits 800 ms");
close $slow;

# the random forms draw within bounds
my $inside = 1;
for (1 .. 20) {
    ($r) = parse_responses(scalar raw_exchange("GET /?t=10-30&s=100-200 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    my ($w) = HxTest::get_hdr($r, 'X-rsp') =~ /time=(\d+) ms/;
    my ($rl) = HxTest::get_hdr($r, 'X-rsp') =~ /\(([\d.]+) real\)/;
    $inside &&= $w >= 10 && $w <= 30 && $rl >= $w && length $r->{body} >= 100 && length $r->{body} <= 200;
}
ok($inside, 't=10-30, s=100-200: drawn in range and the real time covers the drawn wait');

# X-req time covers a head that arrives slowly
my $c = connect_hx();
print $c "GET /?s=1 HTTP/1.1\r\n";
select undef, undef, undef, 0.2;
print $c "Host: x\r\nConnection: close\r\n\r\n";
($buf) = read_all($c, 3);
($r) = parse_responses($buf);
my ($hd) = HxTest::get_hdr($r, 'X-req') =~ /time=([\d.]+) ms/;
ok($hd >= 190 && $hd < 400, "X-req time $hd ms: first byte to end of head");

# P= pause and d= drip
$c = connect_hx();
$t0 = time;
print $c "GET /?s=10&P=300 HTTP/1.1\r\nHost: x\r\n\r\nGET /?s=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
($buf) = read_all($c, 3);
my $t_pause = (time - $t0) * 1000;
is(scalar(my @rr = parse_responses($buf)), 2, 'P=: both answered');
ok($t_pause >= 300, "P=300 delayed the next request ($t_pause ms)");
$c = connect_hx();
$t0 = time;
print $c "GET /?s=500&p=100&d=50 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
my @arrivals;
my $all = '';
while (1) {
    my $n = sysread($c, $all, 65536, length $all) or last;
    push @arrivals, [ (time - $t0) * 1000, $n ];
}
($r) = parse_responses($all);
ok(pattern_ok($r->{body}, 500), 'p=100&d=50: body complete and verified');
ok($arrivals[-1][0] >= 200, "the drip took $arrivals[-1][0] ms (4 pauses of 50)");
ok(@arrivals >= 4, scalar(@arrivals) . ' separate arrivals');

# the workers' waits end when asked: their timer slack 1 ns, not the
# kernel's 50 us (a t=2 answer's server time p50 was 2.111 ms with it)
SKIP: {
    my $p = hx_pid();
    my @slack = map { my $tid = (split m{/}, $_)[-1]; my $v = `cat /proc/$tid/timerslack_ns 2>/dev/null`; chomp $v; $v }
        glob("/proc/$p/task/*");
    skip 'no /proc/<tid>/timerslack_ns on this kernel', 1 unless grep { length } @slack;
    is(scalar(grep { $_ eq '1' } @slack), 2, "-t 2: two threads with a timer slack of 1 ns (@slack)");
}

# hxload keeps the kernel's slack unless --exact-wake (an open loop's
# wake-ups merged: a third of its CPU a request at -R 200000)
SKIP: {
    my $hxload = $ENV{HXLOAD} // 'build/hxload';
    skip 'no /proc/<tid>/timerslack_ns on this kernel', 2 unless -e "/proc/$$/timerslack_ns";
    for my $exact (0, 1) {
        my $l = spawn_bg("/dev/null", $hxload, '-q', '-R', '50', '-d', '3', ($exact ? ('--exact-wake') : ()),
                         'http://127.0.0.1:' . hx_port() . '/');
        # WHY a poll: its load thread starts after the main one set up (slower
        # under a sanitizer), and the first is the main thread
        my @s;
        for (1 .. 50) {
            select(undef, undef, undef, 0.1);
            @s = map { my $tid = (split m{/}, $_)[-1]; my $v = `cat /proc/$tid/timerslack_ns 2>/dev/null`; chomp $v; $v }
                glob("/proc/$l/task/*");
            last if @s >= 2;
        }
        select(undef, undef, undef, 0.2);
        @s = map { my $tid = (split m{/}, $_)[-1]; my $v = `cat /proc/$tid/timerslack_ns 2>/dev/null`; chomp $v; $v }
            glob("/proc/$l/task/*");
        kill 'INT', $l;
        waitpid($l, 0);
        if ($exact) {
            ok((grep { $_ eq '1' } @s) >= 1, "hxload --exact-wake: its load thread's slack 1 ns (@s)");
        } else {
            ok(@s && !grep({ $_ eq '1' } @s), "hxload without: the kernel's slack (@s)");
        }
    }
}

is(stop_hx(), 0, 'clean stop');
done_testing();
