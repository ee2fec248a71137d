"""What both fake model endpoints share (Python 3 stdlib only): the reply text, the
FAKE_TOOL / FAKE_USAGE directives, a request handler that logs every request and answers JSON or
server-sent events, and a server on a free 127.0.0.1 port written atomically to --port-file.

A fake subclasses Handler, implements post(path, body) (and get_json(path) for GETs with an
answer), and calls serve(ItsHandler) from its main.
"""
import argparse, json, os, re, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "FAKE-REPLY ok"
TOOL_RE = re.compile(r"FAKE_TOOL:[ \t]*(.+)")
USAGE_RE = re.compile(r"FAKE_USAGE:[ \t]*(\d+)")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, obj):
        b = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def route(self):
        return self.path.split("?")[0].rstrip("/")

    def get_json(self, path):
        return {}

    def do_GET(self):
        self.server.log("GET", self.path, None)
        self.send_json(self.get_json(self.route()))

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.server.log("POST", self.path, body)
        if not isinstance(body, dict):
            return self.send_json({})
        self.post(self.route(), body)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, handler, log_path):
        super().__init__(("127.0.0.1", 0), handler)
        self.lock = threading.Lock()
        self.log_file = open(log_path, "a", encoding="utf-8")

    def log(self, method, path, body):
        with self.lock:
            self.log_file.write(json.dumps({"method": method, "path": path, "body": body}) + "\n")
            self.log_file.flush()


def serve(handler):
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    srv = Server(handler, args.log)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(args.port_file + ".tmp", args.port_file)
    srv.serve_forever()
