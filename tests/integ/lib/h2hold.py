"""Many idle h2c connections held at once, each after one request: raw frames on asyncio, for memory figures."""
import asyncio
import resource
import ssl
import struct

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", sid) + payload


def get_head(path, sid=1):
    """a HEADERS frame of GET <path> with END_STREAM: static-table names, literal values"""
    hp = b"\x82\x86" + b"\x04" + bytes([len(path)]) + path.encode() + b"\x01\x01x"
    return frame(1, 0x05, sid, hp)


def tls_ctx():
    """a client context for h2 over TLS (ALPN h2), the certificate unchecked"""
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    c.check_hostname = False
    c.verify_mode = ssl.CERT_NONE
    c.set_alpn_protocols(["h2"])
    return c


async def one(host, port, path, held, sem, tls):
    """connects, asks <path>, reads to its END_STREAM, acks SETTINGS; the socket joins <held>"""
    async with sem:
        r, w = await asyncio.open_connection(host, port, ssl=tls)
        w.write(PREFACE + frame(4, 0, 0) + get_head(path))
        while True:
            hd = await r.readexactly(9)
            ln = int.from_bytes(hd[:3], "big")
            if ln:
                await r.readexactly(ln)
            if hd[3] == 4 and not hd[4] & 1:
                w.write(frame(4, 1, 0))
            if hd[3] in (0, 1) and hd[4] & 1 and int.from_bytes(hd[5:9], "big") & 0x7FFFFFFF == 1:
                break
            if hd[3] == 7:
                raise ConnectionError("GOAWAY")
        await w.drain()
        held.append(w)


async def _open(host, port, n, path, held, par, tls):
    sem = asyncio.Semaphore(par)
    res = await asyncio.gather(*(one(host, port, path, held, sem, tls) for _ in range(n)), return_exceptions=True)
    return sum(1 for x in res if x is None)


def open_idle(port, n, path="/?s=100", host="127.0.0.1", par=100, tls=None):
    """<n> connections each done with one request, held (h2 over TLS with <tls>, an
    SSLContext): (loop, writers, how many succeeded)"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 1000), hard))
    loop = asyncio.new_event_loop()
    held = []
    good = loop.run_until_complete(_open(host, port, n, path, held, par, tls))
    return loop, held, good


def close_all(loop, held):
    """closes the held connections and lets the loop see them go"""
    for w in held:
        w.close()
    loop.run_until_complete(asyncio.sleep(0.2))
    loop.close()
