#!/usr/bin/env python3
"""Render criterion results (target/criterion) as Markdown tables: medians, MB/s and ratios.

Reads the criterion output of the `serialization` and `state` benches and the
`*.facts.json` files those benches write beside it (losslessness, set sizes, token sizes).
"""
import glob
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
PEERS = ["rmcp", "rust-mcp-schema"]


def load(group):
    out = {}
    for bench in glob.glob(os.path.join(root, group, "*", "*", "*", "new", "benchmark.json")) + \
            glob.glob(os.path.join(root, group, "*", "*", "new", "benchmark.json")):
        meta = json.load(open(bench))
        est = json.load(open(os.path.join(os.path.dirname(bench), "estimates.json")))
        size = (meta.get("throughput") or {}).get("Bytes")
        out[(meta["function_id"], meta["value_str"])] = (est["median"]["point_estimate"], size)
    return out


def facts(name):
    try:
        return json.load(open(os.path.join(root, f"{name}.facts.json")))
    except OSError:
        return {}


def t(ns):
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


def mbps(ns, size):
    return size / (ns / 1e9) / 1e6 if size else 0.0


def ser_table(group, names, lossless):
    res = load(group)
    if not res:
        return
    print("| message | bytes | op | mcp-schema | rmcp | ratio rmcp/ours | rust-mcp-schema | ratio rms/ours | IgnoredAny floor | ours/floor | untyped Value parse |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in names:
        floor = res.get(("floor/parse", n))
        for op in ("parse", "write"):
            ours = res.get((f"mcp-schema/{op}", n))
            if not ours:
                continue
            size = ours[1]
            row = [n, str(size), op, f"{t(ours[0])} ({mbps(ours[0], size):.0f} MB/s)"]
            for peer in PEERS:
                r = res.get((f"{peer}/{op}", n))
                if not r:
                    row += ["cannot represent", "-"]
                    continue
                note = lossless(peer, n)
                row += [f"{t(r[0])} ({mbps(r[0], size):.0f} MB/s){note}", f"{r[0] / ours[0]:.2f}"]
            value = res.get(("value/parse", n))
            if floor and op == "parse":
                row += [t(floor[0]), f"{ours[0] / floor[0]:.1f}x"]
                row += [f"{t(value[0])} ({value[0] / floor[0]:.1f}x floor)" if value else "-"]
            else:
                row += ["-", "-", "-"]
            print("| " + " | ".join(row) + " |")
    print()


ser_facts = facts("serialization")
print("#### Realistic messages\n")
ser_table("serialization",
          ["tools_call_1k", "call_tool_result_10k", "tools_list_50", "input_required_3", "retry_3"],
          lambda peer, n: "" if ser_facts.get(f"{peer}/{n}", True) else " **lossy**")
ex = facts("examples")
if ex:
    kinds = [k for k in ["client_requests", "result_responses", "notifications", "error_responses"] if k in ex]
    print("#### Spec examples (2026-07-28) that are whole wire messages, by kind; one measurement parses or writes the whole set\n")
    print("| set | examples | round-trip unchanged: mcp-schema / rmcp / rust-mcp-schema |")
    print("|---|---|---|")
    for k in kinds:
        l = ex[k]["lossless"]
        print(f"| {k} | {ex[k]['count']} | {l['mcp-schema']} / {l['rmcp']} / {l['rust-mcp-schema']} |")
    if ex.get("skipped"):
        print(f"\nNot parsed by every library, left out: {', '.join(ex['skipped'])}.")
    print()

    def ex_note(peer, k):
        n = ex[k]["lossless"][peer]
        return "" if n == ex[k]["count"] else f" ({ex[k]['count'] - n} lossy)"
    ser_table("examples", kinds, ex_note)

state = load("state")
if state:
    sf = facts("state")
    print("#### requestState (seal = journal to token, open = token to journal; all bound to method, tool and arguments, with an expiry; ours encrypts, both peers only sign)\n")
    print("| journal | plaintext B | token B ours / rmcp / rust-mcp-sdk | ours seal | ours open | ours seal+open | rmcp seal | rmcp open | rmcp seal+open | ratio rmcp/ours | rust-mcp-sdk seal | rust-mcp-sdk open | rust-mcp-sdk seal+open | ratio rms/ours |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in ["1_form", "3_forms", "10_forms", "4k_sampling"]:
        s, o = state.get(("mcp-runtime/seal", n)), state.get(("mcp-runtime/open", n))
        rs, ro = state.get(("rmcp/seal", n)), state.get(("rmcp/open", n))
        ks, ko = state.get(("rust-mcp-sdk/seal", n)), state.get(("rust-mcp-sdk/open", n))
        if not (s and o and rs and ro and ks and ko):
            continue
        f = sf.get(n, {})
        ours, theirs, sdk = s[0] + o[0], rs[0] + ro[0], ks[0] + ko[0]
        print(f"| {n} | {f.get('plaintext', '-')} | {f.get('mcp-runtime', '-')} / {f.get('rmcp', '-')} / {f.get('rust-mcp-sdk', '-')} | "
              f"{t(s[0])} | {t(o[0])} | {t(ours)} | {t(rs[0])} | {t(ro[0])} | {t(theirs)} | {theirs / ours:.2f} | "
              f"{t(ks[0])} | {t(ko[0])} | {t(sdk)} | {sdk / ours:.2f} |")
    print()
    print("rust-mcp-schema is a types-only crate; its peer in the requestState, replay, end-to-end and "
          "one-tool-server tables is rust-mcp-sdk 2.0, the SDK built on it (\"rms\" in ratio columns).")
    print()
