#!/usr/bin/perl
# The older tools' habits: every example of haterm's and httpterm's help texts served as documented, their command lines (-G, --tcp-bind-opts, -C, -f, -p, -B, -P, -db, -dS, -sf/-st) mapped, the rest refused by name.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use Test::More;
use IO::Socket::INET;
use File::Temp qw(tempdir);
use Time::HiRes qw(time sleep);
use POSIX ();
use HxTest;

my $hxterm = $ENV{HXTERM} // 'build/hxterm';
my $dir = tempdir(CLEANUP => 1);

sub trim { my $s = shift // ''; $s =~ s/\s+$//; return $s }

# hxterm with <args> -C: the dumped configuration
sub dump_cfg { my $out = `$hxterm @_ -C 2>&1`; return ($out, $? >> 8) }

# ---------- the help texts' examples ----------
my $port = start_hx('--max-wait', '9000');
sub get {
    my ($path, $v) = @_;
    my ($r) = parse_responses(scalar raw_exchange("GET $path HTTP/1.$v\r\nHost: x\r\nConnection: close\r\n\r\n", 12));
    return $r;
}
sub xrsp { my $r = shift; return $r ? get_hdr($r, 'x-rsp') // '' : '' }

{
    my $t0 = time;
    my $r = get('/?s=20k&c=1&t=700&K=30r', 0);
    my $took = time - $t0;
    is($r->{status}, 200, 'both tools\' example GET /?s=20k&c=1&t=700&K=30r HTTP/1.0: 200');
    is(length $r->{body}, 20480, '... 20 KiB');
    like(xrsp($r), qr/cache=1, size=20480, time=700 ms/, '... cacheable, after 700 ms');
    ok($took >= 0.69, sprintf('... and it did wait (%.2f s)', $took));
    $r = get('/?r=500?s=0?c=0?t=1000', 0);
    is($r->{status}, 500, 'GET /?r=500?s=0?c=0?t=1000 HTTP/1.0: every item applies (haterm read only the last): 500');
    like(xrsp($r), qr/code=500, cache=0, size=0, time=1000 ms/, '... no body, not cacheable, 1000 ms');
    $r = get('/?s=100/t=500', 1);
    like(xrsp($r), qr/size=100, time=500 ms/, "httpterm's README example /?s=100/t=500");
}
my @eg = (
    [ '/?s=20k', sub { length($_[0]{body}) == 20480 }, '20 KiB' ],
    [ '/?r=404', sub { $_[0]{status} == 404 }, 'status 404' ],
    [ '/?c=0', sub { (get_hdr($_[0], 'cache-control') // '') eq 'no-cache' }, 'no-cache' ],
    [ '/?A=1', sub { $_[0]{status} == 200 }, 'answered' ],
    [ '/?C=1', sub { (get_hdr($_[0], 'connection') // '') =~ /close/i }, 'Connection: close' ],
    [ '/?K=1', sub { $_[0]{status} == 200 }, 'answered' ],
    [ '/?t=500', sub { xrsp($_[0]) =~ /time=500 ms/ }, 'a 500 ms wait' ],
    [ '/?k=1', sub { (get_hdr($_[0], 'transfer-encoding') // '') eq 'chunked' }, 'chunked' ],
    [ '/?R=1', sub { random_ok($_[0]{body}, 100) }, 'random bytes' ],
    [ '/?b=0', sub { !defined get_hdr($_[0], 'content-length') }, 'no Content-Length' ],
    [ '/?b=100k', sub { (get_hdr($_[0], 'content-length') // '') eq '102400' }, 'Content-Length: 102400 (a lie)' ],
    [ '/?B=10000', sub { $_[0]{status} == 200 }, 'answered' ],
    [ '/?t=10k', sub { $_[0]{status} == 400 && $_[0]{body} =~ /max-wait/ }, '10 000 ms: beyond --max-wait 9000, so read as 10 s' ],
    [ '/?w=1000', sub { $_[0]{status} == 200 }, 'answered' ],
    [ '/?P=100', sub { $_[0]{status} == 200 }, 'answered' ],
    [ '/?e=1', sub { defined get_hdr($_[0], 'etag') }, 'an ETag' ],
    [ '/?S=0', sub { $_[0]{status} == 200 }, 'answered' ],
    [ '/?p=1000', sub { $_[0]{status} == 200 && pattern_ok($_[0]{body}, 100) }, 'the pattern in pieces' ],
    [ '/?h', sub { $_[0]{body} =~ /s=/ }, 'the help page' ],
    [ '/?', sub { $_[0]{body} =~ /s=/ }, 'the help page' ],
);
for my $e (@eg) {
    # WHY s=100: the default body is empty, and some examples need one
    my $r = get($e->[0] =~ /s=|h$|\?$/ ? $e->[0] : "$e->[0]&s=100", 1);
    ok($r && $e->[1]->($r), "help example $e->[0]: $e->[2]");
}
{
    my $t0 = time;
    my $r = get('/?t=5000r', 1);
    my ($w) = xrsp($r) =~ /time=(\d+) ms/;
    ok(defined $w && $w <= 5000 && time - $t0 < 6, "httpterm's /?t=5000r: a wait drawn in 0..5000 ms (" . ($w // '?') . ')');
}
stop_hx();

# ---------- haterm's command line ----------
{
    my ($c, $rc) = dump_cfg('-L 127.0.0.1:8888');
    like($c, qr/^-L 127\.0\.0\.1:8888$/m, "haterm -L 127.0.0.1:8888");
    ($c) = dump_cfg('-L 127.0.0.1:8888:8889 -L [::1]:8888:8889');
    like($c, qr/^-L 127\.0\.0\.1:8888:8889\n-L \[::1\]:8888:8889$/m, 'haterm -L 127.0.0.1:8888:8889 -L [::1]:8888:8889');
    ($c, $rc) = dump_cfg('-L 127.0.0.1:8888:8889 -G "limited-quic"');
    is($rc, 0, 'haterm -G "limited-quic": accepted (hxterm\'s QUIC needs no gate)');
    ($c) = dump_cfg('-L 127.0.0.1:8888 -G "nbthread 4"');
    like($c, qr/^-t 4$/m, '-G "nbthread 4" sets -t 4');
    ($c) = dump_cfg('-L 127.0.0.1:8888 -G "maxconn 500"');
    like($c, qr/^-n 500$/m, '-G "maxconn 500" sets -n 500');
    ($c) = dump_cfg('-L 127.0.0.1:8888:8889 --tcp-bind-opts accept-proxy');
    like($c, qr/^-L 127\.0\.0\.1:8888:8889,proxy$/m, '--tcp-bind-opts accept-proxy: a PROXY header on every listener');
    ($c) = dump_cfg('--tcp-bind-opts accept-proxy');
    like($c, qr/^-L \*:8000:8443,proxy$/m, '... the default listener too');
    ($c) = dump_cfg('-L 127.0.0.1:8888 -dS -D -b 4096 -c P-384');
    like($c, qr/^--no-splice$/m, '-dS: no splice');
    like($c, qr/^-D$/m, '-D: daemon');
    like($c, qr/^-b 4096\n-c 'P-384'$/m, '-b and -c: the generated keys');
    my $pp = free_port();
    my $pid = fork // die;
    if (!$pid) { open STDERR, '>', '/dev/null'; exec $hxterm, '-q', '-L', "127.0.0.1:$pp", '--tcp-bind-opts', 'accept-proxy' or POSIX::_exit(127) }
    my $body;
    for (1 .. 100) { $body = `curl -s --haproxy-protocol 'http://127.0.0.1:$pp/?s=7'`; last if $body; sleep 0.05 }
    is($body, pattern(7), 'a server started with --tcp-bind-opts accept-proxy answers curl --haproxy-protocol');
    kill 'TERM', $pid;
    waitpid($pid, 0);
    for my $bad ([ '-G "tune.bufsize 1"', qr/-G 'tune\.bufsize 1': no hxterm setting/ ],
                 [ '-F "option httplog"', qr/-F option httplog: hxterm has no frontend section/ ],
                 [ '-T "trace h1 level user"', qr/-T trace h1 level user: hxterm has no trace sections/ ],
                 [ '--tcp-bind-opts "accept-proxy tfo"', qr/no hxterm setting matches 'tfo'/ ],
                 [ '--quic-bind-opts "quic-cc-algo bbr"', qr/--quic-bind-opts 'quic-cc-algo bbr'/ ],
                 [ '-dZ', qr/-dZ: hxterm has no zero-copy forwarding/ ]) {
        my $err = `$hxterm -q $bad->[0] 2>&1`;
        my $rc2 = $? >> 8;
        ok($rc2 == 2 && $err =~ $bad->[1] && ($err =~ tr/\n//) == 1, "refused in one line, exit 2: $bad->[0]: " . trim($err));
    }
}

# ---------- httpterm's command line ----------
{
    my ($c) = dump_cfg('-D -L :8002');
    like($c, qr/^-L \*:8002$/m, 'httpterm -D -L :8002');
    ($c) = dump_cfg("-L :8002 -p $dir/ht.pid -B 65536 -P 128 -db -dS -a -V");
    like($c, qr/^--pidfile '\Q$dir\E\/ht\.pid'$/m, '-p: the pid file');
    like($c, qr/^--sndbuf 65536$/m, '-B: SO_SNDBUF');
    like($c, qr/^--rspbuf 131072$/m, '-P 128 (kB): the splice pipe, which is --rspbuf large');
    unlike($c, qr/^-D$/m, '-db: foreground');
    my ($out, $rc) = (scalar `$hxterm -c 2>&1`, $? >> 8);
    is($rc, 0, "httpterm's -c (check): exit 0: " . trim($out));
    open my $f, '>', "$dir/ht.cfg" or die;
    print $f "# httpterm's example, reduced to what maps\nglobal\n\tmaxconn\t30000\n\tnbproc 2\n"
           . "listen proxy1 127.0.0.1:8000\n\tmaxconn\t30000\n\tobject weight 1 name test1 code 200 size 1048576\n"
           . "\tclitimeout\t10000\nlisten proxy2 127.0.0.1:8003\n\tdisabled\n";
    close $f;
    ($c, $rc) = dump_cfg("-f $dir/ht.cfg");
    is($rc, 0, '-f with global, listen, object, clitimeout, disabled: read');
    like($c, qr/^-L 127\.0\.0\.1:8000$/m, '... the listener');
    unlike($c, qr/8003/, '... not the disabled one');
    like($c, qr/^-n 30000$/m, '... maxconn');
    like($c, qr/^-t 2$/m, '... nbproc as threads');
    like($c, qr/^--defaults 'r=200&s=1048576'$/m, '... the object as --defaults');
    like($c, qr/^--idle-timeout 10000$/m, '... clitimeout');
    open $f, '>', "$dir/bad.cfg" or die;
    print $f "global\n\tulimit-n 80\n";
    close $f;
    my $err = `$hxterm -f $dir/bad.cfg 2>&1`;
    ok(($? >> 8) == 2 && $err =~ /line 2: 'ulimit-n': not a setting/, '-f: a line hxterm cannot map is named: ' . trim($err));
    $err = `$hxterm -m 100 2>&1`;
    like($err, qr/-m 100: hxterm sets no memory limit/, '-m refused by name');
    $err = `$hxterm -de 2>&1`;
    like($err, qr/-de: hxterm always runs on epoll/, '-de refused by name');
}

# ---------- -sf / -st: replace a running instance ----------
sub start_at {
    my ($p, @extra) = @_;
    my $pid = fork // die;
    if (!$pid) { open STDERR, '>', "$dir/kid.err"; exec $hxterm, '-q', '-t', '1', '-L', "127.0.0.1:$p", '--no-h3', @extra or POSIX::_exit(127) }
    return $pid;
}
sub up { my $p = shift; for (1 .. 100) { return 1 if IO::Socket::INET->new("127.0.0.1:$p"); sleep 0.05 } return 0 }
sub gone { my ($pid, $t) = @_; my $end = time + $t; while (time < $end) { return 1 if waitpid($pid, POSIX::WNOHANG()) == $pid; sleep 0.02 } return 0 }
for my $mode ('-sf', '-st') {
    my $p = free_port();
    my $old = start_at($p);
    ok(up($p), "$mode: the old instance serves");
    my $c = IO::Socket::INET->new("127.0.0.1:$p") or die;
    # The exchange lasts 4 s, so that a sanitized build's slow start of the
    # new instance (a second or more) still leaves -st well apart from -sf.
    print $c "GET /?s=10&t=4000 HTTP/1.1\r\nHost: x\r\n\r\n";
    sleep 0.2;
    my $t0 = time;
    my $new = start_at($p, $mode, $old);
    my $old_gone = gone($old, 10);
    my $took = time - $t0;
    my ($buf) = read_all($c, 3);
    if ($mode eq '-sf') {
        ok($old_gone && $took > 3.5, sprintf('-sf: the old one finished its 4 s exchange, then left (%.2f s)', $took));
        like($buf, qr/^HTTP\/1\.1 200.*\r\n\r\n\Q${\ pattern(10)}\E$/s, '-sf: the exchange in flight was answered whole');
    } else {
        ok($old_gone && $took < 3.0, sprintf('-st: the old one stopped before its exchange ended (%.2f s)', $took));
        unlike($buf, qr/200 OK/, '-st: the exchange in flight was cut');
    }
    my $b = `curl -s 'http://127.0.0.1:$p/?s=5'`;
    is($b, pattern(5), "$mode: the new instance serves the port");
    kill 'TERM', $new;
    waitpid($new, 0);
}
done_testing();
