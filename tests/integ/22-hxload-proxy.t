#!/usr/bin/perl
# hxload as a proxy benchmark needs it: SNI and routing (openssl s_server, HAProxy), Host, open-loop accounting, merge, --close and resumption, --fail-on, the HTML report in Chromium, workload shapes.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IO::Socket::INET;
use File::Temp qw(tempdir);
use JSON::PP;
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxload = $ENV{HXLOAD} // 'build/hxload';
my $dir = tempdir(CLEANUP => 1);
my $port = start_hx('-tls', '-t', '2');
my $tls = hx_tls_port();
my @kids;

# runs hxload; returns (the decoded last JSON line or undef, exit code, stdout, stderr)
sub run {
    my ($args, $pre) = @_;
    my $out = `@{[$pre // '']}timeout 60 $hxload -q $args 2>$dir/err`;
    my $rc = $? >> 8;
    my $err = do { local (@ARGV, $/) = ("$dir/err"); <> // '' };
    my ($last) = grep { /^\{"hxload"/ } split /\n/, $out;
    return ($last ? decode_json($last) : undef, $rc, $out, $err);
}

sub spawn {
    my $pid = spawn_bg("$dir/kid.out", @_);
    push @kids, $pid;
    return $pid;
}

# ---------- SNI, --connect-to, --resolve, --cacert against openssl s_server ----------
for my $n (1, 2) {
    system("openssl req -x509 -newkey rsa:2048 -nodes -keyout $dir/k$n.pem -out $dir/c$n.pem -days 2 "
         . "-subj /CN=" . ($n == 1 ? 'default.test' : 'example.test')
         . ($n == 2 ? ' -addext subjectAltName=DNS:example.test' : '') . " 2>/dev/null") == 0 or die;
}
my $sport = free_port();
spawn('openssl', 's_server', '-accept', "127.0.0.1:$sport", '-cert', "$dir/c1.pem", '-key', "$dir/k1.pem",
      '-cert2', "$dir/c2.pem", '-key2', "$dir/k2.pem", '-servername', 'example.test', '-servername_fatal',
      '-www', '-quiet');
ok(wait_port($sport), 'openssl s_server is up');
{
    my ($j, $rc, $out, $err) = run("--json --h1 -c 1 -n 5 --sni wrong.test 'https://127.0.0.1:$sport/'");
    is($rc, 1, 's_server -servername_fatal: a wrong SNI fails (exit 1)');
    like($err, qr/unrecognized name/, "it says why: $err");
    ($j, $rc) = run("--json --h1 -c 1 -n 5 --sni example.test 'https://127.0.0.1:$sport/'");
    is($rc, 0, '--sni example.test: exit 0');
    is($j->{status}{200}, 5, '--sni example.test: 5 answered 200');
    ($j, $rc) = run("--json --h1 -c 1 -n 5 --connect-to example.test:443:127.0.0.1:$sport 'https://example.test/'");
    is($j->{status}{200}, 5, 'a URL naming example.test and --connect-to: SNI from the URL, 5 answered');
    ($j, $rc) = run("--json --h1 -c 1 -n 5 --resolve example.test:$sport:127.0.0.1 --cacert $dir/c2.pem "
                  . "'https://example.test:$sport/'");
    is($j->{status}{200}, 5, '--resolve and --cacert with the right CA: verified, 5 answered');
    ($j, $rc, $out, $err) = run("--json --h1 -c 1 -n 5 --resolve example.test:$sport:127.0.0.1 --cacert $dir/c1.pem "
                              . "'https://example.test:$sport/'");
    is($rc, 1, '--cacert with another CA: the certificate does not verify (exit 1)');
    like($err, qr/does not verify/, "it says why: $err");
    ($j, $rc, $out, $err) = run("--json --h2 -c 1 -n 5 --sni example.test 'https://127.0.0.1:$sport/'");
    like($err, qr/no ALPN h2/, "--h2 against a server without h2: one line: $err");
}

# ---------- mutual TLS: a server that asks for a client certificate ----------
{
    my $mport = free_port();
    spawn('openssl', 's_server', '-accept', "127.0.0.1:$mport", '-cert', "$dir/c2.pem", '-key', "$dir/k2.pem",
          '-Verify', '1', '-CAfile', "$dir/c1.pem", '-verify_return_error', '-www', '-quiet');
    ok(wait_port($mport), 'openssl s_server -Verify is up');
    my ($j, $rc, $out, $err) = run("--json --h1 -c 1 -n 5 'https://127.0.0.1:$mport/'");
    is($rc, 1, 'no client certificate: exit 1');
    like($err, qr/alert certificate required/, "it says why: $err");
    ($j, $rc) = run("--json --h1 -c 1 -n 5 --cert $dir/c1.pem --key $dir/k1.pem 'https://127.0.0.1:$mport/'");
    is($j->{status}{200}, 5, '--cert and --key: mutual TLS, 5 answered');
    ($j, $rc, $out, $err) = run("--h1 -n 1 --cert $dir/c2.pem --key $dir/k1.pem 'https://127.0.0.1:$mport/'");
    is($rc, 2, 'a key that is not the certificate\'s: exit 2');
}

# ---------- Host: exactly one, replaced; long paths whole ----------
{
    my $cport = free_port();
    my $pid = fork // die;
    if (!$pid) {
        my $l = IO::Socket::INET->new(Listen => 4, LocalAddr => "127.0.0.1:$cport", ReuseAddr => 1)
            or POSIX::_exit(1);
        open my $log, '>', "$dir/req.txt" or POSIX::_exit(1);
        $log->autoflush(1);
        for (1 .. 3) { # WHY 3: wait_port's probe is one
            my $s = $l->accept or last;
            my $req = '';
            while ($req !~ /\r\n\r\n/) { sysread($s, my $b, 65536) or last; $req .= $b }
            next unless length $req;
            print $log $req;
            print $s "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
            close $s;
        }
        POSIX::_exit(0);
    }
    push @kids, $pid;
    ok(wait_port($cport), 'the capturing server is up') or diag('no capture server');
    my $long = 'x' x 5000;
    my ($j) = run("--json -c 1 -n 1 -H 'Host: app.example' 'http://127.0.0.1:$cport/p?pad=$long&s=1'");
    my ($j2) = run("--json -c 1 -n 1 'http://127.0.0.1:$cport/?q'");
    waitpid $pid, 0;
    my $reqs = do { local (@ARGV, $/) = ("$dir/req.txt"); <> // '' };
    my ($first, $second) = split /(?<=\r\n\r\n)/, $reqs;
    is(scalar(() = $first =~ /^host:/gim), 1, '-H Host: exactly one Host header');
    like($first, qr/^Host: app\.example\r$/m, '... and it is the one given');
    like($first, qr{^GET /p\?pad=x{5000}&s=1 HTTP/1\.1\r$}m, 'a 5000-byte query is sent whole');
    like($second // '', qr{^Host: 127\.0\.0\.1:$cport\r$}m, 'without -H Host: the URL\'s host and port');
    my ($jn, $rc, $out, $err) = run("-n 1 'http://127.0.0.1:$port/?pad=" . ('y' x 70000) . "'");
    is($rc, 2, 'a path over 64 KiB: exit 2, never cut');
    like($err, qr/over 64 KiB/, "it says so: $err");
}

# ---------- open loop: what was scheduled, sent, late, never sent, in flight ----------
{
    my ($j, $rc) = run("--json -c 2 -R 100 -d 3 'http://127.0.0.1:$port/?t=1500'");
    my $s = $j->{schedule};
    ok($s->{scheduled} >= 299 && $s->{scheduled} <= 301, "-R 100 -d 3: $s->{scheduled} scheduled");
    is($s->{sent} + $s->{unsent}, $s->{scheduled}, "sent $s->{sent} + never sent $s->{unsent} = scheduled");
    is($j->{requests} + $s->{failed} + $s->{end_timeout}, $s->{sent},
       "answered $j->{requests} + failed $s->{failed} + unanswered at the end $s->{end_timeout} = sent");
    is($s->{end_answered} + $s->{end_timeout}, $s->{inflight_end},
       "in flight at the end $s->{inflight_end} = answered after $s->{end_answered} + unanswered $s->{end_timeout}");
    ok($s->{inflight_end} >= 1 && $s->{end_answered} >= 1, 'requests in flight at the end were waited for and answered');
    ok($s->{late} >= 1 && $s->{unsent} > 250, "late $s->{late}, never sent $s->{unsent}");
    ok($j->{queue_ms}{max} > 1000, "the client's own queueing has its row: max $j->{queue_ms}{max} ms");
    ok($j->{other_ms}{max} < 100, "... and is not in other: max $j->{other_ms}{max} ms");
    is($s->{target_rps}, 100, 'target rate 100');
    my ($jn, $rcn, $outn, $errn) = run("--json -c 1 -d 1 --timeout 1 'http://127.0.0.1:$port/?t=5000'");
    is($rcn, 1, 'nothing answered: exit 1');
    like($errn, qr/no request was answered: 1 errors \(timeout 1\)/, "one line says why: $errn");
    is($jn->{schedule}{end_timeout}, 1, 'the request in flight at the end is counted a timeout');
}

# ---------- merge: the pooled samples' percentiles ----------
{
    my ($ja) = run("--json --label A -c 2 -n 1500 --log $dir/a.log 'http://127.0.0.1:$port/?t=1-3'");
    my ($jb) = run("--json --label B -c 3 -m 2 -n 1000 --log $dir/b.log 'h2c://127.0.0.1:$port/?t=4-8&r=503:20+200'");
    open my $fa, '>', "$dir/a.json"; print $fa encode_json($ja), "\n"; close $fa;
    open my $fb, '>', "$dir/b.json"; print $fb encode_json($jb), "\n"; close $fb;
    # WHY --force: two URLs run one after the other, on purpose, for the pooled percentiles
    my $out = `$hxload merge --json $dir/a.json $dir/b.json 2>&1`;
    is($? >> 8, 2, 'merge of runs of other URLs, one after the other: refused, exit 2');
    like($out, qr{^hxload merge: \Q$dir\E/a\.json and \Q$dir\E/b\.json ran different URLs: .*--force}, '... saying why in one line');
    my $m = decode_json(`$hxload merge --force --json $dir/a.json $dir/b.json 2>/dev/null`);
    is($m->{requests}, 2500, 'merge --force: 2500 requests');
    is($m->{status}{200} + ($m->{status}{503} // 0), 2500, 'merge: statuses add up');
    is($m->{status}{503}, $jb->{status}{503}, 'merge: the 503s of run B');
    is($m->{runs}, 2, 'merge: 2 runs');
    is($m->{label}, 'A+B', 'merge: the labels');
    my @lat;
    for my $f ("$dir/a.log", "$dir/b.log") {
        open my $l, '<', $f or die;
        while (<$l>) { my @x = split; push @lat, $x[1] }
    }
    @lat = sort { $a <=> $b } @lat;
    is(scalar @lat, 2500, 'the two --log files hold 2500 samples');
    for my $q ([ 'p50', 0.5 ], [ 'p90', 0.9 ], [ 'p99', 0.99 ], [ 'p999', 0.999 ]) {
        my $rank = int($q->[1] * @lat + 0.5);
        $rank = 1 if $rank < 1;
        my $exact = $lat[$rank - 1] / 1000;
        my $got = $m->{latency_ms}{$q->[0]};
        ok(abs($got - $exact) <= $exact / 64 + 0.002, "merge $q->[0] $got ms within one bucket of the pooled $exact ms");
    }
    is($m->{latency_ms}{max}, $lat[-1] / 1000, 'merge: max is the pooled max');
    my $text = `$hxload merge --force $dir/a.json $dir/b.json 2>/dev/null`;
    like($text, qr/^requests 2500 /m, 'merge: the text report too');
    my $bad = system("$hxload merge $dir/a.log >/dev/null 2>&1") >> 8;
    is($bad, 2, 'merge of a file that is no result: exit 2');
}

# ---------- --close, TLS resumption ----------
for my $p ([ '--h1', 'h1' ], [ '', 'h2' ]) {
    my ($j) = run("--json -c 4 -n 400 --close $p->[0] 'https://127.0.0.1:$tls/?s=1k'");
    is($j->{connections}{opened}, 400, "--close $p->[1]: 400 connections for 400 requests");
    is($j->{connections}{$p->[1]}, 400, "... all $p->[1] (ALPN)");
    # WHY 390: the first 4 are full handshakes; each TLS 1.3 ticket is offered
    # once (OpenSSL offers none a resumption already spent), and one ticket
    # shared by all once gave 311 to 396
    ok($j->{connections}{resumed} >= 390, "... $j->{connections}{resumed} resumed");
    ok($j->{tls_ms}{n} == 400 && $j->{connect_ms}{n} == 400, '... a connect and a TLS time each');
    ($j) = run("--json -c 4 -n 200 --close --no-resume $p->[0] 'https://127.0.0.1:$tls/?s=1k'");
    is($j->{connections}{resumed}, 0, "--no-resume $p->[1]: 0 resumed");
}
{
    my ($j) = run("--json -c 2 -n 100 --close 'h2c://127.0.0.1:$port/'");
    is($j->{connections}{opened}, 100, '--close h2c: one stream per connection');
}

# ---------- --fail-on ----------
{
    my ($j, $rc, $out, $err) = run("-c 2 -n 300 --fail-on 'p99>0.5ms,errors>0' 'http://127.0.0.1:$port/?t=1'");
    is($rc, 3, '--fail-on p99>0.5ms with t=1: exit 3');
    like($err, qr/--fail-on: p99 [\d.]+ ms > 0\.500 ms/, "it says which: $err");
    unlike($err, qr/errors/, 'only the crossed threshold is named');
    ($j, $rc) = run("-c 2 -n 300 --fail-on 'p99>500ms,errors>0,non2xx>1%' 'http://127.0.0.1:$port/?t=1'");
    is($rc, 0, '--fail-on not crossed: exit 0');
    ($j, $rc, $out, $err) = run("-c 2 -n 1000 --fail-on 'non2xx>5%' 'http://127.0.0.1:$port/?r=404:20+200'");
    is($rc, 3, '--fail-on non2xx>5% with 20 % 404: exit 3');
    ($j, $rc, $out, $err) = run("-n 1 --fail-on 'p99>5parsecs' 'http://127.0.0.1:$port/'");
    is($rc, 2, '--fail-on with a bad unit: exit 2');
    like($err, qr/unit/, "it says why: $err");
}

# ---------- statuses, sizes, shapes, intervals ----------
{
    my ($j) = run("--json -c 2 -n 50 'http://127.0.0.1:$port/?r=777'");
    is($j->{status}{777}, 50, 'status 777 is counted');
    is($j->{non2xx}, 50, '... as non-2xx');
    ($j) = run("--json -c 1 -n 20 --method POST --body 10k 'http://127.0.0.1:$port/?s=10'");
    is($j->{status}{200}, 20, '--body 10k (a size suffix)');
    open my $u, '>', "$dir/urls" or die;
    print $u "# weights\n3 http://127.0.0.1:$port/?s=10\n1 http://127.0.0.1:$port/?s=20&r=404\n";
    close $u;
    ($j) = run("--json -c 2 -n 4000 --urls $dir/urls");
    ok($j->{status}{200} > 2800 && $j->{status}{200} < 3200, "--urls 3:1: $j->{status}{200} x 200, $j->{status}{404} x 404");
    ($j) = run("--json -c 4 --stages '1s\@100,1s\@300' 'http://127.0.0.1:$port/'");
    ok(abs($j->{schedule}{scheduled} - 400) <= 2, "--stages 1s\@100,1s\@300: $j->{schedule}{scheduled} scheduled");
    ok(abs($j->{seconds} - 2) < 0.2, "... over $j->{seconds} s");
    ($j) = run("--json -c 4 -R 100:300 -d 2 'http://127.0.0.1:$port/'");
    ok(abs($j->{schedule}{scheduled} - 400) <= 2, "-R 100:300 -d 2: $j->{schedule}{scheduled} scheduled");
    my (undef, $rc, $out) = run("--json -c 2 -R 200 -d 2 --interval 0.5 'http://127.0.0.1:$port/?t=1'");
    my @iv = map { decode_json($_) } grep { /^\{"interval"/ } split /\n/, $out;
    my ($fin) = map { decode_json($_) } grep { /^\{"hxload"/ } split /\n/, $out;
    is(scalar @iv, 4, '--interval 0.5 over 2 s: 4 lines');
    my $sum = 0;
    $sum += $_->{requests} for @iv;
    is($sum, $fin->{requests}, "the intervals' requests add up to the run's ($sum)");
    ok(!grep({ abs($_->{requests_per_second} - 200) > 20 } @iv), 'each interval near 200 req/s');
    # answers that take 15 ms: some always in flight at the window's close,
    # which the last interval holds (they made a fifth line of a few ms)
    (undef, $rc, $out) = run("--json -c 4 -R 200 -d 2 --interval 0.5 'http://127.0.0.1:$port/?t=15'");
    @iv = map { decode_json($_) } grep { /^\{"interval"/ } split /\n/, $out;
    ($fin) = map { decode_json($_) } grep { /^\{"hxload"/ } split /\n/, $out;
    is(scalar @iv, 4, '--interval 0.5 over 2 s, answers in flight at the close: 4 lines');
    $sum = 0;
    $sum += $_->{requests} for @iv;
    is($sum, $fin->{requests}, "... the last holds them: the intervals' requests add up to the run's ($sum)");
    my $at = int(time) + 2;
    ($j) = run("--json -c 1 -n 5 --start-at $at 'http://127.0.0.1:$port/'");
    ok($j->{start} >= $at - 0.01 && $j->{start} < $at + 0.5, "--start-at $at: started at $j->{start}");
}

# ---------- mismatches and bad input: one line; a failed run exits 1, a usage error 2 ----------
for my $bad ([ "'h2c://127.0.0.1:$tls/'", qr/TLS port\? use https|answered TLS/, 1 ],
             [ "'https://127.0.0.1:$port/'", qr/not TLS/, 1 ],
             [ "'http://u:pw\@127.0.0.1:$port/'", qr/user:password/, 2 ],
             [ "'http://127.0.0.1:99999/'", qr/port must be 1 to 65535/, 2 ],
             [ "--connect-to nonsense 'http://127.0.0.1:$port/'", qr/--connect-to/, 2 ],
             [ "--h3 --unix-socket /x 'https://127.0.0.1:$tls/'", qr/no --unix-socket/, 2 ],
             [ "-c 2000 'http://127.0.0.1:$port/'", qr/^hxload: -c 2000 needs 20\d\d descriptors; the hard limit is 1000: ulimit -Hn$/, 2, 'ulimit -n 1000; ' ]) {
    my (undef, $rc, $out, $err) = run("-d 2 $bad->[0]", $bad->[3]);
    is($rc, $bad->[2], "$bad->[0]: exit $bad->[2]");
    like($err, $bad->[1], "$bad->[0]: says why");
    is(scalar(() = $err =~ /\n/g), 1, "$bad->[0]: one line");
}
like(`$hxload -v`, qr/^hxload \d+\.\d+/, '-v prints the version');
{
    # WHY -S: a soft limit under -c with room under the hard one is raised, not refused
    my ($j, $rc) = run("--json -c 1500 -n 3000 'http://127.0.0.1:$port/?s=1'", 'ulimit -Sn 1000 && ulimit -Hn 4096 && ');
    ok($rc == 0 && $j && $j->{requests} == 3000 && $j->{connections}{opened} == 1500,
       '-c 1500 under a soft limit of 1000: raised to the hard limit, 1500 connections, 3000 answered')
        or diag("rc $rc " . ($j ? "requests $j->{requests}" : ''));
}

# ---------- HAProxy: a Unix socket, SNI routing ----------
SKIP: {
    my $haproxy = -x '/usr/sbin/haproxy' ? '/usr/sbin/haproxy' : `command -v haproxy` =~ s/\s+$//r;
    skip 'no haproxy', 6 unless $haproxy && -x $haproxy;
    my $hport = free_port();
    open my $cfg, '>', "$dir/h.cfg" or die;
    print $cfg <<"EOF";
global
    maxconn 200
defaults
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend unix_in
    mode http
    bind unix\@$dir/hx.sock
    default_backend hx
backend hx
    mode http
    server s1 127.0.0.1:$port
frontend sni_in
    mode tcp
    bind 127.0.0.1:$hport
    tcp-request inspect-delay 5s
    tcp-request content accept if { req_ssl_hello_type 1 }
    use_backend hx_tls if { req_ssl_sni -i app.example }
backend hx_tls
    mode tcp
    server s1 127.0.0.1:$tls
EOF
    close $cfg;
    spawn($haproxy, '-db', '-f', "$dir/h.cfg");
    ok(wait_port($hport), 'haproxy is up');
    my ($j, $rc) = run("--json -c 2 -n 200 --unix-socket $dir/hx.sock --verify 'http://app.example/?s=2k'");
    is($j->{status}{200}, 200, '--unix-socket through haproxy: 200 answered, verified');
    ok($j->{server_ms}{n} == 200, '... with the server column');
    ($j, $rc) = run("--json -c 2 -n 100 --connect-to app.example:443:127.0.0.1:$hport 'https://app.example/?s=1k'");
    is($j->{status}{200}, 100, 'haproxy routing by req_ssl_sni: the URL\'s name as SNI reaches hxterm');
    is($j->{connections}{h2}, 2, '... over h2 (ALPN through the TCP proxy)');
    my (undef, $rc2) = run("-c 1 -n 5 --sni other.example --connect-to app.example:443:127.0.0.1:$hport "
                         . "'https://app.example/'");
    is($rc2, 1, 'another SNI: haproxy has no route, the run fails');
}

# ---------- the HTML report in headless Chromium ----------
SKIP: {
    my ($chromium) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
    skip 'no chromium (scripts/deps test installs it)', 11 unless $chromium;
    my ($j) = run("--json --verify -c 4 -R 400 -d 3 --server-pid " . hx_pid() . " --html $dir/r.html --label 'html <test>' "
                . "'http://127.0.0.1:$port/?t=1-3&r=404:10+200'");
    ok(-s "$dir/r.html", 'the report is written');
    my $page = do { local (@ARGV, $/) = ("$dir/r.html"); <> };
    unlike($page, qr/(?:src|href)=["']?https?:/, 'no external asset');
    like($page, qr/Chart\.js v3/, 'Chart.js inline, as Debian ships it');
    my ($dom, $out) = chromium("file://$dir/r.html#probe", 5000, "$dir/report.png");
    my $p99 = $j->{latency_ms}{p99};
    like($dom, qr/<canvas id="spectrum"[^>]*data-chart="ok"/, 'Chromium drew the spectrum with Chart.js');
    my ($mark) = $dom =~ /<i data-series="latency" data-x="0.99" data-value="([\d.]+)" data-q="0.99">/;
    ok(defined $mark && abs($mark - $p99) < 0.0006, "the spectrum's p99 mark holds the run's p99 ($p99 ms)");
    like($dom, qr/id="latency-p99">\Q@{[sprintf '%.3f', $p99]}\E</, 'the summary table too');
    like($dom, qr/data-name="404" data-value="$j->{status}{404}"/, "the status chart holds the 404 count ($j->{status}{404})");
    my @p50 = $dom =~ /<i data-series="p50" data-x="([\d.]+)" data-value="([\d.]+)"/g;
    ok(@p50 >= 6, 'latency over time: ' . (@p50 / 2) . ' interval points');
    my ($tip) = $dom =~ /<canvas id="timeline"[^>]*data-tooltip="([^"]*)"/;
    my ($lx, $ly) = @p50[-2, -1];
    ok(($tip // '') =~ /^([\d.]+) s \| p50: [\d.]+ ms$/ && abs($1 - $lx) < 0.001, "hovering the last p50 point shows its time and value: $tip");
    ok($tip && $tip =~ /p50: ([\d.]+) ms/ && abs($1 - $ly) < 0.0006, "... the value the run recorded ($ly ms)");
    like($dom, qr/id="sum-verified">$j->{verify}{bodies} bodies, /, "the summary says what --verify checked ($j->{verify}{bodies} bodies)");
    is($out, 0, 'no request left the page');
}

kill 'TERM', @kids;
waitpid $_, 0 for @kids;
is(stop_hx(), 0, 'clean stop');
done_testing();
