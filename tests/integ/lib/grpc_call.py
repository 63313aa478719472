#!/usr/bin/python3
# One gRPC call with Debian's python3-grpcio, no protobuf: prints a JSON line (the code, the details, each message's field length and whether it is hxterm's pattern, the seconds it took).
import json
import sys
import time

import grpc

LINE = b".123456789.123456789.123456789.123456789.12345678\n"


def field(msg):
    """field 1 of a message (tag 0x0a, a varint length, the bytes)"""
    if not msg:
        return b""
    if msg[0] != 0x0A:
        return None
    n, shift, i = 0, 0, 1
    while True:
        c = msg[i]
        n |= (c & 0x7F) << shift
        i += 1
        shift += 7
        if c < 0x80:
            break
    return msg[i:i + n] if len(msg) - i == n else None


def main():
    target, kind, meta = sys.argv[1], sys.argv[2], sys.argv[3]
    timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    out = {"code": "OK", "details": "", "messages": [], "pattern": True}
    t0 = time.time()
    with grpc.insecure_channel(target) as ch:
        md = (("x-hxterm", meta),) if meta else ()
        try:
            if kind == "unary":
                msgs = [ch.unary_unary("/hx.Any/Call")(b"\x0a\x02hi", metadata=md, timeout=timeout)]
            else:
                msgs = []
                for m in ch.unary_stream("/hx.Any/Stream")(b"", metadata=md, timeout=timeout):
                    msgs.append(m)
                    out["at"] = out.get("at", []) + [round(time.time() - t0, 3)]
        except grpc.RpcError as e:
            msgs = []
            out["code"], out["details"] = e.code().name, e.details() or ""
        for m in msgs:
            f = field(m)
            out["messages"].append(-1 if f is None else len(f))
            pat = (LINE * (len(f) // 50 + 2))[:len(f)] if f is not None else None
            out["pattern"] = out["pattern"] and f == pat
    out["seconds"] = round(time.time() - t0, 3)
    print(json.dumps(out))


main()
