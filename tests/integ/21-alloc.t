#!/usr/bin/python3
# Out of memory is answered, never a header silently lost: an h2 request header that cannot be stored gets 431 with the reason; the next request is served.
import os
import socket
import subprocess
import sys
import tempfile

import h2.config
import h2.connection
import h2.events

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
from hxtap import BIN, done, ok, start  # noqa: E402

# WHY skip: a sanitizer's runtime must come first, an LD_PRELOAD malloc is refused
syms = subprocess.run(["nm", "-D", BIN], capture_output=True, text=True).stdout
if "__asan_init" in syms or "__tsan_init" in syms:
    print("1..0 # SKIP a sanitized build: LD_PRELOAD cannot wrap its malloc")
    sys.exit(0)

tmp = tempfile.mkdtemp()
shim, arm = os.path.join(tmp, "failmalloc.so"), os.path.join(tmp, "arm")
subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", shim, os.path.join(HERE, "lib", "failmalloc.c"), "-ldl"],
               check=True)
# WHY 3000: the four pseudo-headers below take 58 bytes of the stream's header
# text, "x-big: <2933 bytes>\r\n" 2942 more; past the 1024 inline bytes the text
# grows to exactly what it needs, 3000 bytes: that one malloc fails
os.environ.update(LD_PRELOAD=shim, HX_FAIL_SIZE="3000", HX_FAIL_ARM=arm)
proc, port = start()
del os.environ["LD_PRELOAD"]


def h2_get(big):
    """one h2c request with an x-big header of <big> bytes: (status, body)"""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True,
                                                                      header_encoding="utf-8"))
    conn.initiate_connection()
    conn.send_headers(1, [(":method", "GET"), (":path", "/?s=1"), (":scheme", "http"),
                          (":authority", "x"), ("x-big", "a" * big)], end_stream=True)
    sock.sendall(conn.data_to_send())
    status, body, ended = None, b"", False
    while not ended:
        data = sock.recv(65536)
        if not data:
            break
        for ev in conn.receive_data(data):
            if isinstance(ev, h2.events.ResponseReceived):
                status = dict(ev.headers).get(":status")
            elif isinstance(ev, h2.events.DataReceived):
                body += ev.data
                conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, (h2.events.StreamEnded, h2.events.StreamReset)):
                ended = True
        sock.sendall(conn.data_to_send())
    sock.close()
    return status, body


open(arm, "w").close()
st, body = h2_get(2933)
ok(st == "431" and b"out of memory" in body,
   "a header that cannot be stored: 431 naming the cause (%s, %r)" % (st, body[:80]))
os.unlink(arm)
st, body = h2_get(2933)
ok(st == "200" and body == b".", "the same request once memory is there: 200 (%s)" % st)
proc.terminate()
ok(proc.wait(timeout=10) == 0, "clean stop")
done()
