#!/usr/bin/perl
# The architecture holds: the include graph keeps its layers with no circle, a protocol's folder (and each of hxload's) keeps its headers, no .c files call each other in a new circle, no adapter decides a plan's matters, no protocol does its connection set's work (tc_set.c), HTTP/3's on QUIC included, a connection's network part is net/nconn.h's alone (the server's and hxload's), the QUIC transport and HTTP/3 keep to their sides of the seam (ngtcp2, nghttp3), HTTP/3's engine is chosen in one place, hxload holds no server code and hxterm no hxload code.
use strict;
use warnings;
use FindBin;
use File::Basename qw(dirname);
use File::Temp;
use Test::More;

my $top = "$FindBin::Bin/../..";
my $hxterm = $ENV{HXTERM} // "$top/build/hxterm";
my $hxload = $ENV{HXLOAD} // "$top/build/hxload";
my $build = dirname($hxterm);

my $out = `python3 $top/scripts/layers 2>&1`;
is($? >> 8, 0, 'scripts/layers: no layer breach, no circle') or diag($out);
like($out, qr/no breach, no circle/, 'it says so');
$out = `python3 $top/scripts/layers --objects $build 2>&1`;
is($? >> 8, 0, 'scripts/layers --objects: no files call each other in a circle') or diag($out);
ok($out =~ /no circle \(calls too\)/ && $out !~ /known call circle/, '... none known either: every circle is broken');

# scripts/layers on a copy of the tree with <text> appended to each <file>
# (under src/): its exit status and what it said
sub layers_with {
    my %add = @_;
    my $tmp = File::Temp::tempdir(CLEANUP => 1);
    system('cp', '-r', "$top/src", "$top/scripts", $tmp) == 0 or die;
    for my $file (sort keys %add) {
        open(my $f, '>>', "$tmp/src/$file") or die;
        print $f $add{$file};
        close $f;
    }
    my $o = `python3 $tmp/scripts/layers 2>&1`;
    return ($? >> 8, $o);
}

# the generator's boundary, tried: a copy of the tree where an adapter tests
# a flag, writes a plan and holds one it may write is refused, line by line
{
    my ($rc, $o) = layers_with('proto/ws.c' => "static int bad1(struct exch *x) { return x->plan.flags & PF_RANDOM; }\n"
        . "static void bad2(struct exch *x) { x->plan.size = 0; }\n"
        . "static void bad3(struct plan *p) { (void)p; }\n");
    is($rc, 1, 'scripts/layers fails an adapter that decides a plan itself');
    my $n = () = $o =~ m{src/proto/ws\.c:\d+ (tests a PF_ flag|assigns a field of a plan|holds a plan it may write)}g;
    is($n, 3, '... naming each line and what it does') or diag($o);
}

# the connection set written once, tried: a copy of the tree where a
# protocol links its connection on a list of its own, bounds its free list
# and counts its close itself is refused, line by line
{
    my ($rc, $o) = layers_with('proto/ws/ws_conn.c' => "static void bad6(struct list *l, struct wsc *c) { list_add(l, &c->t.node); }\n"
        . "static int bad7(struct tc_set *s) { return s->free.n < TC_KEEP; }\n"
        . "static void bad8(struct wsc *c) { st_conn_close(&c->t.w->st, SP_WS, 1, SC_PEER); }\n"
        . "/* list_del(&c->t.node) in a comment is no breach */\n");
    is($rc, 1, 'scripts/layers fails a protocol that does its connection set\'s work');
    my @w = $o =~ m{src/proto/ws/ws_conn\.c:\d+ (links a connection's base itself|bounds a free list of connections itself|counts a connection's open or close itself)}g;
    is(scalar(@w), 3, '... naming each line and what it does, in code only') or diag($o);
}

# HTTP/3's connections on the same set (issue 39), tried: a copy of the
# tree where the QUIC transport links its connection on a list of its own
# and HTTP/3 counts its open and close itself is refused, line by line
{
    my ($rc, $o) = layers_with('proto/quic/quic.c' => "static void bad10(struct list *h, struct quic_conn *c) { list_add(h, &c->l.node); }\n",
        'proto/h3/h3_app.c' => "static void bad11(struct quic_conn *q) { st_conn_open(&q->w->st, SP_H3); }\n"
        . "static void bad12(struct quic_conn *q) { st_conn_close(&q->w->st, SP_H3, 1, SC_PEER); }\n");
    is($rc, 1, 'scripts/layers fails QUIC and HTTP/3 doing their connection set\'s work');
    like($o, qr{src/proto/quic/quic\.c:\d+ links a connection's base itself}, '... the transport linking its connection') or diag($o);
    my @c = $o =~ m{src/proto/h3/h3_app\.c:\d+ counts a connection's open or close itself}g;
    is(scalar(@c), 2, '... HTTP/3 counting its open and its close') or diag($o);
}

# one network base, tried: a copy of the tree where a hxload file holds a
# transport of its own (repeating net/nconn.h) and includes the server's
# base (proto/tconn.h) is refused, breach by breach
{
    my ($rc, $o) = layers_with('load/conn.c' => "#include \"tconn.h\"\n"
        . "struct bad9 {\n\tstruct ev ev;\n\tstruct xprt x;\n};\n"
        . "/* struct xprt x; in a comment is no breach */\n");
    is($rc, 1, 'scripts/layers fails a connection that repeats the network base, and hxload using the server\'s');
    my @x = $o =~ m{src/load/conn\.c:(\d+) holds a struct xprt of its own}g;
    is(scalar(@x), 1, '... naming the line, in code only') or diag($o);
    like($o, qr{src/load/conn\.c includes proto/tconn\.h: load may not include proto}, '... and hxload including the server\'s base') or diag($o);
}

# the seam between the QUIC transport and HTTP/3, tried: a copy of the tree
# where the transport names nghttp3 and includes an HTTP/3 header, and
# HTTP/3 names ngtcp2 and includes its header, is refused, breach by breach
{
    my ($rc, $o) = layers_with(
        'proto/quic/quic.c' => "#include <nghttp3/nghttp3.h>\n#include \"h3_eng.h\"\n"
            . "static void bad4(nghttp3_conn *h3) { (void)h3; }\n",
        'proto/h3/h3.c' => "#include <ngtcp2/ngtcp2.h>\n/* ngtcp2_conn in a comment is no breach */\n"
            . "static void bad5(void *c) { ngtcp2_conn_del(c); }\n");
    is($rc, 1, 'scripts/layers fails a transport that knows HTTP/3, and HTTP/3 that knows ngtcp2');
    like($o, qr{src/proto/quic/quic\.c includes <nghttp3/nghttp3\.h>: nghttp3's headers are HTTP/3's}, '... the transport including nghttp3') or diag($o);
    like($o, qr{src/proto/quic/quic\.c:\d+ names nghttp3_conn: nghttp3's symbols}, '... naming it') or diag($o);
    like($o, qr{src/proto/quic/quic\.c includes proto/h3/h3_eng\.h, a header private to proto/h3}, '... including an HTTP/3 header') or diag($o);
    like($o, qr{src/proto/h3/h3\.c includes <ngtcp2/ngtcp2\.h>: ngtcp2's headers are the QUIC transport's}, '... HTTP/3 including ngtcp2') or diag($o);
    my @n = $o =~ m{src/proto/h3/h3\.c:\d+ names (\w+)}g;
    is("@n", 'ngtcp2_conn_del', '... and naming it, in code only') or diag($o);
}

# hxload's folders, tried: a copy of the tree where the report includes
# find's private header and a command names ngtcp2 is refused
{
    my ($rc, $o) = layers_with('load/out/report.c' => "#include \"lc_find_int.h\"\n",
        'load/cmd/qflood.c' => "static void bad6(void *c) { ngtcp2_conn_del(c); }\n");
    is($rc, 1, 'scripts/layers fails a hxload folder that reaches into another');
    like($o, qr{src/load/out/report\.c includes load/cmd/lc_find_int\.h, a header private to load/cmd}, '... including its private header') or diag($o);
    like($o, qr{src/load/cmd/qflood\.c:\d+ names ngtcp2_conn_del: ngtcp2's symbols}, '... naming ngtcp2 outside the client protocols and --idle') or diag($o);
}

# hxload's options: written by the command line alone, read through lc_o
my @w = map { m{([^/]+\.c)$} ? $1 : () } split /\n/, `grep -rl --include='*.c' '"lc_cli.h"' $top/src/load`;
is(join(' ', sort @w), 'cli.c cli_rows.c cli_set.c opts.c url.c', 'hxload\'s options are written by the command line (cli*.c) and url.c alone (lc_cli.h)');
my @t = split /\n/, `grep -rn --include='*.c' 't->o\b\|lc_opts\.' $top/src/load | grep -v '/\(cli\|cli_rows\|cli_set\|url\|opts\)\.c:'`;
is(scalar(@t), 0, '... and read elsewhere through lc_o alone') or diag(join("\n", @t));

# the HTTP/3 engine: chosen once, asked nowhere else
my @eng = grep { !m{^\Q$top\E/src/conf/} } split /\n/, `grep -rn 'h3_engine' $top/src`;
is(scalar(@eng), 1, 'cfg.h3_engine is read in one place (h3_app.c: each connection takes its engine)') or diag(join("\n", @eng));

# the global symbols that the objects of <layers> define
sub defined_by {
    my %s;
    for my $layer (@_) {
        for my $o (glob "$build/src/$layer/*.o $build/src/$layer/*/*.o") {
            for (`nm --defined-only $o`) {
                $s{$1} = $o if /^\S+ [TDBR] (\S+)$/ && $1 ne 'main';
            }
        }
    }
    return \%s;
}

# every global symbol of a linked program
sub globals_of {
    my %s;
    for (`nm --defined-only $_[0]`) {
        $s{$1} = 1 if /^\S+ [TDBR] (\S+)$/;
    }
    return \%s;
}

my $server = defined_by(qw(conf proto server));
my $load = defined_by('load');
ok(keys %$server > 50 && keys %$load > 10, 'the objects were found (' . scalar(keys %$server)
   . ' server symbols, ' . scalar(keys %$load) . ' hxload symbols)');
my $in_load = globals_of($hxload);
my @leak = sort grep { $in_load->{$_} } keys %$server;
is_deeply(\@leak, [], 'hxload links no symbol of the server (conf, proto, server)');
my $in_term = globals_of($hxterm);
@leak = sort grep { $in_term->{$_} } keys %$load;
is_deeply(\@leak, [], 'hxterm links no symbol of hxload');
ok(!grep(/^hist_/, keys %$in_term), 'hxterm carries no latency histogram (hxload\'s)');
ok($in_load->{ex_plan} ? 0 : 1, 'hxload has no generator');
ok($in_term->{sess_accept} && $in_term->{ex_plan}, 'while hxterm has the session layer and the generator');
done_testing();
