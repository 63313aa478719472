#!/usr/bin/python3
# WebSocket abuse: a 400,000-ping flood from a client that never reads (SO_RCVBUF 4096 before connect, writes of 100 pings) and a 1 GB ws=gen never read leave the server's memory where it was, on h1 and on h2 extended CONNECT; a close frame with a 1-byte payload is answered 1002.
import os
import socket
import struct
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, ok, rss_kb, start  # noqa: E402

_BIN = open(os.environ.get("HXTERM", "build/hxterm"), "rb").read()
SANITIZED = b"__asan_init" in _BIN
TSAN = b"__tsan_init" in _BIN
if SANITIZED:
    # WHY: ASan keeps freed memory in a quarantine (256 MB by default) and its
    # free lists, RSS it holds by design, not ours; with a small quarantine and
    # its memory given back often, the bound means the same as in the plain build
    os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=4:thread_local_quarantine_size_kb=64:allocator_release_to_os_interval_ms=100"
srv, PORT = start()
SLACK_KB = 16 << 10  # the issue's bound: 16 MB


def frame(op, payload):
    """a masked client frame (mask 0: the payload goes as is)"""
    n = len(payload)
    head = bytes([0x80 | op])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + b"\0\0\0\0" + payload


def upgrade(path, s=None):
    """the Upgrade of /path on <s> (a new connection by default): (socket, the response head)"""
    s = s or socket.create_connection(("127.0.0.1", PORT), timeout=10)
    s.settimeout(10)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % path).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            break
        head += b
    return s, head


def settle(before, what, slack=SLACK_KB):
    """waits up to 5 s for the server's RSS to come back within <slack> kB of <before>"""
    now = rss_kb(srv.pid)
    for _ in range(50):
        if now - before <= slack:
            break
        time.sleep(0.1)
        now = rss_kb(srv.pid)
    ok(now - before <= slack, "%s: RSS %+d kB once the client left (at most %d)" % (what, now - before, slack))


# a close frame with a 1-byte payload: 1002, not an empty close
s, head = upgrade("/?ws=echo")
ok(head.startswith(b"HTTP/1.1 101"), "h1: the handshake")
s.sendall(frame(0x8, b"\x03"))
got = b""
s.settimeout(3)
try:
    while len(got) < 4:
        b = s.recv(64)
        if not b:
            break
        got += b
except socket.timeout:
    pass
ok(got[:4] == b"\x88\x02\x03\xea", "a close frame with a 1-byte payload: a close with 1002 (got %r)" % got[:8])
s.close()

# Issue 42 item 3's client, exactly: SO_RCVBUF 4096 before connect, the
# 101 (or the 200) read and nothing after, 400,000 masked 125-byte pings in
# writes of 100 frames. The server read all 50 MB in 0.23 s and kept 80 MB
# of pongs: one wslay_event_recv() reads until the socket is empty, and this
# client never let it be. WHY 400,000 under a sanitizer too: a server that
# stops reading in time takes the kernel's buffers' worth (6 to 8 MB) and
# no more, so the count costs no time; the test waits STALL s past that.
PINGS = 400000
PER_WRITE = 100
STALL = 1.0
# WHY 12 MB of growth: the bound, 1 MiB of queued answers (each pong
# counted with its 128 bytes of wslay's own), is about 2 MB of heap; on h2
# the 4 MiB of DATA the session has not read come on top (seen: +0.9 MB on
# h1, +4.4 MB on h2); the rest is margin. The old server grew 80 MB.
# WHY 3 MB once the client left: the session that went over the bound
# trims the heap as it goes, and an h2 stream's unread DATA is unmapped with
# it; what stays is the arena's own (0 to 1 MB here). The old server kept
# 80 MB (h1) and 4.4 MB (h2). WHY wider under the sanitizers: ASan holds
# up to 4 MB of freed blocks in its quarantine (set above) besides its
# redzones (seen: +7.4 MB, +5 MB kept); ThreadSanitizer keeps shadow for
# every byte touched, 4 times its size, never given back for the heap
# (seen: +23 MB on h2, +4.5 MB kept on h1). The old server grew 395 MB
# under ThreadSanitizer.
GROWTH_KB = (48 if TSAN else 16 if SANITIZED else 12) << 10
BACK_KB = (12 if TSAN else 10 if SANITIZED else 3) << 10
PING = frame(0x9, b"p" * 125)


def tiny_rcvbuf_socket():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # WHY before connect: the window scale follows it
    s.connect(("127.0.0.1", PORT))
    return s


def flood(s, write):
    """sends <write> PINGS / PER_WRITE times, one send each, until all are gone
    or the server takes nothing for STALL s; the server's RSS is sampled
    meanwhile: (bytes sent, bytes in all, peak RSS kB)"""
    peak, stop = [rss_kb(srv.pid)], threading.Event()

    def sample():
        while not stop.wait(0.005):
            peak[0] = max(peak[0], rss_kb(srv.pid))

    t = threading.Thread(target=sample)
    t.start()
    s.settimeout(STALL)
    sent, total = 0, len(write) * (PINGS // PER_WRITE)
    try:
        for _ in range(PINGS // PER_WRITE):
            s.sendall(write)
            sent += len(write)
    except (socket.timeout, OSError):
        pass
    stop.set()
    t.join()
    return sent, total, max(peak[0], rss_kb(srv.pid))


# h2 extended CONNECT first (the old server's 4 MiB stayed, unseen once the
# h1 flood had grown the heap): the same client on a stream, DATA frames of
# 100 pings written as they are, whatever the windows (it reads none of them)
def h2_open():
    """the extended CONNECT on a tiny-SO_RCVBUF socket: (socket, h2 connection, stream, status)"""
    s = tiny_rcvbuf_socket()
    s.settimeout(5)
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    c.initiate_connection()
    s.sendall(c.data_to_send())
    sid, status = None, None
    while status is None:
        data = s.recv(65536)
        if not data:
            break
        for e in c.receive_data(data):
            if isinstance(e, h2.events.RemoteSettingsChanged) and sid is None:
                sid = c.get_next_available_stream_id()
                c.send_headers(sid, [(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "http"),
                                     (":path", "/?ws=echo"), (":authority", "x"), ("sec-websocket-version", "13")])
            elif isinstance(e, h2.events.ResponseReceived):
                status = int(dict(e.headers)[":status"])
        s.sendall(c.data_to_send())
    return s, c, sid, status


def h2_reset(s, c, sid):
    """reads, once the flood is over, what the server said: the stream's reset code or None"""
    s.settimeout(0.5)
    end = time.time() + 5
    while time.time() < end:
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not data:
            break
        try:
            events = c.receive_data(data)
        except h2.exceptions.ProtocolError:
            break
        for e in events:
            if isinstance(e, h2.events.StreamReset) and e.stream_id == sid:
                return e.error_code
    return None


before = rss_kb(srv.pid)
s, c, sid, status = h2_open()
ok(status == 200, "h2: the extended CONNECT is answered 200")
payload = PING * PER_WRITE
sent, total, peak = flood(s, struct.pack(">I", len(payload))[1:] + b"\0\0" + struct.pack(">I", sid) + payload)
ok(peak - before <= GROWTH_KB, "h2 ping flood (%d of %d MB sent): RSS grows %+d kB at most (at most %d)"
   % (sent >> 20, total >> 20, peak - before, GROWTH_KB))
reset = h2_reset(s, c, sid)
ok(reset == 11, "... and the stream is reset ENHANCE_YOUR_CALM once 4 MiB wait unread (reset %s)" % reset)
s.close()
settle(before, "h2 ping flood", BACK_KB)
ok(srv.poll() is None, "the server lives")

before = rss_kb(srv.pid)
s, head = upgrade("/?ws=echo", tiny_rcvbuf_socket())
ok(head.startswith(b"HTTP/1.1 101"), "h1 flood: the handshake")
sent, total, peak = flood(s, PING * PER_WRITE)
ok(sent < total, "h1 ping flood: the server stops taking pings once its pongs wait (%d of %d MB taken)"
   % (sent >> 20, total >> 20))
ok(peak - before <= GROWTH_KB, "... and its RSS grows %+d kB at most (at most %d)" % (peak - before, GROWTH_KB))
s.close()
settle(before, "h1 ping flood", BACK_KB)
ok(srv.poll() is None, "the server lives")

# 1 GB of ws=gen, never read
before = rss_kb(srv.pid)
s, head = upgrade("/?ws=gen&n=1024&s=1m")
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
time.sleep(1.5)
peak = rss_kb(srv.pid)
ok(peak - before <= SLACK_KB, "h1 ws=gen of 1 GB never read: RSS %+d kB meanwhile" % (peak - before))
s.close()
settle(before, "h1 ws=gen never read")


srv.terminate()
ok(srv.wait(15) == 0, "clean stop")
done()
