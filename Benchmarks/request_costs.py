#!/usr/bin/env python3
"""Requests per big command (issue #42 items 4 and 7), counted by the sandbox's request log (`/v1`
only), with what timbre said before its first write ("… this sends about N requests …" on stderr)
and what its `--dry-run --json` said (`requests`). One `timbre` binary, one sandbox library.

usage: request_costs.py --bin-dir DIR [--library large|medium] [--out FILE]
  --bin-dir DIR   a bin dir holding `timbre` and `timbre-sandbox`
Every result is checked against the sandbox (the list the command asks for) or the run fails.
Prints one Markdown table (and writes it to --out when given). scripts/request-costs.sh runs it.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as bench  # noqa: E402

SAID = re.compile(r"this sends about ([0-9,]+) request")


def said(err):
    """N of the cost line timbre prints before its first write (None: no such line)."""
    found = SAID.search(err)
    return int(found.group(1).replace(",", "")) if found else None


class Costs:
    def __init__(self, sandbox, timbre):
        self.sandbox, self.timbre, self.rows = sandbox, timbre, []

    def run(self, args, ok=(0,)):
        self.sandbox.clear()
        wall, rss, out, err, status = self.timbre.run(args)
        if status not in ok:
            raise RuntimeError(f"timbre {' '.join(args[:3])} exited {status}: {err[-2000:]}")
        sent = sum(1 for r in self.sandbox.requests() if r.get("path", "").startswith("/v1/"))
        return sent, out, err

    def dry(self, args):
        _, out, _ = self.run(args + ["--dry-run", "--json"])
        return json.loads(out).get("requests")

    def row(self, name, sent, before=None, dry=None, minimum=""):
        self.rows.append((name, sent, before, dry, minimum))
        bench.say(f"{name}: {sent} requests (said {before}, dry run {dry})")


def entries(sandbox, playlist):
    return [u for u, _ in bench.sandbox_entries(sandbox, playlist)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--library", default="large")
    ap.add_argument("--out")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="timbre-request-costs-")
    os.makedirs(os.path.join(work, "state"))
    sandbox = bench.Sandbox(os.path.join(args.bin_dir, "timbre-sandbox"), args.library, os.path.join(work, "state"))
    try:
        token, session, _ = bench.sign_in(sandbox, work)
        timbre = bench.Timbre(os.path.abspath(args.bin_dir), sandbox, token, os.path.join(work, "home"))
        c = Costs(sandbox, timbre)
        dedupe, dedupe_expected = bench.dedupe_list(sandbox, size=2_000)
        distinct = list(dict.fromkeys(dedupe))
        liked = {i.get("uri") for i in sandbox.call("GET", "/__sandbox/library").get("liked") or []}
        tracks = distinct[:500]
        paste_list = bench.filled_playlist(session, "costs paste", tracks[:300])
        dedupe_list = bench.filled_playlist(session, "costs dedupe", dedupe)
        import_list = bench.filled_playlist(session, "costs import", tracks[:100])
        restore_list = bench.filled_playlist(session, "costs restore", tracks[:300])
        sent, _, _ = c.run(["sync", "--quiet"])
        c.row("first `sync`", sent, minimum="⌈playlists/50⌉ + Σ⌈n/50⌉ + ⌈liked/50⌉ + 1")
        sent, _, _ = c.run(["sync", "--quiet"])
        c.row("`sync`, nothing changed", sent, minimum="⌈playlists/50⌉ + 1")

        # A paste (the interface's p: an add at a place) and its undo.
        pasted = [u for u in distinct[500:] if u not in liked][:2]
        sent, _, _ = c.run(["playlist", "add", paste_list] + pasted + ["--position", "3"])
        c.row("paste 2 entries (`p`; `playlist add … --position 3`), 300 entries", sent, minimum="2 (snapshot + add)")
        paste = sent
        sent, _, _ = c.run(["undo"])
        if entries(sandbox, paste_list) != tracks[:300]:
            raise RuntimeError("the undo of the paste left another list")
        c.row("`undo` of that paste", sent, minimum=f"≤ paste + 1 = {paste + 1}")

        # One like and its unlike: the cached Liked Songs changed from the answers, never re-read.
        fresh = [u for u in distinct[502:] if u not in liked][:1]
        sent, _, _ = c.run(["like"] + fresh)
        if fresh[0] not in {i.get("uri") for i in sandbox.call("GET", "/__sandbox/library").get("liked") or []}:
            raise RuntimeError("the like did not reach Liked Songs")
        c.row(f"`like` 1 track ({len(liked):,} liked)", sent, minimum="2 (save + its entry read back)")
        sent, _, _ = c.run(["unlike"] + fresh)
        c.row("`unlike` it", sent, minimum="2")

        # A dedupe of 2,000 entries, 99 duplicates.
        dry = c.dry(["playlist", "dedupe", dedupe_list])
        sent, _, err = c.run(["playlist", "dedupe", dedupe_list])
        if entries(sandbox, dedupe_list) != dedupe_expected:
            raise RuntimeError("the dedupe left another list")
        c.row(f"`playlist dedupe`, {len(dedupe):,} entries, {len(dedupe) - len(dedupe_expected)} duplicates", sent, said(err), dry,
              "1 + 1 removal per 100 tracks + 1 add per run kept")

        # An import of 1,000 URIs into a playlist of 100.
        rows = distinct[500:1500]
        path = os.path.join(work, "import.txt")
        with open(path, "w") as f:
            f.write("\n".join(rows) + "\n")
        dry = c.dry(["import", path, "--into", import_list])
        sent, _, err = c.run(["import", path, "--into", import_list, "--json"])
        if entries(sandbox, import_list) != tracks[:100] + rows:
            raise RuntimeError("the import left another list")
        c.row(f"`import` of {len(rows):,} URIs (0 searches)", sent, said(err), dry, f"1 + ⌈{len(rows)}/100⌉ = {1 + (len(rows) + 99) // 100}")

        # A playlist changed outside, deleted in timbre, restored to its first version.
        sandbox.call("POST", "/__sandbox/mutate", {"action": "reorder", "playlist": restore_list})
        sandbox.call("POST", "/__sandbox/mutate", {"action": "remove_first", "playlist": restore_list})
        c.run(["sync", "--quiet"])
        c.run(["playlist", "delete", restore_list, "--yes"])
        dry = c.dry(["playlist", "restore", restore_list, "--to", "1"])
        sent, _, err = c.run(["playlist", "restore", restore_list, "--to", "1"])
        if entries(sandbox, restore_list) != tracks[:300]:
            raise RuntimeError("the restore of the deleted playlist left another list")
        c.row("`playlist restore` of a deleted playlist (followed again + its entries), 300 entries", sent, said(err), dry,
              "contains + details + ⌈n/50⌉ + follow + moves")

        # A backup, then a restore of it after one playlist was deleted.
        path = os.path.join(work, "backup.json")
        sent, _, err = c.run(["backup", "-o", path])
        c.row("`backup` (cache current)", sent, said(err), None, "⌈playlists/50⌉ × 2 + 2")
        c.run(["playlist", "delete", paste_list, "--yes"])
        _, out, _ = c.run(["restore", path, "--dry-run", "--json"])
        dry = json.loads(out).get("requests")
        sent, out, err = c.run(["restore", path, "--json"])
        reported = json.loads(out).get("requests")
        if reported != sent:
            raise RuntimeError(f"restore reported {reported} requests, the sandbox counted {sent}")
        c.row("`restore` of that backup, one playlist deleted since", sent, said(err), dry, "the syncs + 1 follow")
    finally:
        sandbox.stop()
        shutil.rmtree(work, ignore_errors=True)
    lines = [f"| command ({args.library} library) | requests (sandbox's log) | said before the first write | `--dry-run --json` `requests` | the API's minimum |",
             "|---|---|---|---|---|"]
    for name, sent, before, dry, minimum in c.rows:
        lines.append(f"| {name} | {sent:,} | {'—' if before is None else f'{before:,}'} | {'—' if dry is None else f'{dry:,}'} | {minimum} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
