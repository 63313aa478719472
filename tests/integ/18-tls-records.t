#!/usr/bin/python3
# HTTP/1.1 over TLS record by record: many records in one segment, a record split across segments,
# a request split across records. The server must read what OpenSSL buffers without a new edge.
import os
import socket
import ssl
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, ok, start  # noqa: E402


class Client:
    """TLS over memory BIOs: the test decides which bytes go into each TCP send"""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(0.2)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.set_alpn_protocols(["http/1.1"])
        self.inc, self.out = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = ctx.wrap_bio(self.inc, self.out, server_hostname="localhost")
        self.plain = b""
        for _ in range(100):
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self.sock.sendall(self.out.read())
                self.pull()
        self.sock.sendall(self.out.read())

    def pull(self):
        """what the socket has now into the TLS object; False at EOF"""
        try:
            d = self.sock.recv(65536)
        except socket.timeout:
            return True
        if not d:
            return False
        self.inc.write(d)
        return True

    def records(self, *chunks):
        """the TLS bytes of one record per chunk"""
        for c in chunks:
            self.tls.write(c)
        return self.out.read()

    def responses(self, n, limit=5.0):
        """reads until <n> whole responses are there (or <limit> s): their bodies"""
        end = time.time() + limit
        while time.time() < end:
            try:
                while True:
                    self.plain += self.tls.read(65536)
            except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                pass
            got = split(self.plain)
            if len(got) >= n or not self.pull():
                return got
        return split(self.plain)


def split(buf):
    """the bodies of the whole responses at the start of <buf>"""
    bodies = []
    while b"\r\n\r\n" in buf:
        head, rest = buf.split(b"\r\n\r\n", 1)
        n = int(next((h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")), -1))
        if n < 0 or len(rest) < n:
            break
        bodies.append(rest[:n])
        buf = rest[n:]
    return bodies


def req(size):
    return b"GET /?s=%d HTTP/1.1\r\nHost: x\r\n\r\n" % size


srv, clear, port = start(tls=True)

c = Client(port)
c.sock.sendall(c.records(req(10), req(20), req(30)))
ok([len(b) for b in c.responses(3)] == [10, 20, 30], "three requests in three records of one segment: three responses")

sizes = [i % 50 + 1 for i in range(600)]
c.sock.sendall(c.records(*[req(s) for s in sizes]))
got = c.responses(603)[3:]
ok([len(b) for b in got] == sizes, "600 pipelined requests, a record each, %d bytes at once: %d responses in order"
   % (sum(len(req(s)) for s in sizes), len(got)))

wire = c.records(req(7))
c.sock.sendall(wire[:9])
time.sleep(0.2)
c.sock.sendall(wire[9:])
ok(len(c.responses(604)) == 604, "a record split across two segments 200 ms apart: answered")

r = req(8)
c.sock.sendall(c.records(r[:12], r[12:]))
ok(len(c.responses(605)) == 605, "a request split across two records of one segment: answered")

both = c.records(req(9)) + c.records(req(11))
c.sock.sendall(both[:len(both) - 5])
time.sleep(0.2)
ok(len(c.responses(606, 0.5)) == 606, "a whole record and the start of the next: the whole one answered at once")
c.sock.sendall(both[len(both) - 5:])
ok([len(b) for b in c.responses(607)[-2:]] == [9, 11], "the rest of the second record: answered")
c.sock.close()

srv.terminate()
ok(srv.wait(10) == 0, "clean stop")
done()
