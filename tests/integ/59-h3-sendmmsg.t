#!/usr/bin/python3
# Packets of the connections read in one wakeup leave in one sendmmsg: strace -c counts hxterm's send calls over a bounded hxload --h3 -c 100 -m 1 run, then hxload's own socket calls at -c 10 -m 10, a socket each (one by one, and through its io_uring) and --h3-ports 2, then hxterm's reads that find its socket empty in a paced run.
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, ok, skip, start  # noqa: E402

if not shutil.which("strace"):
    print("1..0 # SKIP strace is not installed (apt-get install strace)")
    sys.exit(0)
LOAD = os.environ.get("HXLOAD", "build/hxload")
N = 5000
srv, clear, tls = start(tls=True)


def strace_table(path):
    """strace -c's table: {call: (calls, errors)}"""
    t = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 5 and f[3].isdigit():
            t[f[-1]] = (int(f[3]), int(f[4]) if len(f) == 6 else 0)
    return t


def answered(r, n):
    """hxload's run <r> exited 0 and answered <n> requests, none failed"""
    m = re.search(r"requests (\d+) .*?(\d+) errors", r.stdout)
    return r.returncode == 0 and m and int(m.group(1)) == n and m.group(2) == "0"


def server_calls(args, n):
    """hxterm's system calls over a bounded hxload --h3 run of <n> requests: (the run, strace's table)"""
    out = tempfile.NamedTemporaryFile(suffix=".strace")
    st = subprocess.Popen(["strace", "-c", "-f", "-o", out.name, "-p", str(srv.pid)], stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # WHY: strace attaches to each thread before the load starts
    r = subprocess.run(["timeout", "60", LOAD, "-q", "--h3", "-n", str(n)] + args + ["https://127.0.0.1:%d/?s=100" % tls],
                       capture_output=True, text=True)
    st.send_signal(signal.SIGINT)
    st.wait(timeout=20)
    return r, strace_table(out.name)


load, table = server_calls(["-c", "100", "-m", "1"], N)
calls = {k: table[k][0] for k in ("sendmsg", "sendmmsg", "recvmmsg") if k in table}
ok(answered(load, N), "hxload --h3 -c 100 -m 1: %d requests, none failed: %s" % (N, load.stdout.strip()[:160]))
mm, one = calls.get("sendmmsg", 0), calls.get("sendmsg", 0)
ok(mm > 0, "sendmmsg is used: %d calls, %d recvmmsg" % (mm, calls.get("recvmmsg", 0)))
# WHY 0.6: a sendmsg per connection and wakeup made 1.26 a request here; one
# sendmmsg a turn of the loop (receive batches and timers) 0.04 to 0.1
ok((mm + one) / N < 0.6, "send calls a request: %.3f (sendmmsg %.3f, sendmsg %.3f), under 0.6" %
   ((mm + one) / N, mm / N, one / N))


# hxload's own calls, -c 10 -m 10: with --h3-no-ring a socket each makes a
# recvmmsg and a sendmsg a round of each connection (10 requests), 0.2 a
# request; by default a loop turn reads the sockets of 4 connections in one
# io_uring_enter and sends their packets in another; with --h3-ports 2 one
# recvmmsg a socket and one sendmmsg a loop turn
CALLS = ("sendmsg", "sendmmsg", "recvmmsg", "recvmsg", "io_uring_enter")


def client_calls(extra):
    tr = tempfile.NamedTemporaryFile(suffix=".strace")
    # WHY no leak check: LeakSanitizer cannot run under ptrace (strace), and
    # an ASan build's hxload then exits 1 after a run that failed nothing
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    r = subprocess.run(["timeout", "60", "strace", "-c", "-f", "-o", tr.name, LOAD, "-q", "--h3", "-c", "10", "-m", "10",
                        "-n", str(N)] + extra + ["https://127.0.0.1:%d/?s=100" % tls], capture_output=True, text=True, env=env)
    n = {k: v[0] for k, v in strace_table(tr.name).items() if k in CALLS}
    return sum(n.values()), n, answered(r, N), r.stdout.strip()[:160]


own, _, own_ok, own_out = client_calls(["--h3-no-ring"])
ring, ring_by, ring_ok, ring_out = client_calls([])
shared, _, shared_ok, shared_out = client_calls(["--h3-ports", "2"])
ok(own_ok and ring_ok and shared_ok, "hxload -c 10 -m 10, a socket each (--h3-no-ring, and the ring) and --h3-ports 2: "
   "%d requests each, none failed: %s / %s / %s" % (N, own_out, ring_out, shared_out))
ok(own / N >= 0.19, "--h3-no-ring: %.3f socket calls a request, one each way a round of a connection" % (own / N))
if ring_by.get("io_uring_enter"):
    ok(ring < own * 0.6, "a socket each through the ring: %.3f calls a request (%s), under 0.6 x --h3-no-ring's %.3f" %
       (ring / N, ring_by, own / N))
else:
    skip("the kernel refused io_uring: hxload made its socket calls one by one (%s)" % ring_by)
ok(shared < own * 0.6, "--h3-ports 2: %.3f socket calls a request, under 0.6 x a socket each's %.3f" %
   (shared / N, own / N))


# A paced run (500 requests a second): each wake-up brings one datagram, and
# the read after a short one found the socket empty every time (2 recvmmsg
# that failed EAGAIN a request); once a few such reads in a row found
# nothing, a short read ends the wake-up's reads (epoll, level-triggered,
# says when more came), every 16th still looking once more
paced, table = server_calls(["-c", "2", "-R", "500"], 1000)
reads, empty = table.get("recvmmsg", (0, 0))
ok(answered(paced, 1000), "hxload --h3 -c 2 -R 500 -n 1000: none failed: %s" % paced.stdout.strip()[:160])
# WHY 0.5: 2.0 before, 0.13 here (the first reads and the 16th's)
ok(reads > 0 and empty / 1000 < 0.5, "paced: %d recvmmsg, %d of them found the socket empty: %.2f a request, under 0.5" %
   (reads, empty, empty / 1000))
srv.send_signal(signal.SIGINT)
ok(srv.wait(timeout=15) == 0, "hxterm exits 0 at SIGINT")
done()
