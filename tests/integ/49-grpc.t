#!/usr/bin/perl
# gRPC calls answered from x-hxterm metadata, with Debian's python3-grpcio as the client: unary and server-streaming messages of the pattern, grpc-status from r=, grpc-timeout as a deadline, a reset; the trailers seen by nghttp; the same through nginx grpc_pass and HAProxy proto h2; hxload grpc:// counting calls by status and their messages, direct and through nginx.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use Test::More;
use HxTest;

plan skip_all => 'needs python3-grpcio' unless system('/usr/bin/python3 -c "import grpc" 2>/dev/null') == 0;

my $port = start_hx('-tls', '-t', '1');
my $tls = hx_tls_port();
my $client = "$FindBin::Bin/lib/grpc_call.py";

# one call: its JSON line, decoded
sub call {
    my ($to, $kind, $meta, $timeout) = @_;
    my $out = `timeout 30 /usr/bin/python3 $client 127.0.0.1:$to $kind '$meta' @{[ $timeout // 10 ]} 2>&1`;
    return eval { decode_json($out) } // { code => "no answer: $out", messages => [] };
}

my $hxload = $ENV{HXLOAD} // "$FindBin::Bin/../../build/hxload";

# hxload grpc://: calls by grpc-status, their messages
sub load {
    my ($to, $via) = @_;
    my $g = (hxload_json("-c 2 -R 200 -d 1.5 'grpc://127.0.0.1:$to/hx.Any/Stream?s=200&n=3&r=200:80+503'") // {})->{grpc} // {};
    my ($ok, $un) = ($g->{OK} // 0, $g->{UNAVAILABLE} // 0);
    ok($ok > 100 && $un > 10 && $ok + $un == ($g->{calls} // -1) && !$g->{none},
       "$via: hxload grpc:// counts calls by status: OK $ok, UNAVAILABLE $un of " . ($g->{calls} // '?'));
    is($g->{messages}, 3 * $ok, "$via: ... three messages each OK call, none an error's ($g->{messages})");
}

# the same checks on a target: direct, or through a proxy
sub checks {
    my ($to, $via) = @_;
    my $r = call($to, 'unary', 's=1000&t=5');
    ok($r->{code} eq 'OK' && "@{$r->{messages}}" eq '1000' && $r->{pattern},
       "$via: unary, one message of 1000 bytes of the pattern ($r->{code})");
    $r = call($to, 'stream', 's=300&n=4&d=60');
    my @at = @{ $r->{at} // [] };
    ok($r->{code} eq 'OK' && "@{$r->{messages}}" eq '300 300 300 300' && $r->{pattern},
       "$via: server streaming, four messages ($r->{code})");
    ok(@at == 4 && $at[3] - $at[0] >= 0.17, "$via: ... 60 ms apart (@at s)");
    $r = call($to, 'unary', 'r=503');
    ok($r->{code} eq 'UNAVAILABLE' && $r->{details} =~ /hxterm/ && !@{ $r->{messages} },
       "$via: r=503 is UNAVAILABLE, no message ($r->{details})");
    $r = call($to, 'unary', 'r=404');
    is($r->{code}, 'NOT_FOUND', "$via: r=404 is NOT_FOUND");
}

checks($port, 'direct');
load($port, 'direct');
my $r = call($port, 'unary', 't=800', 0.3);
ok($r->{code} eq 'DEADLINE_EXCEEDED' && $r->{seconds} < 0.75, "grpc-timeout 300m before a wait of 800 ms: DEADLINE_EXCEEDED at $r->{seconds} s");
$r = call($port, 'stream', 's=10&n=10&d=100', 0.35);
my $got = scalar @{ $r->{at} // [] };
ok($r->{code} eq 'DEADLINE_EXCEEDED' && $got >= 3 && $got <= 4,
   "... 10 messages 100 ms apart within 350 ms: the $got that fit, then DEADLINE_EXCEEDED ($r->{details})");
$r = call($port, 'unary', 's=100000&x=5000');
ok($r->{code} ne 'OK' && $r->{details} =~ /RST_STREAM/, "x=5000: the stream reset ($r->{code}: $r->{details})");

# h3 frames a call too (no gRPC client over HTTP/3 in Debian: hxload's h3 sends its head)
my $j3 = eval { decode_json(`$hxload --h3 -q --json -n 5 -c 1 --method POST --body 5 -H 'content-type: application/grpc' -H 'x-hxterm: s=10&n=2' https://127.0.0.1:$tls/hx.Any/Call 2>&1`) } // {};
ok(($j3->{status}{200} // 0) == 5 && ($j3->{bytes} // 0) == 5 * 2 * (5 + 2 + 10),
   'h3: five calls, each two length-prefixed messages of 10 bytes (' . ($j3->{bytes} // '?') . ' bytes)');

# the trailers as another HTTP/2 client sees them
my $ng = `timeout 10 nghttp -v -H 'content-type: application/grpc' -H 'x-hxterm: s=10' http://127.0.0.1:$port/hx.Any/Call 2>&1`;
like($ng, qr/recv \(stream_id=\d+\) content-type: application\/grpc.*recv \(stream_id=\d+\) grpc-status: 0\s.*END_STREAM/s,
     'nghttp: content-type application/grpc, then grpc-status: 0 in the trailers, which end the stream');
unlike($ng, qr/content-length/, '... and no content-length');

SKIP: {
    my $dir = tempdir(CLEANUP => 1);
    my $np = free_port();
    my $ngx = nginx_run($dir, $np, "http {\n    server { listen 127.0.0.1:$np http2; location / { grpc_pass grpc://127.0.0.1:$port; } }\n}\n");
    skip 'no nginx', 8 unless $ngx;
    checks($np, 'nginx grpc_pass');
    load($np, 'nginx grpc_pass');
    kill 'TERM', $ngx;
    waitpid($ngx, 0);
}

SKIP: {
    my $dir = tempdir(CLEANUP => 1);
    my $hp = free_port();
    my $ha = -x '/usr/sbin/haproxy' && do {
        open my $c, '>', "$dir/ha.cfg" or die;
        print $c "global\n    nbthread 1\ndefaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n"
               . "    timeout server 30s\nfrontend fe\n    bind 127.0.0.1:$hp proto h2\n    default_backend be\n"
               . "backend be\n    server s1 127.0.0.1:$port proto h2\n";
        close $c;
        my $pid = spawn_bg("$dir/ha.out", '/usr/sbin/haproxy', '-db', '-f', "$dir/ha.cfg");
        wait_port($hp) ? $pid : undef;
    };
    skip 'no haproxy', 6 unless $ha;
    checks($hp, 'HAProxy proto h2');
    kill 'TERM', $ha;
    waitpid($ha, 0);
}

is(stop_hx(), 0, 'hxterm stops cleanly');
done_testing();
