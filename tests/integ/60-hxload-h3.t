#!/usr/bin/perl
# hxload's HTTP/3 never fails for a server's graceful GOAWAY: one of two hxterms sharing the port drains mid-run, its requests are answered or retried on a new connection, none failed; the JSON's h3 object says what the client saw (its sockets' receive buffers under --udp-rcvbuf too); a reduced grid of -c x -m x body fails no request; an answer's ACK rides on the next request.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use JSON::PP;
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $bin = $ENV{HXTERM} // 'build/hxterm';
my $dir = File::Temp::tempdir('hx60-XXXXXX', TMPDIR => 1, CLEANUP => 1);

# the JSON line of hxload's output in <f>
sub json_of {
    my ($f) = @_;
    open my $fh, '<', $f or return {};
    my ($line) = grep { /^\{"hxload"/ } <$fh>;
    return eval { decode_json($line // '') } // {};
}

# two hxterms on one port (SO_REUSEPORT splits the connections), each
# letting 8 streams a connection run at once where hxload wants 16; B
# bound before the run (WHY: a socket joining the group later moves
# running connections to a server that does not know them)
start_hx('-tls', '-t', '1', '--share-port', '--h3-streams', '8');
my $tls = hx_tls_port();
my $sp = free_port();
my $b = spawn_bg("$dir/b.log", $bin, '-L', '127.0.0.1:' . free_port() . ":$tls", '-q', '-t', '1', '--share-port', '--h3-streams', '8',
                 '--stats', "127.0.0.1:$sp");
ok(wait_port($sp), 'a second hxterm shares the QUIC port');

# A drains (SIGTERM) a second into a 3 s run: its connections get the
# GOAWAY notice, then the final GOAWAY with the real id before its close
my $l = spawn_bg("$dir/run.out", $hxload, '-q', '--json', '--h3', '-c', '16', '-m', '16', '-d', '3',
                 "https://127.0.0.1:$tls/?s=100");
sleep 1;
my $t0 = time;
is(stop_hx(), 0, 'the draining hxterm exits cleanly');
my $took = time - $t0;
ok($took < 5, sprintf('... in %.1f s, well before its 10 s drain timeout: the client left when told', $took));
waitpid($l, 0);
my $rc = $? >> 8;
my $j = json_of("$dir/run.out");
my $c = $j->{connections} // {};
my $s = $j->{schedule} // {};
is($rc, 0, 'hxload exits 0');
ok(($j->{requests} // 0) > 1000, "$j->{requests} requests answered");
is($j->{errors_total} // -1, 0, '... with no error');
is($s->{failed} // -1, 0, '... none failed');
is($s->{end_timeout} // -1, 0, '... none unanswered at the end');
ok(($c->{goaway} // 0) >= 1, "$c->{goaway} connections ended by the server's graceful GOAWAY");
ok(($c->{opened} // 0) >= 16 + ($c->{goaway} // 0), "... each replaced by a new one ($c->{opened} opened)");
ok(defined $s->{retried}, "the requests above a GOAWAY's id sent again are counted ($s->{retried})");

# the h3 object: what the client saw of QUIC
my $h = $j->{h3} // {};
my $n = $j->{requests} || 1;
ok(($h->{datagrams_in} // 0) > 0 && ($h->{datagrams_out} // 0) > 0,
   "h3: $h->{datagrams_in} datagrams in, $h->{datagrams_out} out");
ok(abs($h->{datagrams_in_per_request} - $h->{datagrams_in} / $n) < 0.01 && $h->{datagrams_in_per_request} > 0.02
   && $h->{datagrams_in_per_request} < 4, "... $h->{datagrams_in_per_request} in a request (100 B answers, 16 in flight)");
ok($h->{datagrams_out_per_request} > 0.02 && $h->{datagrams_out_per_request} < 4,
   "... $h->{datagrams_out_per_request} out a request");
ok(($h->{reads} // 0) > 0 && $h->{gro_reads} <= $h->{reads} && ($h->{sends} // 0) > 0 && $h->{gso_sends} <= $h->{sends},
   "... $h->{reads} reads ($h->{gro_reads} GRO trains), $h->{sends} sends ($h->{gso_sends} GSO trains)");
ok(($h->{datagrams_in} // 0) >= $h->{reads}, '... no fewer datagrams than reads');
ok(defined $h->{udp_drops} && $h->{udp_drops} < $h->{datagrams_in} / 100, "... $h->{udp_drops} UDP drops");
ok(($h->{stream_limited} // 0) > 0 && ($h->{stream_limited_us} // 0) > 0 && ($h->{max_streams_raised} // 0) > 0,
   "... -m 16 on 8 streams: $h->{stream_limited} waits on MAX_STREAMS ($h->{stream_limited_us} us), raised $h->{max_streams_raised} times");
is($h->{window_stream} // 0, 8 << 20, '... the stream window advertised, 8 MiB');
is($h->{window_connection} // 0, 64 << 20, '... the connection window, 64 MiB');

# --h3-window / --h3-conn-window: 1 MiB answers through 16 KiB and 32 KiB
# windows, each byte credited again as read (a credit missed stalls the
# stream: --timeout fails it), every body checked
{
    my $out = `timeout 60 $hxload -q --json --verify --timeout 5000 --h3 -c 2 -m 2 -n 40 --h3-window 16384 --h3-conn-window 32768 'https://127.0.0.1:$tls/?s=1m' 2>&1`;
    my ($line) = $out =~ /^(\{"hxload".*)$/m;
    my $w = eval { decode_json($line // '') } // {};
    ok(($w->{requests} // 0) == 40 && ($w->{errors_total} // -1) == 0 && ($w->{bytes} // 0) >= 40 << 20,
       "--h3-window 16384 --h3-conn-window 32768: 40 answers of 1 MiB, verified, none failed ("
       . ($w->{requests} // 'none') . " answered, " . ($w->{bytes} // 0) . " bytes)") or diag(substr($out, 0, 1500));
    ok(($w->{h3}{window_stream} // 0) == 16384 && ($w->{h3}{window_connection} // 0) == 32768,
       '... the JSON says the windows advertised: 16384 a stream, 32768 the connection');
}
my $txt = `timeout 30 $hxload --h3 -c 2 -m 4 -n 2000 'https://127.0.0.1:$tls/?s=100' 2>&1`;
like($txt, qr/^h3 +[\d.]+ datagrams in, [\d.]+ out a request; GRO \d+ % of reads, GSO \d+ % of sends; \d+ UDP drops; \d+ waits on MAX_STREAMS/m,
     'the text report has the h3 line');
is($h->{rcvbuf_capped} // -1, 0, "... each socket got the 4 MiB receive buffer asked (root: SO_RCVBUFFORCE), none under it")
    if $> == 0;

# the new options' bad values: refused before any connection, exit 2, one line naming the option
for my $bad (['--h3-window', '10', qr/^hxload: --h3-window '10': out of range \[1024, 1073741824\]$/m],
             ['--h3-conn-window', '2g', qr/^hxload: --h3-conn-window '2g': /m],
             ['--udp-rcvbuf', '-5', qr/^hxload: --udp-rcvbuf '-5': expected a decimal number$/m]) {
    my $o = `timeout 10 $hxload --h3 -n 1 $bad->[0] $bad->[1] 'https://127.0.0.1:$tls/' 2>&1`;
    my $rc = $? >> 8;
    ok($rc == 2 && $o =~ $bad->[2], "$bad->[0] $bad->[1]: refused, exit $rc: " . (split /\n/, $o)[0]);
}

# the receive buffer asked past net.core.rmem_max, by a user who may not
# force it: each socket under it is counted, and the text report says why
SKIP: {
    skip 'not root, or no setpriv: no unprivileged user to run hxload as', 2 unless $> == 0 && -x '/usr/bin/setpriv';
    # WHY: a checkout under a private directory (/root) is not the user's to run
    skip 'user 65534 may not run this hxload (a private directory above it)', 2
        if system("/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $hxload --version >/dev/null 2>&1") != 0;
    my $max = `cat /proc/sys/net/core/rmem_max` + 0;
    my $want = $max + (1 << 20);
    my $u = `timeout 30 /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups $hxload --h3 -c 2 -n 200 --udp-rcvbuf $want 'https://127.0.0.1:$tls/?s=100' 2>&1`;
    like($u, qr/^requests 200 in .* 0 errors/m, "an unprivileged hxload asking $want bytes, over rmem_max $max: its requests answered");
    like($u, qr/^h3 +2 sockets' receive buffers under the --udp-rcvbuf asked \($want\): net.core.rmem_max caps it/m,
         '... its 2 sockets counted under the size asked, and the text report says so') or diag($u);
}

# the reduced grid (issue 39: zero failed requests over -c x -m x body):
# each cell a bounded count, every request answered, none failed, nothing
# unanswered at the end, exit 0 (WHY counts, not durations: a sanitized
# build is slower, and the answer to check is the same)
for my $size (qw(100 16k 1m)) {
    my $n = { 100 => 1000, '16k' => 300, '1m' => 30 }->{$size};
    for my $cm ([1, 1], [10, 10], [100, 1]) {
        my ($cc, $mm) = @$cm;
        my $out = `timeout 60 $hxload -q --json --h3 -c $cc -m $mm -n $n 'https://127.0.0.1:$tls/?s=$size' 2>&1`;
        my $rc = $? >> 8;
        my ($line) = $out =~ /^(\{"hxload".*)$/m;
        my $g = eval { decode_json($line // '') } // {};
        my $gs = $g->{schedule} // {};
        ok($rc == 0 && ($g->{requests} // 0) == $n && ($g->{errors_total} // -1) == 0 && ($gs->{failed} // -1) == 0
           && ($gs->{end_timeout} // -1) == 0,
           "grid h3 $size -c $cc -m $mm: $n requests, " . ($g->{requests} // 'none') . " answered, failed "
           . ($gs->{failed} // '?') . ", errors " . ($g->{errors_total} // '?') . ", exit $rc") or diag(substr($out, 0, 2000));
    }
}
# an answer's ACK rides on the next request (q_hold holds ngtcp2's few-us
# delayed-ACK timer up to 10 ms): one datagram out a request, one request in
# flight, closed loop and paced at 500 us (before: 1.58 and 1.94, each
# ACK alone a moment after its answer)
for my $shape (['-m', '1', '-n', '2000'], ['-R', '2000', '-n', '2000']) {
    my $out = `timeout 30 $hxload -q --json --h3 -c 1 @$shape 'https://127.0.0.1:$tls/?s=100' 2>&1`;
    my ($line) = $out =~ /^(\{"hxload".*)$/m;
    my $g = eval { decode_json($line // '') } // {};
    my $dg = ($g->{h3} // {})->{datagrams_out_per_request} // 9;
    ok(($g->{requests} // 0) == 2000 && ($g->{errors_total} // -1) == 0 && $dg < 1.3,
       "-c 1 @$shape: $dg datagrams out a request, under 1.3: the ACKs ride on the requests") or diag(substr($out, 0, 2000));
}
kill 'TERM', $b;
waitpid($b, 0);
done_testing();
