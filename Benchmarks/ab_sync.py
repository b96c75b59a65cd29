#!/usr/bin/env python3
"""A/B of two `timbre` binaries' full syncs against one sandbox, interleaved so drift hits both.

    python3 Benchmarks/ab_sync.py --bin-dir A_DIR --bin-dir B_DIR [--library large] [--runs 8]
        [--bench-cache-out PATH]

Each DIR holds a `timbre`; the first also `timbre-sandbox`. Every run starts from an empty cache.
Prints, per binary, the median wall and CPU (user+sys) time, peak RSS and the cache file's size
after the sync (library.sqlite; the WAL is checkpointed into it when timbre closes the cache), then
B's change against A. `--bench-cache-out` keeps B's last cache (for timbre-bench).
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (the suite's sandbox, sign-in and timbre helpers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", action="append", required=True)
    ap.add_argument("--library", default="large")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--bench-cache-out")
    args = ap.parse_args()
    if len(args.bin_dir) != 2:
        ap.error("give --bin-dir twice: A (the reference) then B")
    work = tempfile.mkdtemp(prefix="timbre-ab-")
    os.makedirs(os.path.join(work, "sandbox"))
    sandbox = run.Sandbox(os.path.join(args.bin_dir[0], "timbre-sandbox"), args.library, os.path.join(work, "sandbox"))
    try:
        token, _, _ = run.sign_in(sandbox, work)
        clients = [run.Timbre(d, sandbox, token, os.path.join(work, f"home{i}")) for i, d in enumerate(args.bin_dir)]
        figures = [{"wall": [], "cpu": [], "rss": [], "size": []} for _ in clients]
        for client in clients:  # warm the sandbox's answers for timbre's URLs
            client.wipe_cache()
            client.sync()
        for i in range(args.runs):
            order = list(enumerate(clients)) if i % 2 == 0 else list(reversed(list(enumerate(clients))))
            for k, client in order:
                client.wipe_cache()
                wall, rss, report = client.sync()
                if report.get("status") != "ok" and report.get("status") != "partial":
                    raise RuntimeError(f"sync {k}: {report}")
                f = figures[k]
                f["wall"].append(wall)
                f["cpu"].append(run.LAST_CPU[0])
                f["rss"].append(rss)
                f["size"].append(os.path.getsize(client.cache))
                run.say(f"run {i + 1} {'AB'[k]}: {wall:.3f} s wall, {run.LAST_CPU[0]:.3f} s CPU, {rss} kB, "
                        f"{os.path.getsize(client.cache) / 1e6:.1f} MB, {report.get('items_written')} items")
        med = {k: {name: statistics.median(v) for name, v in f.items()} for k, f in enumerate(figures)}
        for k in (0, 1):
            m = med[k]
            print(f"{'AB'[k]} ({args.bin_dir[k]}): wall {m['wall']:.3f} s (runs {', '.join(f'{x:.2f}' for x in figures[k]['wall'])}), "
                  f"CPU {m['cpu']:.3f} s, peak RSS {m['rss'] / 1000:.1f} MB, file {m['size'] / 1e6:.2f} MB")
        a, b = med[0], med[1]
        print(f"B vs A: wall {100 * (b['wall'] / a['wall'] - 1):+.1f} %, CPU {100 * (b['cpu'] / a['cpu'] - 1):+.1f} %, "
              f"file {(b['size'] - a['size']) / 1e6:+.2f} MB ({100 * (b['size'] / a['size'] - 1):+.1f} %)")
        if args.bench_cache_out:
            shutil.copyfile(clients[1].cache, args.bench_cache_out)
    finally:
        sandbox.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
