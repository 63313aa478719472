"""TAP output and hxterm start-up for the python integration tests."""
import os
import socket
import subprocess
import sys
import time

BIN = os.environ.get("HXTERM", "build/hxterm")
_n = 0
_failed = 0


def ok(cond, name):
    """one TAP assertion; returns <cond>"""
    global _n, _failed
    _n += 1
    _failed += 0 if cond else 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (_n, name), flush=True)
    return cond


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start(*args, tls=False):
    """hxterm -t 1 on free ports with <args> (and HX_ARGS, as HxTest.pm does), once it
    accepts: (process, clear port), or (process, clear port, TLS port) with <tls>"""
    ports = [free_port()] + ([free_port()] if tls else [])
    extra = os.environ.get("HX_ARGS", "").split()
    proc = subprocess.Popen([BIN, "-q", "-t", "1", "-L", "127.0.0.1:" + ":".join(map(str, ports))]
                            + list(args) + extra)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", ports[0])).close()
            break
        except OSError:
            time.sleep(0.05)
    return (proc, *ports)


def done():
    """the plan line, and the exit status prove reads"""
    print("1..%d" % _n)
    sys.exit(1 if _failed else 0)
