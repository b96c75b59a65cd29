#!/usr/bin/env python3
"""A small HTTP CONNECT proxy for transport tests (tunnels only; it never sees inside TLS).

Prints one JSON line {"port": N} when ready. Appends one JSON line per CONNECT to --log:
{"t": epoch, "target": "host:port", "status": 200|502}. Any other method answers 405 and is
logged with "method". The tunnel copies bytes both ways until either side closes.
"""
import argparse, json, os, signal, socket, sys, threading, time

lock = threading.Lock()


def log(path, entry):
    entry["t"] = time.time()
    with lock, open(path, "a") as f:
        f.write(json.dumps(entry) + "\n")


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (dst, src):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def handle(client, log_path):
    try:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(4096)
            if not chunk:
                client.close()
                return
            head += chunk
            if len(head) > 65536:
                client.close()
                return
        header, rest = head.split(b"\r\n\r\n", 1)
        request_line = header.split(b"\r\n", 1)[0].decode("latin-1")
        parts = request_line.split()
        if len(parts) != 3 or parts[0] != "CONNECT":
            log(log_path, {"method": parts[0] if parts else "", "target": parts[1] if len(parts) > 1 else "", "status": 405})
            client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        target = parts[1]
        host, _, port = target.rpartition(":")
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
            upstream.settimeout(None)
        except (OSError, ValueError):
            log(log_path, {"target": target, "status": 502})
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        log(log_path, {"target": target, "status": 200})
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if rest:
            upstream.sendall(rest)
        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
        pump(client, upstream)
    except OSError:
        pass


def main():
    # SIGTERM ends the proxy even when the test process that started it had the signal blocked or
    # ignored (both are inherited through exec): left alone it outlived its tests.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    open(args.log, "a").close()
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.port))
    server.listen(64)
    print(json.dumps({"port": server.getsockname()[1]}), flush=True)
    while True:
        client, _ = server.accept()
        threading.Thread(target=handle, args=(client, args.log), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
