"""Wire floor, part 1 (untimed): the URL list of every page a full sync fetches, as a curl config.

usage: wire_urls.py SESSION.json BASE_URL > urls.curl
Reads the playlist sizes from the sandbox's control endpoint (no API request), writes one
`url = …` / `output = /dev/null` pair per page: /me/playlists pages, every readable playlist's
/items pages (limit 50, the same `fields`), and /me/tracks pages. The runner then times
`curl --parallel --parallel-max 8 --config urls.curl` — transfers only, no parsing, no storage.
"""
import json
import ssl
import sys
import urllib.parse
import urllib.request

import common


def main():
    session = common.load_session(sys.argv[1])
    base = sys.argv[2].rstrip("/")
    context = ssl.create_default_context(cafile=session["ca_file"])
    with open(session["secret_file"]) as f:
        secret = f.read().strip()
    request = urllib.request.Request(base + "/__sandbox/library?include_items=false", headers={"X-Sandbox-Secret": secret})
    with urllib.request.urlopen(request, context=context, timeout=60) as r:
        model = json.load(r)
    api = session["api_url"].rstrip("/")
    urls = []
    n = model["counts"]["playlists"]
    urls += [f"{api}/me/playlists?offset={o}&limit=50" for o in range(0, max(n, 1), 50)]
    fields = urllib.parse.urlencode({"additional_types": "track,episode", "fields": common.ENTRY_FIELDS})
    for p in model["playlists"]:
        if not p.get("readable_in_development_mode", True):
            continue
        for o in range(0, max(p["track_count"], 1), 50):
            urls.append(f"{api}/playlists/{p['id']}/items?offset={o}&limit=50&{fields}")
    liked = model["counts"]["liked"]
    urls += [f"{api}/me/tracks?offset={o}&limit=50" for o in range(0, max(liked, 1), 50)]
    for url in urls:
        print(f'url = "{url}"\noutput = "/dev/null"')
    print(len(urls), file=sys.stderr)


if __name__ == "__main__":
    main()
