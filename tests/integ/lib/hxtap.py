"""TAP output and hxterm start-up for the python integration tests."""
import atexit
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


def skip(why):
    """one TAP assertion skipped, and why"""
    global _n
    _n += 1
    print("ok %d # SKIP %s" % (_n, why), flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def rss_kb(pid):
    """the resident set of process <pid> in kB, -1 when it is gone"""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def start(*args, tls=False):
    """hxterm -t 1 on free ports with <args> (and HX_ARGS, as HxTest.pm does), once it
    accepts: (process, clear port), or (process, clear port, TLS port) with <tls>"""
    ports = [free_port()] + ([free_port()] if tls else [])
    extra = os.environ.get("HX_ARGS", "").split()
    proc = subprocess.Popen([BIN, "-q", "-t", "1", "-L", "127.0.0.1:" + ":".join(map(str, ports))]
                            + list(args) + extra)
    # WHY: a test that dies before terminating it would leave it holding
    # prove's pipe, and prove waiting for ever
    atexit.register(lambda: proc.poll() is None and proc.kill())
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", ports[0])).close()
            break
        except OSError:
            time.sleep(0.05)
    return (proc, *ports)


def pump(sock, conn, until, limit=10.0, ack=True, patient=False):
    """feeds received bytes to an h2 <conn> until until(events) says stop, the
    peer closes (an "EOF" event) or <limit> seconds; a socket timeout ends it
    unless <patient>; returns all events"""
    import h2.events
    got = []
    end = time.time() + limit
    while time.time() < end and not until(got):
        try:
            data = sock.recv(65536)
        except socket.timeout:
            if patient:
                continue
            break
        except ConnectionResetError:
            data = b""
        if not data:
            got.append("EOF")
            break
        try:
            evs = conn.receive_data(data)
        except Exception as e:  # a protocol error seen by the client
            got.append(e)
            break
        for ev in evs:
            got.append(ev)
            if ack and isinstance(ev, h2.events.DataReceived):
                conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        out = conn.data_to_send()
        if out:
            try:
                sock.sendall(out)
            except OSError:
                pass
    return got


def raw_frames(sock, limit=3.0):
    """reads raw frames (type, flags, stream, payload) until EOF or silence"""
    buf = b""
    end = time.time() + limit
    sock.settimeout(0.5)
    while time.time() < end:
        try:
            d = sock.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            break
        if not d:
            break
        buf += d
    frames = []
    while len(buf) >= 9:
        ln = int.from_bytes(buf[0:3], "big")
        if len(buf) < 9 + ln:
            break
        frames.append((buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF, buf[9:9 + ln]))
        buf = buf[9 + ln:]
    return frames


def done():
    """the plan line, and the exit status prove reads"""
    print("1..%d" % _n)
    sys.exit(1 if _failed else 0)
