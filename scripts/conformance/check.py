#!/usr/bin/env python3
"""Checks every request a TIMBRE_RECORD folder holds against the table derived from Spotify's
OpenAPI description (scripts/conformance/spotify-web-api.json) and Spotify's 2026 rules for
development-mode apps: method and path known and not removed, query parameters declared, typed and
within their limits, JSON body fields declared and typed, Content-Type, list maxima, and no 4xx
answer. With --sandbox-log, every /v1 write the sandbox logged must have carried a Content-Length.

    check.py --table TABLE --recording DIR [--sandbox-log requests.jsonl] [--known FILE]

Prints one line per mismatch and then `conformance: N requests checked, M mismatches`; exits 1 when
M > 0. A mismatch whose text contains a line of --known is printed as KNOWN and not counted (for
findings that belong to another change: they stay visible). Standard library only.
"""
import argparse
import json
import os
import sys
import urllib.parse

# Spotify's 2026 rules that the description does not state as limits.
RULES_SOURCE = "Spotify's February 2026 migration guide and the description's deprecations"


class Endpoint:
    def __init__(self, raw):
        self.raw = raw
        self.method = raw["method"]
        self.path = raw["path"]
        self.parts = raw["path"].strip("/").split("/")
        self.query = raw.get("query", {})
        self.body = raw.get("body")
        self.deprecated = raw.get("deprecated", False)

    def matches(self, parts):
        if len(parts) != len(self.parts):
            return False
        return all(t.startswith("{") or t == p for t, p in zip(self.parts, parts))

    def specificity(self):
        return sum(0 if t.startswith("{") else 1 for t in self.parts)


def load_table(path):
    with open(path, encoding="utf-8") as handle:
        table = json.load(handle)
    return table, [Endpoint(raw) for raw in table["endpoints"]]


def find(endpoints, method, parts):
    candidates = [e for e in endpoints if e.matches(parts)]
    if not candidates:
        return None, None
    best = max(c.specificity() for c in candidates)
    candidates = [c for c in candidates if c.specificity() == best]
    for candidate in candidates:
        if candidate.method == method:
            return candidate, candidates
    return None, candidates


def check_value(name, facts, value, problems, where):
    kind = facts.get("type", "any")
    if kind == "integer":
        try:
            number = int(value)
        except ValueError:
            problems.append(f"{where} {name}={value!r} is not an integer")
            return
        if "minimum" in facts and number < facts["minimum"]:
            problems.append(f"{where} {name}={number} is below the minimum {facts['minimum']}")
        if "maximum" in facts and number > facts["maximum"]:
            problems.append(f"{where} {name}={number} is above the maximum {facts['maximum']}")
    elif kind == "array":
        items = [part for part in value.split(",")]
        allowed = facts.get("enum")
        if allowed:
            for item in items:
                if item not in allowed:
                    problems.append(f"{where} {name} holds {item!r}, not one of {allowed}")
    if "max_items" in facts and kind in ("string", "array"):
        count = len([part for part in value.split(",") if part])
        if count > facts["max_items"]:
            problems.append(f"{where} {name} lists {count} values, more than the {facts['max_items']} allowed")


def json_type_ok(kind, value):
    return {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
    }.get(kind, True)


def request_headers(exchange):
    """The recorded request headers (a list of [name, value] pairs), by lower-case name."""
    raw = exchange.get("request_headers") or []
    pairs = raw.items() if isinstance(raw, dict) else raw
    return {str(name).lower(): value for name, value in pairs}


def check_body(endpoint, exchange, problems):
    body_text = exchange.get("request_body")
    if body_text is None and "request_body_base64" in exchange:
        problems.append("request body is not UTF-8 JSON")
        return
    headers = request_headers(exchange)
    has_body = body_text not in (None, "")
    spec = endpoint.body
    if not has_body:
        if spec and spec.get("required"):
            problems.append(f"no body, but the description requires {spec['required']}")
        return
    if not spec:
        problems.append("sends a body the description does not define")
        return
    content_type = headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != spec["content_type"]:
        problems.append(f"Content-Type {content_type!r}, the description says {spec['content_type']}")
    try:
        body = json.loads(body_text)
    except ValueError:
        problems.append("the body is not JSON")
        return
    if not isinstance(body, dict):
        problems.append("the body is not a JSON object")
        return
    fields = spec.get("fields", {})
    for name in spec.get("required", []):
        if name not in body:
            problems.append(f"body lacks the required field {name}")
    for name, value in body.items():
        facts = fields.get(name)
        if facts is None:
            problems.append(f"body field {name} is not in the description")
            continue
        if not json_type_ok(facts.get("type"), value):
            problems.append(f"body field {name} is {type(value).__name__}, the description says {facts.get('type')}")
            continue
        if facts.get("type") == "array":
            if "max_items" in facts and len(value) > facts["max_items"]:
                problems.append(f"body field {name} has {len(value)} entries, more than the {facts['max_items']} allowed")
            item_kind = facts.get("items")
            for item in value:
                if item_kind and not json_type_ok(item_kind, item):
                    problems.append(f"body field {name} holds a {type(item).__name__}, the description says {item_kind}")
                    break
                if isinstance(item, dict):
                    for key, sub in item.items():
                        expected = facts.get("item_fields", {}).get(key)
                        if expected is None:
                            problems.append(f"body field {name}[].{key} is not in the description")
                        elif not json_type_ok(expected, sub):
                            problems.append(f"body field {name}[].{key} is {type(sub).__name__}, the description says {expected}")
                    break


def check_exchange(exchange, endpoints):
    """Problems with one recorded exchange (an empty list when it conforms)."""
    problems = []
    method = exchange.get("method", "")
    url = urllib.parse.urlsplit(exchange.get("url", ""))
    path = url.path
    status = exchange.get("status")
    if isinstance(status, int) and 400 <= status < 500:
        problems.append(f"answered {status}: {short(exchange.get('response_body'))}")
    if path == "/api/token":
        if method != "POST":
            problems.append("the token endpoint takes POST")
        headers = request_headers(exchange)
        if headers.get("content-type", "").split(";")[0] != "application/x-www-form-urlencoded":
            problems.append("token requests are form-encoded (application/x-www-form-urlencoded)")
        return problems
    if not path.startswith("/v1/"):
        problems.append("not a Web API path")
        return problems
    parts = path[len("/v1/"):].strip("/").split("/")
    endpoint, candidates = find(endpoints, method, parts)
    if endpoint is None:
        if candidates:
            problems.append(f"{method} is not a method of {candidates[0].path}")
        else:
            problems.append("no such endpoint in the description")
        return problems
    if endpoint.deprecated:
        problems.append(f"{endpoint.method} {endpoint.path} is removed for development-mode apps (deprecated in the description)")
    query = urllib.parse.parse_qsl(url.query, keep_blank_values=True)
    seen = set()
    for name, value in query:
        facts = endpoint.query.get(name)
        if facts is None:
            problems.append(f"query parameter {name} is not declared for {endpoint.method} {endpoint.path}")
            continue
        if name in seen:
            problems.append(f"query parameter {name} appears twice")
        seen.add(name)
        check_value(name, facts, value, problems, "query")
    for name, facts in endpoint.query.items():
        if facts.get("required") and name not in seen and not (endpoint.body and has_json_body(exchange)):
            problems.append(f"required query parameter {name} is missing")
    check_body(endpoint, exchange, problems)
    if endpoint.path.startswith("/me/player"):
        check_player(endpoint, dict(query), exchange, problems)
    return problems


PLAYABLE = ("spotify:track:", "spotify:episode:")


def check_player(endpoint, query, exchange, problems):
    """The player's rules the description states in words, not as limits: volume_percent 0-100,
    position_ms >= 0, the repeat and shuffle states, one device to transfer to, a track or episode to
    queue, and play's body (context_uri or uris, never both; offset {position >= 0} or {uri}, only
    with one of them; uris tracks or episodes). Commands go out bodiless with Content-Length: 0 (the
    sandbox log's check below); device_id, when sent, is not empty."""
    if "device_id" in query and not query["device_id"]:
        problems.append("device_id is empty")
    path, method = endpoint.path, endpoint.method
    if path == "/me/player/volume" and "volume_percent" in query:
        try:
            if not 0 <= int(query["volume_percent"]) <= 100:
                problems.append(f"volume_percent={query['volume_percent']} is outside 0-100")
        except ValueError:
            pass
    if path == "/me/player/seek" and "position_ms" in query:
        try:
            if int(query["position_ms"]) < 0:
                problems.append(f"position_ms={query['position_ms']} is negative")
        except ValueError:
            pass
    if path == "/me/player/repeat" and query.get("state") not in ("off", "track", "context"):
        problems.append(f"repeat state={query.get('state')!r}, not off, track or context")
    if path == "/me/player/shuffle" and query.get("state") not in ("true", "false"):
        problems.append(f"shuffle state={query.get('state')!r}, not true or false")
    if path == "/me/player/queue" and method == "POST" and not str(query.get("uri", "")).startswith(PLAYABLE):
        problems.append(f"queue uri={query.get('uri')!r} is not a track or episode")
    if method in ("PUT", "POST") and path not in ("/me/player", "/me/player/play") and has_json_body(exchange):
        problems.append("a player command with a body: its parameters go in the query")
    body = None
    if has_json_body(exchange):
        try:
            body = json.loads(exchange.get("request_body"))
        except ValueError:
            return
    if path == "/me/player" and method == "PUT" and isinstance(body, dict):
        if len(body.get("device_ids") or []) != 1:
            problems.append("transfer names exactly one device (Spotify answers 400 to more)")
    if path == "/me/player/play" and isinstance(body, dict):
        if "context_uri" in body and "uris" in body:
            problems.append("play sends both context_uri and uris (Spotify answers 400)")
        if "offset" in body:
            offset = body["offset"]
            if "context_uri" not in body and "uris" not in body:
                problems.append("play's offset without context_uri or uris")
            if not isinstance(offset, dict) or len(offset) != 1 or not (
                    (isinstance(offset.get("position"), int) and not isinstance(offset.get("position"), bool) and offset["position"] >= 0)
                    or isinstance(offset.get("uri"), str)):
                problems.append(f"play's offset {offset!r} is not {{\"position\": N >= 0}} or {{\"uri\": URI}}")
        if "context_uri" in body and not str(body["context_uri"]).startswith(("spotify:playlist:", "spotify:album:", "spotify:artist:", "spotify:show:")):
            problems.append(f"context_uri {body['context_uri']!r} is not a playlist, album, artist or show")
        for uri in body.get("uris") or []:
            if not str(uri).startswith(PLAYABLE):
                problems.append(f"uris holds {uri!r}, not a track or episode")
                break
        if "position_ms" in body and (not isinstance(body["position_ms"], int) or body["position_ms"] < 0):
            problems.append("position_ms is not an integer >= 0")


def has_json_body(exchange):
    return exchange.get("request_body") not in (None, "")


def short(text, limit=120):
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit] + "…"


def self_test(endpoints):
    """Each rule catches what it is for (and a conforming request passes): the check must be able to fail."""
    base = "https://127.0.0.1:1/v1/"
    items = "playlists/2nZzl0QOqazWKTfzBHvI16/items"
    json_header = [["Authorization", "REDACTED"], ["Content-Type", "application/json"]]
    cases = [
        ("conforming read", dict(method="GET", url=base + items + "?offset=0&limit=50&fields=next", status=200), None),
        ("conforming add", dict(method="POST", url=base + items, request_headers=json_header,
                                request_body='{"uris":["spotify:track:a"],"position":0}', status=201), None),
        ("conforming like", dict(method="PUT", url=base + "me/library?uris=" + ",".join(["spotify:track:a"] * 40), status=200), None),
        ("limit above 50", dict(method="GET", url=base + items + "?offset=0&limit=100", status=200), "above the maximum 50"),
        ("search limit", dict(method="GET", url=base + "search?q=a&type=track&limit=11", status=200), "above the maximum 10"),
        ("undeclared parameter", dict(method="GET", url=base + "me/playlists?limit=5&cursor=1", status=200), "not declared"),
        ("41 library URIs", dict(method="PUT", url=base + "me/library?uris=" + ",".join(["spotify:track:a"] * 41), status=200), "more than the 40"),
        ("removed /tracks", dict(method="GET", url=base + "playlists/x/tracks?limit=50", status=200), "removed for development-mode"),
        ("removed /me/tracks write", dict(method="PUT", url=base + "me/tracks?ids=a", status=200), "removed for development-mode"),
        ("unknown endpoint", dict(method="GET", url=base + "me/everything", status=200), "no such endpoint"),
        ("wrong method", dict(method="PATCH", url=base + items, status=200), "not a method"),
        ("a 4xx", dict(method="GET", url=base + "me", status=400, response_body="bad"), "answered 400"),
        ("no Content-Type", dict(method="POST", url=base + items, request_headers=[["Authorization", "REDACTED"]],
                                 request_body='{"uris":["spotify:track:a"]}', status=201), "Content-Type"),
        ("101 URIs in a body", dict(method="POST", url=base + items, request_headers=json_header,
                                    request_body=json.dumps({"uris": ["spotify:track:a"] * 101}), status=201), "more than the 100"),
        ("a field of the wrong type", dict(method="PUT", url=base + items, request_headers=json_header,
                                           request_body='{"range_start":"1","insert_before":0}', status=200), "is str"),
        ("an undeclared field", dict(method="DELETE", url=base + items, request_headers=json_header,
                                     request_body='{"items":[{"uri":"a"}],"positions":[1]}', status=200), "not in the description"),
        ("a required field missing", dict(method="DELETE", url=base + items, request_headers=json_header,
                                          request_body='{"tracks":[{"uri":"a"}]}', status=200), "required field items"),
        ("conforming play", dict(method="PUT", url=base + "me/player/play?device_id=abc", request_headers=json_header,
                                 request_body='{"context_uri":"spotify:playlist:a","offset":{"position":3}}', status=204), None),
        ("conforming pause", dict(method="PUT", url=base + "me/player/pause", status=204), None),
        ("volume above 100", dict(method="PUT", url=base + "me/player/volume?volume_percent=101", status=204), "outside 0-100"),
        ("negative seek", dict(method="PUT", url=base + "me/player/seek?position_ms=-5", status=204), "negative"),
        ("seek without a position", dict(method="PUT", url=base + "me/player/seek", status=204), "position_ms is missing"),
        ("a bad repeat state", dict(method="PUT", url=base + "me/player/repeat?state=all", status=204), "not off, track or context"),
        ("a bad shuffle state", dict(method="PUT", url=base + "me/player/shuffle?state=on", status=204), "not true or false"),
        ("queueing an album", dict(method="POST", url=base + "me/player/queue?uri=spotify:album:a", status=204), "not a track or episode"),
        ("both context_uri and uris", dict(method="PUT", url=base + "me/player/play", request_headers=json_header,
                                           request_body='{"context_uri":"spotify:album:a","uris":["spotify:track:b"]}', status=204), "both"),
        ("an offset of both forms", dict(method="PUT", url=base + "me/player/play", request_headers=json_header,
                                         request_body='{"uris":["spotify:track:b"],"offset":{"position":0,"uri":"spotify:track:b"}}', status=204), "offset"),
        ("a negative offset", dict(method="PUT", url=base + "me/player/play", request_headers=json_header,
                                   request_body='{"context_uri":"spotify:playlist:a","offset":{"position":-1}}', status=204), "offset"),
        ("transfer to two", dict(method="PUT", url=base + "me/player", request_headers=json_header,
                                 request_body='{"device_ids":["a","b"]}', status=204), "exactly one device"),
        ("an empty device_id", dict(method="POST", url=base + "me/player/next?device_id=", status=204), "device_id is empty"),
        ("a command with a body", dict(method="PUT", url=base + "me/player/pause", request_headers=json_header,
                                       request_body='{"device_id":"a"}', status=204), "with a body"),
    ]
    failed = 0
    for title, exchange, expected in cases:
        problems = check_exchange(exchange, endpoints)
        ok = not problems if expected is None else any(expected in p for p in problems)
        if not ok:
            failed += 1
            print(f"self-test: {title}: expected {expected or 'no problem'}, got {problems}")
    print(f"conformance self-test: {len(cases)} cases, {failed} failed")
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    if "--self-test" in sys.argv:
        table_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spotify-web-api.json")
        return self_test(load_table(table_path)[1])
    parser.add_argument("--table", required=True)
    parser.add_argument("--recording", required=True, action="append", help="a TIMBRE_RECORD folder (repeatable)")
    parser.add_argument("--sandbox-log", help="the sandbox's requests.jsonl, for Content-Length of writes")
    parser.add_argument("--known", help="lines of text: a mismatch containing one is KNOWN, shown but not counted")
    options = parser.parse_args()

    table, endpoints = load_table(options.table)
    known = []
    if options.known and os.path.exists(options.known):
        with open(options.known, encoding="utf-8") as handle:
            known = [line.strip() for line in handle if line.strip() and not line.startswith("#")]

    checked = 0
    mismatches = 0
    known_count = 0

    def report(where, problem):
        nonlocal mismatches, known_count
        if any(k in f"{where}: {problem}" for k in known):
            known_count += 1
            print(f"KNOWN {where}: {problem}")
        else:
            mismatches += 1
            print(f"MISMATCH {where}: {problem}")

    for folder in options.recording:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        for name in names:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                exchange = json.load(handle)
            checked += 1
            url = urllib.parse.urlsplit(exchange.get("url", ""))
            query = url.query if len(url.query) <= 70 else url.query[:70] + "…"
            where = f"{name} {exchange.get('method')} {url.path}" + (f"?{query}" if url.query else "")
            for problem in check_exchange(exchange, endpoints):
                report(where, problem)

    if options.sandbox_log:
        with open(options.sandbox_log, encoding="utf-8") as handle:
            for line in handle:
                entry = json.loads(line)
                if entry.get("method") in ("POST", "PUT", "DELETE") and entry.get("path", "").startswith("/v1/"):
                    if entry.get("content_length") is None and entry.get("request_bytes", 0) == 0:
                        report(f"sandbox log {entry['method']} {entry['path']}", "a write without a body sent no Content-Length (Spotify answers 411)")

    source = table.get("source", {})
    print(f"conformance: checked against {source.get('file')} {source.get('version')} ({source.get('repository')}) and {RULES_SOURCE}")
    if known_count:
        print(f"conformance: {known_count} known findings shown above (not counted)")
    print(f"conformance: {checked} requests checked, {mismatches} mismatches")
    return 1 if mismatches or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
