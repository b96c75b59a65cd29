#!/usr/bin/env python3
"""An independent HTTPS test server (Python's ssl + http.server), for transport tests.

Prints one JSON line {"port": N} when ready. Appends one JSON line per HTTP request to --log:
{"t": epoch, "method", "path", "client_port", "phase": "start"|"end"}.
Paths:
  /ok                       200 {"ok": true}
  /slow?ms=N                waits N ms, then 200
  /status/NNN?retry_after=S answers NNN (with Retry-After when given) and a Spotify-style error body
  /flaky?key=K&fail=N&status=S   the first N requests for K answer S (default 503), then 200
  /reset?key=K&fail=N       the first N requests for K send headers and half a body, then drop
  /accounts-error           400 {"error": "invalid_grant", "error_description": "..."}
  /html-error               502 with an HTML body
  /big?kb=N                 200 with N KiB of JSON
  /gzip                     200, gzip-encoded when the client accepts it
  /signed[?…]               checks the request's signature with Python's own hmac/hashlib (an
                            independent verifier of timbre's signers): TIMBRE-HMAC-SHA256 over
                            method, target, X-Timbre-Timestamp and SHA-256 of the body with
                            SIGNING_KEY, or an API key (X-API-Key header or api_key query) equal to
                            API_KEY; 200 {"verified": "hmac"|"api_key", "key_id"} or 401
"""
import argparse, gzip, hashlib, hmac, json, os, socket, ssl, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs

counters = {}
lock = threading.Lock()

# The shared secrets of /signed (test values; RequestSignerTests uses the same).
SIGNING_KEY = bytes(range(32))
API_KEY = "test-api-key-7d1f"

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, phase):
        entry = {"t": time.time(), "method": self.command, "path": self.path.split("?")[0],
                 "client_port": self.client_address[1], "phase": phase}
        with lock, open(self.server.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def send_json(self, status, obj, extra=None):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def verify_signature(self, body, q):
        signature = self.headers.get("X-Timbre-Signature")
        if signature:
            fields = dict(part.strip().split("=", 1) for part in signature.split(",") if "=" in part)
            canonical = "\n".join(["TIMBRE-HMAC-SHA256", self.command, self.path, self.headers.get("X-Timbre-Timestamp", ""),
                                   hashlib.sha256(body).hexdigest()])
            expected = hmac.new(SIGNING_KEY, canonical.encode(), hashlib.sha256).hexdigest()
            if hmac.compare_digest(expected, fields.get("signature", "")):
                return self.send_json(200, {"verified": "hmac", "key_id": fields.get("keyId")})
            return self.send_json(401, {"error": {"status": 401, "message": "bad signature"}})
        if self.headers.get("X-API-Key") == API_KEY or q.get("api_key") == API_KEY:
            return self.send_json(200, {"verified": "api_key"})
        self.send_json(401, {"error": {"status": 401, "message": "not signed"}})

    def bump(self, key):
        with lock:
            counters[key] = counters.get(key, 0) + 1
            return counters[key]

    def handle_any(self):
        self.record("start")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlparse(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        p = url.path
        try:
            if p == "/signed":
                self.verify_signature(body, q)
            elif p == "/ok":
                self.send_json(200, {"ok": True, "auth": "present" if self.headers.get("Authorization") else "none"})
            elif p == "/slow":
                time.sleep(int(q.get("ms", "500")) / 1000)
                self.send_json(200, {"ok": True})
            elif p.startswith("/status/"):
                status = int(p.rsplit("/", 1)[1])
                extra = {"Retry-After": q["retry_after"]} if "retry_after" in q else {}
                self.send_json(status, {"error": {"status": status, "message": "test status %d" % status}}, extra)
            elif p == "/flaky":
                n = self.bump("flaky:" + q.get("key", ""))
                if n <= int(q.get("fail", "1")):
                    status = int(q.get("status", "503"))
                    extra = {"Retry-After": q["retry_after"]} if "retry_after" in q else {}
                    self.send_json(status, {"error": {"status": status, "message": "flaky"}}, extra)
                else:
                    self.send_json(200, {"ok": True, "attempt": n})
            elif p == "/reset":
                n = self.bump("reset:" + q.get("key", ""))
                if n <= int(q.get("fail", "1")):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    self.wfile.write(b'{"partial": "')
                    self.wfile.flush()
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    self.close_connection = True
                    self.connection.close()
                else:
                    self.send_json(200, {"ok": True, "attempt": n})
            elif p == "/accounts-error":
                self.send_json(400, {"error": "invalid_grant", "error_description": "Refresh token revoked"})
            elif p == "/html-error":
                body = b"<html><body>Bad gateway \x1b]0;pwned\x07</body></html>"
                self.send_response(502)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif p == "/big":
                self.send_json(200, {"data": "x" * (int(q.get("kb", "1")) * 1024)})
            elif p == "/gzip":
                body = json.dumps({"ok": True, "pad": "y" * 5000}).encode()
                accepts = "gzip" in (self.headers.get("Accept-Encoding") or "")
                if accepts:
                    body = gzip.compress(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if accepts:
                    self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                self.send_json(404, {"error": {"status": 404, "message": "no such path"}})
        finally:
            self.record("end")

    do_GET = do_POST = do_PUT = do_DELETE = handle_any

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--tls", default="1.2+", choices=["1.2+", "1.1", "1.2"])
    a = ap.parse_args()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    if a.tls == "1.1":
        ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
        ctx.minimum_version = ssl.TLSVersion.TLSv1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
    elif a.tls == "1.2":
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    else:
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(a.cert, a.key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    # Handshake lazily in each handler thread, not serially in accept().
    server.socket = ctx.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    server.log_path = a.log
    open(a.log, "a").close()
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    # A test process that ends without stopping its servers (a failed or killed run) leaves them
    # re-parented: then exit instead of lingering.
    parent = os.getppid()
    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=watch_parent, daemon=True).start()
    server.serve_forever()

if __name__ == "__main__":
    # Started from Swift's task pool, this process would inherit blocked SIGTERM/SIGINT.
    import signal
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    main()
