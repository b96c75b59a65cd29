#!/usr/bin/env python3
"""timbre's benchmark runner: starts the sandbox, measures timbre and its peers against it in the same
run, and writes a Markdown report (docs/PERFORMANCE.md by default).

usage: run.py --bin-dir DIR [--library large] [--iterations 3] [--out docs/PERFORMANCE.md] [--smoke]
Called by scripts/bench.sh (release, large) and scripts/bench-smoke.sh (debug, small, 1 iteration).
Every figure is printed as it is measured; every child process has a timeout.
"""
import argparse
import itertools
import json
import random
import math
import os
import platform
import re
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
import common  # noqa: E402

LOG = []
LAST_CPU = [None]  # CPU seconds (user + system) of the last `timed` child


def say(text):
    print(text, flush=True)
    LOG.append(text)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def pct(values, p):
    values = sorted(values)
    if not values:
        return None
    return values[min(len(values) - 1, math.ceil(p * (len(values) - 1)))]


# ---------------------------------------------------------------- processes

def timed(argv, env=None, timeout=900, cwd=None):
    """Runs argv; returns (wall seconds, peak RSS kB, stdout, stderr, exit status).

    Peak RSS is the child's ru_maxrss from wait4 — what `/usr/bin/time -v` reports as "Maximum
    resident set size" — so the suite needs no `time` package."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, text=True)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                raise RuntimeError(f"{argv[0]} did not finish in {timeout} s")
            time.sleep(0.002)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        LAST_CPU[0] = usage.ru_utime + usage.ru_stime
        return wall, usage.ru_maxrss, out.read(), err.read(), proc.returncode


def read_secret(path):
    """The sandbox's owner secret from its `control-secret` file."""
    with open(path) as f:
        return f.read().strip()


class Sandbox:
    def __init__(self, binary, library, state_dir, extra=()):
        self.proc = subprocess.Popen([binary, "serve", "--state-dir", state_dir, "--library", library,
                                      "--refresh-rotation", "same"] + list(extra),
                                     stdout=subprocess.PIPE, stderr=open(os.path.join(state_dir, "..", "sandbox.log"), "w"),
                                     text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the sandbox did not start (see sandbox.log)")
        self.info = json.loads(line)
        self.ctx = ssl.create_default_context(cafile=self.info["ca_file"])
        # The owner's secret (0600 in the state folder): every control call sends it.
        self.secret = read_secret(self.info["secret_file"])

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
        req = urllib.request.Request(self.info["base_url"] + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", "X-Sandbox-Secret": self.secret})
        with urllib.request.urlopen(req, context=self.ctx, timeout=120) as r:
            return json.load(r)

    def requests(self):
        return self.call("GET", "/__sandbox/requests")

    def clear(self):
        self.call("POST", "/__sandbox/requests/clear")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def sign_in(sandbox, work):
    """A refresh token minted by the sandbox, and an access token for the peers (written to
    WORK/session.json, which the peer scripts read)."""
    info = sandbox.info
    token = sandbox.call("POST", "/__sandbox/mint-refresh-token")["refresh_token"]
    session = dict(api_url=info["api_url"], accounts_url=info["accounts_url"], ca_file=info["ca_file"],
                   secret_file=info["secret_file"],
                   access_token=common.access_token(info["accounts_url"], info["client_id"], token, info["ca_file"]))
    session_file = os.path.join(work, "session.json")
    with open(session_file, "w") as f:
        json.dump(session, f)
    return token, session, session_file


def peer_sync(peer, script, session_file, work, env):
    """One full sync by a Python peer into a fresh WORK/PEER.sqlite: wall, peak RSS, its report."""
    db = os.path.join(work, f"{peer}.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    wall, rss, out, err, status = timed([sys.executable, script, session_file, db], env=env, timeout=3600)
    if status != 0:
        raise RuntimeError(f"{peer} failed ({status}): {err[-3000:]}")
    return wall, rss, json.loads(out.strip().splitlines()[-1])


def wire_urls(info, session_file, work, peers_dir):
    """The curl config listing every page a full sync fetches (built untimed)."""
    wire_config = os.path.join(work, "urls.curl")
    with open(wire_config, "w") as f:
        subprocess.run([sys.executable, os.path.join(peers_dir, "wire_urls.py"), session_file, info["base_url"]],
                       stdout=f, check=True, timeout=120)
    return wire_config


def wire_floor(info, session, wire_config):
    """Those pages fetched by curl, 16 at a time (timbre's own cap): wall time and peak RSS."""
    wall, rss, out, err, status = timed(["curl", "--silent", "--show-error", "--fail", "--no-progress-meter", "--parallel", "--parallel-max", "16",
                                         "--cacert", info["ca_file"], "-H", f"Authorization: Bearer {session['access_token']}",
                                         "--config", wire_config], timeout=900)
    if status != 0:
        raise RuntimeError(f"curl wire floor failed ({status}): {err[-2000:]}")
    return wall, rss


class Timbre:
    """The real `timbre` binary with a throwaway home, configured like the CLI tests do."""

    def __init__(self, bin_dir, sandbox, token, home):
        self.bin = os.path.join(bin_dir, "timbre")
        self.home = home
        for d in ("config/timbre", "cache", "state"):
            os.makedirs(os.path.join(home, d), exist_ok=True)
        info = sandbox.info
        with open(os.path.join(home, "config/timbre/config.toml"), "w") as f:
            f.write(f'client_id = "{info["client_id"]}"\nredirect_port = 0\naccounts_url = "{info["accounts_url"]}"\n'
                    f'api_url = "{info["api_url"]}"\n[tls]\nca_file = "{info["ca_file"]}"\n\n[[tls.pin]]\n'
                    f'host = "127.0.0.1"\npins = ["{info["pins"]["root"]}"]\nscope = "root"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith("TIMBRE_") and k != "DBUS_SESSION_BUS_ADDRESS"}
        env.update(XDG_CONFIG_HOME=os.path.join(home, "config"), XDG_CACHE_HOME=os.path.join(home, "cache"),
                   XDG_STATE_HOME=os.path.join(home, "state"), TIMBRE_REFRESH_TOKEN=token, HOME=home,
                   TIMBRE_LOG="warning", LANG="C.UTF-8")
        self.env = env

    @property
    def cache(self):
        return os.path.join(self.home, "cache/timbre/library.sqlite")

    def wipe_cache(self):
        shutil.rmtree(os.path.join(self.home, "cache/timbre"), ignore_errors=True)

    def run(self, args, timeout=900):
        return timed([self.bin] + args, env=self.env, timeout=timeout)

    def sync(self, extra=()):
        wall, rss, out, err, status = self.run(["sync", "--json"] + list(extra))
        if status not in (0, 3):
            raise RuntimeError(f"timbre sync exited {status}: {err[-2000:]}")
        return wall, rss, json.loads(out)


# ---------------------------------------------------------------- TUI end to end (tmux)

_tmux_runs = itertools.count()


def tui_end_to_end(timbre, rows, columns, big_name, big_count, timeout=60):
    # A socket of its own per run: `kill-server` returns before the old server has gone, and a
    # new session on the same socket could land on the dying server and leave an empty pane.
    sock = f"timbre-bench-{os.getpid()}-{next(_tmux_runs)}"
    tmux = ["tmux", "-L", sock]
    result = {}

    def sh(*args):
        return subprocess.run(tmux + list(args), capture_output=True, text=True, timeout=30).stdout

    def screen():
        return sh("capture-pane", "-p")

    def wait(pred, limit=timeout):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            s = screen()
            if pred(s):
                return s
            time.sleep(0.005)
        raise RuntimeError("TUI never showed the expected screen:\n" + screen())

    def memory(pid):
        status = open(f"/proc/{pid}/status").read()
        get = lambda k: int(re.search(rf"^{k}:\s+(\d+)", status, re.M).group(1))
        return get("VmRSS"), get("VmHWM")

    env = " ".join(f"'{k}={v}'" for k, v in timbre.env.items()
                   if k in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TIMBRE_REFRESH_TOKEN", "HOME", "PATH", "TIMBRE_LOG"))
    try:
        sh("new-session", "-d", "-x", str(columns), "-y", str(rows), "sleep 600")
        sh("set-option", "-g", "remain-on-exit", "on")  # a crash leaves its last screen to read
        start = time.monotonic()
        sh("respawn-pane", "-k", f"exec env LANG=C.UTF-8 TERM=tmux-256color {env} '{timbre.bin}'")
        first = wait(lambda s: "Playlists (" in s and "Liked Songs ·" in s and "sort position" in s)
        result["first_frame_ms"] = (time.monotonic() - start) * 1000
        pid = int(sh("display-message", "-p", "#{pane_pid}").strip())
        # The background no-change sync: at start the status shows the cache's last sync as
        # "synced YYYY-MM-DD HH:MM"; when this run's sync ends it shows "synced HH:MM".
        wait(lambda s: re.search(r"synced \d\d:\d\d", s) or "error" in s, limit=120)
        result["after_sync"] = memory(pid)
        # Open the biggest playlist through the playlist filter, then filter its tracks.
        sh("send-keys", "/")
        sh("send-keys", "-l", big_name[:10])
        sh("send-keys", "Enter", "Enter")
        wait(lambda s: f"· {big_count} ·" in s)
        sh("send-keys", "/")
        sh("send-keys", "-l", "love")
        wait(lambda s: "/love" in s)
        sh("send-keys", "Enter", "Escape")
        result["after_open_filter"] = memory(pid)
        # F searches every cached item (a query with no match).
        sh("send-keys", "F")
        sh("send-keys", "-l", "zzqx")
        t = time.monotonic()
        sh("send-keys", "Enter")
        wait(lambda s: "no track matches" in s or "matches for" in s, limit=120)
        result["search_e2e_ms"] = (time.monotonic() - t) * 1000
        result["after_search"] = memory(pid)
        sh("send-keys", "q")
    finally:
        subprocess.run(tmux + ["kill-server"], capture_output=True, timeout=30)
    return result


class TmuxControl:
    """One tmux control-mode client (`tmux -C attach`) kept open: keys go in and screens come out
    over its pipe, with no tmux process started per command. A `send-keys` then `capture-pane`
    loop costs well under a millisecond a turn, where starting `tmux` for each costs 3–10 ms —
    so a key's time is the interface's, not the harness's."""

    def __init__(self, tmux):
        # The window keeps the size it was made with: a control client must not resize it.
        subprocess.run(tmux + ["set-option", "-g", "window-size", "manual"], capture_output=True, timeout=30)
        self.proc = subprocess.Popen(tmux + ["-C", "attach"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", errors="replace", bufsize=1)
        self.command("refresh-client -f no-output")

    def command(self, line):
        """Runs one tmux command; returns its output (the lines between %begin and %end)."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out, inside = [], False
        while True:
            text = self.proc.stdout.readline()
            if not text:
                raise RuntimeError("tmux control client ended")
            # A block this client's command answers has flags 1 (the attach's own block has 0).
            if text.startswith("%begin") and text.split()[-1] == "1":
                inside = True
                continue
            if inside and (text.startswith("%end") or text.startswith("%error")):
                return "\n".join(out)
            if inside:
                out.append(text.rstrip("\n"))

    def keys(self, *keys, literal=False):
        self.command("send-keys " + ("-l " if literal else "") + " ".join(tmux_quote(k) for k in keys))

    def screen(self, escapes=False):
        return self.command("capture-pane -p" + (" -e" if escapes else ""))

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def tmux_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def timed_key(control, send, pred, escapes=False, limit=30):
    """Milliseconds from sending a key to the first capture for which `pred` holds (the frame that
    answers the key drawn), captured back to back (a capture is ~0.3 ms)."""
    start = time.monotonic()
    send()
    deadline = start + limit
    while time.monotonic() < deadline:
        s = control.screen(escapes)
        if pred(s):
            return (time.monotonic() - start) * 1000, s
        time.sleep(0.0005)
    raise RuntimeError("the interface never answered the key:\n" + control.screen())


def settle(control, pred=lambda s: True, limit=30):
    """Waits for a screen for which `pred` holds and that stays the same for 50 ms."""
    deadline = time.monotonic() + limit
    last = None
    while time.monotonic() < deadline:
        s = control.screen(True)
        if pred(s) and s == last:
            return s
        last = s if pred(s) else None
        time.sleep(0.05)
    raise RuntimeError("the screen never settled:\n" + control.screen())


def tui_keys(timbre, rows, columns, big_name, big_count, samples=20, timeout=120):
    """Key → frame drawn, the real binary in tmux, each key `samples` times in one process: `F`
    (Enter → results), Enter opening the biggest playlist, `j`, a `/` keystroke in the biggest
    playlist. Each sample starts from a settled screen."""
    sock = f"timbre-bench-keys-{os.getpid()}-{next(_tmux_runs)}"
    tmux = ["tmux", "-L", sock]
    out = {"F": [], "open": [], "j": [], "filter": []}
    env = " ".join(f"'{k}={v}'" for k, v in timbre.env.items()
                   if k in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TIMBRE_REFRESH_TOKEN", "HOME", "PATH", "TIMBRE_LOG"))
    control = None
    try:
        subprocess.run(tmux + ["new-session", "-d", "-x", str(columns), "-y", str(rows), "sleep 600"], capture_output=True, timeout=30)
        subprocess.run(tmux + ["set-option", "-g", "remain-on-exit", "on"], capture_output=True, timeout=30)
        control = TmuxControl(tmux)
        control.command(f"respawn-pane -k \"exec env LANG=C.UTF-8 TERM=tmux-256color {env} '{timbre.bin}'\"")
        settle(control, lambda s: re.search(r"synced \d\d:\d\d", s) is not None, limit=timeout)
        # F: a query with no match searches every cached item; Esc closes the results.
        for _ in range(samples):
            control.keys("F")
            control.keys("zzqx", literal=True)
            settle(control, lambda s: "Search all playlists: zzqx" in s)
            ms, _ = timed_key(control, lambda: control.keys("Enter"), lambda s: "no track matches" in s)
            out["F"].append(ms)
            control.keys("Escape")
            settle(control, lambda s: "no track matches" not in s and "Search results" not in s)
        # Enter on the biggest playlist (found through the playlists' filter, which Esc then
        # clears with the cursor kept on it), each time from the playlist above it.
        control.keys("/")
        control.keys(big_name[:10], literal=True)
        control.keys("Enter")
        control.keys("Escape")
        settle(control, lambda s: f"/{big_name[:10]}" not in s)
        for _ in range(samples):
            control.keys("k", "Enter")
            settle(control, lambda s: f"· {big_count} ·" not in s and "sort position" in s)
            control.keys("h", "j")
            settle(control)
            ms, _ = timed_key(control, lambda: control.keys("Enter"), lambda s: f"· {big_count} ·" in s)
            out["open"].append(ms)
            settle(control)
            control.keys("h")
        # j in the biggest playlist's rows (the cursor's row changes: compared with escapes).
        control.keys("l")
        before = settle(control)
        for _ in range(samples):
            ms, before = timed_key(control, lambda: control.keys("j"), lambda s, b=before: s != b, escapes=True)
            out["j"].append(ms)
            before = settle(control)
        # One `/` keystroke each: type a letter, then Backspace (each answered by the header).
        control.keys("/")
        settle(control, lambda s: "/▏" in s)
        for _ in range(samples):
            ms, _ = timed_key(control, lambda: control.keys("r", literal=True), lambda s: "· /r" in s)
            out["filter"].append(ms)
            control.keys("BSpace")
            settle(control, lambda s: "· /r" not in s)
        control.keys("Escape", "q")
    finally:
        if control:
            control.close()
        subprocess.run(tmux + ["kill-server"], capture_output=True, timeout=30)
    return {k: {"samples": v, "p50": pct(v, 0.5), "p95": pct(v, 0.95), "max": max(v) if v else None} for k, v in out.items()}


def keys_run(sandbox, timbre, library, samples, rows=40, columns=120):
    """`tui_keys` on the sandbox's biggest playlist (its row count as the interface shows it)."""
    model = sandbox.call("GET", "/__sandbox/library?include_items=false")
    big = max(model["playlists"], key=lambda p: p["track_count"])
    wall, rss, out, err, status = timbre.run(["tracks", big["id"], "--json"], timeout=300)
    if status != 0:
        raise RuntimeError(f"timbre tracks exited {status}: {err[-2000:]}")
    keys = tui_keys(timbre, rows, columns, big["name"], out.count('"position"'), samples)
    for key, f in keys.items():
        say(f"key {key} in tmux: p50 {f['p50']:.1f} ms, p95 {f['p95']:.1f} ms, max {f['max']:.1f} ms over {len(f['samples'])}")
    return {"keys": keys, "rows": rows, "columns": columns, "library": library, "samples": samples}


# ---------------------------------------------------------------- main

def machine():
    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal"):
            mem = int(line.split()[1])
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return {"nproc": os.cpu_count(), "loadavg": open("/proc/loadavg").read().split()[:3], "cpu": cpu, "memory_gib": round(mem / 1024 / 1024, 1),
            "swift": swift[0] if swift else "?", "kernel": platform.release(), "python": platform.python_version(),
            "curl": subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.split("\n")[0]}


def peer_available(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--library", default="large")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--out")
    ap.add_argument("--command", default="scripts/bench.sh")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--latency-ms", type=int, default=20)
    ap.add_argument("--only", choices=["dedupe", "history", "keys"], help="measure one section and splice it into --out")
    args = ap.parse_args()
    if args.only:
        return only_section(args)
    n = max(1, args.iterations)
    work = tempfile.mkdtemp(prefix="timbre-bench-")
    os.makedirs(os.path.join(work, "sandbox"))
    fig = {"load_at_start": open("/proc/loadavg").read().split()[:3]}  # name -> dict
    sandbox = Sandbox(os.path.join(args.bin_dir, "timbre-sandbox"), args.library, os.path.join(work, "sandbox"))
    try:
        info = sandbox.info
        token, session, session_file = sign_in(sandbox, work)
        model = sandbox.call("GET", "/__sandbox/library?include_items=false")
        counts = model["counts"]
        n_playlists = counts["playlists"]
        say(f"sandbox: {args.library} library, {n_playlists} playlists, {counts['items']} items, {counts['liked']} liked")
        big = max(model["playlists"], key=lambda p: p["track_count"])
        readable = [p for p in model["playlists"] if p.get("readable_in_development_mode") and p["id"] != big["id"]
                    and p["track_count"] > 0]
        timbre = Timbre(args.bin_dir, sandbox, token, os.path.join(work, "home"))
        peer_env = dict(os.environ, REQUESTS_CA_BUNDLE=info["ca_file"], SSL_CERT_FILE=info["ca_file"])
        peers_dir = os.path.join(HERE, "peers")
        wire_config = wire_urls(info, session_file, work, peers_dir)
        peers = {"spotipy": peer_available("spotipy"), "tekore": peer_available("tekore") and peer_available("httpx")}

        # 0. One untimed full sync per client: the sandbox keeps each encoded answer (as a real
        # API's cache would) and clients word their URLs differently, so a client's first sync
        # would time the sandbox rendering that client's pages rather than the client.
        timbre.wipe_cache()
        timbre.sync()
        for peer, script in (("tekore", "tekore_sync.py"), ("spotipy", "spotipy_sync.py")):
            if peers[peer]:
                peer_sync(peer, os.path.join(peers_dir, script), session_file, work, peer_env)
        wire_floor(info, session, wire_config)
        say("warm-up: one untimed full sync per client done")

        # 1. Full syncs, interleaved so drift hits every client alike.
        full = {k: {"wall": [], "rss": [], "cpu": [], "requests": None, "items": None} for k in ("timbre", "spotipy", "tekore", "wire")}
        for i in range(n):
            timbre.wipe_cache()
            sandbox.clear()
            wall, rss, rep = timbre.sync()
            full["timbre"]["wall"].append(wall); full["timbre"]["rss"].append(rss); full["timbre"]["cpu"].append(LAST_CPU[0])
            full["timbre"]["requests"] = rep.get("requests"); full["timbre"]["items"] = rep.get("items_written")
            full["timbre"]["server_requests"] = len(sandbox.requests())
            say(f"full sync timbre #{i + 1}: {wall:.2f} s, {LAST_CPU[0]:.2f} s CPU, {rss} kB, {rep.get('requests')} requests, {rep.get('items_written')} items, status {rep.get('status')}")
            for peer, script in (("tekore", "tekore_sync.py"), ("spotipy", "spotipy_sync.py")):
                if not peers[peer]:
                    continue
                wall, rss, rep = peer_sync(peer, os.path.join(peers_dir, script), session_file, work, peer_env)
                full[peer]["wall"].append(wall); full[peer]["rss"].append(rss); full[peer]["cpu"].append(LAST_CPU[0])
                full[peer]["requests"] = rep["requests"]; full[peer]["items"] = rep["items_written"]
                say(f"full sync {peer} #{i + 1}: {wall:.2f} s, {LAST_CPU[0]:.2f} s CPU, {rss} kB, {rep['requests']} requests, {rep['items_written']} items")
            wall, rss = wire_floor(info, session, wire_config)
            full["wire"]["wall"].append(wall); full["wire"]["rss"].append(rss); full["wire"]["cpu"].append(LAST_CPU[0])
            full["wire"]["requests"] = sum(1 for line in open(wire_config) if line.startswith("url"))
            say(f"full sync wire floor #{i + 1}: {wall:.2f} s, {LAST_CPU[0]:.2f} s CPU, {full['wire']['requests']} pages")
        fig["full"] = full

        # 2. No-change resync (timbre's cache is full from the last run above).
        nc = {"wall": [], "duration_ms": [], "requests": [], "server_requests": []}
        for i in range(max(n, 3) if not args.smoke else 1):
            sandbox.clear()
            wall, rss, rep = timbre.sync()
            nc["wall"].append(wall); nc["duration_ms"].append(rep.get("duration_ms")); nc["requests"].append(rep.get("requests"))
            nc["server_requests"].append(len(sandbox.requests()))
            say(f"no-change resync #{i + 1}: {wall:.3f} s wall, duration_ms {rep.get('duration_ms')}, {rep.get('requests')} requests "
                f"({nc['server_requests'][-1]} at the server), updated {rep['playlists']['updated']}")
        fig["nochange"] = nc

        # 3. One playlist changed (an ordinary one; and the biggest one).
        for key, target in (("one_changed", readable[len(readable) // 2]), ("big_changed", big)):
            oc = {"wall": [], "duration_ms": [], "requests": [], "updated": [], "name": target["name"], "count": target["track_count"]}
            for i in range(n):
                sandbox.call("POST", "/__sandbox/mutate", {"playlist": target["id"], "action": "append"})
                sandbox.clear()
                wall, rss, rep = timbre.sync()
                oc["wall"].append(wall); oc["duration_ms"].append(rep.get("duration_ms")); oc["requests"].append(rep.get("requests"))
                oc["updated"].append(rep["playlists"]["updated"])
                say(f"{key} resync #{i + 1} ({target['track_count']}-item playlist): {wall:.3f} s, {rep.get('requests')} requests, updated {rep['playlists']['updated']}")
            fig[key] = oc

        # 4. timbre tracks <biggest> --json
        tr = {"wall": [], "rss": []}
        for i in range(max(n, 3) if not args.smoke else 1):
            wall, rss, out, err, status = timbre.run(["tracks", big["id"], "--json"], timeout=300)
            if status != 0:
                raise RuntimeError(f"timbre tracks exited {status}: {err[-2000:]}")
            tr["wall"].append(wall); tr["rss"].append(rss); tr["rows"] = out.count('"position"')
            say(f"timbre tracks {big['id']} --json #{i + 1}: {wall * 1000:.0f} ms, {rss} kB, {tr['rows']} rows")
        fig["tracks"] = tr
        fig["big"] = {"id": big["id"], "name": big["name"], "count": big["track_count"]}

        # 5. In-process TUI figures (timbre-bench).
        wall, rss, out, err, status = timed([os.path.join(args.bin_dir, "timbre-bench"), "--cache", timbre.cache,
                                             "--iterations", str(max(n, 5) if not args.smoke else 1)], timeout=1200)
        sys.stdout.write(err)
        if status != 0:
            raise RuntimeError(f"timbre-bench exited {status}: {err[-3000:]}")
        fig["tui"] = json.loads(out)
        fig["tui"]["process_hwm_kb"] = rss

        # 6. The real TUI in tmux: first frame, RSS.
        e2e = {"first_frame_ms": [], "runs": []}
        for i in range(max(n, 3) if not args.smoke else 1):
            try:
                r = tui_end_to_end(timbre, 40, 120, big["name"], tr["rows"])
            except RuntimeError as error:
                # Once seen: an empty pane for 60 s. Say what it showed, then try once more.
                say(f"TUI in tmux #{i + 1} failed, retrying once: {error}")
                r = tui_end_to_end(timbre, 40, 120, big["name"], tr["rows"])
            e2e["first_frame_ms"].append(r["first_frame_ms"]); e2e["runs"].append(r)
            say(f"TUI in tmux #{i + 1}: first frame {r['first_frame_ms']:.0f} ms; VmRSS/VmHWM kB after sync {r['after_sync']}, "
                f"after opening + filtering the biggest playlist {r['after_open_filter']}, after F {r['after_search']} "
                f"(F took {r['search_e2e_ms']:.0f} ms end to end)")
        fig["e2e"] = e2e
        # 6b. Keys in tmux: each key 20 times in one process, through a tmux control client.
        fig["keys"] = keys_run(sandbox, timbre, args.library, 1 if args.smoke else max(20, n))
        # 7. Full sync with round trips: a second sandbox that delays every answer by
        #    LATENCY_MS, once per client (spotipy pays every round trip in turn).
        if not args.smoke and args.latency_ms > 0:
            fig["latency"] = latency_run(args, peers, peers_dir)
        # 8. Edit request budgets: timbre's plans against a naive client's, counted by timbre-bench.
        budgets = subprocess.run([os.path.join(args.bin_dir, "timbre-bench"), "--edit-budgets"], capture_output=True, text=True)
        if budgets.returncode == 0:
            fig["edit_budgets"] = budgets.stdout
        # 9. Dedupe in seconds: a 10,000-entry playlist with 5 % scattered duplicates (fewer on the
        #    smoke's small library), deduped by `timbre playlist dedupe` and by the rewriting peer.
        fig["dedupe"] = dedupe_run(sandbox, timbre, session, session_file, peers_dir, 1 if args.smoke else min(n, 3))
        # 10. The playlist history: a real sync with 1 % of the playlists changed, then a year of
        #     such days simulated by timbre-bench over the same cache.
        fig["history"] = history_run(sandbox, timbre, args.bin_dir, 1 if args.smoke else n, 30 if args.smoke else 365)
        fig["machine"] = machine()
        fig["library"] = args.library
        fig["counts"] = counts
        fig["n"] = n
        fig["command"] = args.command
        with open(os.path.join(work, "figures.json"), "w") as f:
            json.dump(fig, f, indent=1)
        markdown = render(fig)
        if args.out:
            with open(args.out, "w") as f:
                f.write(markdown)
            say(f"wrote {args.out}")
        else:
            print(markdown)
    finally:
        sandbox.stop()
        if os.environ.get("TIMBRE_BENCH_KEEP"):
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def latency_run(args, peers, peers_dir):
    """One full sync per client against a sandbox that answers after `--latency-ms`."""
    work = tempfile.mkdtemp(prefix="timbre-bench-latency-")
    os.makedirs(os.path.join(work, "sandbox"))
    sandbox = Sandbox(os.path.join(args.bin_dir, "timbre-sandbox"), args.library, os.path.join(work, "sandbox"),
                      ["--latency-ms", str(args.latency_ms)])
    result = {"latency_ms": args.latency_ms}
    try:
        info = sandbox.info
        token, session, session_file = sign_in(sandbox, work)
        timbre = Timbre(args.bin_dir, sandbox, token, os.path.join(work, "home"))
        wall, rss, rep = timbre.sync()
        result["timbre"] = wall
        say(f"latency {args.latency_ms} ms: timbre {wall:.2f} s, {rep.get('requests')} requests, status {rep.get('status')}")
        peer_env = dict(os.environ, REQUESTS_CA_BUNDLE=info["ca_file"], SSL_CERT_FILE=info["ca_file"])
        for peer, script in (("tekore", "tekore_sync.py"), ("spotipy", "spotipy_sync.py")):
            if not peers[peer]:
                continue
            wall, rss, rep = peer_sync(peer, os.path.join(peers_dir, script), session_file, work, peer_env)
            result[peer] = wall
            say(f"latency {args.latency_ms} ms: {peer} {wall:.2f} s")
        wire_config = wire_urls(info, session_file, work, peers_dir)
        wall, rss = wire_floor(info, session, wire_config)
        result["wire"] = wall
        say(f"latency {args.latency_ms} ms: wire floor {wall:.2f} s")
    finally:
        sandbox.stop()
        shutil.rmtree(work, ignore_errors=True)
    return result


# ---------------------------------------------------------------- dedupe in seconds

def dedupe_list(sandbox, size=10_000):
    """`size` entries of distinct catalogue tracks, every 20th a later copy of the entry 19 before
    it (5 %, scattered); fewer when the library holds fewer distinct tracks. Returns (list, expected)."""
    model = sandbox.call("GET", "/__sandbox/library")
    distinct = list(dict.fromkeys(i["uri"] for p in model["playlists"] for i in p.get("items", [])
                                  if re.fullmatch(r"spotify:track:[0-9A-Za-z]{22}", i.get("uri") or "")))
    size = min(size, len(distinct))
    fresh = iter(distinct)
    entries = []
    for index in range(size):
        entries.append(entries[index - 19] if index >= 20 and index % 20 == 0 else next(fresh))
    expected = list(dict.fromkeys(entries))
    return entries, expected


def filled_playlist(session, name, entries):
    created = common.api(session, "POST", "/me/playlists", {"name": name, "public": False})
    for start in range(0, len(entries), 100):
        common.api(session, "POST", f"/playlists/{created['id']}/items", {"uris": entries[start:start + 100]})
    return created["id"]


def sandbox_entries(sandbox, playlist):
    found = sandbox.call("GET", f"/__sandbox/playlists/{playlist}")
    return [(i.get("uri"), i.get("added_at")) for i in found["items"]]


def dedupe_run(sandbox, timbre, session, session_file, peers_dir, iterations):
    """timbre's dedupe against the rewriting peer on identical playlists, in the same run: wall
    seconds, requests, and how many entries kept their added date. Each result is checked against
    the sandbox (the first copy of every track, in order) — a wrong result fails the run."""
    entries, expected = dedupe_list(sandbox)
    result = {"entries": len(entries), "duplicates": len(entries) - len(expected), "timbre": [], "rewrite": []}
    for i in range(iterations):
        mine = filled_playlist(session, f"bench dedupe timbre {i}", entries)
        theirs = filled_playlist(session, f"bench dedupe rewrite {i}", entries)
        time.sleep(1.1)  # added dates have whole seconds: let "now" move on, so a reset date shows
        before = dict(sandbox_entries(sandbox, mine))  # uri -> added_at of its first copy
        timbre.sync()
        sandbox.clear()
        wall, rss, out, err, status = timbre.run(["playlist", "dedupe", mine, "--json"])
        if status != 0:
            raise RuntimeError(f"timbre playlist dedupe exited {status}: {err[-2000:]}")
        report = json.loads(out)
        after = sandbox_entries(sandbox, mine)
        if [u for u, _ in after] != expected:
            raise RuntimeError("timbre's dedupe left a list other than the first copy of every track")
        kept_dates = sum(1 for u, a in after if before.get(u) == a)
        log = sandbox.requests()
        writes = sum(1 for r in log if r.get("method") in ("POST", "PUT", "DELETE") and r.get("path", "").startswith("/v1/"))
        result["timbre"].append({"wall": wall, "requests": len(log), "writes": writes, "kept_dates": kept_dates})
        say(f"dedupe {len(entries)} entries, {result['duplicates']} duplicates: timbre #{i + 1} {wall:.2f} s, "
            f"{len(log)} requests ({writes} writes; it reported {report.get('requests')}), {kept_dates} of {len(expected)} added dates kept")
        before = dict(sandbox_entries(sandbox, theirs))
        sandbox.clear()
        wall, rss, out, err, status = timed([sys.executable, os.path.join(peers_dir, "rewrite_dedupe.py"), session_file, theirs])
        if status != 0:
            raise RuntimeError(f"the rewriting peer failed ({status}): {err[-2000:]}")
        after = sandbox_entries(sandbox, theirs)
        if [u for u, _ in after] != expected:
            raise RuntimeError("the rewriting peer left a list other than the first copy of every track")
        kept_dates = sum(1 for u, a in after if before.get(u) == a)
        result["rewrite"].append({"wall": wall, "requests": len(sandbox.requests()), "kept_dates": kept_dates})
        say(f"dedupe {len(entries)} entries: rewriting peer #{i + 1} {wall:.2f} s, {len(sandbox.requests())} requests, "
            f"{kept_dates} of {len(expected)} added dates kept")
    return result


def history_run(sandbox, timbre, bin_dir, iterations, days):
    """The playlist history's cost: a real `timbre sync` after 1 % of the playlists changed from
    outside (`mutate append`; the sync records their versions), median of `iterations` — the peer;
    then `timbre-bench --history` over the same cache: every playlist recorded once, then `days`
    days of 1 % changes recorded as the sync records them, with the history's size on disk."""
    model = sandbox.call("GET", "/__sandbox/library?include_items=false")
    readable = [p for p in model["playlists"] if p.get("readable_in_development_mode") and p["track_count"] > 0]
    per_day = max(1, round(len(model["playlists"]) / 100))
    walls = []
    timbre.sync()
    for i in range(iterations):
        for target in random.Random(i).sample(readable, min(per_day, len(readable))):
            sandbox.call("POST", "/__sandbox/mutate", {"playlist": target["id"], "action": "append"})
        sandbox.clear()
        wall, rss, rep = timbre.sync()
        walls.append(wall)
        say(f"history: sync with {per_day} playlist(s) changed #{i + 1}: {wall * 1000:.0f} ms, updated {rep['playlists']['updated']}")
    sync_ms = sorted(walls)[len(walls) // 2] * 1000
    wall, rss, out, err, status = timed([os.path.join(bin_dir, "timbre-bench"), "--history", "--cache", timbre.cache,
                                         "--history-days", str(days), "--sync-ms", f"{sync_ms:.3f}"], timeout=1800)
    if status != 0:
        raise RuntimeError(f"timbre-bench --history exited {status}: {err[-3000:]}")
    result = json.loads(out)
    result["sync_walls_ms"] = [w * 1000 for w in walls]
    say(f"history: {days} days, {result['versions']} versions, {result['bytes'] / 1e6:.1f} MB, "
        f"recording p50 {result['day_ms_p50']:.1f} ms a day ({result.get('ratio_p50', 0) * 100:.1f} % of the sync)")
    return result


def only_section(args):
    """`--only dedupe`: that measurement alone, its section replaced (or added) in --out — the rest
    of the report stays as its last full run wrote it."""
    from report import render_dedupe, render_history, splice_section
    work = tempfile.mkdtemp(prefix="timbre-bench-only-")
    os.makedirs(os.path.join(work, "sandbox"))
    sandbox = Sandbox(os.path.join(args.bin_dir, "timbre-sandbox"), args.library, os.path.join(work, "sandbox"))
    try:
        token, session, session_file = sign_in(sandbox, work)
        timbre = Timbre(args.bin_dir, sandbox, token, os.path.join(work, "home"))
        timbre.sync()
        if args.only == "keys":
            result = keys_run(sandbox, timbre, args.library, 1 if args.smoke else max(20, args.iterations))
            result["command"] = args.command
            from report import render_keys
            section, heading = render_keys(result), "## Keys in tmux"
        elif args.only == "history":
            result = history_run(sandbox, timbre, args.bin_dir, max(1, args.iterations), 30 if args.smoke else 365)
            result["command"] = args.command
            section, heading = render_history(result), "## Playlist history"
        else:
            result = dedupe_run(sandbox, timbre, session, session_file, os.path.join(HERE, "peers"), max(1, args.iterations))
            result["command"] = args.command
            section, heading = render_dedupe(result), "## Dedupe in seconds"
        if args.out:
            with open(args.out) as f:
                text = f.read()
            with open(args.out, "w") as f:
                f.write(splice_section(text, section, heading))
            say(f"wrote the {args.only} section of {args.out}")
        else:
            print(section)
    finally:
        sandbox.stop()
        if os.environ.get("TIMBRE_BENCH_KEEP"):
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------- report

def render(fig):
    from report import render_markdown
    return render_markdown(fig)


if __name__ == "__main__":
    main()
