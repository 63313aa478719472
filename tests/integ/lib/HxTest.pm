# Test helpers: start the real hxterm on a free loopback port, talk raw HTTP/1 to it.
package HxTest;
use strict;
use warnings;
use IO::Socket::INET;
use IO::Select;
use Socket qw(SOL_SOCKET SO_REUSEADDR);
use Time::HiRes qw(time sleep);
use POSIX ();
use File::Temp ();
use JSON::PP ();
use Exporter 'import';

our @EXPORT = qw(nofile_raise start_hx stop_hx hx_port hx_pid hx_tls_port raw_exchange connect_hx read_all
                 parse_responses pattern_ok random_ok pattern get_hdr curl_hx curl_head free_port spawn_bg wait_port
                 haproxy_http nginx_run chromium hxload_json recipe);

my $bin = $ENV{HXTERM} // 'build/hxterm';
my ($pid, $port, $tls_port);
my $LINE = ".123456789.123456789.123456789.123456789.12345678\n";

# 1 when HXTERM is an ASan or TSan build: slower, and its exit checks for leaks
sub sanitized {
    my $bin = $ENV{HXTERM} // 'build/hxterm';
    return scalar(`nm -D $bin 2>/dev/null` =~ /__(?:asan|tsan)_init/);
}

# The open-file limit raised to <need> for this test and what it starts:
# re-executes the script under the hard limit when the soft one is lower
# (hxterm, HAProxy take the limit they are given); the hard limit, which
# may still be below <need> (the caller skips then)
sub nofile_raise {
    my ($need) = @_;
    my $soft = `sh -c 'ulimit -n'` + 0;
    my $hard = `sh -c 'ulimit -Hn'`;
    $hard = $hard =~ /unlimited/ ? 1 << 20 : $hard + 0;
    if ($soft < $need && $hard >= $need && !$ENV{HX_NOFILE_RAISED}) {
        $ENV{HX_NOFILE_RAISED} = 1;
        exec 'sh', '-c', "ulimit -n $hard && exec \"\$0\" \"\$@\"", $^X, $0, @ARGV;
    }
    return $hard;
}

# WHY free on UDP too: a TLS port is QUIC's as well, and a port free on TCP
# alone made hxterm fail to start beside other tests' QUIC listeners
sub free_port {
    for (1 .. 50) {
        my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => '127.0.0.1', LocalPort => 0,
                                      Proto => 'tcp') or die "no free port: $!";
        my $p = $s->sockport;
        my $u = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => $p, Proto => 'udp');
        close $s;
        next unless $u;
        close $u;
        return $p;
    }
    die "no port free on both TCP and UDP";
}

# Starts hxterm with <@args> after -L 127.0.0.1:<free port>; waits until it accepts.
# A first argument '-tls' adds a free TLS port (hx_tls_port).
sub start_hx {
    my @args = @_;
    my $listen;
    $port = free_port();
    $listen = "127.0.0.1:$port";
    if (@args && $args[0] eq '-tls') {
        shift @args;
        $tls_port = free_port();
        $listen .= ":$tls_port";
    }
    $pid = fork // die "fork: $!";
    if (!$pid) {
        open STDOUT, '>', '/dev/null';
        # HX_ARGS: options added to every start (make check-uring runs the suite with --io-uring)
        exec $bin, '-L', $listen, '-q', @args, split(' ', $ENV{HX_ARGS} // '') or POSIX::_exit(127);
    }
    for (1 .. 100) {
        my $c = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port);
        return $port if $c;
        sleep 0.05;
    }
    die "hxterm did not start on port $port";
}

sub hx_port { $port }
sub hx_tls_port { $tls_port }
sub hx_pid { $pid }

# WHY: a peer that resets must fail a test, not kill the script before END
$SIG{PIPE} = 'IGNORE';

# SIGTERM, then the exit status (0 is a clean stop)
sub stop_hx {
    return -1 unless $pid;
    kill 'TERM', $pid;
    my $t0 = time;
    my $deadline = $t0 + 15;
    while (time < $deadline) {
        my $r = waitpid($pid, POSIX::WNOHANG());
        if ($r == $pid) { undef $pid; Test::More::diag(sprintf 'stop took %.1f s', time - $t0) if time - $t0 > 2; return $? }
        sleep 0.02;
    }
    kill 'KILL', $pid;
    waitpid($pid, 0);
    undef $pid;
    return -1;
}

END { stop_hx() if $pid }

my @spawned;

# Starts <@cmd> in the background, stdout and stderr to the file <out>;
# returns its pid. Whatever is still running at exit gets SIGTERM.
# HAProxy from Debian in HTTP mode, one thread, from 127.0.0.1:<listen> to
# 127.0.0.1:<backend>, its config in <dir>, run under <@prefix> (taskset):
# its pid once it listens, or undef (no haproxy, or it did not start); a
# hash first in <@prefix> sets { server => 'maxconn 4' }: the server line's
# options
sub haproxy_http {
    my ($dir, $listen, $backend, @prefix) = @_;
    my $o = ref $prefix[0] eq 'HASH' ? shift @prefix : {};
    my $haproxy = -x '/usr/sbin/haproxy' ? '/usr/sbin/haproxy' : return undef;
    my $cfgf = "$dir/haproxy-$listen.cfg";
    my $srv = $o->{server} ? " $o->{server}" : '';
    my $def = $o->{defaults} ? "    $o->{defaults}\n" : '';
    open my $cfg, '>', $cfgf or die "$cfgf: $!";
    print $cfg "global\n    maxconn 2000\n    nbthread 1\ndefaults\n    mode http\n${def}    timeout connect 5s\n"
             . "    timeout client 30s\n    timeout server 30s\nfrontend fe\n    bind 127.0.0.1:$listen\n"
             . "    default_backend be\nbackend be\n    server s1 127.0.0.1:$backend$srv\n";
    close $cfg;
    my $pid = spawn_bg("$dir/haproxy-$listen.out", @prefix, $haproxy, '-db', '-f', $cfgf);
    return wait_port($listen) ? $pid : undef;
}

# Starts nginx in <dir>/ng with <conf> (its http or stream block, the
# modules it loads first), in the foreground, one process; an http block
# gets no access log and its temporary files in <dir>/ng; waits for
# <port>: its pid, or undef (no nginx, or it did not come up)
sub nginx_run {
    my ($dir, $port, $conf, @modules) = @_;
    return undef unless -x '/usr/sbin/nginx' && !grep { !-e } @modules;
    $conf =~ s/^http \{\n/http {\n    access_log off;\n    client_body_temp_path $dir\/ng\/body;\n    proxy_temp_path $dir\/ng\/proxy;\n/;
    mkdir "$dir/ng";
    open my $cfg, '>', "$dir/ng/nginx.conf" or die "$dir/ng/nginx.conf: $!";
    print $cfg map({ "load_module $_;\n" } @modules),
        "daemon off;\nmaster_process off;\npid $dir/ng/nginx.pid;\nerror_log $dir/ng/error.log;\n",
        "events { worker_connections 256; }\n", $conf;
    close $cfg;
    my $pid = spawn_bg("$dir/ng/out", '/usr/sbin/nginx', '-p', "$dir/ng", '-c', "$dir/ng/nginx.conf",
                       '-e', "$dir/ng/error.log");
    return wait_port($port) ? $pid : undef;
}

# Loads <url> in headless Chromium from Debian for <budget> ms of virtual
# time: (its DOM once the scripts ran, how many requests it sent beyond
# loopback, a screenshot's path when <png> is given), or () without
# Chromium. WHY a proxy that only reads the request line: every request to
# any other host goes to it (loopback goes direct), so none leaving shows
# as 0; Chromium's own (its clock, updater and accounts at Google's hosts,
# which no flag stops) are not the page's and are left out
sub chromium {
    my ($url, $budget, $png) = @_;
    my ($bin) = grep { -x } qw(/usr/bin/chromium /usr/bin/chromium-browser);
    return () unless $bin;
    my $trap = IO::Socket::INET->new(Listen => 16, LocalAddr => '127.0.0.1', LocalPort => 0, Blocking => 0) or die;
    my $common = "--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "
               . "--disable-component-update --disable-sync --disable-default-apps --disable-extensions "
               . "--proxy-server=http://127.0.0.1:" . $trap->sockport . " --virtual-time-budget=$budget";
    my $out = 0;
    my $reap = sub {
        while (my $c = $trap->accept) {
            $c->blocking(1);
            $c->timeout(2);
            my $line = <$c> // '';
            $out++ unless $line =~ m{^\S+ (?:https?://)?[\w.-]*\b(?:google\.com|googleapis\.com|gvt1\.com)[:/]};
            close $c;
        }
    };
    my $kid = open(my $fh, '-|', "timeout 90 $bin $common --dump-dom '$url' 2>/dev/null") or die "chromium: $!";
    my $dom = '';
    while (1) {
        my $rin = '';
        vec($rin, fileno($fh), 1) = 1;
        vec($rin, fileno($trap), 1) = 1;
        select(my $rout = $rin, undef, undef, 1);
        $reap->() if vec($rout, fileno($trap), 1);
        next unless vec($rout, fileno($fh), 1);
        last unless sysread($fh, my $chunk, 65536);
        $dom .= $chunk;
    }
    close $fh;
    $reap->();
    system("timeout 90 $bin $common --hide-scrollbars --window-size=1060,1800 --screenshot=$png '$url' >/dev/null 2>&1") if $png;
    return ($dom, $out, $png);
}

sub spawn_bg {
    my ($out, @cmd) = @_;
    my $kid = fork // die "fork: $!";
    if (!$kid) {
        open STDOUT, '>', $out;
        open STDERR, '>&', \*STDOUT;
        exec @cmd or POSIX::_exit(127);
    }
    push @spawned, $kid;
    return $kid;
}

END { kill 'TERM', @spawned if @spawned }

# Waits up to 5 s (20 under a sanitizer) for a TCP listener on 127.0.0.1:<p>:
# 1, or 0; 0 at once when <pid>, if given, has exited (a port taken meanwhile).
# WHY longer sanitized: CI's ASan pass once saw a second hxterm not up in 5 s
# beside another test's load (30-tickets, "hxterm B did not start")
my $slow;
sub wait_port {
    my ($p, $pid) = @_;
    $slow //= sanitized() ? 4 : 1;
    for (1 .. 100 * $slow) {
        return 1 if IO::Socket::INET->new("127.0.0.1:$p");
        return 0 if $pid && waitpid($pid, POSIX::WNOHANG()) == $pid;
        sleep 0.05;
    }
    return 0;
}

sub connect_hx {
    my $c = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => shift // $port,
                                  Proto => 'tcp') or die "connect: $!";
    binmode $c;
    return $c;
}

# Reads until EOF or <timeout> seconds of silence; returns (bytes, how it ended).
sub read_all {
    my ($c, $timeout) = @_;
    $timeout //= 3;
    my $sel = IO::Select->new($c);
    my $buf = '';
    while ($sel->can_read($timeout)) {
        my $n = sysread($c, $buf, 1 << 20, length $buf);
        return ($buf, defined $n ? 'eof' : "error:$!") if !$n;
    }
    return ($buf, 'timeout');
}

# Sends <req> on a new connection, reads what comes back.
sub raw_exchange {
    my ($req, $timeout) = @_;
    my $c = connect_hx();
    print $c $req;
    my ($buf, $end) = read_all($c, $timeout);
    close $c;
    return wantarray ? ($buf, $end) : $buf;
}

# Splits a byte stream into responses: [{status, version, headers => [[n, v]...],
# body, trailers, raw_chunks => [sizes]}]. HEAD responses are flagged by <heads>.
sub parse_responses {
    my ($buf, %o) = @_;
    my @out;
    my $i = 0;
    while ($buf =~ /\G(HTTP\/1\.(\d) (\d{3}) [^\r\n]*)\r\n((?:[^\r\n]+\r\n)*)\r\n/gc) {
        my %r = (line => $1, version => $2, status => $3, headers => []);
        for my $l (split /\r\n/, $4) {
            my ($n, $v) = $l =~ /^([^:]+):\s*(.*)$/ or die "bad header line '$l'";
            push @{ $r{headers} }, [ $n, $v ];
        }
        my $pos = pos $buf;
        my $is_head = $o{heads} && $o{heads}[$i];
        my $cl = get_hdr(\%r, 'content-length');
        my $te = get_hdr(\%r, 'transfer-encoding');
        if ($is_head || $r{status} == 204 || $r{status} == 304 || $r{status} < 200) {
            $r{body} = '';
        } elsif ($te && $te =~ /chunked/i) {
            my $body = '';
            my @sizes;
            while (1) {
                substr($buf, $pos) =~ /^([0-9a-f]+)\r\n/ or do { $r{incomplete} = 1; last };
                my $sz = hex $1;
                $pos += length($1) + 2;
                push @sizes, $sz;
                if ($sz == 0) {
                    substr($buf, $pos) =~ /^((?:[^\r\n]+\r\n)*)\r\n/ or do { $r{incomplete} = 1; last };
                    $r{trailers} = [ map { [ /^([^:]+):\s*(.*)$/ ] } split /\r\n/, $1 ];
                    $pos += length($1) + 2;
                    last;
                }
                $body .= substr($buf, $pos, $sz);
                $pos += $sz;
                substr($buf, $pos, 2) eq "\r\n" or do { $r{incomplete} = 1; last };
                $pos += 2;
            }
            $r{body} = $body;
            $r{chunks} = \@sizes;
        } elsif (defined $cl) {
            $r{body} = substr($buf, $pos, $cl);
            $r{incomplete} = 1 if length($r{body}) < $cl;
            $pos += $cl;
        } else {
            $r{body} = substr($buf, $pos);
            $pos = length $buf;
        }
        push @out, \%r;
        pos($buf) = $pos;
        $i++;
        last if $pos >= length $buf;
    }
    return @out;
}

sub get_hdr {
    my ($r, $name) = @_;
    for (@{ $r->{headers} }) { return $_->[1] if lc $_->[0] eq lc $name }
    return undef;
}

sub pattern {
    my ($len, $off) = @_;
    $off //= 0;
    my $s = $LINE x (int(($len + $off) / 50) + 2);
    return substr($s, $off % 50, $len);
}

# true when <body> is exactly <len> bytes of the pattern: a short, empty or
# missing body is no pass (WHY the length is required: it was not, and an
# empty body passed)
sub pattern_ok {
    my ($b, $len) = @_;
    die 'pattern_ok: the expected length is required' unless defined $len;
    return defined $b && length $b == $len && $b eq pattern($len);
}

# true when <body> is <len> bytes that are not the pattern (R=1)
sub random_ok {
    my ($b, $len) = @_;
    return defined $b && $len > 0 && length $b == $len && $b ne pattern($len);
}

# the fenced block of doc/proxies.md marked recipe=<name> (```lang
# recipe=<name>), each key of <subst> (a port, a folder) replaced by its
# value where it stands as a whole word: the text the test runs, or die
sub recipe {
    my ($name, %subst) = @_;
    (my $doc = __FILE__) =~ s{tests/integ/lib/HxTest\.pm$}{doc/proxies.md};
    open my $fh, '<', $doc or die "$doc: $!";
    local $/;
    my ($text) = <$fh> =~ /^```\S* recipe=\Q$name\E\n(.*?)^```$/ms or die "$doc: no recipe=$name";
    for my $k (sort { length $b <=> length $a } keys %subst) {
        $text =~ s/(?<![\w.])\Q$k\E(?![\w])/$subst{$k}/g;
    }
    return $text;
}

# runs curl against the server; returns (stdout, exit code)
sub curl_hx {
    my (@args) = @_;
    open my $fh, '-|', 'curl', '-s', '--max-time', '10', @args or die "curl: $!";
    local $/;
    my $out = <$fh> // '';
    close $fh;
    return ($out, $? >> 8);
}

# curl -i with <args>: (status, headers {lowercased name => value}, body)
sub curl_head {
    my ($out) = curl_hx('-i', @_);
    my ($head, $body) = split /\r\n\r\n/, $out, 2;
    my ($st) = ($head // '') =~ /^HTTP\/\S+ (\d+)/;
    my %h = map { /^([^:]+):\s*(.*)$/ ? (lc $1 => $2) : () } split /\r\n/, $head // '';
    return ($st // 0, \%h, $body // '');
}

# runs hxload with <args> (a shell string) and --json; returns its decoded
# JSON (undef, with the output as a diagnostic, when there is none). WHY
# stderr apart: under load hxload says on stderr that it fell behind, and a
# test reads the JSON, not the warnings
sub hxload_json {
    my ($args) = @_;
    my $hxload = $ENV{HXLOAD} // 'build/hxload';
    my (undef, $err) = File::Temp::tempfile('hxload-err-XXXXXX', TMPDIR => 1, UNLINK => 1);
    my $out = `$hxload -q --json $args 2>$err`;
    my $j = eval { JSON::PP::decode_json($out) };
    unless ($j) {
        open my $fh, '<', $err;
        local $/;
        my $e = $fh ? <$fh> // '' : '';
        Test::More::diag("hxload $args: no JSON; stdout: $out; stderr: $e");
    }
    unlink $err;
    return $j;
}

1;
