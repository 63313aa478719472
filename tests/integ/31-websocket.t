#!/usr/bin/python3
# The WebSocket target: ws=echo and ws=gen over HTTP/1.1 (python3-websockets, clear and TLS) and HTTP/2 extended CONNECT (python3-h2 with websockets' frames), every message checked byte for byte, x=/X= faults, bad handshakes, the stats, a drain.
import asyncio
import json
import os
import signal
import socket
import ssl
import sys
import time
import urllib.request

import websockets
import websockets.exceptions

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, free_port, ok, start  # noqa: E402
from ws_h2 import ws_h2  # noqa: E402

STATS = free_port()
srv, PORT, TLS = start("--no-h3", "--stats", "127.0.0.1:%d" % STATS, tls=True)
LINE = ".123456789.123456789.123456789.123456789.12345678\n"


def pattern(n):
    return (LINE * (n // 50 + 1))[:n]


def stats():
    with urllib.request.urlopen("http://127.0.0.1:%d/stats.json" % STATS, timeout=5) as r:
        return json.load(r)


def raw(req):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    s.sendall(req.encode())
    data = b""
    while True:
        try:
            b = s.recv(65536)
        except socket.timeout:
            break
        if not b:
            break
        data += b
    s.close()
    return data.decode(errors="replace")


async def h1_tests():
    url = "ws://127.0.0.1:%d" % PORT
    async with websockets.connect(url + "/?ws=echo", max_size=None) as ws:
        ok(ws.response_headers.get("Upgrade", "").lower() == "websocket", "h1: 101 with Upgrade: websocket")
        for m in ["hello", "é ü ✓", "x" * 70000, b"\x00\x01\xff" * 1000]:
            await ws.send(m)
            r = await ws.recv()
            ok(r == m, "h1 echo: a %s message of %d bytes comes back the same" % (type(m).__name__, len(m)))
    async with websockets.connect(url + "/?s=1", max_size=None) as ws:
        await ws.send("no ws= at all")
        ok(await ws.recv() == "no ws= at all", "h1: a WebSocket handshake without ws= is an echo")
    t0 = time.monotonic()
    async with websockets.connect(url + "/?ws=gen&s=1k-64k&n=6&d=20~40", max_size=None) as ws:
        got = [m async for m in ws]
        code = ws.close_code
    sizes = [len(m) for m in got]
    ok(len(got) == 6, "h1 gen n=6: 6 messages (%s)" % sizes)
    ok(all(1024 <= n <= 65536 for n in sizes) and len(set(sizes)) > 1,
       "... sizes drawn per message in s=1k-64k: %s" % sizes)
    ok(all(m == pattern(len(m)) for m in got), "... each the body pattern, byte for byte")
    ok(code == 1000, "... then a close 1000 (%s)" % code)
    # WHY 20~40: a log-normal draw has no floor; with median 20 ms and p99 40 ms five gaps under 50 ms in all are
    # about as likely as never (d=5~100 gave 20 ms in CI)
    ok(time.monotonic() - t0 >= 0.05, "... with d=20~40 between messages (%.3f s)" % (time.monotonic() - t0))
    async with websockets.connect(url + "/?ws=gen&s=300&n=3&R=1", max_size=None) as ws:
        got = [m async for m in ws]
    ok([type(m).__name__ for m in got] == ["bytes"] * 3 and all(len(m) == 300 for m in got),
       "h1 gen R=1: binary messages of random bytes")
    async with websockets.connect(url + "/?ws=gen&s=0&n=0", max_size=None) as ws:
        got = [m async for m in ws]
        ok(got == [] and ws.close_code == 1000, "h1 gen n=0: a close 1000 at once")
    for fault, name in (("x", "reset"), ("X", "close")):
        got = []
        err = None
        try:
            async with websockets.connect(url + "/?ws=gen&s=1000&n=5&%s=2500" % fault, max_size=None) as ws:
                async for m in ws:
                    got.append(m)
        except websockets.exceptions.ConnectionClosedError as e:
            err = e
        ok([len(m) for m in got] == [1000, 1000] and err is not None and err.rcvd is None,
           "h1 %s=2500: two whole messages, then the connection %s without a close frame (%s)"
           % (fault, "reset" if fault == "x" else "closed", [len(m) for m in got]))
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    async with websockets.connect("wss://127.0.0.1:%d/?ws=gen&s=5k&n=4" % TLS, ssl=ctx, max_size=None) as ws:
        got = [m async for m in ws]
    ok([len(m) for m in got] == [5120] * 4 and all(m == pattern(5120) for m in got),
       "wss (TLS, HTTP/1.1 by ALPN): 4 generated messages verified")
    async with websockets.connect("wss://127.0.0.1:%d/?ws=echo" % TLS, ssl=ctx, max_size=None) as ws:
        await ws.send("over TLS")
        ok(await ws.recv() == "over TLS", "wss echo")
        # WHY this size: many TLS records each way, partial SSL writes (wslay returns after one)
        big = pattern(300000)
        await ws.send(big)
        ok(await asyncio.wait_for(ws.recv(), 5) == big, "wss echo of a 300 KB message, whole")


asyncio.run(h1_tests())

# ---------- bad handshakes ----------
r = raw("GET /?ws=gen HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
ok(r.startswith("HTTP/1.1 400") and "WebSocket handshake" in r, "h1: ws= without a handshake: 400 naming it")
base = "GET /?ws=echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
r = raw(base + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n")
ok(r.startswith("HTTP/1.1 400") and "Version must be 13" in r, "h1: Sec-WebSocket-Version 8: 400")
r = raw(base + "Sec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n")
ok(r.startswith("HTTP/1.1 400") and "Sec-WebSocket-Key" in r, "h1: a bad key: 400")
r = raw(base + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
ok("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in r, "h1: RFC 6455's sample key gets its sample accept value")
r = raw("GET /?ws=echo HTTP/1.0\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
ok(r.startswith("HTTP/1.1 400") and "GET in HTTP/1.1" in r, "h1: a WebSocket handshake in HTTP/1.0: 400")

# ---------- HTTP/2 extended CONNECT ----------
g = ws_h2(PORT, "/?ws=gen&s=100-3000&n=5&d=10")
ok(g["settings_connect"] == 1, "h2: SETTINGS_ENABLE_CONNECT_PROTOCOL = 1")
ok(g["status"] == 200 and g["clen"] is None, "h2: the extended CONNECT is answered 200 without a length")
sizes = [len(m) for m in g["messages"]]
ok(len(sizes) == 5 and all(100 <= n <= 3000 for n in sizes) and all(m == pattern(len(m)) for m in g["messages"]),
   "h2 gen: 5 messages of drawn sizes, each the pattern (%s)" % sizes)
ok(g["close"] == 1000 and g.get("ended"), "h2 gen: close 1000, then the stream ends")
e = ws_h2(PORT, "/?ws=echo", ["one", "two", "x" * 40000])
ok(e["messages"] == ["one", "two", "x" * 40000], "h2 echo: three messages back, one over 16 KiB (several DATA frames)")
ok(e["close"] == 1000 and e.get("ended"), "h2 echo: our close 1000 answered, the stream ends")
x = ws_h2(PORT, "/?ws=gen&s=1000&n=5&x=2500")
ok([len(m) for m in x["messages"]] == [1000, 1000, 500] and x["reset"] == 8,
   "h2 x=2500: 2500 bytes of messages, then RST_STREAM CANCEL (%s)" % [len(m) for m in x["messages"]])
x = ws_h2(PORT, "/?ws=gen&s=1000&n=5&X=2500")
ok(x.get("goaway") == 0 and x["close"] is None, "h2 X=2500: GOAWAY and close, no close frame")

# ---------- hxload's WebSocket mode ----------
HXLOAD = os.environ.get("HXLOAD", "build/hxload")


def hxload(*args):
    import subprocess
    p = subprocess.run([HXLOAD, "-q", "--json"] + list(args), capture_output=True, text=True, timeout=60)
    last = [l for l in p.stdout.splitlines() if l.startswith('{"hxload"')]
    return (json.loads(last[-1]) if last else None), p.returncode, p.stderr.strip()


j, rc, err = hxload("-c", "2", "-m", "4", "-n", "1000", "--verify", "ws://127.0.0.1:%d/?ws=echo" % PORT)
ok(rc == 0 and j["status"]["200"] == 1000 and j["connections"]["ws"] == 2,
   "hxload ws:// echo: 1000 messages echoed and verified on 2 WebSockets, 4 in flight each (%s)" % err)
ok(j["latency_ms"]["n"] == 1000, "... each with its round trip in the latency histogram")
j, rc, err = hxload("-c", "2", "-n", "100", "--verify", "--body", "40k", "wss://127.0.0.1:%d/" % TLS)
ok(rc == 0 and j["status"]["200"] == 100, "hxload wss:// echo of 40 KiB messages: 100 verified (%s)" % err)
j, rc, err = hxload("-c", "2", "-n", "100", "--verify", "ws://127.0.0.1:%d/?ws=gen&s=1k-8k&n=10" % PORT)
ok(rc == 0 and j["status"]["200"] == 100 and j["connections"]["ws"] >= 10,
   "hxload against ws=gen: 100 pushed messages verified, a WebSocket opened again after each 10 (%s)" % err)
j, rc, err = hxload("-c", "1", "-n", "5", "ws://127.0.0.1:%d/" % STATS)
ok(rc != 0 and "refused the WebSocket handshake" in err, "hxload ws:// to a server that does not upgrade: " + err)

# ---------- the stats count them; a drain says going away ----------
st = stats()
ws = st["protocols"]["ws"]
ok(ws["connections_opened"] >= 24 and ws["connections_closed"] == ws["connections_opened"],
   "stats: WebSocket connections over HTTP/1.1 opened and closed (%d)" % ws["connections_opened"])
ok(st["faults"]["reset"] >= 2 and st["faults"]["close"] >= 2, "stats: the x= and X= faults counted")


async def drain():
    async with websockets.connect("ws://127.0.0.1:%d/?ws=echo" % PORT) as ws:
        await ws.send("before")
        await ws.recv()
        srv.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(ws.recv(), 5)
        except websockets.exceptions.ConnectionClosedOK as e:
            return e.rcvd.code if e.rcvd else None
        except Exception as e:  # noqa: BLE001
            return repr(e)
    return "open"


t0 = time.monotonic()
code = asyncio.run(drain())
ok(code == 1001, "a drain closes an open WebSocket with 1001 going away (%s)" % code)
ok(srv.wait(10) == 0 and time.monotonic() - t0 < 5, "... and the server exits at once, cleanly")
done()
