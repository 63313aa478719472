#!/usr/bin/perl
# The documentation matches the programs: every option -h lists is in the man page and the README and the reverse; install and uninstall leave nothing behind.
use strict;
use warnings;
use FindBin;
use File::Temp qw(tempdir);
use Test::More;

my $top = "$FindBin::Bin/../..";
my $hxterm = $ENV{HXTERM} // "$top/build/hxterm";
my $hxload = $ENV{HXLOAD} // "$top/build/hxload";

sub slurp { local (@ARGV, $/) = @_; return <> // '' }

# options at the start of a -h line ("  -L <addr>", "  -v, --version",
# "  --splice, --no-splice", "  --h1 / --h2")
sub from_help {
    my %o;
    for (split /\n/, $_[0]) {
        next unless /^\s{2}(-[^<'\s].*?)(?:\s{2,}|$)/;
        my $head = $1;
        $o{$1} = 1 while $head =~ /(?:^|[\s,\/])(--?[A-Za-z0-9][\w-]*)/g;
    }
    return \%o;
}

# options a man page names in its .B/.BI/.BR tag lines
sub from_man {
    my %o;
    for (split /\n/, $_[0]) {
        next unless /^\.(?:B|BI|BR)\s/;
        (my $l = $_) =~ s/\\-/-/g;
        $o{$1} = 1 while $l =~ /(?:^|[\s"])(--?[A-Za-z0-9][\w-]*)/g;
    }
    return \%o;
}

# options in the first column of a README table between two headings
sub from_readme_table {
    my ($readme, $from, $to) = @_;
    my ($part) = $readme =~ /^\Q$from\E\n(.*?)^\Q$to\E/ms or return {};
    my %o;
    for (split /\n/, $part) {
        next unless /^\|\s*([^|]+)\|/;
        my $cell = $1;
        $o{$1} = 1 while $cell =~ /`(--?[A-Za-z0-9][\w-]*)/g;
        $o{$1} = 1 while $cell =~ /,\s*`?(--?[A-Za-z0-9][\w-]*)/g;
    }
    return \%o;
}

sub same_sets {
    my ($a, $an, $b, $bn, $what, $noun) = @_;
    my @miss = sort grep { !$b->{$_} } keys %$a;
    is_deeply(\@miss, [], "$what: every " . ($noun // 'option') . " of $an is in $bn") or diag("missing: @miss");
}

my $readme = slurp("$top/README.md");
my $th = from_help(scalar `$hxterm -h`);
my $tm = from_man(slurp("$top/doc/hxterm.1"));
my $tr = from_readme_table($readme, '## Command line', '## Bad input');
ok(keys %$th > 40, 'hxterm -h lists its options (' . scalar(keys %$th) . ')');
same_sets($th, '-h', $tm, 'hxterm.1', 'hxterm');
same_sets($tm, 'hxterm.1', $th, '-h', 'hxterm');
same_sets($th, '-h', $tr, "the README's table", 'hxterm');
same_sets($tr, "the README's table", $th, '-h', 'hxterm');

my $lh = from_help(scalar `$hxload -h`);
my $lm = from_man(slurp("$top/doc/hxload.1"));
# WHY by its first line: the section opens with an example (hxload ab), then the synopsis
my ($lblock) = $readme =~ /^## hxload: the companion load generator\n.*?```\n(hxload \[options\] URL.*?)```/ms;
my %lr;
$lr{$1} = 1 while ($lblock // '') =~ /(?:^|\s)(--?[A-Za-z0-9][\w-]*)/g;
ok(keys %$lh > 15, 'hxload -h lists its options (' . scalar(keys %$lh) . ')');
same_sets($lh, '-h', $lm, 'hxload.1', 'hxload');
same_sets($lm, 'hxload.1', $lh, '-h', 'hxload');
same_sets($lh, '-h', \%lr, "the README's hxload block", 'hxload');

# each command's own rows (its -h, generated from them, exit 0): in its
# section of the man page and its synopsis in the README's block; the
# synopsis names none it lacks
for my $cmd (qw(ab find merge compare quic-flood)) {
    my $help = `$hxload $cmd -h`;
    is($? >> 8, 0, "hxload $cmd -h: exit 0");
    my $h = from_help($help);
    delete @$h{qw(-h --help)};
    ok(keys %$h >= 3, "hxload $cmd -h lists its options (" . scalar(keys %$h) . ')');
    my ($sec) = slurp("$top/doc/hxload.1") =~ /^\.SH \U$cmd\E\n(.*?)^\.SH /ms;
    $sec = ($sec // '') =~ s/\\-/-/gr;
    my %m;
    $m{$1} = 1 while ($sec // '') =~ /(?:^|[\s\[(,"])(--?[A-Za-z0-9][\w-]*)/g;
    same_sets($h, "$cmd -h", \%m, "hxload.1's " . uc($cmd), "hxload $cmd");
    my ($syn) = ($lblock // '') =~ /^(hxload \Q$cmd\E .*\n(?: {4,}\S.*\n)*)/m;
    my %r;
    $r{$1} = 1 while ($syn // '') =~ /\[(--?[A-Za-z0-9][\w-]*)/g;
    $r{$1} = 1 while ($syn // '') =~ /^hxload \S+ (--[\w-]+)/g;
    same_sets($h, "$cmd -h", \%r, "the README's synopsis", "hxload $cmd");
    same_sets(\%r, "the README's synopsis", $h, "$cmd -h", "hxload $cmd");
}

# an option the program refuses is in none of them
for my $o (sort keys %$th) {
    next if $o =~ /^-(h|v)$|^--(help|version)$/;
    my $out = `$hxterm $o 2>&1 </dev/null & sleep 0.01; kill \$! 2>/dev/null`;
    unlike($out, qr/unknown option/, "hxterm knows $o");
}

# make install into a scratch root, then uninstall: nothing left
SKIP: {
    skip 'the plain build installs (the sanitized ones are not installed)', 4
        unless $hxterm =~ m{/build/hxterm$};
    my $root = tempdir(CLEANUP => 1);
    my $dest = "$root/dest";
    my $out = `make -s -C $top install DESTDIR=$dest PREFIX=/usr/local 2>&1`;
    is($? >> 8, 0, 'make install DESTDIR=... PREFIX=/usr/local') or diag($out);
    my @files = sort map { s/^\Q$dest\E//r } split /\n/, `find $dest -type f`;
    is_deeply(\@files, [ '/usr/local/bin/hxload', '/usr/local/bin/hxterm',
                         '/usr/local/share/man/man1/hxload.1', '/usr/local/share/man/man1/hxterm.1' ],
              'installs both programs and both man pages');
    $out = `make -s -C $top uninstall DESTDIR=$dest PREFIX=/usr/local 2>&1`;
    is($? >> 8, 0, 'make uninstall') or diag($out);
    ok(!-e $dest, 'uninstall leaves nothing behind, not even a folder');
}

# every metric family /metrics serves is in the README's table and the man
# page, and the README names none it does not serve
{
    use lib "$FindBin::Bin/lib";
    require HxTest;
    my $sp = HxTest::free_port();
    HxTest::start_hx('-tls', '-t', '1', '--stats', "127.0.0.1:$sp");
    my %served = map { $_ => 1 } `curl -s http://127.0.0.1:$sp/metrics` =~ /^# TYPE (\S+) /mg;
    HxTest::stop_hx();
    my ($table) = $readme =~ /^\s*\| metric \|.*?\n((?:\s*\|.*\n)+)/m;
    my %readme = map { $_ => 1 } ($table // '') =~ /`(hxterm_\w+)`/g;
    my %man = map { $_ => 1 } slurp("$top/doc/hxterm.1") =~ /\b(hxterm_\w+)/g;
    ok(keys(%served) > 20, scalar(keys %served) . ' metric families served');
    same_sets(\%served, '/metrics', \%readme, "the README's metric table", 'hxterm', 'family');
    same_sets(\%readme, "the README's metric table", \%served, '/metrics', 'hxterm', 'family');
    same_sets(\%served, '/metrics', \%man, 'hxterm.1', 'hxterm', 'family');
}
# the README's make run passes hxterm's options (ARGS)
my $mk = `make -n -s -C $top run ARGS='-L 127.0.0.1:1234 -t 2' 2>&1`;
# WHY build-*: a check pass under SANITIZE=1 or TSAN=1 hands its variables down
like($mk, qr{^\./build(-\w+)?/hxterm -L 127\.0\.0\.1:1234 -t 2$}m, "make run ARGS='...' starts hxterm with them");
like($readme, qr/make run ARGS='-L 127\.0\.0\.1:8000:8443'/, '... as the README says');

# doc/proxies.md: every recipe is run by a test, every recipe a test runs is
# there; the man pages and the README point to it
{
    my $doc = slurp("$top/doc/proxies.md");
    my %doc = map { $_ => 1 } $doc =~ /^```\S* recipe=(\S+)$/mg;
    my %run;
    for my $t (glob "$top/tests/integ/*.t") {
        my $s = slurp($t);
        $run{$1} = 1 while $s =~ /recipe\('([\w-]+)'/g;
    }
    ok(keys(%doc) >= 5, scalar(keys %doc) . ' recipes in doc/proxies.md: ' . join(' ', sort keys %doc));
    same_sets(\%doc, 'doc/proxies.md', \%run, 'the tests', 'doc/proxies.md', 'recipe');
    same_sets(\%run, 'the tests', \%doc, 'doc/proxies.md', 'doc/proxies.md', 'recipe');
    for my $f ('README.md', 'doc/hxterm.1', 'doc/hxload.1') {
        like(slurp("$top/$f"), qr/doc\/proxies\.md/, "$f points to doc/proxies.md");
    }
}

# each mode has its EXAMPLES block in the man pages (run as written by hand: the closing notes say)
my %ex = (hxterm => [ qr/haproxy -f/, qr/nginx/i, qr/,proxy/, qr/--client-ca/, qr/ws=gen/, qr/sse=1/, qr/grpc:\/\// ],
          hxload => [ qr/hxload ab /, qr/hxload find /, qr/hxload compare /, qr/hxload merge /, qr/ws:\/\//, qr/--h3 /,
                      qr/--sse /, qr/grpc:\/\//, qr/--hlog /, qr/--shard /, qr/--html /, qr/--fail-on /, qr/--connect-to /, qr/--close / ]);
for my $prog (sort keys %ex) {
    my ($sec) = slurp("$top/doc/$prog.1") =~ /^\.SH EXAMPLES\n(.*?)^\.SH /ms;
    my @miss = grep { ($sec // '') !~ $_ } @{ $ex{$prog} };
    ok(!@miss, "$prog.1 EXAMPLES show every mode") or diag("missing: @miss");
}

done_testing();
