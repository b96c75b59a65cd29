#!/usr/bin/env python3
"""Derives scripts/conformance/spotify-web-api.json — the table the conformance check reads — from
sonallux/spotify-web-api's fixed-spotify-open-api.yml (Spotify's OpenAPI description with fixes).

Only the facts timbre's requests are checked against are kept (method, path template, query
parameters with their types and limits, JSON body fields with their types, content type, list
maxima, deprecation); the description itself is not kept in this repository (its text is
Spotify's). Run it again when the description changes:

    git clone https://github.com/sonallux/spotify-web-api && \
    python3 scripts/conformance/derive-table.py spotify-web-api/fixed-spotify-open-api.yml COMMIT \
        > scripts/conformance/spotify-web-api.json

Needs PyYAML (only this script; the check itself uses the standard library).
"""
import json
import re
import sys

import yaml

# The endpoints timbre calls, and those it must not call (removed for development-mode apps in
# 2026: they are kept so the check can name them). Every method of each path is taken.
PATHS = [
    "/me", "/me/playlists", "/me/tracks", "/me/tracks/contains", "/me/library", "/me/library/contains",
    "/playlists/{playlist_id}", "/playlists/{playlist_id}/items", "/playlists/{playlist_id}/tracks",
    "/playlists/{playlist_id}/followers", "/users/{user_id}/playlists", "/search", "/tracks/{id}",
    "/albums/{id}/tracks",
    # The player (round 4): every endpoint `timbre play|pause|…|recent` and the interface call.
    "/me/player", "/me/player/devices", "/me/player/currently-playing", "/me/player/play", "/me/player/pause",
    "/me/player/next", "/me/player/previous", "/me/player/seek", "/me/player/repeat", "/me/player/volume",
    "/me/player/shuffle", "/me/player/recently-played", "/me/player/queue",
]

MAXIMUM = re.compile(r"(?:[Mm]aximum:\s*(\d+)\s*(?:URIs|IDs|ids|uris))|(?:maximum\s+of\s+(\d+)\s+(?:items|objects|tracks|URIs|IDs))")


def resolve(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        target = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def list_max(text):
    if not text:
        return None
    for match in MAXIMUM.finditer(" ".join(str(text).split())):
        return int(match.group(1) or match.group(2))
    return None


def schema_facts(spec, schema):
    schema = resolve(spec, schema or {})
    facts = {"type": schema.get("type", "any")}
    for key in ("minimum", "maximum", "enum"):
        if key in schema:
            facts[key] = schema[key]
    if facts["type"] == "array":
        items = resolve(spec, schema.get("items", {}))
        facts["items"] = items.get("type", "any")
        if items.get("type") == "object":
            facts["item_fields"] = {name: resolve(spec, s).get("type", "any") for name, s in items.get("properties", {}).items()}
    maximum = list_max(schema.get("description"))
    if maximum is not None:
        facts["max_items"] = maximum
    return facts


def main():
    spec_path, commit = sys.argv[1], sys.argv[2]
    with open(spec_path, encoding="utf-8") as handle:
        spec = yaml.safe_load(handle)
    endpoints = []
    for path in PATHS:
        for method, operation in spec["paths"][path].items():
            if method not in ("get", "post", "put", "delete"):
                continue
            entry = {"method": method.upper(), "path": path, "operation": operation.get("operationId"),
                     "deprecated": bool(operation.get("deprecated", False)), "query": {}}
            for parameter in operation.get("parameters", []):
                parameter = resolve(spec, parameter)
                if parameter.get("in") != "query":
                    continue
                facts = schema_facts(spec, parameter.get("schema"))
                facts["required"] = bool(parameter.get("required", False))
                maximum = list_max(parameter.get("description")) or list_max(resolve(spec, parameter.get("schema", {})).get("description"))
                if maximum is not None:
                    facts["max_items"] = maximum
                entry["query"][parameter["name"]] = facts
            body = operation.get("requestBody")
            if body:
                body = resolve(spec, body)
                content_type, media = next(iter(body.get("content", {}).items()))
                schema = resolve(spec, media.get("schema", {}))
                entry["body"] = {
                    "content_type": content_type,
                    "required": schema.get("required", []),
                    "additional_properties": schema.get("additionalProperties", True) is not False,
                    "fields": {name: schema_facts(spec, field) for name, field in schema.get("properties", {}).items()},
                }
            endpoints.append(entry)
    table = {
        "source": {
            "repository": "https://github.com/sonallux/spotify-web-api",
            "file": "fixed-spotify-open-api.yml",
            "version": spec["info"]["version"],
            "commit": commit,
            "note": "facts derived from the description (MIT for sonallux's fixes; the description's text is Spotify's and is not kept here)",
        },
        "endpoints": endpoints,
    }
    json.dump(table, sys.stdout, indent=1, sort_keys=False, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
