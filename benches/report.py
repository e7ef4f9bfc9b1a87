#!/usr/bin/env python3
"""Render the serialization and requestState results as Markdown tables: medians, MB/s, ratios.

Reads what the `serialization` and `state` benches leave in target/criterion: the interleaved
("paired") timings `paired-*.facts.json`, which the tables use when present, criterion's own
sequential medians otherwise, and the other `*.facts.json` files (losslessness, set sizes,
token sizes).
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
    """One row per message and operation. Times and ratios come from the interleaved pass
    (paired-serialization.facts.json) when it ran, else from criterion's sequential medians."""
    res = load(group)
    paired = facts("paired-serialization")
    if not res and not paired:
        return
    print("| message | bytes | op | oxmcp-schema | rmcp | ratio rmcp/ours | rust-mcp-schema | ratio rms/ours | IgnoredAny floor | ours/floor | untyped Value parse |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in names:
        for op in ("parse", "write"):
            p = paired.get(f"{group}/{n}/{op}")
            if p:
                med, vs, size = p["median_ns"], p["vs_ours"], p["bytes"]
                get = lambda side: med.get(side)
                ratio = lambda side: vs.get(side)
            else:
                crit = {side: res.get((f"{side}/{op}", n)) for side in ["oxmcp-schema"] + PEERS}
                crit["floor"] = res.get(("floor/parse", n)) if op == "parse" else None
                crit["value"] = res.get(("value/parse", n)) if op == "parse" else None
                size = (crit["oxmcp-schema"] or (0, 0))[1]
                get = lambda side: crit[side][0] if crit.get(side) else None
                ratio = lambda side: get(side) / get("oxmcp-schema") if get(side) and get("oxmcp-schema") else None
            ours = get("oxmcp-schema")
            if not ours:
                continue
            row = [n, str(size), op, f"{t(ours)} ({mbps(ours, size):.0f} MB/s)"]
            for peer in PEERS:
                if not get(peer):
                    row += ["cannot represent", "-"]
                    continue
                row += [f"{t(get(peer))} ({mbps(get(peer), size):.0f} MB/s){lossless(peer, n)}", f"{ratio(peer):.2f}"]
            floor, value = get("floor"), get("value")
            if floor and op == "parse":
                row += [t(floor), f"{1 / ratio('floor'):.1f}x"]
                row += [f"{t(value)} ({ratio('value') / ratio('floor'):.1f}x floor)" if value else "-"]
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
    print("| set | examples | round-trip unchanged: oxmcp-schema / rmcp / rust-mcp-schema |")
    print("|---|---|---|")
    for k in kinds:
        l = ex[k]["lossless"]
        print(f"| {k} | {ex[k]['count']} | {l['oxmcp-schema']} / {l['rmcp']} / {l['rust-mcp-schema']} |")
    if ex.get("skipped"):
        print(f"\nNot parsed by every library, left out: {', '.join(ex['skipped'])}.")
    print()

    def ex_note(peer, k):
        n = ex[k]["lossless"][peer]
        return "" if n == ex[k]["count"] else f" ({ex[k]['count'] - n} lossy)"
    ser_table("examples", kinds, ex_note)

state = load("state")
paired_state = facts("paired-state")
if state or paired_state:
    sf = facts("state")
    print("#### requestState, one retry as a server does it (open = build the request's binding, then token to journal; seal = journal to the next token with that binding; all bound to method, tool and arguments, with an expiry; ours encrypts, both peers only sign)\n")
    print("| journal | plaintext B | token B ours / rmcp / rust-mcp-sdk | ours seal | ours open | ours seal+open | rmcp seal | rmcp open | rmcp seal+open | ratio rmcp/ours | rust-mcp-sdk seal | rust-mcp-sdk open | rust-mcp-sdk seal+open | ratio rms/ours |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n in ["1_form", "3_forms", "10_forms", "4k_sampling"]:
        p = paired_state.get(n)
        if p:
            med = p["median_ns"]
            cols = {c: (med[f"{c}/seal"], med[f"{c}/open"], med[f"{c}/seal+open"]) for c in ["oxmcp", "rmcp", "rust-mcp-sdk"]}
            r_rmcp, r_sdk = p["vs_ours"]["rmcp"], p["vs_ours"]["rust-mcp-sdk"]
        else:
            cols = {}
            for c in ["oxmcp", "rmcp", "rust-mcp-sdk"]:
                s, o = state.get((f"{c}/seal", n)), state.get((f"{c}/open", n))
                if s and o:
                    cols[c] = (s[0], o[0], s[0] + o[0])
            if len(cols) < 3:
                continue
            r_rmcp = cols["rmcp"][2] / cols["oxmcp"][2]
            r_sdk = cols["rust-mcp-sdk"][2] / cols["oxmcp"][2]
        f = sf.get(n, {})
        o, r, k = cols["oxmcp"], cols["rmcp"], cols["rust-mcp-sdk"]
        print(f"| {n} | {f.get('plaintext', '-')} | {f.get('oxmcp', '-')} / {f.get('rmcp', '-')} / {f.get('rust-mcp-sdk', '-')} | "
              f"{t(o[0])} | {t(o[1])} | {t(o[2])} | {t(r[0])} | {t(r[1])} | {t(r[2])} | {r_rmcp:.2f} | "
              f"{t(k[0])} | {t(k[1])} | {t(k[2])} | {r_sdk:.2f} |")
    print()
    print("rust-mcp-schema is a types-only crate; its peer in the requestState, replay, end-to-end and "
          "one-tool-server tables is rust-mcp-sdk 2.0, the SDK built on it (\"rms\" in ratio columns).")
    print()
