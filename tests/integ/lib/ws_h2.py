"""A WebSocket client over HTTP/2 extended CONNECT (RFC 8441): python3-h2 for the
stream, websockets' frames for RFC 6455. ws_h2(port, path, sends) returns what it saw."""
import socket

import h2.config
import h2.connection
import h2.events
import h2.settings
from websockets.frames import Frame, OP_TEXT, OP_BINARY, OP_CLOSE, Close
from websockets.streams import StreamReader

def ws_h2(port, path, sends=()):
    """connects, opens a WebSocket on <path>, sends the text messages <sends> once
    answered (then a close after as many messages came back), reads until the
    stream ends: {status, messages, close, reset, goaway, ...}"""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    c.initiate_connection()
    sock.sendall(c.data_to_send())
    out = {"settings_connect": None, "status": None, "messages": [], "close": None, "reset": None}
    reader = StreamReader()
    parser = None
    sid = None

    def frames():
        while True:
            f = yield from Frame.parse(reader.read_exact, mask=False)
            return f

    def send_ws(op, data):
        b = Frame(op, data).serialize(mask=True)
        for i in range(0, len(b), 16384):  # WHY: the server's SETTINGS_MAX_FRAME_SIZE
            c.send_data(sid, b[i:i + 16384])
        sock.sendall(c.data_to_send())

    while True:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            out["timeout"] = True
            break
        if not data:
            break
        for e in c.receive_data(data):
            if isinstance(e, h2.events.RemoteSettingsChanged):
                v = e.changed_settings.get(h2.settings.SettingCodes.ENABLE_CONNECT_PROTOCOL)
                if v is not None:
                    out["settings_connect"] = v.new_value
                if sid is None and out["settings_connect"]:
                    sid = c.get_next_available_stream_id()
                    c.send_headers(sid, [(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "http"),
                                         (":path", path), (":authority", "x"), ("sec-websocket-version", "13")])
            elif isinstance(e, h2.events.ResponseReceived):
                h = dict(e.headers)
                out["status"] = int(h[":status"])
                out["xrsp"] = h.get("x-rsp")
                out["clen"] = h.get("content-length")
                for m in sends:
                    send_ws(OP_TEXT, m.encode())
            elif isinstance(e, h2.events.DataReceived):
                c.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                reader.feed_data(e.data)
            elif isinstance(e, h2.events.StreamReset):
                out["reset"] = e.error_code
            elif isinstance(e, h2.events.StreamEnded):
                out["ended"] = True
            elif isinstance(e, h2.events.ConnectionTerminated):
                out["goaway"] = e.error_code
        # WHY a loop: a DATA frame may hold several WebSocket frames, or part of one
        while True:
            if parser is None:
                parser = frames()
            try:
                next(parser)
                break  # needs more bytes
            except StopIteration as stop:
                parser = None
                f = stop.value
                if f.opcode == OP_CLOSE:
                    out["close"] = Close.parse(f.data).code if f.data else 1005
                    if sid is not None:
                        try:
                            send_ws(OP_CLOSE, f.data)
                            c.end_stream(sid)
                            sock.sendall(c.data_to_send())
                        except Exception:
                            pass
                else:
                    out["messages"].append(f.data.decode() if f.opcode == OP_TEXT else f.data.hex())
                    if sends and len(out["messages"]) == len(sends):
                        send_ws(OP_CLOSE, Close(1000, "").serialize())
        sock.sendall(c.data_to_send())
        if out["close"] is not None or out["reset"] is not None or out.get("goaway") is not None:
            if out.get("ended") or out["reset"] is not None or out.get("goaway") is not None:
                break
    sock.close()
    return out
