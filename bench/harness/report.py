#!/usr/bin/env python3
"""Merges the harness's and the Python peers' JSON into the dated report (Markdown, JSON, PNG).

  report.py --harness stnc.json [--peers peers.json] --out DIR --stamp STAMP --command "..."

Writes DIR/bench-STAMP.md, DIR/bench-STAMP.json, DIR/bench-STAMP.png (fraction of floor per row;
needs matplotlib, skipped with a note otherwise) and prints the Markdown to stdout.
"""
import argparse
import json
import math
import os
import sys


def num(x, f="%.1f"):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f % x


def ratio(a, b):
    if a is None or b is None or not b or not math.isfinite(a) or not math.isfinite(b):
        return None
    return a / b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", required=True)
    ap.add_argument("--peers", default="")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stamp", required=True)
    ap.add_argument("--command", default="scripts/bench.sh")
    ap.add_argument("--note", action="append", default=[])
    a = ap.parse_args()
    har = json.load(open(a.harness))
    peers = {"torch": {}, "triton": {}, "errors": [], "versions": {}}
    if a.peers and os.path.exists(a.peers):
        try:
            peers = json.load(open(a.peers))
        except Exception as e:  # noqa: BLE001
            peers["errors"].append("cannot read %s: %s" % (a.peers, e))
    elif a.peers:
        peers["errors"].append("no peers JSON (peers.py did not finish)")

    dev, ce, opt = har["device"], har["ceilings"], har["options"]
    rows = []
    for r in har["rows"]:
        t = r["stnc"].get("median_us")
        pc = r.get("peer_cuda") or {}
        tc = (pc.get("timing") or {}).get("median_us") if pc else None
        tt = peers.get("torch", {}).get(r["id"], {})
        tr = peers.get("triton", {}).get(r["id"], {})
        v = r["validation"]
        rows.append({
            "id": r["id"], "workload": r["workload"], "flavour": r["flavour"],
            "size": "%d³ %s" % (r["grid"][0], "f64" if r["elem_bytes"] == 8 else "f32"),
            "median_us": t, "gpts": r.get("gpts"), "gbs": r.get("gbs"), "bytes_per_point": r["bytes"] / r["points"],
            "flops_per_point": r["flops_per_point"], "mem_floor_us": r["mem_floor_us"], "fp_floor_us": r["fp_floor_us"],
            "fraction_of_floor": r.get("fraction_of_floor"),
            "stream_gbs": (r.get("stream") or {}).get("gbs"),
            "stream_mix": "%dR%dW" % (r["stream"]["reads"], r["stream"]["writes"]) if r.get("stream") else "",
            "of_stream": ratio(r.get("gbs"), (r.get("stream") or {}).get("gbs")),
            "copy_size_gbs": ((r.get("stream") or {}).get("copy_at_size") or {}).get("gbs"),
            "cuda_naive_us": tc, "stnc_over_cuda_naive": ratio(t, tc),
            "cuda_naive_check": "%s/%s" % (pc.get("validation", "–"), pc.get("checksum_agrees", "–")) if pc else "",
            "torch_us": tt.get("median_us"), "stnc_over_torch": ratio(t, tt.get("median_us")),
            "torch_check": tt.get("checksum_agrees", tt.get("error", "")[:40] if tt else ""),
            "triton_us": tr.get("median_us"), "stnc_over_triton": ratio(t, tr.get("median_us")),
            "triton_check": ("%s/%s" % (tr.get("small_grid", "–"), tr.get("checksum_agrees", "–"))) if tr.get(
                "median_us") else (tr.get("error", "")[:40] if tr else ""),
            "triton_config": tr.get("config"),
            "validation": v["status"], "validation_detail": "; ".join(
                [k["kernel"] + ": " + k["detail"] for k in v.get("kernels", []) if k["status"] != "PASS"]
                + ([v["detail"]] if v.get("detail") else [])),
            "error": r["stnc"].get("error"),
        })
        st = r.get("steps")
        if st and st.get("per_step", {}).get("median_us"):
            ps = st["per_step"]["median_us"]
            rows.append({
                "id": "%s step×%d" % (r["id"], st["steps_per_call"]), "workload": r["workload"],
                "flavour": r["flavour"], "size": rows[-1]["size"], "median_us": ps,
                "gpts": r["points"] / ps / 1e3, "gbs": r["bytes"] / ps / 1e3,
                "bytes_per_point": r["bytes"] / r["points"], "flops_per_point": r["flops_per_point"],
                "mem_floor_us": r["mem_floor_us"], "fp_floor_us": r["fp_floor_us"],
                "fraction_of_floor": st.get("fraction_of_floor"), "stream_gbs": rows[-1]["stream_gbs"],
                "stream_mix": rows[-1]["stream_mix"],
                "of_stream": ratio(r["bytes"] / ps / 1e3, rows[-1]["stream_gbs"]),
                "copy_size_gbs": rows[-1]["copy_size_gbs"], "cuda_naive_us": None,
                "stnc_over_cuda_naive": None, "cuda_naive_check": "", "torch_us": None, "stnc_over_torch": None,
                "torch_check": "", "triton_us": None, "stnc_over_triton": None, "triton_check": "",
                "triton_config": None, "validation": v["status"], "validation_detail": "",
                "error": st["per_step"].get("error"),
            })

    L = []
    L.append("# stnc benchmark — %s" % a.stamp)
    L.append("")
    L.append("- **GPU:** %s (%d SMs, CC %s, L2 %.0f MiB, %.0f GiB; max SM clock %d MHz)" % (
        dev["name"], dev["sms"], dev["cc"], dev["l2_bytes"] / 2 ** 20, dev["mem_bytes"] / 2 ** 30, dev["sm_clock_mhz"]))
    L.append("- **Command:** `%s`" % a.command)
    L.append("- **Ceilings (measured in this run):** D2D copy **%.0f GB/s** (read+write, cudaMemcpy of %.1f GB); "
             "FP64 FMA **%.2f TFLOP/s**; FP32 FMA %.2f TFLOP/s" % (
                 ce["copy_gbs"], ce["copy_bytes_each_way"] / 1e9, ce["fp64_tflops"], ce["fp32_tflops"]))
    L.append("- **Method:** %d timed sweeps per kernel (median), %d warm-ups, %d rotating input sets, L2 flushed "
             "(a %d MB read) before every timed sweep; CUDA events around each sweep. Validation on %s against "
             "`stnc run --backend cpu` (f64 bit-identical, f32 rel ≤ 1e-5)." % (
                 opt["reps"], opt["warmup"], opt["sets"], opt["flush_bytes"] >> 20, "x".join(map(str, opt["val"]))))
    L.append("- Rows `… step×N`: the launcher's `cuda::step` (N steps per call, CUDA-graph replay, u/v swapped "
             "every step), time per step.")
    L.append("- **Floor** = max(compulsory bytes / copy BW, FLOPs / FMA rate); **of floor** = floor / median time "
             "(1.0 = at the floor). Ratios are stnc time / peer time (< 1: stnc faster).")
    L.append("- **Stream GB/s**: a pointwise kernel over the row's own arrays (each array the row reads read once, "
             "each it writes written once, 16-byte accesses, timed like the row): what "
             "a kernel with no neighbours reaches at this size and read/write mix (R reads, W writes). "
             "**of stream** = the row's GB/s / stream GB/s (the fastest of three launch shapes). **copy@size**: "
             "cudaMemcpy D2D of one of the row's arrays into another (1 read, 1 write at this size).")
    vers = peers.get("versions", {})
    if vers:
        L.append("- **Peers:** hand-written CUDA (one thread per point, nvcc default flags); PyTorch %s conv3d f64 "
                 "(cuDNN %s); Triton %s register-queue acoustic." % (vers.get("torch", "?"), vers.get("cudnn", "?"),
                                                                    vers.get("triton", "?")))
    for n in a.note:
        L.append("- " + n)
    L.append("")
    L.append("| kernel | size | median µs | Gpts/s | GB/s | B/pt | FLOP/pt | mem floor µs | FP floor µs | of floor "
             "| stream GB/s | of stream | copy@size GB/s | CUDA naive µs | stnc/naive | torch µs | stnc/torch | Triton µs | stnc/Triton | valid |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for x in rows:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | **%s** | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            x["id"], x["size"], num(x["median_us"]), num(x["gpts"], "%.1f"), num(x["gbs"], "%.0f"),
            num(x["bytes_per_point"], "%.0f"), num(x["flops_per_point"], "%.0f"), num(x["mem_floor_us"]),
            num(x["fp_floor_us"]), num(x["fraction_of_floor"], "%.2f"),
            (num(x["stream_gbs"], "%.0f") + " " + x["stream_mix"]).strip(), num(x["of_stream"], "%.2f"),
            num(x["copy_size_gbs"], "%.0f"), num(x["cuda_naive_us"]),
            num(x["stnc_over_cuda_naive"], "%.2f"), num(x["torch_us"]), num(x["stnc_over_torch"], "%.2f"),
            num(x["triton_us"]), num(x["stnc_over_triton"], "%.2f"),
            x["validation"] + (" (" + x["error"] + ")" if x["error"] else "")))
    L.append("")
    fails = [x for x in rows if x["validation"] != "PASS" and x["validation_detail"]]
    checks = []
    for x in rows:
        bad = [("CUDA naive", x["cuda_naive_check"]), ("torch", x["torch_check"]), ("Triton", x["triton_check"])]
        bad = ["%s %s" % (n, c) for n, c in bad if c and any(p != "PASS" for p in c.split("/"))]
        if bad:
            checks.append("%s: %s" % (x["id"], ", ".join(bad)))
    if fails:
        L.append("**Validation failures:**")
        for x in fails:
            L.append("- %s: %s" % (x["id"], x["validation_detail"][:400]))
        L.append("")
    if checks:
        L.append("**Peer checks not passed** (small-grid/checksum):")
        for c in checks:
            L.append("- " + c)
        L.append("")
    tri = [x for x in rows if x["triton_config"]]
    if tri:
        L.append("Triton tile: %s." % tri[0]["triton_config"])
    if peers.get("errors"):
        L.append("Peer errors: " + "; ".join(e[:200] for e in peers["errors"]))
    md = "\n".join(L) + "\n"

    os.makedirs(a.out, exist_ok=True)
    base = os.path.join(a.out, "bench-%s" % a.stamp)
    with open(base + ".md", "w") as fh:
        fh.write(md)
    with open(base + ".json", "w") as fh:
        json.dump({"stamp": a.stamp, "command": a.command, "device": dev, "ceilings": ce, "options": opt,
                   "table": rows, "harness": har, "peers": peers}, fh, indent=1)
    png_note = ""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        ids = [x["id"] for x in rows]
        fr = [x["fraction_of_floor"] or 0 for x in rows]
        nv = []
        for x in rows:
            f = None
            if x["cuda_naive_us"] and x["median_us"] and x["fraction_of_floor"]:
                f = x["fraction_of_floor"] * x["median_us"] / x["cuda_naive_us"]
            nv.append(f or 0)
        fig, ax = plt.subplots(figsize=(10, 0.32 * len(ids) + 1.6))
        ys = list(range(len(ids)))
        ax.barh([y + 0.2 for y in ys], fr, height=0.4, label="stnc", color="#1f77b4")
        ax.barh([y - 0.2 for y in ys], nv, height=0.4, label="hand-written CUDA (naive)", color="#bbbbbb")
        ax.axvline(1.0, color="k", lw=0.8)
        ax.set_yticks(ys)
        ax.set_yticklabels(ids, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("fraction of floor  (max(bytes / copy BW, FLOPs / FMA rate) / time)")
        ax.set_title("stnc on %s — %s" % (dev["name"], a.stamp), fontsize=10)
        ax.legend(loc="lower right", fontsize=8)
        for y, f in zip(ys, fr):
            ax.text(f + 0.01, y + 0.2, "%.2f" % f, va="center", fontsize=7)
        fig.tight_layout()
        fig.savefig(base + ".png", dpi=120)
        png_note = "chart: %s.png" % base
    except Exception as e:  # noqa: BLE001
        png_note = "no chart (%s)" % e
    sys.stdout.write(md)
    print("\n(%s; full data: %s.json)" % (png_note, base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
