#!/usr/bin/env python3
"""Render criterion results (target/criterion) as Markdown tables: medians, MB/s and ratios."""
import glob
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"


def load(group):
    out = {}
    for bench in glob.glob(os.path.join(root, group, "*", "*", "new", "benchmark.json")):
        meta = json.load(open(bench))
        est = json.load(open(os.path.join(os.path.dirname(bench), "estimates.json")))
        median_ns = est["median"]["point_estimate"]
        size = (meta.get("throughput") or {}).get("Bytes")
        out[(meta["function_id"], meta["value_str"])] = (median_ns, size)
    return out


def fmt_time(ns):
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def mbps(ns, size):
    return size / (ns / 1e9) / 1e6 if size else 0.0


ser = load("serialization")
if ser:
    names = sorted({v for (_, v) in ser})
    print("| message | bytes | op | mcp-schema | rust-mcp-schema | ratio (peer/ours) | IgnoredAny floor | ours/floor |")
    print("|---|---|---|---|---|---|---|---|")
    for n in names:
        floor = ser.get(("floor/ignored_any", n))
        for op in ("parse", "write"):
            ours = ser.get((f"mcp-schema/{op}", n))
            peer = ser.get((f"rust-mcp-schema/{op}", n))
            if not ours:
                continue
            size = ours[1]
            cell = lambda r: f"{fmt_time(r[0])} ({mbps(r[0], size):.0f} MB/s)" if r else "cannot represent"
            ratio = f"{peer[0] / ours[0]:.2f}" if peer else "-"
            fl = f"{fmt_time(floor[0])}" if (floor and op == "parse") else "-"
            of = f"{ours[0] / floor[0]:.1f}x" if (floor and op == "parse") else "-"
            print(f"| {n} | {size} | {op} | {cell(ours)} | {cell(peer)} | {ratio} | {fl} | {of} |")
    print()

state = load("state")
if state:
    print("| journal | seal | open | seal+open |")
    print("|---|---|---|---|")
    for n in ["1_form", "3_forms", "10_forms", "4k_sampling"]:
        s, o = state.get(("seal", n)), state.get(("open", n))
        if s and o:
            print(f"| {n} | {fmt_time(s[0])} | {fmt_time(o[0])} | {fmt_time(s[0] + o[0])} |")
