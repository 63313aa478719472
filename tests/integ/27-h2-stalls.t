#!/usr/bin/python3
# HTTP/2 stalls end within their timeout plus a second (python3-h2 as the client): a header block never ended, a request body that stops, a window of 0; a t= wait and a d= pause are no stall.
import os
import socket
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.settings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, ok, pump, raw_frames, start  # noqa: E402

srv, PORT = start("--head-timeout", "2000", "--body-timeout", "2000", "--send-timeout", "2000",
                  "--idle-timeout", "30000")


def client(window=None):
    sock = socket.create_connection(("127.0.0.1", PORT))
    sock.settimeout(0.5)
    cfg = h2.config.H2Configuration(client_side=True)
    conn = h2.connection.H2Connection(cfg)
    conn.initiate_connection()
    if window is not None:
        conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    sock.sendall(conn.data_to_send())
    return sock, conn


def watch(sock, conn, limit, ack=True):
    """events until a reset, the connection's end or <limit> seconds; (events, seconds)"""
    t0 = time.time()
    got = pump(sock, conn, lambda e: any(isinstance(x, (h2.events.StreamReset, h2.events.ConnectionTerminated))
                                         for x in e), limit, ack=ack, patient=True)
    return got, time.time() - t0


def kinds(evs):
    return [type(e).__name__ if not isinstance(e, str) else e for e in evs]


def headers(path, method="GET", extra=()):
    return [(":method", method), (":scheme", "http"), (":authority", "x"), (":path", path)] + list(extra)


# a HEADERS frame without END_HEADERS, and no CONTINUATION: GOAWAY after --head-timeout
sock, conn = client()
hb = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True)).encoder.encode(headers("/?s=1"))
sock.sendall(len(hb).to_bytes(3, "big") + bytes([1, 0x01]) + (1).to_bytes(4, "big") + hb)  # END_STREAM only
t0 = time.time()
frames = raw_frames(sock, 6)
el = time.time() - t0
goaway = any(f[0] == 7 for f in frames)
ok(1.5 < el < 3.5, "a header block never ended: the connection ends after %.1f s (--head-timeout 2 s, at most 1 s late)" % el)
ok(goaway, "... with a GOAWAY")
sock.close()

# a POST whose body stops: RST_STREAM CANCEL after --body-timeout
sock, conn = client()
conn.send_headers(1, headers("/?s=10", "POST", [("content-length", "1000")]))
conn.send_data(1, b"x" * 10)
sock.sendall(conn.data_to_send())
evs, el = watch(sock, conn, 6)
rst = [e for e in evs if isinstance(e, h2.events.StreamReset)]
ok(rst and rst[0].error_code == 8, "a stopped request body: RST_STREAM CANCEL (%s)" % kinds(evs))
ok(1.5 < el < 3.5, "... after %.1f s (--body-timeout 2 s, at most 1 s late)" % el)
sock.close()

# a window of 0 on the stream, s=1g: RST_STREAM CANCEL after --send-timeout
sock, conn = client(window=0)
conn.send_headers(1, headers("/?s=1g"), end_stream=True)
sock.sendall(conn.data_to_send())
evs, el = watch(sock, conn, 6, ack=False)
rst = [e for e in evs if isinstance(e, h2.events.StreamReset)]
resp = [e for e in evs if isinstance(e, h2.events.ResponseReceived)]
ok(resp, "window 0: the response head came (%s)" % kinds(evs))
ok(rst and rst[0].error_code == 8, "... then RST_STREAM CANCEL when the window stayed shut")
ok(1.5 < el < 3.5, "... after %.1f s (--send-timeout 2 s, at most 1 s late)" % el)
ok(conn.state_machine.state != h2.connection.ConnectionState.CLOSED, "... the connection goes on")
conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 65535})
conn.send_headers(3, headers("/?s=5"), end_stream=True)
sock.sendall(conn.data_to_send())
evs, _ = watch(sock, conn, 3)
ok(any(isinstance(e, h2.events.StreamEnded) and e.stream_id == 3 for e in evs), "... and serves its next stream")
sock.close()

# the connection's own window used up (the peer reads nothing at the HTTP/2 level): GOAWAY
sock, conn = client()
conn.send_headers(1, headers("/?s=1g"), end_stream=True)
sock.sendall(conn.data_to_send())
evs, el = watch(sock, conn, 8, ack=False)
ok(any(isinstance(e, h2.events.ConnectionTerminated) for e in evs) or "EOF" in evs,
   "the connection window used up: GOAWAY and the end (%s)" % kinds(evs)[-3:])
ok(el < 4.5, "... within %.1f s (--send-timeout 2 s, once the 64 KiB window is used)" % el)
sock.close()

# no stall: a t=3000 wait and a d=2500 pause with --send-timeout 2 s are answered whole
for path, what in (("/?s=100&t=3000", "a t=3000 wait"), ("/?s=2000&p=1000&d=2500", "a d=2500 pause between pieces")):
    sock, conn = client()
    conn.send_headers(1, headers(path), end_stream=True)
    sock.sendall(conn.data_to_send())
    evs, el = watch(sock, conn, 8)
    body = sum(len(e.data) for e in evs if isinstance(e, h2.events.DataReceived))
    ended = any(isinstance(e, h2.events.StreamEnded) for e in evs)
    if not ended:  # watch() stops on a reset only; read on to the end
        more, _ = watch(sock, conn, 6)
        evs += more
        body += sum(len(e.data) for e in more if isinstance(e, h2.events.DataReceived))
        ended = any(isinstance(e, h2.events.StreamEnded) for e in more)
    ok(ended and not any(isinstance(e, h2.events.StreamReset) for e in evs),
       "%s is no stall: answered whole (%d bytes)" % (what, body))
    sock.close()

srv.terminate()
ok(srv.wait(10) == 0, "clean stop")
done()
