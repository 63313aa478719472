#!/usr/bin/python3
# hxload's two HTTP/2 clients (ours, the default, and --h2-engine nghttp2) against an independent server (python3-h2): HPACK with Huffman, indexing and evictions, CONTINUATION, padding, trailers; request bodies by the server's credit, a stream limit and windows changed mid-connection; RST_STREAM REFUSED_STREAM, PINGs and GOAWAY retried; each answer's status as the server sent it; a PUSH_PROMISE we said no to ends the connection.
import json
import os
import random
import socket
import subprocess
import sys
import threading

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, ok  # noqa: E402

HXLOAD = os.environ.get("HXLOAD", "build/hxload")


class Server(threading.Thread):
    """an h2c server of python3-h2 in <mode>: 'hpack', 'windows', 'refuse', 'push'"""

    def __init__(self, mode):
        super().__init__(daemon=True)
        self.mode = mode
        self.lock = threading.Lock()
        self.status = {}
        self.bodies = []
        self.most_open = 0
        self.refused = self.pings = self.goaways = self.answered = 0
        self.errors = []
        self.rng = random.Random(11)
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(64)
        self.port = self.ls.getsockname()[1]

    def run(self):
        while True:
            try:
                s, _ = self.ls.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(s,), daemon=True).start()

    def settings(self):
        if self.mode == "windows":
            # WHY a frame size of 1 MiB: a client must still send what fits its own buffers
            return {h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 2,
                    h2.settings.SettingCodes.MAX_FRAME_SIZE: 1 << 20,
                    h2.settings.SettingCodes.HEADER_TABLE_SIZE: 0}
        return {}

    def answer(self, conn, sid, k):
        """the answer of the <k>-th request on the connection"""
        with self.lock:
            n = self.answered
            self.answered += 1
        if self.mode == "hpack":
            st = ("200", "203", "299")[n % 3]
            hd = [(":status", st), ("content-length", "1000")]
            hd += [("x-junk-%d" % i, "".join(self.rng.choice("abcdefgh/:;= 0123456789")
                                              for _ in range(self.rng.randint(10, 90)))) for i in range(5)]
            if n % 40 == 0:  # HEADERS and two CONTINUATIONs (WHY not more often: python's Huffman coder is slow)
                hd.append(("x-big", "b" * 40000))
            conn.send_headers(sid, hd)
            conn.send_data(sid, b"x" * 1000, end_stream=n % 10 != 0, pad_length=7 if n % 2 else None)
            if n % 10 == 0:
                conn.send_headers(sid, [("x-trailer", "t")], end_stream=True)
        else:
            st = "200"
            conn.send_headers(sid, [(":status", st), ("content-length", "2")])
            conn.send_data(sid, b"ok", end_stream=True)
        with self.lock:
            self.status[st] = self.status.get(st, 0) + 1

    def serve(self, s):
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding=None))
        conn.initiate_connection()
        if self.settings():  # WHY not the first SETTINGS' values: in force for h2 before the client's ACK
            conn.update_settings(self.settings())
        s.sendall(conn.data_to_send())
        body, k, last, ended, acked = {}, 0, 0, False, False
        try:
            while True:
                data = s.recv(65536)
                if not data:
                    break
                if ended:
                    continue  # after our GOAWAY: the client's last frames, unread
                for ev in conn.receive_data(data):
                    if isinstance(ev, h2.events.SettingsAcknowledged):
                        acked = True
                    elif isinstance(ev, h2.events.RequestReceived):
                        body[ev.stream_id] = 0
                        last = max(last, ev.stream_id)
                        with self.lock:  # WHY once acknowledged: before, the client may open -m
                            self.most_open = max(self.most_open, len(body) if acked else 0)
                    elif isinstance(ev, h2.events.DataReceived):
                        body[ev.stream_id] += len(ev.data)
                        conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
                    elif isinstance(ev, h2.events.StreamEnded):
                        k += 1
                        got = body.pop(ev.stream_id)
                        if self.mode == "refuse" and k % 4 == 0:
                            conn.reset_stream(ev.stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
                            with self.lock:
                                self.refused += 1
                            continue
                        with self.lock:
                            self.bodies.append(got)
                        self.answer(conn, ev.stream_id, k)
                        if self.mode == "refuse" and k % 5 == 0:
                            conn.ping(b"12345678")
                            with self.lock:
                                self.pings += 1
                        # a stream limit lowered and the windows raised midway. WHY not lowered:
                        # python3-h2 gives credit back only past half its window, so under a
                        # window made negative by the change it never does (both clients stall)
                        if self.mode == "windows" and k == 6:
                            conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1,
                                                  h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 100000})
                        if self.mode == "push" and k == 3:
                            s.sendall(conn.data_to_send())
                            # a PUSH_PROMISE by hand (type 5) on stream 1: the client said ENABLE_PUSH 0
                            s.sendall(b"\x00\x00\x05\x05\x04\x00\x00\x00\x01\x00\x00\x00\x02\x84")
                    elif isinstance(ev, h2.events.StreamReset):
                        body.pop(ev.stream_id, None)
                if self.mode == "refuse" and k >= 12 and not ended:
                    conn.close_connection(error_code=0, last_stream_id=last)
                    ended = True
                    with self.lock:
                        self.goaways += 1
                s.sendall(conn.data_to_send())
        except Exception as e:  # noqa: BLE001 (a test server: say what broke)
            with self.lock:
                self.errors.append(repr(e))
        s.close()


def hxload(args):
    r = subprocess.run([HXLOAD, "-q", "--json"] + args, capture_output=True, text=True, timeout=60)
    try:
        return json.loads(r.stdout)
    except ValueError:
        print("# hxload %s: no JSON; stderr: %s" % (" ".join(args), r.stderr[-500:]))
        return {}


for engine in ("hx", "nghttp2"):
    e = ["--h2-engine", engine, "-d", "20"]

    srv = Server("hpack")
    srv.start()
    j = hxload(e + ["-c", "3", "-m", "5", "-n", "300", "h2c://127.0.0.1:%d/" % srv.port])
    ok(j.get("requests") == 300 and j.get("errors_total") == 0,
       "%s, HPACK with Huffman, indexing, evictions, CONTINUATION, padding, trailers: 300 answered, 0 errors (%s, %s)"
       % (engine, j.get("requests"), j.get("errors")))
    ok(j.get("status") == srv.status and j.get("bytes") == 300 * 1000,
       "... each status as the server sent it (%s; sent %s), every body byte" % (j.get("status"), srv.status))
    ok(not srv.errors, "... the server saw no protocol error (%s)" % srv.errors[:1])

    srv = Server("windows")
    srv.start()
    j = hxload(e + ["-c", "2", "-m", "4", "-n", "40", "--body", "200000", "h2c://127.0.0.1:%d/" % srv.port])
    c = j.get("connections", {})
    ok(j.get("requests") == 40 and j.get("errors_total") == 0 and not srv.errors,
       "%s, request bodies of 200,000 B by WINDOW_UPDATEs, frames of 1 MiB allowed, windows raised and 2 streams then 1 midway: 40 answered, 0 errors (%s)"
       % (engine, srv.errors[:1]))
    ok(srv.bodies == [200000] * 40, "... each body whole at the server (%s)" % sorted(set(srv.bodies)))
    ok(srv.most_open <= 2, "... once it took our SETTINGS, never more streams open than the server allowed (%d)" % srv.most_open)
    ok(c.get("stream_limit_changes", 0) >= 1 and c.get("stream_limit_last") == 1,
       "... the limit's change counted (%s changes, last %s)" % (c.get("stream_limit_changes"), c.get("stream_limit_last")))

    srv = Server("refuse")
    srv.start()
    j = hxload(e + ["-c", "2", "-m", "3", "-n", "120", "h2c://127.0.0.1:%d/" % srv.port])
    c, sch = j.get("connections", {}), j.get("schedule", {})
    ok(j.get("requests") == 120 and j.get("errors_total") == 0,
       "%s, RST_STREAM REFUSED_STREAM every 4th stream, GOAWAY after 12: 120 answered, 0 errors (%s)"
       % (engine, j.get("errors")))
    ok(sch.get("retried", 0) >= srv.refused > 0, "... the %d refused retried (%s)" % (srv.refused, sch.get("retried")))
    ok(c.get("pings", 0) == srv.pings > 0 and c.get("goaway", 0) >= 1 and c.get("past_goaway") == 0,
       "... PINGs counted (%s of %d), GOAWAYs (%s), none answered past its last stream"
       % (c.get("pings"), srv.pings, c.get("goaway")))

    srv = Server("push")
    srv.start()
    j = hxload(e + ["-c", "1", "-m", "1", "-n", "5", "h2c://127.0.0.1:%d/" % srv.port])
    er = j.get("errors", {})
    # WHY reset for nghttp2: its session ends itself, and hxload sees a session that wants no more
    ok(er.get("protocol", 0) >= 1 if engine == "hx" else er.get("reset", 0) >= 1,
       "%s, a PUSH_PROMISE after SETTINGS_ENABLE_PUSH 0: the connection's error (%s)" % (engine, er))

done()
