#!/usr/bin/perl
# The command line: help, version, errors exit 2 with one line, --defaults and caps, threads.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use HxTest;
use Time::HiRes qw(time);

my $bin = $ENV{HXTERM} // 'build/hxterm';

sub run_hx {
    my $out = `$bin @_ 2>&1`;
    return ($out, $? >> 8);
}

my ($out, $rc) = run_hx('-h');
is($rc, 0, '-h exits 0');
for my $o ('-L', '-t', '-n', '-D', '-q', '-d', '-v', '--name', '--defaults', '--max-size',
           '--max-wait', '--bufsize', '--rspbuf', '--sndbuf', '--idle-timeout') {
    like($out, qr/^\s+\Q$o\E\b/m, "-h documents $o");
}
($out, $rc) = run_hx('-v');
ok($rc == 0 && $out =~ /^hxterm \d+\.\d+\.\d+$/m, "-v prints the version: $out");

for my $bad ([ '-L', 'nonsense' ], [ '-L', '1.2.3.4.5:80' ], [ '-L', '127.0.0.1:99999' ],
             [ '-L', '1.2.3:80' ], [ '-L', 'no-such-host.invalid:80' ], [ '-L', '127.0.0.1:90-80' ],
             [ '-L', '127.0.0.1:80-82:90' ], [ '-L', '127.0.0.1:1000-1300' ],
             [ '-t', '0' ], [ '-t', 'x' ], [ '--bogus' ], [ '--defaults', "'s=abc'" ],
             [ '--max-wait', '10', '--defaults', "'t=20'" ], [ '--bufsize', '1' ], ['extra'], ['-L'],
             [ '--h2-enc-table', 'x' ], [ '--h2-enc-table', '2m' ], [ '--h2-engine', 'nghttp3' ], [ '--h3-engine', 'nghttp2' ]) {
    ($out, $rc) = run_hx(@$bad);
    is($rc, 2, "@$bad: exit 2");
    is(scalar(() = $out =~ /\n/g), 1, "@$bad: one line ($out)");
}

# --h2-engine: ours by default, nghttp2's session on request, as the configuration says
($out) = run_hx('--dump-config');
like($out, qr/^--h2-engine hx$/m, 'the default HTTP/2 engine is ours');
($out) = run_hx('--h2-engine', 'nghttp2', '--dump-config');
like($out, qr/^--h2-engine nghttp2$/m, '--h2-engine nghttp2 takes nghttp2\'s session');
($out) = run_hx('--dump-config');
like($out, qr/^--h3-engine hx$/m, 'the default HTTP/3 response framing is ours');
($out) = run_hx('--h3-engine', 'nghttp3', '--dump-config');
like($out, qr/^--h3-engine nghttp3$/m, '--h3-engine nghttp3 takes nghttp3\'s');

# -L with a host name binds each of its addresses; a port range binds each port
{
    my $p = free_port();
    my ($o2, $r2) = run_hx('-t', '1', '--no-h3', '-L', "localhost:$p", '--bogus-after');
    like($o2, qr/unknown option '--bogus-after'/, '-L localhost: accepted (then the bad option stops it)');
    # WHY below 32768 and each port tried first: a range inside the
    # ephemeral ports may collide with a client's (the server then exits 2)
    my $base;
    for (1 .. 50) {
        my $b = 10000 + int(rand(22000));
        my @s = map { IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:$_", ReuseAddr => 1) }
                ($b .. $b + 2, $b + 10 .. $b + 12);
        if (6 == grep { $_ } @s) { $base = $b; close $_ for @s; last }
        close $_ for grep { $_ } @s;
    }
    die 'no free run of ports' unless $base;
    my $rerr = "/tmp/hx-range-$$.err";
    my $pid = fork // die;
    if (!$pid) { open STDERR, '>', $rerr; exec $bin, '-t', '1', '--no-h3', '-L', "127.0.0.1:$base-" . ($base + 2) . ':' . ($base + 10) . '-' . ($base + 12); exit 127 }
    my @ok;
    for my $port ($base, $base + 1, $base + 2) {
        my $got = '';
        for (1 .. 50) { $got = `curl -s http://127.0.0.1:$port/?s=3`; last if $got; select undef, undef, undef, 0.1 }
        push @ok, $got eq '.12';
    }
    is_deeply(\@ok, [ 1, 1, 1 ], "-L 127.0.0.1:$base-" . ($base + 2) . ': each clear port of the range serves');
    my $tls = `curl -sk https://127.0.0.1:@{[ $base + 12 ]}/?s=3`;
    is($tls, '.12', 'and the last TLS port of its range');
    kill 'TERM', $pid;
    waitpid $pid, 0;
    my $err = do { local (@ARGV, $/) = $rerr; <> } // '';
    is(scalar(() = $err =~ /listening on 127\.0\.0\.1:\d+ /g), 6, 'six listeners announced (three clear, three TLS)');
    unlink $rerr;
    my $many = join ' ', map { "-L 127.0.0.1:" . (30000 + $_) } 1 .. 257;
    ($o2, $r2) = run_hx($many);
    ok($r2 == 2 && $o2 =~ /at most 256/, "257 -L: exit 2, the limit named ($o2)");
}

# --cert/--key: missing file, key mismatch, a good pair
my $d = "/tmp/hx-certs-$$";
mkdir $d;
system("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=a "
     . "-keyout $d/k1.pem -out $d/c1.pem 2>/dev/null");
system("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out $d/k2.pem 2>/dev/null");
open my $junk, '>', "$d/junk.pem" or die;
print $junk "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
close $junk;
# each refused by the start, and by --check with the same line and exit 2
# (haproxy -c and nginx -t load the files too)
for my $bad ([ "--cert $d/none.pem --key $d/k1.pem", qr/cannot open/ ],
             [ "--cert /nonexistent.pem --key /nonexistent.pem", qr/cannot open/ ],
             [ "--cert $d/junk.pem --key $d/k1.pem", qr/no PEM certificate/ ],
             [ "--cert $d/c1.pem --key $d/k2.pem", qr/does not match/ ],
             [ "--client-ca $d/none.pem", qr/--client-ca/ ],
             [ "--cert $d/c1.pem", qr/go together/ ],
             [ "-c no-such-curve", qr/curve/ ],
             [ "-b 12", qr/-b/ ]) {
    my $l = '127.0.0.1:' . free_port() . ':' . free_port();
    ($out, $rc) = run_hx('-q', '-L', $l, $bad->[0]);
    is($rc, 2, "$bad->[0]: exit 2");
    like($out, $bad->[1], "$bad->[0]: says why");
    is(scalar(() = $out =~ /\n/g), 1, "$bad->[0]: one line");
    my ($co, $crc) = run_hx('-q', '-L', $l, $bad->[0], '--check');
    ok($crc == 2 && $co eq $out, "$bad->[0] --check: exit 2 ($crc), the start's line") or diag($co);
}
($out, $rc) = run_hx('-L', '127.0.0.1:' . free_port() . ':' . free_port(), "--cert $d/c1.pem --key $d/k1.pem --check");
ok($rc == 0 && $out =~ /valid/ && $out =~ /loaded certificate SHA-256/, 'a good pair --check: loaded, exit 0') or diag($out);
system("rm -rf $d");

# a weak key on purpose: -b 1024 serves TLS
{
    my $p = free_port();
    my $t = free_port();
    my $pid = fork // die;
    if (!$pid) { open STDERR, '>', '/dev/null'; exec $bin, '-q', '-t', '1', '-b', '1024', '-L', "127.0.0.1:$p:$t"; exit 127 }
    my $s = '';
    for (1 .. 50) { $s = `echo | openssl s_client -connect 127.0.0.1:$t -sigalgs RSA-PSS+SHA256:RSA+SHA256 2>/dev/null`; last if $s =~ /BEGIN CERT/; select undef, undef, undef, 0.1 }
    like($s, qr/Server public key is 1024 bit/, '-b 1024: a 1024-bit RSA certificate is served');
    kill 'TERM', $pid;
    waitpid $pid, 0;
}

# -d: debug traces on stderr
{
    my $p = free_port();
    my $errf = "/tmp/hx-debug-$$.err";
    my $pid = fork // die;
    if (!$pid) { open STDERR, '>', $errf; exec $bin, '-q', '-d', '-t', '1', '-L', "127.0.0.1:$p"; exit 127 }
    my $c;
    for (1 .. 50) { $c = IO::Socket::INET->new("127.0.0.1:$p") and last; select undef, undef, undef, 0.1 }
    print $c "BAD\r\n\r\n";
    read_all($c, 1);
    kill 'TERM', $pid;
    waitpid $pid, 0;
    my $log = do { local (@ARGV, $/) = $errf; <> } // '';
    like($log, qr/accepted fd \d+ on port $p/, '-d traces accepted connections');
    like($log, qr/: 400 malformed/, '-d traces the reason of a 400');
    unlink $errf;
}

# -D: a daemon, the command returns at once and the server serves
{
    my $p = free_port();
    my $t0 = time;
    system($bin, '-D', '-q', '--no-h3', '-t', '1', '-L', "127.0.0.1:$p");
    is($? >> 8, 0, '-D returns 0');
    my $b = '';
    for (1 .. 50) { $b = `curl -s 'http://127.0.0.1:$p/?s=3'`; last if $b; select undef, undef, undef, 0.1 }
    is($b, '.12', 'the daemon serves');
    system('pkill', '-TERM', '-f', "127.0.0.1:$p\$");
}

# a port already taken
my $p = free_port();
my $sock = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => $p) or die;
($out, $rc) = run_hx('-q', '-L', "127.0.0.1:$p");
is($rc, 2, 'a busy port: exit 2');
like($out, qr/cannot listen on 127\.0\.0\.1:$p/, 'and says where');
close $sock;

# --defaults apply first, the request overrides; caps answer 400
my $port = start_hx('-t', '3', '--defaults', 's=12&r=201', '--max-size', '1k', '--max-wait', '100');
my ($buf) = raw_exchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
my ($r) = parse_responses($buf);
ok($r->{status} == 201 && length $r->{body} == 12, '--defaults apply to every request');
($r) = parse_responses(scalar raw_exchange("GET /?s=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
ok($r->{status} == 201 && length $r->{body} == 3, 'the request overrides the defaults');
($r) = parse_responses(scalar raw_exchange("GET /?s=2k HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
ok($r->{status} == 400 && $r->{body} =~ /max-size/, 's over --max-size: 400, not clipped');
($r) = parse_responses(scalar raw_exchange("GET /?t=101 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
ok($r->{status} == 400 && $r->{body} =~ /max-wait/, 't over --max-wait: 400');

# three threads really run
my $pid = hx_pid();
my $threads = () = glob("/proc/$pid/task/*");
# WHY: ThreadSanitizer's runtime runs a thread of its own
my $tsan = `nm -D $bin 2>/dev/null` =~ /__tsan_init/ ? 1 : 0;
is($threads, 4 + $tsan, 'three workers and the main thread' . ($tsan ? ' (and TSan\'s)' : ''));
is(stop_hx(), 0, 'clean stop with three threads');

# no -L: the defaults, said on stderr (only when 8000 is free)
SKIP: {
    my @t = map { IO::Socket::INET->new(Listen => 1, LocalAddr => '0.0.0.0', LocalPort => $_, ReuseAddr => 1) } 8000, 8443;
    skip 'port 8000 or 8443 is busy on this machine', 2 unless $t[0] && $t[1];
    close $_ for @t;
    my $cpid = open(my $fh, '-|', "$bin -t 1 2>&1") or die;
    my $line = <$fh>;
    like($line, qr/no -L given: listening on every interface, :8000 \(clear\) and :8443 .*max-size \d+ .*max-wait \d+ ms; for this machine alone: -L 127\.0\.0\.1:8000:8443/,
         'no -L: says it listens on every interface at :8000 and :8443, with the caps, and the loopback form');
    my $b2 = '';
    for (1 .. 50) { $b2 = `curl -s -i http://127.0.0.1:8000/?s=2`; last if $b2; select undef, undef, undef, 0.1 }
    like($b2 // '', qr/^HTTP\/1.1 200/, 'and serves on 8000');
    kill 'TERM', $cpid;
    close $fh;
}
done_testing();
