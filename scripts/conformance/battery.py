#!/usr/bin/env python3
"""The conformance battery: every timbre command that talks to Spotify, run against the sandbox in
its 2026 (development-mode) behaviour with TIMBRE_RECORD, then every recorded request checked by
check.py against the table derived from Spotify's OpenAPI description.

    battery.py --bin-dir DIR [--keep]

DIR holds `timbre` and `timbre-sandbox` (`swift build --show-bin-path`). The sandbox serves the
small library plus two Spotify-owned playlists (`--spotify-owned 2`). The commands: the sign-in
refresh, sync, search (tracks, albums, playlists), every `playlist` verb (create, edit, add,
remove, move, dedupe, shuffle, sort, copy, delete), like/unlike (more than 40 at once), undo and
redo, import (URIs and a row found by search), export, `api` (a read and a bodiless write), and
backup and restore (a deleted playlist followed back, and made anew), and every playback verb (play
from an entry on a device named by name, Liked Songs, one track, resume, pause, next, prev, seek,
volume, shuffle, repeat, queue, transfer, devices, now, recent).
Two edits Spotify refuses (details of another's collaborative playlist, collaborative on a public
one) must fail without a request. A command that fails otherwise is a mismatch too. Exit 0 only when every command did what it should and
every request conforms.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks"))
import run as bench  # noqa: E402  (Sandbox, Timbre: the sandbox process and a throwaway home)


class Battery:
    def __init__(self, bin_dir, work):
        self.work = work
        self.failures = []
        state = os.path.join(work, "sandbox")
        os.makedirs(state)
        self.sandbox = bench.Sandbox(os.path.join(bin_dir, "timbre-sandbox"), "small", state, extra=["--spotify-owned", "2"])
        self.state = state
        token = self.sandbox.call("POST", "/__sandbox/mint-refresh-token")["refresh_token"]
        self.timbre = bench.Timbre(bin_dir, self.sandbox, token, os.path.join(work, "home"))
        self.timbre.env["XDG_DATA_HOME"] = os.path.join(work, "home", "data")
        self.recording = os.path.join(work, "recording")
        self.timbre.env["TIMBRE_RECORD"] = self.recording

    def run(self, argv, ok=(0,), stdin=None, data_home=None):
        """Runs timbre; an exit code outside `ok` is a failure of the battery. `data_home`: a user-data
        folder of its own (an edit journal no other command shares)."""
        env = dict(self.timbre.env, XDG_DATA_HOME=data_home) if data_home else self.timbre.env
        process = subprocess.run([self.timbre.bin] + argv, env=env, input=stdin, capture_output=True, text=True, timeout=300)
        shown = " ".join(argv)
        said = process.stderr.strip().splitlines()[:1] if process.returncode else []
        print(f"  timbre {shown[:150]} → {process.returncode}" + (f" ({said[0][:160]})" if said else ""))
        if process.returncode not in ok:
            self.failures.append(f"timbre {shown} exited {process.returncode}: {process.stderr.strip()[-400:]}")
        return process

    def track_uris(self):
        """Catalogue tracks the sandbox knows (from its own playlists), distinct, in order."""
        library = self.sandbox.call("GET", "/__sandbox/library")
        uris = []
        for playlist in library["playlists"]:
            for item in playlist.get("items") or []:
                if item.get("kind") == "track" and item["uri"] not in uris:
                    uris.append(item["uri"])
        return uris

    def battery(self):
        tracks = self.track_uris()
        liked = {item["uri"] for item in self.sandbox.call("GET", "/__sandbox/liked")["liked"]}
        fresh = [uri for uri in tracks if uri not in liked]

        print("conformance battery:")
        self.run(["sync", "--json"])  # the sign-in refresh, /me, /me/playlists, items, Liked Songs
        self.player(tracks)
        self.run(["search", "night", "--limit", "5"])
        self.run(["search", "love", "--type", "album", "--limit", "3"])
        self.run(["search", "mix", "--type", "playlist", "--json"])

        created = self.run(["playlist", "create", "Conformance", "--private", "--description", "battery"])
        playlist = created.stdout.strip().splitlines()[-1].strip() if created.stdout.strip() else ""
        if not playlist:
            self.failures.append("playlist create printed no id")
            return
        self.run(["playlist", "edit", playlist, "--name", "Conformance (edited)", "--description", "still the battery"])
        # 120 items: more than one request's 100.
        self.run(["playlist", "add", playlist, "-"], stdin="\n".join(tracks[:120]) + "\n")
        self.run(["playlist", "add", playlist, "--position", "2", tracks[0], tracks[1]])
        self.run(["playlist", "remove", playlist, "--position", "3"])
        self.run(["playlist", "remove", playlist, "--uri", tracks[5]])
        self.run(["playlist", "move", playlist, "--position", "4-6", "--to", "10"])
        self.run(["playlist", "dedupe", playlist])
        self.run(["playlist", "shuffle", playlist])
        self.run(["playlist", "sort", playlist, "--by", "title"])
        self.run(["undo"])
        self.run(["redo"])
        copy = self.run(["playlist", "copy", playlist, "new:Conformance copy"])
        del copy

        # Likes: 45 at once, more than one request's 40 URIs.
        self.run(["like"] + fresh[:45])
        self.run(["unlike"] + fresh[:3])
        self.run(["undo"])

        # Import: URIs, and a CSV row found by one catalogue search; export (offline).
        uri_file = os.path.join(self.work, "import.txt")
        with open(uri_file, "w") as handle:
            handle.write("\n".join(tracks[130:140]) + "\n")
        self.run(["import", uri_file, "--into", playlist])
        self.run(["sync", "--playlist", playlist])
        export_file = os.path.join(self.work, "export.csv")
        self.run(["export", playlist, "-o", export_file])
        with open(export_file, newline="") as handle:
            lines = handle.read().splitlines()
        if len(lines) > 1:
            search_file = os.path.join(self.work, "search.csv")
            with open(search_file, "w") as handle:
                # The header and one row with its URI column blanked: found by title and artist.
                header = lines[0]
                handle.write(header + "\n" + "," + lines[1].split(",", 1)[1] + "\n")
            self.run(["import", search_file, "--name", "Conformance import"], ok=(0, 3))

        self.run(["api", "me"])
        self.run(["api", "me/playlists?limit=5"])
        self.run(["api", "-X", "PUT", f"me/library?uris={fresh[50]}"])
        self.run(["api", "-X", "DELETE", f"me/library?uris={fresh[50]}"])

        self.run(["playlist", "delete", playlist, "--yes"])
        self.run(["undo"])
        self.run(["sync"])

        # Spotify's rules a client must refuse before sending (CONTRACT.md, Round 3): details of a
        # collaborative playlist someone else owns, and collaborative on a public playlist. Any
        # refusal passes here; a request that goes out anyway is answered 4xx and shows in the check.
        library = self.sandbox.call("GET", "/__sandbox/library?include_items=false")["playlists"]
        shared = next(p["id"] for p in library if p["collaborative"] and p["owner_id"] != self.sandbox.info["user_id"])
        public = next(p["id"] for p in library if p["public"] and not p["collaborative"] and p["owner_id"] == self.sandbox.info["user_id"])
        # Each with an edit journal of its own: a refused edit that did go out is otherwise left
        # for the next command to finish (and refused again).
        self.run(["playlist", "edit", public, "--collaborative"], ok=range(1, 256), data_home=os.path.join(self.work, "data-1"))
        self.run(["playlist", "edit", shared, "--name", "Ours now"], ok=range(1, 256), data_home=os.path.join(self.work, "data-2"))

        # Backup and restore: the backup's description reads; a restore into the same account after a
        # playlist was deleted follows it back; the same backup as if of another account makes it
        # anew (create, adds) and skips the rest.
        backup_file = os.path.join(self.work, "backup.json")
        self.run(["backup", "-o", backup_file])
        self.run(["playlist", "delete", playlist, "--yes"])
        self.run(["restore", backup_file, "--dry-run"])
        self.run(["restore", backup_file])
        self.run(["playlist", "delete", playlist, "--yes"])
        with open(backup_file) as handle:
            other = json.load(handle)
        other["account"]["id"] = "someone-else"
        other_file = os.path.join(self.work, "backup-other.json")
        with open(other_file, "w") as handle:
            json.dump(other, handle)
        self.run(["restore", other_file])


    def player(self, tracks):
        """Every playback verb (Round 4), each in a state where Spotify accepts it: a device by name
        and by id, a playlist context from an entry, Liked Songs as URIs, one track, resume, the
        bodiless commands, relative seek and volume (a read first), the queue, transfer, the reads."""
        library = self.sandbox.call("GET", "/__sandbox/library?include_items=false")["playlists"]
        own = next(p["id"] for p in library if p["owner_id"] == self.sandbox.info["user_id"] and p.get("track_count", 0) > 3)
        self.run(["devices"])
        listed = self.run(["devices", "--json"])
        devices = json.loads(listed.stdout or "[]")
        speaker = next((d["id"] for d in devices if d["name"] == "timbre demo speaker"), None)
        if not speaker:
            self.failures.append("devices --json lists no 'timbre demo speaker'")
            return
        self.run(["now", "--json"])  # 204: nothing plays yet
        self.run(["play", own, "--track", "3", "--device", "timbre demo"])
        self.run(["now"])
        self.run(["pause"])
        self.run(["play"])  # resume, bodiless
        self.run(["next"])
        self.run(["prev"])
        self.run(["seek", "0:30"])
        self.run(["seek", "+5"])
        self.run(["volume", "40"])
        self.run(["volume", "-5"])
        self.run(["shuffle", "on"])
        self.run(["shuffle", "off"])
        self.run(["repeat", "context"])
        self.run(["repeat", "off"])
        self.run(["queue", tracks[0], tracks[1]])
        self.run(["transfer", speaker, "--play"])
        self.run(["play", "liked", "--track", "2", "--device", speaker])
        self.run(["play", "--uri", tracks[2]])
        entries = [i["uri"] for i in self.sandbox.call("GET", f"/__sandbox/playlists/{own}").get("items") or [] if i.get("kind") == "track"]
        if len(entries) > 1:
            self.run(["play", own, "--uri", entries[1]])  # the playlist's context from an entry named by URI
        self.run(["recent", "--json", "--limit", "5"])

    def stop(self):
        self.sandbox.stop()


def main():
    parser = argparse.ArgumentParser(description="timbre's conformance battery")
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--keep", action="store_true", help="keep the recording, sandbox state and home")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="timbre-conformance-")
    battery = Battery(options.bin_dir, work)
    try:
        battery.battery()
    finally:
        battery.stop()
    check = subprocess.run([
        sys.executable, os.path.join(HERE, "check.py"),
        "--table", os.path.join(HERE, "spotify-web-api.json"),
        "--recording", battery.recording,
        "--sandbox-log", os.path.join(battery.state, "requests.jsonl"),
        "--known", os.path.join(HERE, "known.txt"),
    ])
    for failure in battery.failures:
        print(f"COMMAND {failure}")
    if options.keep:
        print(f"conformance: kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if check.returncode != 0 or battery.failures else 0


if __name__ == "__main__":
    sys.exit(main())
