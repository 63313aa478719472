#!/usr/bin/python3
# UDP receive drops: a flood at a small --udp-rcvbuf while the worker is stopped raises hxterm_udp_receive_drops_total and /stats.json's udp_receive_drops; the kernel's answer to the option is logged.
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import BIN, done, free_port, ok  # noqa: E402

clear, tls, sport = free_port(), free_port(), free_port()
log = tempfile.TemporaryFile()
srv = subprocess.Popen([BIN, "-t", "1", "-L", "127.0.0.1:%d:%d" % (clear, tls), "--stats", "127.0.0.1:%d" % sport,
                        "--udp-rcvbuf", "4096"] + os.environ.get("HX_ARGS", "").split(), stderr=log)
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", sport)).close()
        break
    except OSError:
        time.sleep(0.05)


def metrics():
    body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % sport, timeout=5).read().decode()
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(hxterm_\S+) (\d+)$", body, re.M)}


name = "127.0.0.1:%d" % tls
row = 'hxterm_udp_receive_drops_total{listener="%s"}' % name
m0 = metrics()
ok(m0.get(row) == 0, "%s is 0 before: %s" % (row, m0.get(row)))
log.seek(0)
said = re.search(r"UDP %s: receive buffer 4096 bytes asked, the kernel answered (\d+)" % re.escape(name),
                 log.read().decode())
ok(said and int(said.group(1)) >= 4096, "the kernel's answer to --udp-rcvbuf is logged: %s" %
   (said.group(0) if said else None))

# WHY not QUIC (a DCID length of 255): dropped unread, nothing answered
junk = b"\xc3\x00\x00\x00\x01\xff" + bytes(1194)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
SENT = 2000
os.kill(srv.pid, signal.SIGSTOP)
try:
    for _ in range(SENT):
        sock.sendto(junk, ("127.0.0.1", tls))
finally:
    os.kill(srv.pid, signal.SIGCONT)
time.sleep(0.3)
# WHY one more: the kernel tells its count with the next datagram it queues
sock.sendto(junk, ("127.0.0.1", tls))
# WHY until it holds still, not its first rise: each datagram carries the
# drops counted when it was queued, so the count climbs as the worker reads
# the queue (a sanitized one read 274, then 1941)
m1, last = metrics(), -1
for _ in range(100):
    if m1.get(row, 0) > 0 and m1.get(row, 0) == last:
        break
    last = m1.get(row, 0)
    time.sleep(0.1)
    m1 = metrics()
drops = m1.get(row, 0)
ok(SENT // 2 <= drops <= SENT, "a flood into a 4k buffer while the worker was stopped: %d of %d dropped, counted"
   % (drops, SENT))
seen = m1.get('hxterm_quic_udp_datagrams_total{direction="in"}', 0) - \
    m0.get('hxterm_quic_udp_datagrams_total{direction="in"}', 0)
ok(0 < seen <= SENT + 1 - drops, "the datagrams read (%d) are those not dropped" % seen)
js = json.loads(urllib.request.urlopen("http://127.0.0.1:%d/stats.json" % sport, timeout=5).read())
ok(js.get("udp_receive_drops", {}).get(name) == drops, "/stats.json's udp_receive_drops agrees: %s" %
   js.get("udp_receive_drops"))
ok(srv.poll() is None, "the server lives")
srv.send_signal(signal.SIGINT)
ok(srv.wait(timeout=15) == 0, "it exits 0 at SIGINT")
done()
