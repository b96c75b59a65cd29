"""Turns the runner's figures into docs/PERFORMANCE.md."""
import math
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def s(x):
    return "—" if x is None else f"{x:.2f} s"


def msf(x):
    return "—" if x is None else (f"{x:.1f} ms" if x < 100 else f"{x:.0f} ms")


def mb(kb):
    return "—" if kb is None else f"{kb / 1024:.1f} MB"


def verdict(ok):
    return "—" if ok is None else ("**met**" if ok else "**missed**")


def render_markdown(fig):
    m = fig["machine"]
    n = fig["n"]
    full = fig["full"]
    counts = fig["counts"]
    P = counts["playlists"]
    rows = []

    def row(figure, measured, reference, ratio, target, ok):
        rows.append(f"| {figure} | {measured} | {reference} | {ratio} | {target} | {verdict(ok)} |")

    t_wall = med(full["timbre"]["wall"])
    for peer, label, want, kind in (("spotipy", "spotipy (sequential)", 10, "faster"), ("tekore", "tekore (async, 16 in flight)", 2, "faster"),
                                    ("wire", "wire floor (curl --parallel-max 16)", 1.5, "within")):
        p_wall = med(full[peer]["wall"])
        if p_wall is None:
            row(f"Full sync vs {label}", s(t_wall), "not run: package not installed here", "—",
                f"≥ {want}× faster" if kind == "faster" else f"≤ {want}× the floor", None)
            continue
        if kind == "faster":
            ratio = p_wall / t_wall
            row(f"Full sync, wall (median of {len(full['timbre']['wall'])}) vs {label}", s(t_wall), s(p_wall),
                f"{ratio:.2f}× faster", f"≥ {want}× faster", ratio >= want)
        else:
            ratio = t_wall / p_wall
            row(f"Full sync, wall vs {label}", s(t_wall), s(p_wall), f"{ratio:.2f}× the floor", f"≤ {want}× the floor", ratio <= want)
    lat = fig.get("latency")
    if lat and lat.get("timbre"):
        t = lat["timbre"]
        label = f"{lat['latency_ms']} ms per answer (`--latency-ms {lat['latency_ms']}`), one run each"
        for peer, name, want, kind in (("spotipy", "spotipy", 10, "faster"), ("tekore", "tekore", 2, "faster"), ("wire", "wire floor", 1.5, "within")):
            if lat.get(peer) is None:
                continue
            if kind == "faster":
                ratio = lat[peer] / t
                row(f"Full sync with {label} vs {name}", s(t), s(lat[peer]), f"{ratio:.2f}× faster", f"≥ {want}× faster", ratio >= want)
            else:
                ratio = t / lat[peer]
                row(f"Full sync with {label} vs {name}", s(t), s(lat[peer]), f"{ratio:.2f}× the floor", f"≤ {want}× the floor", ratio <= want)
    rss = {k: med(full[k]["rss"]) for k in full}
    row("Full sync, peak RSS", mb(rss["timbre"]),
        f"spotipy {mb(rss['spotipy'])} · tekore {mb(rss['tekore'])} · curl {mb(rss['wire'])}", "—", "—", None)

    nc = fig["nochange"]
    limit = math.ceil(P / 50) + 2
    req = max(r for r in nc["requests"] if r is not None) if nc["requests"] else None
    server = max(nc["server_requests"]) if nc["server_requests"] else None
    row("No-change resync, requests (`sync --json`; at the sandbox)", f"{req} ({server} at the server)", f"{P} playlists", "—",
        f"≤ ceil({P}/50)+2 = {limit}", req is not None and req <= limit and server <= limit)
    w = med(nc["wall"])
    row(f"No-change resync, wall (median of {len(nc['wall'])}; `duration_ms` {med(nc['duration_ms']):.0f})", s(w), "—", "—", "≤ 1 s", w <= 1.0)
    for key, label in (("one_changed", "One playlist changed"), ("big_changed", "The biggest playlist changed")):
        oc = fig[key]
        row(f"{label} ({oc['count']} items, `append`), resync wall (median of {len(oc['wall'])})", s(med(oc["wall"])),
            f"{med(oc['requests']):.0f} requests, updated {max(oc['updated'])}", "—", "—", None)

    tui = fig["tui"]["figures"]
    e2e = fig["e2e"]
    ff = tui["first_frame_ms"]
    row("TUI first complete frame, in process (open cache → Liked Songs → `Screen.render`)", msf(ff["median"]), ff["note"], "—", "≤ 100 ms", ff["median"] <= 100)
    ff2 = med(e2e["first_frame_ms"])
    row(f"TUI first complete frame, real binary in tmux (exec → capture-pane shows it; median of {len(e2e['first_frame_ms'])})",
        msf(ff2), "includes process start and ~5 ms polling", "—", "≤ 100 ms", ff2 <= 100)
    for key, label in (("filter_largest_keystroke_ms", f"`/` filter per keystroke, {fig['big']['name']}"),
                       ("filter_all_keystroke_ms", "`/` filter per keystroke, every cached item in one list")):
        if key not in tui:
            continue
        f = tui[key]
        row(label, f"p50 {msf(f['p50'])} · p95 {msf(f['p95'])}", f"{f['n']} keystrokes; {f['note']}", "—", "p95 ≤ 16 ms", f["p95"] <= 16)
    if "sort_title_largest_ms" in tui:
        f = tui["sort_title_largest_ms"]
        row("Sort by title (`s`), biggest playlist", msf(f["median"]), f["note"], "—", "(frame budget 16 ms)", f["median"] <= 16)
    f = tui["open_largest_playlist_ms"]
    row("Open the biggest playlist (Enter)", msf(f["median"]), f["note"], "—", "—", None)
    for key, f in tui.items():
        if key.startswith("search_ms"):
            q = key[len("search_ms"):]
            scan = tui.get("search_scan_ms" + q)
            if scan is None:  # a run from before the index
                row(f"`F` search {q}, in process (cache scan + render)", f"p50 {msf(f['p50'])} · max {msf(f['max'])}", f["note"], "—", "—", None)
                continue
            row(f"`F` search {q}, in process (search index + render) vs the scan of every item (same run)",
                f"p50 {msf(f['p50'])} · p95 {msf(f['p95'])}", f"scan: p50 {msf(scan['p50'])} · p95 {msf(scan['p95'])}; {f['n']} searches each; {f['note']}",
                f"{scan['p95'] / f['p95']:.1f}× faster (p95)" if f["p95"] > 0 else "—", "p95 ≤ 16 ms", f["p95"] <= 16)
    if "search_index_build_ms" in tui:
        f = tui["search_index_build_ms"]
        row("`F`'s search index, rebuilt for every cached item (read + fold + store; a sync folds and stores as it writes)",
            msf(f["median"]), f["note"], "—", "—", None)
    fs = med([r["search_e2e_ms"] for r in e2e["runs"]])
    row(f"`F` search, real binary in tmux, the first of a fresh process (Enter → results shown; median of {len(e2e['runs'])})", msf(fs),
        "a `tmux` process per send and per capture (3–10 ms each, 5 ms apart): an upper bound", "—", "—", None)
    for key, label in KEY_LABELS:
        f = (fig.get("keys") or {}).get("keys", {}).get(key)
        if f and f["samples"]:
            row(f"{label}, real binary in tmux (control client; {len(f['samples'])} in one process)", f"p50 {msf(f['p50'])} · p95 {msf(f['p95'])}",
                f"max {msf(f['max'])}; see Keys in tmux", "—", "p95 ≤ 30 ms", f["p95"] <= 30)
    tr = fig["tracks"]
    row(f"`timbre tracks <{fig['big']['count']}-item playlist> --json`", msf(med(tr["wall"]) * 1000), f"{tr.get('rows')} rows, peak RSS {mb(med(tr['rss']))}", "—", "—", None)
    for stage, label in (("after_sync", "after first frame + background no-change sync"),
                         ("after_open_filter", "after opening + filtering the biggest playlist"),
                         ("after_search", "after `F` over every cached item")):
        hwm = med([r[stage][1] for r in e2e["runs"]])
        row(f"TUI peak RSS (VmHWM), {label}", mb(hwm), "real binary in tmux", "—", "≤ 60 MB", hwm <= 60 * 1024)

    details = ["| client | wall median | runs | client CPU (user+sys) median | peak RSS median | requests | items stored |", "|---|---|---|---|---|---|---|"]
    for key, label in (("timbre", "timbre (`timbre sync --json`)"), ("spotipy", "spotipy"), ("tekore", "tekore"), ("wire", "wire floor (curl)")):
        d = full[key]
        runs = ", ".join(f"{x:.2f}" for x in d["wall"]) or "not run"
        items = d["items"] if d["items"] is not None else ("(not stored)" if key == "wire" else "—")
        details.append(f"| {label} | {s(med(d['wall']))} | {runs} | {s(med(d.get('cpu', [])))} | {mb(med(d['rss']))} | {d['requests'] if d['requests'] is not None else '—'} | {items} |")

    mem = fig["tui"]["memory"]
    memlines = ", ".join(f"{k} {mb(v['hwm_kb'])}" for k, v in mem.items())

    findings_path = os.path.join(HERE, "FINDINGS.md")
    findings = open(findings_path).read().strip() if os.path.exists(findings_path) else "None recorded."
    edit_budgets = render_edit_budgets(fig.get("edit_budgets"))
    dedupe = render_dedupe(fig.get("dedupe"))
    history = render_history(fig.get("history"))
    keys = render_keys(fig.get("keys"))

    return f"""# Performance

Generated by `{fig['command']}` — do not edit by hand; the prose sections come from
`Benchmarks/run.py`, `Benchmarks/report.py` and `Benchmarks/FINDINGS.md`.

## Machine

| | |
|---|---|
| CPUs (`nproc`) | {m['nproc']} |
| CPU model | {m['cpu']} |
| memory | {m['memory_gib']} GiB |
| Swift | {m['swift']} |
| load average (1/5/15 min) at start · at end | {' '.join(fig.get('load_at_start', []))} · {' '.join(m.get('loadavg', []))} |
| kernel · Python · curl | {m['kernel']} · {m['python']} · {m['curl']} |

## Command

```sh
{fig['command']}
```

Builds `timbre`, `timbre-sandbox` and `timbre-bench` as README's "Install" does (`swift build -c release
--static-swift-stdlib`, here with `--scratch-path .build-bench`), starts `timbre-sandbox serve --library {fig['library']}`
({counts['playlists']} playlists, {counts['items']} items, {counts['liked']} liked songs) on loopback, and runs
`Benchmarks/run.py`. Every client runs on the same machine as the sandbox, against the same sandbox
process, in the same run; full syncs are interleaved (timbre, tekore, spotipy, curl) {n} times.
Medians throughout.

## Results

| Figure | Measured | Peer / reference (same run) | Ratio | Target | Result |
|---|---|---|---|---|---|
{chr(10).join(rows)}

### Full sync, per client

{chr(10).join(details)}

The Python peers store the same rows as timbre's cache (playlists; per playlist its items in order:
kind, id, uri, name, artists, album, duration, added_at) in SQLite, one transaction per playlist,
and ask for the same `fields`. Every client asks `/items` for 50 a page, the description's
maximum. Two playlists are not the user's, so their items answer 403
(development mode); every client keeps them as unavailable.

`timbre-bench` (in process, same code paths as the app) memory: {memlines}.

## How each figure is taken

- **Full sync**: a fresh cache (or SQLite file) each run; wall time of the whole process and its
  peak RSS = the child's `ru_maxrss` from `wait4` (what `/usr/bin/time -v` reports). timbre runs `timbre sync --json` with `TIMBRE_REFRESH_TOKEN`
  (one token refresh per process, counted in its requests) and a config.toml pinning the sandbox's
  root. Peers use an access token from the sandbox's token endpoint (refresh grant of a token from
  `/__sandbox/mint-refresh-token`) and trust the sandbox CA (`REQUESTS_CA_BUNDLE` for spotipy, an
  `ssl` context for tekore/httpx). Code: `Benchmarks/peers/`. The sandbox keeps each encoded
  `/v1` answer until the library changes (as a real API's cache would), and clients word their
  URLs differently, so every client first does one untimed sync that warms the sandbox for its
  own URLs; the timed runs that follow are all warm.
  - **spotipy** (`spotipy_sync.py`): `current_user_playlists`, `playlist_items(limit=50)` and
    `current_user_saved_tracks`, following `next` one page at a time.
  - **tekore** (`tekore_sync.py`): `tk.Spotify(asynchronous=True)` over `httpx.AsyncClient`; first
    page of each list, then the other offsets at once with `asyncio.gather`, at most 16 in flight
    (timbre's own cap). `/items` goes through `Spotify.send` because tekore's `playlist_items`
    still calls `/tracks`.
  - **wire floor**: one `curl --parallel --parallel-max 16 --config urls.curl` over every page a
    full sync needs (`wire_urls.py` builds the list from the sandbox's control endpoint, untimed):
    transfers only, no parsing, no storage.
- **No-change resync**: `timbre sync --json` on a full cache; `requests` from its report and the
  sandbox's request log; wall time of the process.
- **One playlist changed**: `POST /__sandbox/mutate {{"action":"append"}}` on one playlist, then
  `timbre sync --json`.
- **TUI, in process** (`timbre-bench`, `Sources/TimbreBench`): opens the cache with
  `LibraryCache.open`, reads it through `CacheLibrarySource`, drives `TUIState` (`setPlaylists`,
  `setTracks`, `apply`, `type`) and lays out every frame with `Screen.render` at 120×40, timed with
  `ContinuousClock`. A keystroke sample = `TUIState.type` + `Screen.render` (curses output not
  included). `F` = `CacheLibrarySource.search`, the call `TUIApp` makes (the cache's search index:
  each list's folded text, searched with `memchr`), + `showSearchResults` + render; its peer, in the
  same run and alternated with it, is `LibraryCache.searchByScan` (every item streamed and folded,
  what `F` did before the index) + the same rendering; the run stops if their answers differ.
- **TUI, end to end**: the real `timbre` in a 120×40 tmux pane (`respawn-pane`), signed in to the
  sandbox; first frame = from the respawn until `capture-pane` shows the playlists header, the
  Liked Songs track header and the status line; RSS = `VmRSS`/`VmHWM` from `/proc/PID/status` after
  each step (background sync finished; biggest playlist opened through the `/` filter and its
  tracks filtered; `F` for a query with no match, which searches every cached item).

{keys}
{edit_budgets}
{dedupe}
{history}
## Open findings

{findings}
"""


def render_edit_budgets(table):
    """The write budgets of edits, from `timbre-bench --edit-budgets` in the same run."""
    if not table:
        return ""
    return f"""## Edit request budgets

Reproduce alone: `swift build --product timbre-bench && .build/debug/timbre-bench --edit-budgets` (this
report runs it too). The writes are timbre's plans exactly as `timbre playlist …` and `timbre like`
send them (the CLI tests against the sandbox count the same writes on the server, e.g. 3 for removing
one of three copies whose kept copies form two runs); the naive client in the same run sends one
request per item or one move per entry for a shuffle, or, to remove one copy of a duplicated track,
rewrites the whole playlist (`PUT` of the first 100 URIs, then `POST`s of 100) — which also resets
every entry's added date.

{table.strip()}

Dedupe keeps every untouched entry's added date: it removes every copy of the duplicated tracks and
puts the first copies back where they were, one add per run of them, so 499 duplicates scattered over
10,000 entries cost 504 writes where rewriting the playlist would cost 100 — and reset the added date
of all 10,000 entries, which timbre will not do to a user's playlist. Importing 1,000 rows that carry
URIs costs 10 writes and no search. A shuffle or sort moves ranges of entries by default, which keeps
every entry's added date: only the entries outside a longest increasing subsequence of the new order
move, in runs (a random order of n entries keeps about 2√n in place, so close to n writes); with
`--rewrite` it replaces the first 100 entries and adds the rest (ceil(n/100) writes; every entry gets
a new added date). A playlist holding local files or entries Spotify cannot name is always reordered
by moves, because the API cannot add those back. Reads are not in the table. When the cache holds the playlist at Spotify's snapshot (after a
sync, or after timbre's own edits), an edit reads only that snapshot (`GET /playlists/{{id}}?fields=snapshot_id,items(total),tracks(total)`)
before its writes and nothing after: it is planned on the cache, and the cache after it is derived from
the plan and stamped with the snapshot the last write's answer gave. When the snapshot differs (the
playlist changed elsewhere) it reads the entries (ceil(n/50) + 1 more requests) and plans on them, as
before; it reads them after its writes only when the outcome cannot be derived (an answer without a
snapshot, an added episode or more added tracks the cache has never seen than the read costs; fewer
are named by `GET /tracks/{{id}}`, at once). A lost answer costs one such read instead of a
resend. An undo or a redo plans the same way: the snapshot alone when the cache is current, its
writes, the cache derived from the plan (it read the whole playlist before and after: the undo of a
2-entry paste into 300 entries cost 18 requests, now 2; "Requests per command" below).

"""


def render_dedupe(d):
    """Dedupe of a big playlist in seconds: timbre against the rewriting peer, same run, same sandbox."""
    if not d or not d.get("timbre"):
        return ""
    def med(runs, key):
        values = sorted(r[key] for r in runs)
        return values[len(values) // 2]
    t, r = d["timbre"], d["rewrite"]
    kept = d["entries"] - d["duplicates"]
    ratio = med(r, "wall") / med(t, "wall") if med(t, "wall") > 0 else 0
    return f"""## Dedupe in seconds

A playlist of {d['entries']:,} entries in which every 20th is a later copy of a track 19 places
earlier ({d['duplicates']} duplicates), deduped on the sandbox by `timbre playlist dedupe ID --json`
(the real binary, after a sync) and by the rewriting peer (`Benchmarks/peers/rewrite_dedupe.py`:
read the list, then `PUT` the first 100 kept URIs and `POST` the rest — the only other way to drop
one copy of a track, as the API removes every copy). Both ends are checked against the sandbox: the
first copy of every track, in order, or the run fails. Median of {len(t)} run(s); requests counted
by the sandbox (reads included).{(chr(10) + "Measured alone by `" + d["command"] + "`.") if d.get("command") else ""}

| client | seconds | requests | added dates kept (of {kept:,}) |
|---|---|---|---|
| timbre | {med(t, 'wall'):.2f} | {med(t, 'requests')} | {med(t, 'kept_dates'):,} |
| rewriting peer | {med(r, 'wall'):.2f} | {med(r, 'requests')} | {med(r, 'kept_dates'):,} |

Peer ÷ timbre, seconds: {ratio:.2f}×. timbre sends more writes ({med(t, 'writes')}: one removal of
every duplicated track per 100, then the kept first copies added back, run by run) and reads the
playlist before and after to check for conflicts; in exchange every entry that was not a duplicate
keeps its added date, which the rewrite resets for all of them.
"""


def render_history(h):
    """The playlist history: its size after a simulated year and its share of a sync's time."""
    if not h or "bytes" not in h:
        return ""
    mb = h["bytes"] / 1e6
    size_ok = "**met**" if mb <= 50 else "**missed**"
    ratio = h.get("ratio_p50")
    share = f"{ratio * 100:.1f} %" if ratio is not None else "—"
    share_ok = ("**met**" if ratio <= 0.05 else "**missed**") if ratio is not None else "—"
    sync = f"{h['sync_ms']:.0f} ms" if h.get("sync_ms") else "—"
    return f"""## Playlist history

Reproduce alone: `scripts/bench.sh --only history` (or, over any synced cache,
`timbre-bench --history --cache …/library.sqlite [--history-days 365] [--change-percent 1] [--sync-ms MS]`).
A real `timbre sync` after {h['changed_per_day']} of the {h['playlists']} playlists changed from outside
(`mutate append`; the sync records their versions) is the peer, median of {len(h.get('sync_walls_ms', []))} run(s);
then `timbre-bench` records every playlist once (its first version, which a sync records just before
the playlist first changes) and simulates {h['days']} days
in which 1 % of the playlists change (up to 3 entries removed, 1–3 added, one moved), each recorded as
the sync records it (its list read from the cache, compared with its last version, stored) and followed
by the prune a sync runs.{(chr(10) + "Measured alone by `" + h["command"] + "`.") if h.get("command") else ""}

| Figure | Measured | Peer / reference (same run) | Ratio | Budget | Result |
|---|---|---|---|---|---|
| History on disk after {h['days']} days | {mb:.1f} MB | {h['versions']:,} versions, {h['entries_stored']:,} entries; {h['bytes_per_entry']:.1f} bytes an entry | — | ≤ 50 MB | {size_ok} |
| Recording per day, p50 · p95 | {h['day_ms_p50']:.1f} ms · {h['day_ms_p95']:.1f} ms | sync with {h['changed_per_day']} playlists changed: {sync} | {share} of the sync | ≤ 5 % | {share_ok} |
| … of which: reading the changed lists from the cache · the prune · one commit of the user data (its fsync) | {h.get('cache_read_ms_p50', 0):.1f} ms · {h.get('prune_ms_p50', 0):.1f} ms · {h.get('commit_ms_p50', 0):.1f} ms | same disk, same run | — | — | — |
| Every playlist's first version (recorded as each first changes; here all at once) | {h['first_record_ms']:.0f} ms | {h['bytes_after_first'] / 1e6:.1f} MB | — | once | — |

"""


KEY_LABELS = (
    ("F", "`F` search, Enter → results drawn (a query with no match: every cached item searched)"),
    ("open", "Enter on the biggest playlist → its rows drawn"),
    ("j", "`j` in the biggest playlist → the cursor's row drawn"),
    ("filter", "one `/` keystroke in the biggest playlist → the filtered rows drawn"),
)


def render_keys(k):
    """Keys in the real binary in tmux: key sent → the frame that answers it drawn, p50 · p95."""
    if not k or "keys" not in k:
        return ""
    keys = k["keys"]
    rows = []
    for key, label in KEY_LABELS:
        f = keys.get(key)
        if not f or not f["samples"]:
            continue
        rows.append(f"| {label} | p50 {f['p50']:.1f} ms · p95 {f['p95']:.1f} ms | max {f['max']:.1f} ms; {len(f['samples'])} keys, "
                    f"in one process, the first included | p95 ≤ 30 ms | {'**met**' if f['p95'] <= 30 else '**missed**'} |")
    return f"""## Keys in tmux

The real `timbre` (release) in a {k['columns']}×{k['rows']} tmux pane on the {k['library']} library, signed in and synced;
each key sent {k['samples']} times in one process through one tmux control-mode client (`tmux -C`:
`send-keys`, then `capture-pane` back to back until the frame that answers the key is there — a turn
costs well under a millisecond, where starting `tmux` per command costs 3–10 ms). Every sample starts
from a settled screen (unchanged for 50 ms).{(chr(10) + "Measured alone by `" + k["command"] + "`.") if k.get("command") else ""}

| Key | Measured | Detail | Budget | Result |
|---|---|---|---|---|
{chr(10).join(rows)}

"""


def splice_section(text, section, heading="## Dedupe in seconds"):
    """`text` with its `heading` section replaced by `section`, or `section` put before
    "## Open findings" (else at the end) when it has none."""
    start = text.find(heading)
    if start >= 0:
        end = text.find("\n## ", start + len(heading))
        end = len(text) if end < 0 else end + 1
        return text[:start] + section.rstrip() + "\n\n" + text[end:]
    anchor = text.find("## Open findings")
    if anchor < 0:
        return text.rstrip() + "\n\n" + section
    return text[:anchor] + section.rstrip() + "\n\n" + text[anchor:]
