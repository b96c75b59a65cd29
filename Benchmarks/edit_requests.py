#!/usr/bin/env python3
"""Requests and wall time of one edit (issue #33 item 1), counted by the sandbox, for two `timbre`
binaries in the same run against the same sandbox answering after --latency-ms (150: a real
round trip). Each binary has its own home and edits its own copy of each playlist.

usage: edit_requests.py --before DIR --after DIR [--latency-ms 150] [--library large] [--out FILE]
  --before DIR   a bin dir holding `timbre` (e.g. main's build)
  --after DIR    a bin dir holding `timbre` and `timbre-sandbox` (this branch's build)
Every result is checked against the sandbox (the list the edit asks for) or the run fails. Prints
one Markdown table (and writes it to --out when given).
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as bench  # noqa: E402


def cases(sandbox):
    """(name, budget, entries, timbre arguments after the playlist id, the list expected after)."""
    dedupe, dedupe_expected = bench.dedupe_list(sandbox)
    distinct = list(dict.fromkeys(dedupe))
    tracks = distinct[:500]
    # A track in no list the clients sync before it (the bench playlists so far, Liked Songs).
    liked = {i.get("uri") for i in sandbox.call("GET", "/__sandbox/library").get("liked") or []}
    unseen = next(u for u in distinct[500:] if u not in liked)
    moved = [tracks[1], tracks[0]] + tracks[2:]
    # Track T at 1, 201 and 401 (positions counted from 1): the copies kept form two runs.
    copies = list(tracks)
    for index in (200, 400):
        copies[index] = copies[0]
    without_first = copies[1:]
    n = len(dedupe)
    return [
        ("`J`: move entry 1 down one place, 500 entries", "2 (snapshot + move)", tracks, ["move", "--position", "1", "--to", "2"], moved),
        ("add 1 entry (a track the cache has), 500 entries", "2 (snapshot + add)", tracks[:499],
         ["add", tracks[499]], tracks[:499] + [tracks[499]]),
        ("add 1 entry (a track the cache has never seen), 500 entries", "3 (snapshot + add + the track)", tracks[:499],
         ["add", unseen], tracks[:499] + [unseen]),
        ("remove 1 of 3 copies (kept in 2 runs), 500 entries", "4 (snapshot + removal + 2 re-adds)", copies,
         ["remove", "--position", "1"], without_first),
        # A sort: what order is right is the binaries' own rule; both must leave the same list,
        # every entry still there (checked in main()).
        ("sort by title (range moves, dates kept), 500 entries", "1 + moves (snapshot + n − LIS moves)", tracks,
         ["sort", "--by", "title", "--yes"], None),
        (f"dedupe {n:,} entries, {n - len(dedupe_expected)} duplicates", f"≤ 505 writes + ⌈n/50⌉ + 2 = {505 + (n + 49) // 50 + 2}",
         dedupe, ["dedupe"], dedupe_expected),
    ]


def measure(sandbox, timbre, playlist, args):
    """Sync the playlist (and Liked Songs, which tells the cache who the user is), then the edit."""
    wall, rss, report = timbre.sync(["--playlist", playlist, "--liked"])
    if report.get("status") != "ok":
        raise RuntimeError(f"sync before the edit: {report}")
    sandbox.clear()
    wall, rss, out, err, status = timbre.run(["playlist", args[0], playlist] + args[1:])
    if status != 0:
        raise RuntimeError(f"timbre playlist {args[0]} exited {status}: {err[-2000:]}")
    log = [r for r in sandbox.requests() if r.get("path", "").startswith("/v1/")]
    reads = sum(1 for r in log if r.get("method") == "GET")
    return {"wall": wall, "reads": reads, "writes": len(log) - reads,
            "me": sum(1 for r in log if r.get("path") == "/v1/me")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--latency-ms", type=int, default=150)
    ap.add_argument("--library", default="large")
    ap.add_argument("--out")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="timbre-edit-requests-")
    os.makedirs(os.path.join(work, "state"))
    sandbox = bench.Sandbox(os.path.join(args.after, "timbre-sandbox"), args.library, os.path.join(work, "state"),
                            ["--latency-ms", str(args.latency_ms)])
    rows = []
    try:
        token, session, _ = bench.sign_in(sandbox, work)
        clients = {name: bench.Timbre(os.path.abspath(d), sandbox, token, os.path.join(work, name))
                   for name, d in (("before", args.before), ("after", args.after))}
        for name, budget, entries, edit, expected in cases(sandbox):
            figures = {}
            for client, timbre in clients.items():
                playlist = bench.filled_playlist(session, f"bench edit {client} {name[:20]}", entries)
                figures[client] = measure(sandbox, timbre, playlist, edit)
                got = [u for u, _ in bench.sandbox_entries(sandbox, playlist)]
                if expected is None:
                    # An order change: the same entries, in the order the other binary left (when it ran).
                    if sorted(got) != sorted(entries) or got == entries:
                        raise RuntimeError(f"{client}: {name} did not reorder the same entries")
                    expected = got
                elif got != expected:
                    raise RuntimeError(f"{client}: {name} left a list other than the one asked for")
                f = figures[client]
                bench.say(f"{name}: {client} {f['reads']} reads + {f['writes']} writes ({f['me']} GET /me), {f['wall']:.2f} s")
            rows.append((name, budget, figures))
    finally:
        sandbox.stop()
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"| edit | budget | before: requests (reads + writes) | before: wall at {args.latency_ms} ms | "
             f"after: requests (reads + writes) | after: wall at {args.latency_ms} ms |", "|---|---|---|---|---|---|"]
    for name, budget, f in rows:
        b, a = f["before"], f["after"]
        lines.append(f"| {name} | {budget} | {b['reads'] + b['writes']} ({b['reads']} + {b['writes']}) | {b['wall']:.2f} s | "
                     f"{a['reads'] + a['writes']} ({a['reads']} + {a['writes']}) | {a['wall']:.2f} s |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
