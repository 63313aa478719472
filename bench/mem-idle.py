#!/usr/bin/python3
# Holds idle connections (or zero-window h2 streams) open on a server, for bench/mem and 56-idle-conns.t.
"""Usage: mem-idle.py MODE HOST PORT N PATH [MODE HOST PORT N PATH ...]

MODE h1: N HTTP/1.1 keep-alive connections, one GET PATH each, answered
          in full; h2c: N HTTP/2 connections by prior knowledge, one GET
          each; h2tls: the same over TLS (ALPN h2); h2win: one h2c
          connection with a stream window of 0 and N GETs on it, held
          once every answer's head came (their bodies wait for credit).
Several groups may follow each other. Prints 'ready C' (C connections
held, R answers right) once all are held, then waits for a line on stdin,
closes them all, prints 'closed' and waits for stdin's end. Every answer
must be a 200 (h1: its whole body read); else it says which and exits 1.
Each step is bounded: a socket waits 10 s at most.
"""
import gc
import resource
import socket
import ssl
import sys

import h2.config
import h2.connection
import h2.events
import h2.settings

TIMEOUT = 10


def fail(msg):
    print("mem-idle: " + msg, flush=True)
    sys.exit(1)


def dial(host, port):
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def h1_send(host, port, path):
    s = dial(host, port)
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())
    return s


def h1_wait(s):
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            fail("h1: closed before the head")
        buf += d
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    if lines[0].split()[1] != b"200":
        fail("h1: %r" % lines[0])
    clen = [int(h.split(b":", 1)[1]) for h in lines[1:] if h.lower().startswith(b"content-length:")]
    if not clen:
        fail("h1: no Content-Length")
    while len(body) < clen[0]:
        d = s.recv(65536)
        if not d:
            fail("h1: closed in the body")
        body += d
    return s


CTX = []


def tls_ctx():
    """one context for all (WHY: a context each took 57 s and 870 MB for 1000)"""
    if not CTX:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.set_alpn_protocols(["h2"])
        CTX.append(ctx)
    return CTX[0]


def h2_open(host, port, tls, window=None):
    s = dial(host, port)
    if tls:
        s = tls_ctx().wrap_socket(s, server_hostname="localhost")
        if s.selected_alpn_protocol() != "h2":
            fail("h2tls: ALPN chose %r" % s.selected_alpn_protocol())
    # WHY no header checks of its own: a third of its time, and the :status is checked here
    c = h2.connection.H2Connection(h2.config.H2Configuration(
        client_side=True, header_encoding=None, validate_outbound_headers=False,
        normalize_outbound_headers=False, validate_inbound_headers=False, normalize_inbound_headers=False))
    c.initiate_connection()
    if window is not None:
        c.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    return s, c


def h2_get(c, host, path):
    sid = c.get_next_available_stream_id()
    c.send_headers(sid, [(":method", "GET"), (":scheme", "http"), (":authority", host), (":path", path)],
                   end_stream=True)
    return sid


def h2_wait(s, c, sids, whole):
    """reads until every stream in <sids> ended (whole) or had its head: each a 200"""
    left = set(sids)
    while left:
        s.sendall(c.data_to_send())
        d = s.recv(65536)
        if not d:
            fail("h2: closed with %d streams unanswered" % len(left))
        for ev in c.receive_data(d):
            if isinstance(ev, h2.events.ResponseReceived):
                st = dict(ev.headers).get(b":status")
                if st != b"200":
                    fail("h2: stream %d answered %r" % (ev.stream_id, st))
                if not whole:
                    left.discard(ev.stream_id)
            elif isinstance(ev, h2.events.DataReceived):
                c.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                left.discard(ev.stream_id)
            elif isinstance(ev, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                fail("h2: %r" % ev)
    s.sendall(c.data_to_send())


def group(mode, host, port, n, path):
    """WHY all sent, then all read: the server answers while the next ones are made"""
    if mode == "h1":
        return [h1_wait(s) for s in [h1_send(host, port, path) for _ in range(n)]]
    if mode in ("h2c", "h2tls"):
        conns = []
        for _ in range(n):
            s, c = h2_open(host, port, mode == "h2tls")
            sid = h2_get(c, host, path)
            s.sendall(c.data_to_send())
            conns.append((s, c, sid))
        for s, c, sid in conns:
            h2_wait(s, c, [sid], True)
        return [s for s, c, sid in conns]
    if mode == "h2win":
        s, c = h2_open(host, port, False, window=0)
        h2_wait(s, c, [h2_get(c, host, path) for _ in range(n)], False)
        return [s]
    fail("unknown mode " + mode)


def main(argv):
    if len(argv) < 5 or len(argv) % 5:
        print(__doc__, end="")
        return 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    gc.disable()  # WHY: thousands of connections' objects rescanned at each collection doubled the time
    held = []
    for k in range(0, len(argv), 5):
        mode, host, port, n, path = argv[k:k + 5]
        held += group(mode, host, int(port), int(n), path)
    print("ready %d" % len(held), flush=True)
    sys.stdin.readline()
    for s in held:
        s.close()
    print("closed", flush=True)
    sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
