#!/usr/bin/perl
# hxload --idle --h3: 500 idle QUIC connections beside the load, all answered; hxterm's QUIC idle timeout (1 s) ends each after ~1 s idle, counted as closed by the peer; --idle-ping's keep-alives hold them past it, and hxload closes them at the end (hxterm's counters agree).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use HxTest;

my $N = 500;
my $need = $N + 200;
my $hard = nofile_raise($need);
plan skip_all => "the open-file limit ($hard) is below the $need this test holds" if $hard < $need;

my $sp = free_port();
start_hx('-tls', '-t', '1', '--idle-timeout', '1000', '--stats', "127.0.0.1:$sp");
my $url = "https://127.0.0.1:@{[hx_tls_port()]}/?s=100";

# no PING: hxterm's idle timeout ends them, the peer's doing
my $j = hxload_json("--h3 -c 1 -R 100 -d 3s --idle $N --pid hxterm=@{[hx_pid()]} '$url'");
my $i = $j ? $j->{idle} : {};
is($i->{answered} // -1, $N, "$N idle h3 connections answered their one request");
is($i->{closed} // -1, $N, "... all $N closed by hxterm's idle timeout (held $i->{held})");
ok(($i->{first_close_s} // 0) >= 0.9 && ($i->{last_close_s} // 99) <= 6,
   sprintf '... after %.2f to %.2f s idle (0.9 to 6: 1 s, or 3 PTOs when longer)', $i->{first_close_s} // -1,
   $i->{last_close_s} // -1);
ok($j && $j->{requests} >= 200 && ($j->{status}{200} // 0) == $j->{requests} && $j->{errors_total} == 0,
   sprintf 'the load beside them: %d answers, each 200', $j ? $j->{requests} : -1);
my ($self) = grep { $_->{name} eq 'hxload' } @{ $i->{rss} // [] };
my ($hx) = grep { $_->{name} eq 'hxterm' } @{ $i->{rss} // [] };
# WHY so wide: ngtcp2 0.12's own memory is 60-90 KiB a connection
ok($self && $self->{kib_per_connection} > 1 && $self->{kib_per_connection} < 200,
   sprintf 'hxload itself: %.1f KiB per idle h3 connection (1 to 200)', $self ? $self->{kib_per_connection} : -1);
ok($hx && $hx->{kib_per_connection} > 1 && $hx->{kib_per_connection} < 400,
   sprintf 'hxterm: %.1f KiB per idle h3 connection (1 to 400)', $hx ? $hx->{kib_per_connection} : -1);

# keep-alive PINGs every 300 ms: each held past the 1 s timeout
my $p = hxload_json("--h3 -c 1 -R 100 -d 1500ms --idle $N --idle-ping 300ms '$url'");
my $pi = $p ? $p->{idle} : {};
ok(($pi->{answered} // 0) == $N && ($pi->{held} // 0) == $N && ($pi->{closed} // -1) == 0,
   sprintf 'PING every 300 ms: %d answered, %d held, %d closed', $pi->{answered} // -1, $pi->{held} // -1,
   $pi->{closed} // -1);
cmp_ok($pi->{pings} // 0, '>=', 2 * $N, "... at least 2 keep-alives each ($pi->{pings})");

# hxterm's side: the first run's ended by its idle timeout, the second's by hxload's CONNECTION_CLOSE at the end
my ($m, $active);
for (1 .. 40) { # WHY: the stats thread may answer before the worker read every close
    $m = `curl -s http://127.0.0.1:$sp/metrics`;
    ($active) = $m =~ /^hxterm_connections_active\{proto="h3"\} (\d+)$/m;
    last if defined $active && $active == 0;
    select(undef, undef, undef, 0.05);
}
my %closes = $m =~ /^hxterm_connection_closes_total\{proto="h3",reason="(\w+)"\} (\d+)$/mg;
ok(($closes{idle} // 0) >= $N && ($closes{peer} // 0) >= $N,
   sprintf 'hxterm: %d h3 closed idle, %d by the peer (each >= %d)', $closes{idle} // -1, $closes{peer} // -1, $N);
is($active, 0, 'hxterm: no h3 connection left open');

done_testing();
