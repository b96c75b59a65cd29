"""Peer: tekore's asynchronous client (httpx underneath), pages fetched with asyncio.gather.

usage: tekore_sync.py SESSION.json DB.sqlite [CONCURRENCY]
Like timbre: the first page of a list tells the total, the other pages are requested at once; at
most CONCURRENCY (default 16, timbre's own cap) requests are in flight. tekore's `playlist_items`
still calls `/tracks` (403 for development-mode apps since 2026), so `/items` goes through
`Spotify.send`, tekore's documented way to send a request it has no method for.
"""
import asyncio
import ssl
import sys

import httpx
import tekore as tk
from tekore._sender import Request

import common



async def main():
    session = common.load_session(sys.argv[1])
    db = common.open_db(sys.argv[2])
    concurrency = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    api = session["api_url"].rstrip("/") + "/"
    context = ssl.create_default_context(cafile=session["ca_file"])
    client = httpx.AsyncClient(verify=context, timeout=60,
                               limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency))
    spotify = tk.Spotify(session["access_token"], sender=tk.AsyncSender(client), asynchronous=True)
    gate = asyncio.Semaphore(concurrency)
    counter = {"requests": 0}

    async def get(path, **params):
        async with gate:
            counter["requests"] += 1
            response = await spotify.send(Request("GET", api + path, params=params))
        if response.status_code == 403:
            return None
        if response.status_code != 200:
            raise RuntimeError(f"{path}: HTTP {response.status_code} {response.content}")
        return response.content

    async def all_pages(path, **params):
        first = await get(path, offset=0, limit=common.LIMIT, **params)
        if first is None:
            return None
        rest = await asyncio.gather(*[get(path, offset=o, limit=common.LIMIT, **params)
                                      for o in range(common.LIMIT, first["total"], common.LIMIT)])
        return [e for page in [first] + list(rest) for e in page["items"]]

    playlists = await all_pages("me/playlists")
    fields = {"fields": common.ENTRY_FIELDS, "additional_types": "track,episode"}
    lists = await asyncio.gather(*[all_pages(f"playlists/{p['id']}/items", **fields) for p in playlists],
                                 all_pages("me/tracks"))
    items = unavailable = 0
    for position, (playlist, entries) in enumerate(zip(playlists, lists)):
        if entries is None:
            unavailable += 1
            common.store_list(db, playlist, position, [], unavailable=True)
            continue
        items += common.store_entries(db, playlist, position, entries)
    items += common.store_liked(db, lists[-1])
    await client.aclose()
    common.report("tekore", counter["requests"], items, len(playlists), unavailable)


if __name__ == "__main__":
    asyncio.run(main())
