#!/usr/bin/python3
# Idle h2c connections hold no buffers: ~2,000 held after one request each cost a few KiB apiece, the memory goes back once they close, and a connection that went idle answers a large body and a pipelined burst.
import os
import sys
import time

import h2.config
import h2.connection
import h2.events

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
from h2hold import close_all, open_idle  # noqa: E402
from hxtap import BIN, done, ok, pump, rss_kb, start  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402

N = 2000
# WHY per engine: nghttp2's session is ~10 KiB a connection of its own (ours ~1.3 KiB all told once
# it rested 100 ms, bench/mem-h2)
NG = "--h2-engine nghttp2" in os.environ.get("HX_ARGS", "")
LIMIT = 24 if NG else 4
heads = {}  # the last answer's fields on each stream
bodies = {}  # ... and its body
syms = subprocess.run(["nm", "-D", BIN], capture_output=True, text=True).stdout
SAN = "__asan_init" in syms or "__tsan_init" in syms  # a sanitizer's shadow memory: RSS says nothing

proc, port = start()


def client():
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True,
                                                                      header_encoding="utf-8"))
    conn.initiate_connection()
    conn.increment_flow_control_window(1 << 24)
    sock.sendall(conn.data_to_send())
    return sock, conn


def ask(sock, conn, paths, first_sid, extra=()):
    """<paths> on streams from <first_sid>, sent at once, each with the fields
    <extra>: {sid: (status, body bytes)}"""
    sids = [first_sid + 2 * i for i in range(len(paths))]
    for sid, p in zip(sids, paths):
        conn.send_headers(sid, [(":method", "GET"), (":scheme", "http"), (":authority", "x"), (":path", p)]
                          + list(extra), end_stream=True)
    sock.sendall(conn.data_to_send())
    got = {sid: [None, 0] for sid in sids}
    ended = set()

    def until(evs):
        for ev in evs[len(until.seen):]:
            if isinstance(ev, h2.events.ResponseReceived):
                got[ev.stream_id][0] = dict(ev.headers).get(":status")
                heads[ev.stream_id] = dict(ev.headers)
            elif isinstance(ev, h2.events.DataReceived):
                got[ev.stream_id][1] += len(ev.data)
                bodies[ev.stream_id] = bodies.get(ev.stream_id, b"") + ev.data
            elif isinstance(ev, (h2.events.StreamEnded, h2.events.StreamReset)):
                ended.add(ev.stream_id)
        until.seen = list(evs)
        return ended >= set(sids)
    until.seen = []
    pump(sock, conn, until, limit=8.0)
    return {sid: tuple(v) for sid, v in got.items()}


time.sleep(0.3)
rest = rss_kb(proc.pid)
sock, conn = client()
r = ask(sock, conn, ["/?s=100"], 1)
ok(r == {1: ("200", 100)}, "the first request of the connection that goes idle (%s)" % r)
# fields the client's encoder puts in its dynamic table: sent again after the
# rest, they come as references that the server's rebuilt decoder must resolve
EXTRA = [("x-before-rest", "v" * 40), ("x-other", "kept-in-the-table")]
ask(sock, conn, ["/?E=1"], 3, EXTRA)
echo1 = bodies.get(3, b"")

loop, held, good = open_idle(port, N)
ok(good == N, "%d idle h2c connections held after one request each (%d)" % (N, good))
time.sleep(0.3)
idle = rss_kb(proc.pid)
kib = (idle - rest) / float(max(good, 1))
ok(SAN or kib < LIMIT, "%.2f KiB a connection while idle (< %d)" % (kib, LIMIT))

# the connection that went idle takes its buffers back: a 1 MiB body, then 40 pipelined
r = ask(sock, conn, ["/?s=1m"], 5)
ok(r == {5: ("200", 1 << 20)}, "a 1 MiB answer after idle (%s)" % r)
# WHY: at rest our engine dropped its encoder's entries and folded its decoder; both tables rebuilt
ok(sorted(heads[5]) == sorted(heads[1]) and heads[5].get("content-type") == heads[1].get("content-type"),
   "the answer after the rest has the fields of the first (%s; %s)" % (sorted(heads[5]), sorted(heads[1])))
ask(sock, conn, ["/?E=1"], 7, EXTRA)
echo2 = bodies.get(7, b"")
ok(b"x-before-rest: " + b"v" * 40 in echo2 and b"x-other: kept-in-the-table" in echo2 and echo2 == echo1,
   "the request's fields from the client's table, read after the rest as before it (E=1: %d and %d bytes)"
   % (len(echo1), len(echo2)))
r = ask(sock, conn, ["/?s=%d" % (1000 + i) for i in range(40)], 9)
ok(all(r[9 + 2 * i] == ("200", 1000 + i) for i in range(40)), "40 pipelined requests after idle, all answered")
sock.close()

close_all(loop, held)
time.sleep(0.5)
after = rss_kb(proc.pid)
ok(SAN or after < rest * 1.3, "RSS after they closed %d kB, at rest %d kB (< +30 %%)" % (after, rest))
# and a new connection is served after the crowd left
sock, conn = client()
r = ask(sock, conn, ["/?s=10"], 1)
ok(r == {1: ("200", 10)}, "a new connection after the crowd (%s)" % r)
sock.close()
proc.terminate()
ok(proc.wait(10) == 0, "clean stop")
done()
