#!/usr/bin/python3
# An h2c server that breaks RFC 9113 6.8: after a request's HEADERS it sends GOAWAY naming that stream as the last, then answers the streams above it anyway (what hxload's past_goaway must catch). Raw frames, no HTTP/2 library: one that follows the RFC would refuse to. Usage: h2bad.py PORT; ends after 20 s.
import socket
import struct
import sys
import threading

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", sid) + payload


def read_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b


def serve(s):
    s.settimeout(5)
    try:
        if read_exact(s, len(PREFACE)) != PREFACE:
            return
        s.sendall(frame(4, 0, 0))
        last = 0
        while True:
            hd = read_exact(s, 9)
            n = struct.unpack(">I", b"\0" + hd[:3])[0]
            ftype, flags, sid = hd[3], hd[4], struct.unpack(">I", hd[5:])[0] & 0x7FFFFFFF
            read_exact(s, n)
            if ftype == 4 and not flags & 1:
                s.sendall(frame(4, 1, 0))
            elif ftype == 6 and not flags & 1:
                s.sendall(frame(6, 1, 0, b"\0" * 8))
            elif ftype == 1:
                if not last:  # the first request: GOAWAY NO_ERROR naming it as the last
                    last = sid
                    s.sendall(frame(7, 0, 0, struct.pack(">II", last, 0)))
                # :status 200 (static index 8), END_STREAM | END_HEADERS, on every stream
                s.sendall(frame(1, 0x5, sid, b"\x88"))
    except (EOFError, OSError):
        pass
    finally:
        s.close()


def main():
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", int(sys.argv[1])))
    ls.listen(16)
    ls.settimeout(20)
    try:
        while True:
            c, _ = ls.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
    except socket.timeout:
        pass


main()
