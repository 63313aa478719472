#!/usr/bin/python3
# MAX_STREAMS grants grouped: a client with fewer than half of --h3-streams open gets none for its closed streams (one each before); one that uses all its credit gets it back and finishes (gtlsclient's qlog counts the frames).
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from hxtap import done, ok, start  # noqa: E402


def run(tls, urls, n=0):
    """gtlsclient's exit status, and the MAX_STREAMS (bidi) frames its qlog saw received"""
    d = tempfile.mkdtemp()
    q = os.path.join(d, "qlog")
    r = subprocess.run(["timeout", "20", "gtlsclient", "-q", "--exit-on-all-streams-close", "--qlog-file=" + q]
                       + (["-n", str(n)] if n else []) + ["127.0.0.1", str(tls)] + urls,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    grants = []
    for rec in open(q).read().split("\x1e") if os.path.exists(q) else []:
        try:
            ev = json.loads(rec)
        except ValueError:
            continue
        if ev.get("name", "").endswith("packet_received"):
            grants += [f["maximum"] for f in ev.get("data", {}).get("frames", [])
                       if f.get("frame_type") == "max_streams" and f.get("stream_type") == "bidirectional"]
    return r.returncode, grants


srv, clear, tls = start("--h3-streams", "40", tls=True)
time.sleep(0.3)  # WHY: start() waits for TCP; the QUIC socket opens with it
# WHY t= apart: each stream closes in its own wakeup, and one grant per
# closed stream made 18 frames here
rc, grants = run(tls, ["https://127.0.0.1:%d/?t=%d&s=100" % (tls, 10 * i) for i in range(1, 20)])
ok(rc == 0, "19 requests, 10 ms apart, at --h3-streams 40: all answered")
ok(len(grants) <= 1, "no MAX_STREAMS while the client has more than half its credit left: %d frames %s"
   % (len(grants), grants[:20]))
srv.terminate()
srv.wait(timeout=15)

srv, clear, tls = start("--h3-streams", "4", tls=True)
time.sleep(0.3)
rc, grants = run(tls, ["https://127.0.0.1:%d/?s=100" % tls], n=40)
ok(rc == 0, "40 requests at --h3-streams 4, the client always at its limit: all answered")
ok(grants and max(grants) >= 40 and len(grants) <= 36,
   "its credit came back as its streams closed: %d MAX_STREAMS frames, up to %s" %
   (len(grants), max(grants) if grants else None))
srv.terminate()
ok(srv.wait(timeout=15) == 0, "hxterm exits 0")
done()
