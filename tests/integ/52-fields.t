#!/usr/bin/python3
# One table of malformed request fields (CR, LF, NUL in a value, upper case, pseudo-headers, connection-specific fields) over h1 (raw socket), h2 (python3-h2, its checks off) and h3 (hxload --h3-fields), each engine: refused, never 200, the next request unharmed.
import concurrent.futures
import json
import os
import re
import socket
import subprocess
import sys
import urllib.request

import h2.config
import h2.connection
import h2.events

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, free_port, ok, pump, start  # noqa: E402

HXLOAD = os.environ.get("HXLOAD", "build/hxload")
PATH = "/?s=5"
HEAD = [(":method", "GET"), (":scheme", "https"), (":authority", "127.0.0.1"), (":path", PATH)]

# (name, the field added to a good head, or the whole field list; the protocols)
ONE = "h1 h2 h3"
MULTI = "h2 h3"
CASES = [
    ("CR in a value", ("x-a", "a\rb"), ONE),
    ("LF in a value", ("x-a", "a\nb"), ONE),
    ("NUL in a value", ("x-a", "a\0b"), ONE),
    ("CR LF ending a value", ("x-a", "ab\r\n"), MULTI),
    ("another control in a value", ("x-a", "a\x01b"), MULTI),
    ("a space opening a value", ("x-a", " ab"), MULTI),
    ("a space in a name", ("x a", "b"), ONE),
    ("an upper-case name", ("X-Up", "b"), MULTI),
    ("an empty name", ("", "b"), "h2"),  # WHY not h3: --h3-fields cannot write one
    ("connection", ("connection", "close"), MULTI),
    ("keep-alive", ("keep-alive", "5"), MULTI),
    ("transfer-encoding", ("transfer-encoding", "chunked"), MULTI),
    ("upgrade", ("upgrade", "h2c"), MULTI),
    ("te: gzip", ("te", "gzip"), MULTI),
    ("an unknown pseudo-header", [(":foo", "x")] + HEAD, MULTI),
    ("a pseudo-header after a regular one", HEAD[:3] + [("x-a", "b"), HEAD[3]], MULTI),
    ("a second :path", HEAD + [(":path", "/")], MULTI),
    ("no :method", HEAD[1:], MULTI),
    ("no :scheme", HEAD[:1] + HEAD[2:], MULTI),
    ("no :path", HEAD[:3], MULTI),
    # WHY: a head over several QUIC packets is walked in pieces
    ("CR after a 3,000-byte field", HEAD + [("x-big", "b" * 3000), ("x-a", "a\rb")], MULTI),
]
# the same table's good rows: what the checks must let through
GOOD = [("te: trailers", ("te", "trailers")), ("a tab inside a value", ("x-a", "a\tb")),
        ("UTF-8 in a value", ("x-a", "\xc3\xa9t\xc3\xa9")), ("a 3,000-byte value", ("x-big", "b" * 3000))]


def fields(case):
    return case if isinstance(case, list) else HEAD + [case]


# ---------- h1: the field in a raw request ----------

def h1_status(field):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n%s: %s\r\n\r\n" % (PATH, field[0], field[1])).encode("latin-1"))
    data = b""
    while b"\r\n" not in data:
        d = s.recv(4096)
        if not d:
            break
        data += d
    s.close()
    m = re.match(rb"HTTP/1\.1 (\d{3})", data)
    return m.group(1).decode() if m else "none"


# ---------- h2: one connection, the case on stream 1, a good request on stream 3 ----------

def h2_case(fl):
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    cfg = h2.config.H2Configuration(client_side=True, validate_outbound_headers=False,
                                    normalize_outbound_headers=False, validate_inbound_headers=False)
    conn = h2.connection.H2Connection(cfg)
    conn.initiate_connection()
    conn.send_headers(1, [(n.encode("latin-1"), v.encode("latin-1")) for n, v in fl], end_stream=True)
    conn.send_headers(3, [(n.encode(), v.encode()) for n, v in HEAD], end_stream=True)
    sock.sendall(conn.data_to_send())
    out = {1: None, 3: None}

    def seen(evs):
        for e in evs:
            if isinstance(e, h2.events.ResponseReceived):
                out[e.stream_id] = dict(e.headers)[b":status"].decode()
            elif isinstance(e, h2.events.StreamReset):
                out[e.stream_id] = out[e.stream_id] or "reset:%d" % e.error_code
            elif isinstance(e, h2.events.ConnectionTerminated):
                out[1] = out[1] or "goaway:%d" % e.error_code
        return all(e for e in out.values()) or "EOF" in evs
    pump(sock, conn, seen, limit=5)
    sock.close()
    return out[1], out[3]


# ---------- h3: hxload, the case as its connection's first request, then a good one ----------

def metric(name):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % STATS, timeout=5) as r:
        m = re.search(r"^hxterm_%s (\d+)$" % re.escape(name), r.read().decode(), re.M)
    return int(m.group(1)) if m else -1


def pct(s):
    return "".join(c if c.isalnum() or c in "-_.~/" else "%%%02X" % ord(c) for c in s)


def h3_run(fl):
    """hxload's JSON report of the request <fl> then a good one on one connection"""
    spec = "&".join(pct(n) + ":" + pct(v) for n, v in fl)
    r = subprocess.run([HXLOAD, "--h3", "--json", "-c", "1", "-n", "2", "--timeout", "5s", "--h3-fields", spec,
                        "https://127.0.0.1:%d%s" % (TLS, PATH)], capture_output=True, timeout=30)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {}


def h3_table():
    """each h3 row of the table and each good row at once, four at a time
    (WHY: a client's start is most of each), then the server's count of
    H3_MESSAGE_ERROR resets against the rows it refused"""
    rows = [(name, fields(case), True) for name, case, protos in CASES if "h3" in protos] + \
           [(name, fields(case), False) for name, case in GOOD]
    counter = 'h3_resets_sent_total{code="message_error"}'
    before = metric(counter)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        reports = list(pool.map(lambda r: h3_run(r[1]), rows))
    for (name, _, bad), j in zip(rows, reports):
        st, err = j.get("status", {}), j.get("errors", {})
        if bad:
            ok(st.get("200") == 1 and err.get("reset") == 1,
               "h3 %s: %s reset, the next request on the connection 200 (status %s, errors %s)" % (H3ENG, name, st, err))
        else:
            ok(st.get("200") == 2, "h3 %s: %s is 200 (status %s)" % (H3ENG, name, st))
    nbad = sum(1 for r in rows if r[2])
    got = metric(counter) - before
    ok(got == nbad, "h3 %s: each refused with H3_MESSAGE_ERROR (%d resets for %d rows)" % (H3ENG, got, nbad))


for h2eng, H3ENG in (("hx", "hx"), ("nghttp2", "nghttp3")):
    STATS = free_port()
    srv, PORT, TLS = start("--h2-engine", h2eng, "--h3-engine", H3ENG, "--stats", "127.0.0.1:%d" % STATS,
                           "--h2-max-resets", "1000", tls=True)
    for name, case, protos in CASES:
        if "h1" in protos and h2eng == "hx":
            ok(h1_status(case) == "400", "h1: %s is 400" % name)
        if "h2" in protos:
            first, then = h2_case(fields(case))
            ok(first is not None and first != "200" and (first.startswith("reset:1") or first.startswith("4")),
               "h2 %s: %s refused (%s), never 200" % (h2eng, name, first))
            ok(then == "200", "h2 %s: the good request beside it on the same connection: 200 (%s)" % (h2eng, then))
    for name, case in GOOD:
        if h2eng == "hx":
            ok(h1_status(case) == "200", "h1: %s is 200" % name)
        ok(h2_case(fields(case)) == ("200", "200"), "h2 %s: %s is 200" % (h2eng, name))
    h3_table()
    # WHY twice, on two connections: the hx engine answers a request whose
    # bytes it met before from its memo, without nghttp3; a refused one must
    # never be kept there
    if H3ENG == "hx":
        spec = "&".join(pct(n) + ":" + pct(v) for n, v in fields(CASES[0][1]))
        r = subprocess.run([HXLOAD, "--h3", "--json", "-c", "2", "-n", "6", "--timeout", "5s", "--h3-fields", spec,
                            "https://127.0.0.1:%d%s" % (TLS, PATH)], capture_output=True, timeout=30)
        j = json.loads(r.stdout or "{}")
        ok(j.get("errors", {}).get("reset") == 2 and j.get("status", {}).get("200") == 4,
           "h3 hx: the same malformed request on a second connection is reset too (%s, %s)"
           % (j.get("status"), j.get("errors")))
    srv.terminate()
    srv.wait()
done()
