#!/usr/bin/env python3
"""Random differential campaign: the CUDA backend vs the CPU backend on generated programs.

Driven by scripts/gpu-random.sh (see scripts/gpu/README.md). Steps:
  1. build the generator of tests/random standalone (g++ Gen.cpp GenMain.cpp; or --gen PATH) and
     write --count programs of --seed, grouped by rank into files of --batch programs each
     (one compile of generated code per file, backend and schedule);
  2. `stnc info` per file (halos); random inputs per run (odd extents: the generator's small ones
     and medium ones spanning several CUDA blocks and stream chunks; values include +-0 and small
     integers, every 8th run also NaN and +-inf);
  3. per file and variant (the CPU backend; the CUDA backend under each schedule candidate: rank 3:
     naive, stream, and stream with other blocks / unroll / chunk (/ prefetch when this stnc has
     it); rank 1-2: naive with two block shapes; auto always picks one of these; one variant
     per rank also with `--fp-contract=on`, against a CPU build with that option): one
     `stnc run --backend cpu|cuda` builds the shared object (compile cache), then gpu_check.py's
     poison harness loads it once and runs every program of the file through its C entry point
     (one CUDA context per file and schedule, not per run), with NaN in every cell outside the
     supplied data, and reports writes outside the interior (+ halo); the harness's result for the
     build run must equal `stnc run`'s bit for bit;
  4. compare: bit-identical for every program without exp/log/pow/sin/cos (f64 and f32; NaN equals
     NaN whatever its payload); with them, <= 16 ulp or 1e-12 (f64) / 1e-5 (f32) of
     max(1, |x|, |y|) per value (each libm rounds differently and the program may amplify it).
     A mismatch of a bit-exact program, a failed build or run, is a failure; a transcendental
     program beyond its tolerance is reported as a libm difference (--strict-libm: a failure).
     About a quarter of the programs have regions (`region R = [lo:hi, ...]`, `OUT @ R = ...`): the
     interior points of a pure output that no equation writes must hold their buffer's start value
     on each side (`stnc run`'s zeros, the harness's NaN poison), and are compared no further;
  5. write random-campaign.md / .json into --out, with a reproducer folder per failure.

--dry-run (no GPU): `stnc run --backend interp` (the reference interpreter) stands in for CUDA, once
per run; this tests the script, the harness and the CPU backend, not the GPU. --cuda-build also
builds the CUDA code of every file and schedule with nvcc (the run then stops at "no CUDA device").
Pure Python 3.8+; numpy is used when present (faster comparisons), never required.
"""
import argparse
import array
import datetime
import json
import math
import os
import random
import shlex
import shutil
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check as gc  # noqa: E402  (.npy reading/writing shared with the GPU check)

try:
    import numpy as np
except ImportError:
    np = None

ULP = 16
REL = {"f64": 1e-12, "f32": 1e-5}


def schedule_candidates(help_text, rank, only, extra=()):
    """(name, stnc options) of the CUDA schedules tried for a kernel of this rank; extra: (name, options) of
    --variant NAME=OPTIONS (rank 3), for bisecting a failure's options."""
    has = lambda opt: opt in help_text  # noqa: E731
    if rank < 3:  # stream needs 3 axes: auto is naive here
        c = [("naive", ["--schedule", "naive"])]
        if has("--block"):
            c.append(("naive-64x2", ["--schedule", "naive", "--block", "64x2"]))
    else:  # auto picks naive or stream with the block/unroll of its rule: both are covered
        c = [("naive", ["--schedule", "naive"]), ("stream", ["--schedule", "stream"])]
        # (each candidate is one more nvcc build per file: options are combined to keep the campaign
        # within its time budget; the report names every option of a failing variant)
        if has("--block") and has("--unroll"):
            if has("--prefetch"):
                c.append(("stream-32x16-u2-p2", ["--schedule", "stream", "--block", "32x16", "--unroll", "2", "--prefetch", "2"]))
            else:
                c.append(("stream-32x16-u2", ["--schedule", "stream", "--block", "32x16", "--unroll", "2"]))
        if has("--block") and has("--chunk") and has("--unroll"):
            c.append(("stream-64x4-c5-u3", ["--schedule", "stream", "--block", "64x4", "--chunk", "5", "--unroll", "3"]))
        if has("--rows"):  # several dim-1 rows per thread (shared loads; a `_rest` kernel for the rest)
            c.append(("stream-r4-u2", ["--schedule", "stream", "--block", "32x8", "--rows", "4", "--unroll", "2"]))
            c.append(("stream-r2-p1", ["--schedule", "stream", "--block", "32x8", "--rows", "2", "--prefetch", "1"]))
        if has("--vec"):  # several dim-2 points per thread in vectors (aligned span; `_rest` for the edges)
            c.append(("stream-v2-r3", ["--schedule", "stream", "--block", "32x8", "--vec", "2", "--rows", "3"]))
            c.append(("stream-v4-p1", ["--schedule", "stream", "--vec", "4", "--prefetch", "1"]))
        if has("--smem"):  # planes through shared-memory rings (cp.async; zero-filled outside the allocation)
            c.append(("stream-smem-v4", ["--schedule", "stream", "--smem=on", "--block", "16x16", "--vec", "4"]))
            c.append(("stream-smem-v1-p1", ["--schedule", "stream", "--smem=on", "--block", "32x4", "--prefetch", "1"]))
        # what users get: the policy's own choice (rings of the policy's shape, the tensor memory accelerator for
        # long chunks of radius >= 3, region lanes), and the later ring options forced (session 19)
        c.append(("auto", []))
        if has("--tma"):  # ring tiles copied by the tensor memory accelerator (zeros outside the footprint box)
            c.append(("stream-tma-v2", ["--schedule", "stream", "--smem=on", "--tma=on", "--block", "16x16", "--vec", "2"]))
        if has("--queue-heads"):  # the queues' newest planes loaded from global memory ahead of the rings
            c.append(("stream-heads-32x4", ["--schedule", "stream", "--smem=on", "--queue-heads=global", "--block", "32x4"]))
        if has("--factor-sums"):  # shared partial sums of symmetric weighted sums, with FMA contraction (vs cpu-factor)
            c.append(("auto-factor-fma", ["--factor-sums=on", "--fp-contract=on"]))
        if has("--fuse-regions"):  # one region and the default equations in one kernel (passes/FuseRegions): it needs
            # the region's rings (stream, smem) at one row per thread (the policy often picks 2-4) and, at run time,
            # boxes at least 3/4 of a tile wide (16-column tiles: the medium extents); about half of the generated
            # rank-3 kernels with regions qualify, the others (two regions, a part without equations) and kernels
            # without regions run the per-part stream-smem kernels
            c.append(("fuse-regions", ["--fuse-regions=on", "--schedule", "stream", "--smem=on", "--block", "16x8", "--rows", "1"]))
        if has("--region-edges"):  # a region's dim-2 bounds moved to whole tiles, an edge kernel with both bodies
            # (passes/RegionEdges): 16-column tiles (16 threads x 1 point), so the medium extents leave a whole tile of
            # the region's middle; one region and default equations, the default part on one-row rings
            c.append(("region-edges", ["--region-edges=on", "--schedule", "stream", "--smem=on", "--block", "16x8", "--vec", "1", "--rows", "1"]))
    if has("--align-region"):  # rows aligned on the largest region's first column: a layout phase, so tiles, vector
        # groups, ring chunks and tensor maps go by absolute alignment (stnc_rt::alignCol); no-op without regions
        c.append(("align-region", ["--align-region=on"]))
        if rank == 3:
            c.append(("align-region-smem-v4", ["--align-region=on", "--schedule", "stream", "--smem=on", "--block", "16x16", "--vec", "4"]))
    if rank == 3:
        c += list(extra)
    if only:
        c = [x for x in c if x[0] in only]
    return c


class Campaign:
    def __init__(self, a):
        self.a = a
        self.root = os.path.abspath(a.root)
        self.t0 = time.time()
        self.deadline = self.t0 + a.budget
        self.lock = threading.Lock()
        self.work = os.path.abspath(a.work)
        self.out = os.path.abspath(a.out)
        os.makedirs(self.work, exist_ok=True)
        os.makedirs(self.out, exist_ok=True)
        for old in (os.path.join(self.work, "runs"), os.path.join(self.work, "harness"), os.path.join(self.out, "repro")):
            shutil.rmtree(old, ignore_errors=True)  # results of an earlier campaign (the compile cache stays)
        self.cores = os.cpu_count() or 4
        self.jobs = a.jobs or self.cores
        self.stnc = os.path.abspath(a.stnc)
        self.env = dict(os.environ)
        self.env.setdefault("STNC_STDLIB", os.path.join(self.root, "stdlib"))
        self.env["STNC_CACHE_DIR"] = os.path.join(self.work, "cache")
        self.env["OMP_NUM_THREADS"] = "1"  # small grids; results never depend on it
        self.device = "interp" if a.dry_run else "cuda"
        self.log_lines = []
        self.counts = {"processes": 0}

    # -- utilities ------------------------------------------------------------------------------
    def log(self, msg):
        line = "[%6.1fs] %s" % (time.time() - self.t0, msg)
        with self.lock:
            self.log_lines.append(line)
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def sh(self, cmd, timeout=600, cwd=None, env=None):
        try:
            p = subprocess.run(cmd, env=env or self.env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
            out, err, rc = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode
        except subprocess.TimeoutExpired:
            out, err, rc = "", "timed out after %d s" % timeout, 124
        except OSError as e:
            out, err, rc = "", str(e), 127
        with self.lock:
            self.counts["processes"] += 1
        return rc, out, err

    @staticmethod
    def failure(rc, out, err):
        """The tail of a failed command's output, saying so when it crashed rather than reported."""
        text = (err.strip() or out.strip() or "exit %d" % rc)
        crashed = rc < 0 or rc > 1 or "Sanitizer" in text or "runtime error:" in text
        if crashed:
            # the sanitizer's first lines say what happened; the tail is mostly shadow bytes
            head = "\n".join(l for l in text.splitlines() if "ERROR:" in l or "runtime error" in l or l.strip().startswith("#"))
            text = (head or text)[:1500]
            return "CRASHED (rc %d): %s" % (rc, text)
        return text[-1500:]

    def pool(self, fn, items):
        if not items:
            return []
        with ThreadPoolExecutor(max_workers=max(1, self.jobs)) as ex:
            return list(ex.map(fn, items))

    def first_line(self, cmd):
        rc, out, err = self.sh(cmd, timeout=60)
        text = (out + err).strip()
        return text.splitlines()[0] if rc == 0 and text else "unavailable"

    # -- 1. programs ----------------------------------------------------------------------------
    def generate(self):
        gen = self.a.gen
        if not gen:
            gen = os.path.join(self.work, "stnc_gen")
            src = os.path.join(self.root, "tests", "random")
            cxx = os.environ.get("CXX") or shutil.which("g++") or "c++"
            cmd = [cxx, "-std=c++17", "-O1", "-o", gen, os.path.join(src, "Gen.cpp"), os.path.join(src, "GenMain.cpp")]
            rc, out, err = self.sh(cmd)
            if rc != 0:
                raise SystemExit("random-campaign: cannot build the generator: %s\n%s" % (" ".join(cmd), err[-2000:]))
        self.gendir = os.path.join(self.work, "gen")
        shutil.rmtree(self.gendir, ignore_errors=True)
        cmd = [gen, "campaign", "--seed", str(self.a.seed), "--count", str(self.a.count), "--batch", str(self.a.batch),
               "--out", self.gendir, "--transcendental-every", str(self.a.transcendental_every)]
        if self.a.region_chance is not None:
            cmd += ["--region-chance", str(self.a.region_chance)]
        if self.a.lower_chance is not None:
            cmd += ["--lower-chance", str(self.a.lower_chance)]
        rc, out, err = self.sh(cmd)
        if rc != 0:
            raise SystemExit("random-campaign: the generator failed: %s" % (out + err)[-2000:])
        self.log(out.strip())
        with open(os.path.join(self.gendir, "manifest.jsonl")) as f:
            cases = [json.loads(line) for line in f if line.strip()]
        if self.a.only:
            keep = {int(x) for x in self.a.only.split(",")}
            cases = [c for c in cases if c["index"] in keep]
        return cases

    # -- 2. halos and inputs --------------------------------------------------------------------
    def info(self, path):
        """kernel name -> {halo, params, axes, lower (lower-rank inputs' axes), fields (kernel order, with roles)},
        or (None, error)."""
        rc, out, err = self.sh([self.stnc, "info", path], timeout=120)
        if rc != 0:
            return None, self.failure(rc, out, err)
        info = json.loads(out)
        rc, jout, err = self.sh([self.stnc, path, "--emit=json"], timeout=120)
        if rc != 0:
            return None, self.failure(rc, jout, err)
        order = {k["name"]: k for k in json.loads(jout)["kernels"]}
        kernels = {}
        for k in info.get("stencils", []) + info.get("groups", []):
            j = order.get(k["name"], {})
            kernels[k["name"]] = {"halo": k["halo"], "params": k.get("params", []), "axes": k["axes"],
                                  "lower": k.get("field_axes", {}),  # lower-rank inputs: name -> their axes
                                  "align_region_column": k.get("align_region_column", 0),
                                  "fields": [{"name": f["name"], "role": f["role"]} for f in j.get("fields", [])]}
        return kernels, None

    def attach_info(self, cases):
        files = sorted({c["file"] for c in cases})
        res = dict(zip(files, self.pool(lambda f: self.info(os.path.join(self.gendir, f)), files)))
        singles = []
        for c in cases:
            kernels, err = res[c["file"]]
            if kernels is None:  # a rejected batch: each of its cases from its own file
                c["batch_error"] = err
                c["file"] = c["single"]
                singles.append(c)
            else:
                c["k"] = kernels.get(c["kernel"])
        if singles:
            self.log("%d batch file(s) rejected by stnc: their cases run from single files" % len({c["single"] for c in singles}))
            for c, (kernels, err) in zip(singles, self.pool(lambda c: self.info(os.path.join(self.gendir, c["single"])), singles)):
                c["k"] = kernels.get(c["kernel"]) if kernels else None
                if kernels is None:
                    c["error"] = ("stnc " if err.startswith("CRASHED") else "stnc rejects the program: ") + err
        for c in cases:
            if not c.get("error") and (not c.get("k") or not c["k"]["fields"]):
                c["error"] = "stnc info / --emit=json list no kernel %s" % c["kernel"]

    def make_inputs(self, c, r):
        run = c["runs"][r]
        k = c["k"]
        halo = k["halo"]
        f32 = c["type"] == "f32"
        d = os.path.join(self.work, "runs", "c%d_r%d" % (c["index"], r))
        os.makedirs(d, exist_ok=True)
        rng = random.Random(int(run["inputseed"]) ^ 0x5EED)
        special = (c["index"] * 2 + r) % 8 == 7  # NaN and +-inf in a few cells
        ins, full_paths = {}, {}
        for fld in c["fields"]:
            if fld["role"] == "out":
                continue
            name = fld["name"]
            ruled = set(c["ruled"].get(name, []))
            lower = gc.field_axes(k, name) is not None  # a lower-rank input: n + 2*halo along its own axes, never ruled
            filled = all(halo[a] == 0 or a in ruled for a in range(c["rank"]))
            interior = run["interior"] and filled and not lower
            shape = gc.field_shape(k, name, run["size"]) if lower else \
                [run["size"][a] + (0 if interior else 2 * halo[a]) for a in range(c["rank"])]
            count = 1
            for s in shape:
                count *= s
            if np is not None:  # the same distribution, vectorised
                g = np.random.default_rng(rng.getrandbits(64))
                u = g.random(count)
                v = g.random(count) * 4.0 - 2.0
                v[u < 0.12] = g.integers(-3, 4, size=count)[u < 0.12]
                v[u < 0.07] = -0.0
                v[u < 0.05] = 0.0
                if special:
                    pick = (u >= 0.12) & (u < 0.126)
                    v[pick] = np.array([np.nan, np.inf, -np.inf])[g.integers(0, 3, size=count)][pick]
                data = v.astype("<f4" if f32 else "<f8").tobytes()
            else:
                vals = array.array("f" if f32 else "d")
                for _ in range(count):
                    u = rng.random()
                    if u < 0.05:
                        v = 0.0
                    elif u < 0.07:
                        v = -0.0
                    elif u < 0.12:
                        v = float(rng.randint(-3, 3))
                    elif special and u < 0.126:
                        v = rng.choice((float("nan"), float("inf"), float("-inf")))
                    else:
                        v = rng.random() * 4.0 - 2.0
                    vals.append(v)
                if sys.byteorder != "little":
                    vals.byteswap()
                data = vals.tobytes()
            p = os.path.join(d, "in_%s.npy" % name)
            with open(p + ".tmp", "wb") as fh:
                fh.write(gc.npy_bytes("<f4" if f32 else "<f8", shape, data))
            os.replace(p + ".tmp", p)
            ins[name] = p
            if interior:  # the harness takes n + 2*halo: zeros in the halo, as `stnc run` leaves it
                es = 4 if f32 else 8
                full = [run["size"][a] + 2 * halo[a] for a in range(c["rank"])]
                ext = [1] * (3 - c["rank"]) + full
                inner = [1] * (3 - c["rank"]) + shape
                off = [0] * (3 - c["rank"]) + list(halo)
                buf = bytearray(ext[0] * ext[1] * ext[2] * es)
                row = inner[2] * es
                pos = 0
                for x in range(inner[0]):
                    for y in range(inner[1]):
                        at = (((x + off[0]) * ext[1] + y + off[1]) * ext[2] + off[2]) * es
                        buf[at:at + row] = data[pos:pos + row]
                        pos += row
                p = os.path.join(d, "full_%s.npy" % name)
                with open(p, "wb") as fh:
                    fh.write(gc.npy_bytes("<f4" if f32 else "<f8", full, bytes(buf)))
            full_paths[name] = p
        c.setdefault("sources", {})[r] = self.make_sources(c, r, d)
        return d, ins, full_paths

    def make_sources(self, c, r, d):
        """Point sources (`stnc run --source`) for a time-stepping run: in 60 % of them 1-3 sources on fields
        that keep their values between steps (inout or in a swap pair; not on pure outputs, whose unwritten
        points must stay untouched), at random interior points (sometimes a corner), each with a random
        wavelet of `steps` values in [-2, 2) (float64 .npy). Deterministic per case and run."""
        run = c["runs"][r]
        rng = random.Random(int(run["inputseed"]) ^ 0x50C5)
        kept = [f["name"] for f in c["fields"] if f["role"] == "inout" or any(f["name"] in p for p in c["swaps"])]
        if not run["steps"] or not kept or rng.random() >= 0.6:
            return []
        out = []
        for q in range(rng.randint(1, 3)):
            at = [rng.choice((0, n - 1)) if rng.random() < 0.25 else rng.randrange(n) for n in run["size"]]
            wave = [rng.random() * 4.0 - 2.0 for _ in range(run["steps"])]
            p = os.path.join(d, "wave%d.npy" % q)
            with open(p, "wb") as fh:
                fh.write(gc.npy_bytes("<f8", [len(wave)], struct.pack("<%dd" % len(wave), *wave)))
            out.append({"field": rng.choice(kept), "at": at, "path": p, "wave": wave})
        return out

    # -- 3. runs --------------------------------------------------------------------------------
    def compared(self, c, r):
        steps = c["runs"][r]["steps"]
        return [f["name"] for f in c["fields"] if (steps > 0 and gc.field_axes(c["k"], f["name"]) is None) or f["role"] != "in"]

    def run_cmd(self, c, r, backend, sched_args, tag, stn=None):
        run = c["runs"][r]
        cmd = [self.stnc, "run", stn or os.path.join(self.gendir, c["file"]), "--stencil", c["kernel"],
               "--size", "x".join(str(n) for n in run["size"]), "--backend", backend] + list(sched_args)
        if run["steps"]:
            cmd += ["--steps", str(run["steps"])]
        for p, v in sorted(run["params"].items()):
            cmd += ["--param", "%s=%r" % (p, v)]
        for f, p in sorted(c["inputs"][r].items()):
            cmd += ["--in", "%s=%s" % (f, p)]
        for f in self.compared(c, r):
            cmd += ["--out", "%s=%s" % (f, os.path.join(c["dirs"][r], "%s_%s.npy" % (tag, f)))]
        cmd += gc.source_args(c.get("sources", {}).get(r, []))
        return cmd

    def cache_env(self, fl, variant):
        env = dict(self.env)
        env["STNC_CACHE_DIR"] = os.path.join(self.work, "cache", os.path.splitext(os.path.basename(fl))[0], variant)
        return env

    def build(self, item):
        """(file, variant, backend, args, case, run): `stnc run` of one program builds the shared
        object of the whole file into the cache; its outputs are kept (tag sr-VARIANT)."""
        fl, variant, backend, args, c, r = item
        key = (fl, variant)
        if time.time() > self.deadline:
            self.builds[key] = {"status": "not run", "error": "time budget"}
            return
        rc, out, err = self.sh(self.run_cmd(c, r, backend, args, "sr-" + variant), timeout=max(60, self.a.run_timeout),
                               env=self.cache_env(fl, variant))
        if rc == 0:
            self.builds[key] = {"status": "ok", "case": c["index"], "run": r}
        elif self.a.dry_run and backend == "cuda" and "no CUDA device" in err:
            self.builds[key] = {"status": "built"}
        else:
            self.builds[key] = {"status": "error", "error": self.failure(rc, out, err)}

    def variant_options(self, rank, variant):
        """The stnc options of a device variant or CPU reference."""
        for n, a, _ in self.devvars.get(rank, []):
            if n == variant:
                return a
        return self.refs.get(variant, [])

    def harness(self, item):
        """(file, variant, backend, [cases]): every run of every case of the file, one process."""
        fl, variant, backend, cases = item
        b = self.builds.get((fl, variant), {"status": "not run"})
        def mark(res):
            for c in cases:
                for r in range(len(c["runs"])):
                    c["results"][(r, variant)] = dict(res)
        if b["status"] != "ok":
            return mark({"status": "error" if b["status"] == "error" else "not run",
                         "error": "build failed: " + b.get("error", "") if b["status"] == "error" else b.get("error", "")})
        if time.time() > self.deadline:
            return mark({"status": "not run", "error": "time budget"})
        libs = [os.path.join(dp, "lib.so") for dp, _, fs in os.walk(self.cache_env(fl, variant)["STNC_CACHE_DIR"]) if "lib.so" in fs]
        if not libs:
            return mark({"status": "error", "error": "no cached lib.so for %s %s" % (fl, variant)})
        # The cache outlives campaigns: an earlier stnc (another cache key) may have left its own shared
        # object next to the one the build step just used, which is the newest.
        libs.sort(key=os.path.getmtime)
        runs, ids = [], {}
        for c in cases:
            k = c["k"]
            # the layout the build's entry point makes (layout() aligns rows on a region's column under --align-region=on)
            align = k.get("align_region_column", 0) if "--align-region=on" in self.variant_options(c["rank"], variant) else 0
            for r in range(len(c["runs"])):
                run = c["runs"][r]
                rid = len(runs)
                ids[rid] = (c, r)
                runs.append({"id": rid, "type": c["type"], "n": run["size"], "halo": k["halo"], "align": align,
                             "entry": "stnc_entry_%s_%s" % (c["kernel"], backend),
                             "fields": [{"name": f["name"], "role": f["role"], "input": c["full"][r].get(f["name"]),
                                         "axes": gc.field_axes(k, f["name"])} for f in k["fields"]],
                             "swaps": c["swaps"], "params": [run["params"][p] for p in k["params"]], "steps": run["steps"],
                             "sources": gc.harness_sources([f["name"] for f in k["fields"]], c.get("sources", {}).get(r, [])),
                             "outputs": {f: os.path.join(c["dirs"][r], "%s_%s.npy" % (variant, f)) for f in self.compared(c, r)}})
        tag = "%s-%s" % (os.path.splitext(os.path.basename(fl))[0], variant)
        spec = {"lib": libs[-1], "runs": runs, "result": os.path.join(self.work, "harness", tag + ".result.json")}
        os.makedirs(os.path.join(self.work, "harness"), exist_ok=True)
        sp = os.path.join(self.work, "harness", tag + ".json")
        with open(sp, "w") as fh:
            json.dump(spec, fh)
        rc, out, err = self.sh([sys.executable, gc.__file__, "--harness", sp],
                               timeout=max(60, min(self.a.run_timeout * 4, int(self.deadline - time.time()) + 120)))
        try:
            with open(spec["result"]) as fh:
                results = {x["id"]: x for x in json.load(fh)}
        except (OSError, ValueError):
            results = {}
        for rid, (c, r) in ids.items():
            x = results.get(rid)
            if x is None:
                res = {"status": "error", "error": "harness died (rc %d) before this run: %s" % (rc, (err.strip() or out.strip())[-800:])}
            elif x.get("error") or x.get("status"):
                res = {"status": "error", "error": x.get("error") or "entry returned %s: %s" % (x["status"], x.get("message"))}
            elif x.get("stray"):
                res = {"status": "error", "error": "writes outside the interior (+ halo): %s" % x["stray"]}
            else:
                res = {"status": "ok"}
            c["results"][(r, variant)] = res

    def interp_run(self, item):
        c, r, name, args = item
        if time.time() > self.deadline:
            c["results"][(r, name)] = {"status": "not run", "error": "time budget"}
            return
        rc, out, err = self.sh(self.run_cmd(c, r, "interp", args, name), timeout=max(60, self.a.run_timeout))
        c["results"][(r, name)] = {"status": "ok"} if rc == 0 else {"status": "error", "error": self.failure(rc, out, err)}

    # -- 4. comparison --------------------------------------------------------------------------
    def compare_arrays(self, typ, b1, b2, transcendental):
        """-> (verdict, stats): verdict 'identical' | 'tolerance' | 'libm' | 'mismatch'."""
        es = 4 if typ == "f32" else 8
        n = len(b1) // es
        st = {"points": n}
        if b1 == b2:
            return "identical", st
        if len(b1) != len(b2):
            st["note"] = "sizes differ"
            return "mismatch", st
        code = "f" if es == 4 else "d"
        ucode = "I" if es == 4 else "Q"
        if np is not None:
            dt = np.dtype("<f4" if es == 4 else "<f8")
            x = np.frombuffer(b1, dt).astype(np.float64)
            y = np.frombuffer(b2, dt).astype(np.float64)
            xi = np.frombuffer(b1, "<u4" if es == 4 else "<u8")
            yi = np.frombuffer(b2, "<u4" if es == 4 else "<u8")
            same = (xi == yi) | (np.isnan(x) & np.isnan(y))
            bad = np.nonzero(~same)[0]
            diff = [(int(i), float(x[i]), float(y[i]), int(xi[i]), int(yi[i])) for i in bad]
        else:
            xs = struct.unpack("<%d%s" % (n, code), b1)
            ys = struct.unpack("<%d%s" % (n, code), b2)
            xis = struct.unpack("<%d%s" % (n, ucode), b1)
            yis = struct.unpack("<%d%s" % (n, ucode), b2)
            diff = [(i, xs[i], ys[i], xis[i], yis[i]) for i in range(n)
                    if xis[i] != yis[i] and not (xs[i] != xs[i] and ys[i] != ys[i])]
        if not diff:
            st["nan_payloads"] = True
            return "identical", st
        elem = gc.Elem(typ)
        beyond = []
        for i, x, y, xb, yb in diff:
            if transcendental and math.isfinite(x) and math.isfinite(y) and (
                    abs(elem.ordered(x) - elem.ordered(y)) <= ULP or abs(x - y) <= REL[typ] * max(1.0, abs(x), abs(y))):
                continue
            beyond.append((i, x, y, xb, yb))
        st["differing"] = len(diff)
        st["beyond"] = len(beyond)
        hexw = 8 if es == 4 else 16
        st["first"] = ["[%d] cpu %r (0x%0*x) vs %r (0x%0*x)" % (i, x, hexw, xb, y, hexw, yb) for i, x, y, xb, yb in (beyond or diff)[:3]]
        if not beyond:
            return "tolerance", st
        return ("libm" if transcendental else "mismatch"), st

    # -- points no equation writes (regions) -------------------------------------------------------
    def unwritten(self, c, r, f):
        """Flat indices (C order over the interior) of the points of output f that no equation writes, where
        f's buffers start without data (a pure output outside every swap); None when there are none. A stencil
        with regions writes an output only in the parts with an equation of it (the default equations: outside
        every region); elsewhere the buffer keeps what it held: `stnc run`'s zeros, the poison harness's NaN."""
        regions = c.get("regions") or []
        if not regions or f in {x for p in c["swaps"] for x in p} or \
                next((x["role"] for x in c["fields"] if x["name"] == f), "out") != "out":
            return None
        key = (r, f)
        cache = c.setdefault("unwritten", {})
        if key in cache:
            return cache[key]
        idx = gc.unwritten_points(c["runs"][r]["size"], regions, c["written"].get(f, []))
        cache[key] = idx or None
        return cache[key]

    def from_stnc_run(self, tag):
        """Whether outputs tagged `tag` come from `stnc run` (zeroed buffers) rather than the poison harness."""
        return tag.startswith("sr-") or (self.a.dry_run and tag not in self.refs)

    def untouched(self, typ, b1, b2, tags, idx):
        """-> (b1, b2, problem): at the unwritten points `idx` each side must hold its buffer's start value (+0
        from `stnc run`, the harness's NaN poison); those points are then set equal, for the comparison of the rest."""
        elem = gc.Elem(typ)
        out, problems = [], []
        for b, tag in ((b1, tags[0]), (b2, tags[1])):
            start = b"\0" * elem.size if self.from_stnc_run(tag) else elem.nan
            settled, bad, first = gc.settle(elem, b, idx, start)
            if bad:
                v = struct.unpack("<" + elem.code, b[first * elem.size:(first + 1) * elem.size])[0]
                problems.append("%s wrote %d of the %d points no equation writes (first [%d] = %r)" % (
                    tag, bad, len(idx), first, v))
            out.append(settled)
        return out[0], out[1], "; ".join(problems)

    def evaluate(self, c, r, name, ref="cpu", exact=False):
        """Compares variant `name` of run r with the CPU run (or the outputs tagged `ref`)."""
        res = c["results"].get((r, name), {"status": "not run"})
        cpu = c["results"].get((r, ref), {"status": "ok"} if ref.startswith("sr-") else {"status": "not run"})
        if res["status"] == "not run" or cpu["status"] == "not run":
            return {"verdict": "not run"}
        if cpu["status"] != "ok":
            return {"verdict": "error", "why": "cpu run failed: " + cpu.get("error", "")}
        if res["status"] != "ok":
            return {"verdict": "error", "why": "%s run failed: %s" % (name, res.get("error", ""))}
        worst, fields = "identical", {}
        order = ["identical", "tolerance", "libm", "mismatch"]
        for f in self.compared(c, r):
            try:
                d1, s1, b1 = gc.read_npy(os.path.join(c["dirs"][r], "%s_%s.npy" % (ref, f)))
                d2, s2, b2 = gc.read_npy(os.path.join(c["dirs"][r], "%s_%s.npy" % (name, f)))
            except (OSError, ValueError) as e:
                return {"verdict": "error", "why": "%s: cannot read an output: %s" % (f, e)}
            idx = self.unwritten(c, r, f)
            problem = ""
            if d1 != d2 or s1 != s2:
                v, st = "mismatch", {"note": "dtype/shape %s%s vs %s%s" % (d1, s1, d2, s2)}
            else:
                if idx and len(b1) == len(b2):
                    b1, b2, problem = self.untouched(c["type"], b1, b2, (ref, name), idx)
                v, st = self.compare_arrays(c["type"], b1, b2, c["transcendental"] and not exact)
            if problem:
                v = "mismatch"
                st["note"] = problem
                st.setdefault("differing", "?")
            if v != "identical":
                fields[f] = st
            if order.index(v) > order.index(worst):
                worst = v
        return {"verdict": worst, "fields": fields}

    # -- 5. reproducers and report --------------------------------------------------------------
    def reproducer(self, c, r, name):
        args, ref = next(((a, rf) for n, a, rf in self.devvars[c["rank"]] if n == name), None) or (
            self.refs.get(name, []), name)  # a device variant, or a build whose harness run differed
        d = os.path.join(self.out, "repro", "c%d_r%d_%s" % (c["index"], r, name))
        os.makedirs(d, exist_ok=True)
        shutil.copy(os.path.join(self.gendir, c["single"]), os.path.join(d, "case.stn"))
        small = sum(os.path.getsize(p) for p in c["inputs"][r].values()) <= self.a.repro_bytes
        lines = ["#!/usr/bin/env bash",
                 "# random campaign seed %d, case %d (%s), run %d, schedule %s" % (self.a.seed, c["index"], c["kernel"], r, name),
                 "# Regenerate everything: python3 scripts/gpu/random_campaign.py --seed %d --count %d --only %d%s%s%s"
                 % (self.a.seed, self.a.count, c["index"],
                    # the generator options that change the programs
                    " --transcendental-every %d" % self.a.transcendental_every if self.a.transcendental_every != 4 else "",
                    (" --region-chance %g" % self.a.region_chance if self.a.region_chance is not None else "") +
                    (" --lower-chance %g" % self.a.lower_chance if self.a.lower_chance is not None else ""),
                    " --dry-run" if self.a.dry_run else ""),
                 "set -e", 'cd "$(dirname "$0")"', 'STNC=${STNC:-stnc}']
        for backend, tag, a in (("cpu", ref, self.refs.get(ref, [])), (self.device if name not in self.refs else "cpu", name, args)):
            cmd = self.run_cmd(c, r, backend, a, tag, stn="case.stn")
            cmd[0] = "$STNC"
            cmd = [x.replace(c["dirs"][r] + os.sep, "") for x in cmd]
            lines.append(" ".join(x if x == "$STNC" else shlex.quote(x) for x in cmd))
        if small:
            for p in c["inputs"][r].values():
                shutil.copy(p, d)
            for f in self.compared(c, r):
                for tag in ("cpu", name):
                    p = os.path.join(c["dirs"][r], "%s_%s.npy" % (tag, f))
                    if os.path.exists(p) and os.path.getsize(p) <= self.a.repro_bytes:
                        shutil.copy(p, os.path.join(d, "got_" + os.path.basename(p)))
        else:
            lines.insert(3, "# (inputs too large to keep here: regenerate them with the command above)")
        with open(os.path.join(d, "repro.sh"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
        return os.path.relpath(d, self.out)

    def environment(self):
        env = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
               "host": os.uname().nodename, "cores": self.cores, "jobs": self.jobs,
               "mode": "DRY RUN (no GPU: the interpreter stands in for CUDA)" if self.a.dry_run else
               "FAKE CUDA (the CPU backend stands in: a test of this script)" if self.a.fake_cuda else "gpu"}
        env["gpu"] = self.first_line(["nvidia-smi", "-L"]) if shutil.which("nvidia-smi") else "no nvidia-smi"
        nvcc = os.environ.get("NVCC") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else "nvcc")
        rc, out, err = self.sh([nvcc, "--version"], timeout=60)
        env["nvcc"] = (out.strip().splitlines() or ["?"])[-1] if rc == 0 else "unavailable"
        env["cxx"] = self.first_line([os.environ.get("CXX", "c++"), "--version"])
        env["stnc"] = self.first_line([self.stnc, "--version"])
        rc, out, _ = self.sh(["git", "-C", self.root, "rev-parse", "--short", "HEAD"], timeout=20)
        env["commit"] = out.strip() if rc == 0 else "unknown"
        rc, out, _ = self.sh(["git", "-C", self.root, "status", "--porcelain", "--untracked-files=no"], timeout=20)
        if rc == 0 and out.strip():
            env["commit"] += " (+ local changes)"
        return env

    def main(self):
        env = self.environment()
        for k in ("date", "mode", "gpu", "nvcc", "cxx", "stnc", "commit"):
            print("%-8s %s" % (k + ":", env[k]))
        if not os.access(self.stnc, os.X_OK):
            raise SystemExit("random-campaign: %s is not executable" % self.stnc)
        rc, help_text, _ = self.sh([self.stnc, "run", "--help"], timeout=60)
        only = set(self.a.schedules.split(",")) if self.a.schedules else None
        extra = [(v.split("=", 1)[0], v.split("=", 1)[1].split()) for v in self.a.variant]
        sched = {r: schedule_candidates(help_text, r, only, extra) for r in (1, 2, 3)}
        # --fp-contract=on changes the CPU code too: its CUDA (or interpreter) runs are compared with
        # a CPU build of their own (reference "cpu-fma"); everything else with plain "cpu"
        fma = "--fp-contract" in help_text and not self.a.no_fma
        self.refs = {"cpu": []}
        if fma:
            self.refs["cpu-fma"] = ["--fp-contract=on"]
        if "--factor-sums" in help_text:  # factor-sums reassociates on the CPU too: its runs get a reference of their own
            self.refs["cpu-factor"] = ["--factor-sums=on", "--fp-contract=on"]
        ref = lambda a: "cpu-factor" if "--factor-sums=on" in a else "cpu"  # noqa: E731
        self.devvars = {}  # rank -> [(name, stnc options, reference)]
        for r in (1, 2, 3):
            if self.a.dry_run:
                v = [("interp", [], "cpu")] + ([("interp-fma", ["--fp-contract=on"], "cpu-fma")] if fma else [])
            elif fma and len(sched[r]) > 1:
                # FMA rides on one schedule variant (one nvcc build per file less than a variant of
                # its own): rank 1-2 the second block shape, rank 3 the odd-chunk stream one
                plain = [i for i, (_, a) in enumerate(sched[r]) if "--fp-contract=on" not in a]
                host = next((i for i in plain if sched[r][i][0].startswith("stream-64x4")), plain[-1] if plain else -1)
                v = [(n, a, ref(a)) if i != host else (n + "-fma", a + ["--fp-contract=on"], "cpu-fma")
                     for i, (n, a) in enumerate(sched[r])]
            else:
                v = [(n, a, ref(a)) for n, a in sched[r]] + ([("fma", ["--fp-contract=on"], "cpu-fma")] if fma else [])
            self.devvars[r] = v
        cases = self.generate()
        self.attach_info(cases)
        self.log("%d programs; compared with the CPU backend: rank 1-2: %s; rank 3: %s" % (
            len(cases), ", ".join(n for n, _, _ in self.devvars[1]), ", ".join(n for n, _, _ in self.devvars[3])))
        # inputs
        for c in cases:
            c["runs"] = c["runs"][:self.a.runs]
            c["inputs"], c["full"], c["dirs"], c["results"] = {}, {}, {}, {}
        todo = [(c, r) for c in cases if not c.get("error") for r in range(len(c["runs"]))]
        def inputs(cr):
            c, r = cr
            c["dirs"][r], c["inputs"][r], c["full"][r] = self.make_inputs(c, r)
        self.pool(inputs, todo)
        self.log("inputs written for %d runs" % len(todo))
        # builds: one `stnc run` per file and variant, the slowest (CUDA, rank 3) first
        byfile = {}
        for c in cases:
            if not c.get("error"):
                byfile.setdefault(c["file"], []).append(c)
        # one task per file and variant: build (one `stnc run`), then run every program of the file
        # through the harness
        self.builds = {}
        tasks = []
        for fl, cs in byfile.items():
            rank = cs[0]["rank"]
            variants = [(n, "cpu", a) for n, a in self.refs.items()]
            if not self.a.dry_run:  # --fake-cuda: the CPU backend stands in (a test of this script's GPU mode)
                variants += [(n, "cpu" if self.a.fake_cuda else "cuda", a) for n, a, _ in self.devvars[rank]]
            elif self.a.cuda_build:
                extra = [("fma", self.refs["cpu-fma"])] if "cpu-fma" in self.refs else []
                tasks += [(fl, "cuda-build-" + n, "cuda", a, cs, False) for n, a in sched[rank] + extra]
            tasks += [(fl, name, backend, a, cs, True) for name, backend, a in variants]
        # the CPU builds first (quick, and every comparison needs them), then the CUDA ones round by round: every
        # file's first variant (the policy) before any file's second, ..., the slowest (rank 3) first within a
        # round, so a campaign cut short by --budget has covered every rank with the leading variants
        pos = {(r, n): i for r, vs in self.devvars.items() for i, (n, _, _) in enumerate(vs)}
        tasks.sort(key=lambda t: (not t[1].startswith("cpu"), pos.get((t[4][0]["rank"], t[1]), 0), -t[4][0]["rank"]))
        self.log("%d builds (one `stnc run` per file and variant), each followed by one harness process "
                 "running all of the file's programs; %d jobs" % (len(tasks), self.jobs))
        done = [0]
        def task(t):
            fl, name, backend, a, cs, run_all = t
            self.build((fl, name, backend, a, cs[0], 0))
            if run_all:
                self.harness((fl, name, backend, cs))
            with self.lock:
                done[0] += 1
                n = done[0]
            b = self.builds[(fl, name)]
            self.log("%3d/%d %s %s: build %s" % (n, len(tasks), os.path.basename(fl), name, b["status"]))
        self.pool(task, tasks)
        if self.a.dry_run:
            items = [(c, r, n, a) for c, r in todo for n, a, _ in self.devvars[c["rank"]]]
            self.log("interpreter: %d runs" % len(items))
            self.pool(self.interp_run, items)
        if self.a.selftest_corrupt:
            self.corrupt(cases, sched)
        self.log("comparing")
        return self.report(cases, sched, env)

    def corrupt(self, cases, sched):
        """--selftest-corrupt: flips the last bit of one device output value, which the report must
        catch as exactly one mismatch with a reproducer (a test of this script)."""
        c = next(x for x in cases if not x.get("error"))
        name = self.devvars[c["rank"]][0][0]
        f = self.compared(c, 0)[0]
        path = os.path.join(c["dirs"][0], "%s_%s.npy" % (name, f))
        descr, shape, data = gc.read_npy(path)
        es = 4 if descr == "<f4" else 8
        raw = bytearray(data)
        raw[0] ^= 1  # lowest mantissa bit of element 0 (little-endian)
        with open(path, "wb") as fh:
            fh.write(gc.npy_bytes(descr, list(shape), bytes(raw)))
        self.corrupted = (c["index"], 0, name, f, es)
        self.log("selftest: corrupted %s of case %d run 0 (%s)" % (f, c["index"], name))

    def report(self, cases, sched, env):
        failures, libm, per = [], [], {}
        for c in cases:
            if c.get("error"):
                failures.append({"case": c, "run": None, "sched": "-", "verdict": "error", "why": c["error"]})
                continue
            for r in range(len(c["runs"])):
                for name, _, ref in self.devvars[c["rank"]]:
                    ev = self.evaluate(c, r, name, ref=ref)
                    p = per.setdefault((c["rank"] == 3, name), {"identical": 0, "tolerance": 0, "libm": 0, "mismatch": 0,
                                                                "error": 0, "not run": 0})
                    p[ev["verdict"]] += 1
                    item = {"case": c, "run": r, "sched": name, **ev}
                    if ev["verdict"] in ("mismatch", "error"):
                        failures.append(item)
                    elif ev["verdict"] == "libm":
                        libm.append(item)
        # the harness ran each build's program too: it must give `stnc run`'s outputs bit for bit
        harness_checked = 0
        for (fl, variant), b in sorted(self.builds.items()):
            if b["status"] != "ok":
                continue
            c = next(x for x in cases if x["index"] == b["case"])
            ev = self.evaluate(c, b["run"], variant, ref="sr-" + variant, exact=True)
            harness_checked += 1
            if ev["verdict"] not in ("identical", "not run"):
                ev["why"] = "the harness's output differs from `stnc run`'s (%s)" % ev.get("why", ev["verdict"])
                ev["verdict"] = "error"
                failures.append({"case": c, "run": b["run"], "sched": variant, **ev})
        builds = {k: v for k, v in self.builds.items() if k[1].startswith("cuda-build-")}
        if self.a.strict_libm:
            failures += libm
            libm = []
        # reproducers
        kept = 0
        for f in failures + libm:
            if f["run"] is None or kept >= self.a.max_repro:
                continue
            f["repro"] = self.reproducer(f["case"], f["run"], f["sched"])
            kept += 1
        build_fail = {k: v for k, v in builds.items() if v["status"] not in ("built", "ok")}
        n_prog = len(cases)
        ok_prog = sum(1 for c in cases if not c.get("error"))
        comparisons = sum(sum(p.values()) for p in per.values())
        not_run = sum(p["not run"] for p in per.values())
        elapsed = time.time() - self.t0
        ranks = {r: sum(1 for c in cases if c["rank"] == r) for r in (1, 2, 3)}
        with_sources = sum(1 for c in cases if any(c.get("sources", {}).values()))
        with_lower = sum(1 for c in cases if (c.get("k") or {}).get("lower"))
        summary = "%d programs (%d f32, %d with exp/log/pow/sin/cos, %d groups, %d with regions, %d with lower-rank inputs, " \
                  "%d with point sources), %d comparisons with the CPU backend: %d failed, %d libm differences beyond tolerance%s" % (
                      n_prog, sum(1 for c in cases if c["type"] == "f32"), sum(1 for c in cases if c["transcendental"]),
                      sum(1 for c in cases if c["group"]), sum(1 for c in cases if c.get("regions")), with_lower, with_sources,
                      comparisons,
                      len(failures), len(libm),
                      ", %d NOT RUN (time budget)" % not_run if not_run else "")
        if self.a.dry_run:
            summary += " [DRY RUN: interpreter vs CPU%s]" % (
                "; CUDA builds %d/%d ok" % (len(builds) - len(build_fail), len(builds)) if self.a.cuda_build else "")
        cmd = os.environ.get("GPU_RANDOM_CMD") or " ".join(shlex.quote(x) for x in sys.argv)
        md = ["# stnc random campaign: %s vs CPU backend — %s" % ("interpreter (DRY RUN)" if self.a.dry_run else "CUDA",
                                                              env["date"]), "",
              "| | |", "| --- | --- |"] + ["| %s | %s |" % (k, str(env[k]).replace("|", "/")) for k in
                                          ("mode", "gpu", "nvcc", "cxx", "stnc", "commit")] + [
              "| command | `%s` |" % cmd,
              "| generator | seed %d, %d programs (rank 1: %d, rank 2: %d, rank 3: %d; with regions: %d, rank 3: %d), %d per file, "
              "exp/log/pow/sin/cos in every %d-th |"
              % (self.a.seed, n_prog, ranks[1], ranks[2], ranks[3], sum(1 for c in cases if c.get("regions")),
                 sum(1 for c in cases if c.get("regions") and c["rank"] == 3), self.a.batch, self.a.transcendental_every),
              "| runs per program | %d (odd extents: the generator's small ones, then medium ones) |" % self.a.runs,
              "| variants, rank 1-2 | %s |" % ", ".join("`%s` (%s; vs `%s`)" % (n, " ".join(a), rf) for n, a, rf in self.devvars[1]),
              "| variants, rank 3 | %s |" % ", ".join("`%s` (%s; vs `%s`)" % (n, " ".join(a), rf) for n, a, rf in self.devvars[3]),
              "| CPU references | %s |" % ", ".join("`%s` (%s)" % (n, " ".join(a) or "default options") for n, a in self.refs.items()),
              "| stnc processes | %d |" % self.counts["processes"],
              "| elapsed | %.0f s on %d cores, %d jobs |" % (elapsed, self.cores, self.jobs), "",
              "Compared: every output (every field after `--steps N`), bit for bit for programs without "
              "exp/log/pow/sin/cos (f64 and f32; NaN equals NaN whatever its payload); with them <= %d ulp or "
              "%g (f64) / %g (f32) of max(1, |x|, |y|) per value, beyond that a libm difference%s. Inputs include "
              "+-0 and small integers; every 8th run also NaN and +-inf." % (
                  ULP, REL["f64"], REL["f32"], " (a failure with --strict-libm)" if self.a.strict_libm else ""), "",
              "## Per schedule", "",
              "| ranks | schedule | identical | within tolerance | libm beyond | MISMATCH | ERROR | not run |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for (r3, name), p in sorted(per.items()):
            md.append("| %s | `%s` | %d | %d | %d | %d | %d | %d |" % (
                "3" if r3 else "1-2", name, p["identical"], p["tolerance"], p["libm"], p["mismatch"], p["error"], p["not run"]))
        def describe(f):
            c = f["case"]
            head = "- **case %d** `%s` (%s, rank %d%s%s%s), run %s, schedule `%s`: %s" % (
                c["index"], c["kernel"], c["type"], c["rank"], ", group" if c["group"] else "",
                ", transcendental" if c["transcendental"] else "",
                ", %d region%s" % (len(c["regions"]), "s" if len(c["regions"]) > 1 else "") if c.get("regions") else "",
                f["run"], f["sched"], f["verdict"].upper())
            out = [head]
            if c.get("regions"):  # name [lo:hi per axis] (the outputs it has equations for)
                out.append("  - regions: %s" % c.get("region_text", ""))
            if f["run"] is not None:
                run = c["runs"][f["run"]]
                out.append("  - size %s, steps %d; reproducer: `%s`" % (
                    "x".join(map(str, run["size"])), run["steps"], f.get("repro", "(not kept: --max-repro)")))
            if f.get("why"):
                out.append("  - " + f["why"].strip().replace("\n", "\n    ")[:1500])
            for fld, st in sorted(f.get("fields", {}).items()):
                out.append("  - `%s`: %s of %s values differ%s; %s" % (
                    fld, st.get("differing", "?"), st.get("points", "?"),
                    " (%d beyond tolerance)" % st["beyond"] if "beyond" in st else "",
                    "; ".join(([st["note"]] if st.get("note") else []) + st.get("first", []))))
            return out
        if failures:
            md += ["", "## Failures", ""]
            for f in failures[:200]:
                md += describe(f)
        if libm:
            md += ["", "## libm differences beyond tolerance (programs with exp/log/pow/sin/cos)", ""]
            for f in libm[:100]:
                md += describe(f)
        if build_fail:
            md += ["", "## CUDA build failures (dry run)", ""]
            for (fl, name), v in sorted(build_fail.items()):
                md.append("- `%s` schedule `%s`: %s" % (fl, name, v.get("error", "")[:1500].replace("\n", "\n  ")))
        md += ["", "**%s**" % summary, ""]
        with open(os.path.join(self.out, "random-campaign.md"), "w") as fh:
            fh.write("\n".join(md))
        js = {"environment": env, "command": cmd, "summary": summary, "elapsed_s": round(elapsed, 1),
              "programs": n_prog, "programs_ok": ok_prog, "comparisons": comparisons,
              "per_schedule": [{"rank3": r3, "schedule": n, **p} for (r3, n), p in sorted(per.items())],
              "failures": [{"case": f["case"]["index"], "kernel": f["case"]["kernel"], "run": f["run"], "schedule": f["sched"],
                            "verdict": f["verdict"], "why": f.get("why"), "fields": f.get("fields"), "repro": f.get("repro")}
                           for f in failures],
              "libm": [{"case": f["case"]["index"], "run": f["run"], "schedule": f["sched"], "fields": f.get("fields"),
                        "repro": f.get("repro")} for f in libm]}
        with open(os.path.join(self.out, "random-campaign.json"), "w") as fh:
            json.dump(js, fh, indent=1, default=str)
        with open(os.path.join(self.out, "random-campaign.log"), "w") as fh:
            fh.write("\n".join(self.log_lines) + "\n")
        # stdout: the per-schedule table and the failures last (the device tool keeps the tail)
        print("\n" + "=" * 100)
        print("%-5s %-24s %9s %9s %6s %8s %6s %7s" % ("ranks", "schedule", "identical", "tolerance", "libm", "MISMATCH", "ERROR", "not run"))
        for (r3, name), p in sorted(per.items()):
            print("%-5s %-24s %9d %9d %6d %8d %6d %7d" % ("3" if r3 else "1-2", name, p["identical"], p["tolerance"], p["libm"],
                                                          p["mismatch"], p["error"], p["not run"]))
        for f in failures[:12]:
            print("\n".join(describe(f))[:700])
        for (fl, name), v in list(build_fail.items())[:5]:
            print("CUDA BUILD FAILED %s %s: %s" % (fl, name, v.get("error", "")[:400]))
        print("results: %s/random-campaign.md (.json, .log)%s  (%.0f s)" % (
            self.out, ", repro/" if os.path.isdir(os.path.join(self.out, "repro")) else "", elapsed))
        print(summary)
        ok = not failures and not build_fail and not not_run and ok_prog == n_prog and comparisons > 0
        if self.a.selftest_corrupt:
            idx, r, name, fld, _ = self.corrupted
            caught = [f for f in failures if (f["case"]["index"], f["run"], f["sched"]) == (idx, r, name)]
            good = (len(failures) == 1 and len(caught) == 1 and caught[0]["verdict"] == "mismatch" and
                    fld in caught[0].get("fields", {}) and caught[0].get("repro") and
                    os.path.exists(os.path.join(self.out, caught[0]["repro"], "repro.sh")))
            print("selftest: %s" % ("ok: the corrupted value was caught, reproducer %s" % caught[0]["repro"] if good else
                                   "FAILED: expected exactly one mismatch (case %d run %d %s field %s) with a reproducer"
                                   % (idx, r, name, fld)))
            return 0 if good else 1
        return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--stnc", default=os.environ.get("STNC", "build-static/stnc"))
    ap.add_argument("--gen", help="a built stnc_gen (default: build it from tests/random with g++)")
    ap.add_argument("--out", default=os.environ.get("OUT") or "build-gpu-random")
    ap.add_argument("--work", default=None, help="scratch directory (default: OUT/../random-campaign-work or a temp dir)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000, help="programs (default 1000)")
    ap.add_argument("--batch", type=int, default=40, help="programs per .stn file (default 40)")
    ap.add_argument("--runs", type=int, default=2, choices=(1, 2), help="runs per program: 1 = small extents only (default 2)")
    ap.add_argument("--transcendental-every", type=int, default=4)
    ap.add_argument("--region-chance", type=float, help="share of single stencils with regions (generator default 0.3)")
    ap.add_argument("--lower-chance", type=float,
                    help="share of single stencils of rank >= 2 with lower-rank inputs (generator default 0.3)")
    ap.add_argument("--schedules", help="comma list of schedule names to try (default: all candidates)")
    ap.add_argument("--only", help="comma list of case indices (reproduce a failure)")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=OPTIONS: one more rank-3 CUDA schedule variant (stnc options, space-separated), e.g. "
                         "'h-r4=--schedule stream --smem=on --queue-heads=global --rows 4' to bisect a failure")
    ap.add_argument("--jobs", type=int, default=0, help="parallel stnc processes (default: the number of cores)")
    ap.add_argument("--budget", type=float, default=330, help="seconds after which no new run starts (default 330)")
    ap.add_argument("--run-timeout", type=int, default=300)
    ap.add_argument("--dry-run", "--no-gpu", dest="dry_run", action="store_true",
                    help="no GPU: the interpreter stands in for CUDA (a test of the script and the CPU backend)")
    ap.add_argument("--cuda-build", action="store_true", help="with --dry-run: also build every file's CUDA code with nvcc")
    ap.add_argument("--no-fma", action="store_true", help="skip the --fp-contract=on variant")
    ap.add_argument("--fake-cuda", action="store_true", help=argparse.SUPPRESS)  # GPU mode, CPU backend as the device
    ap.add_argument("--strict-libm", action="store_true", help="libm differences beyond tolerance fail too")
    ap.add_argument("--max-repro", type=int, default=20)
    ap.add_argument("--selftest-corrupt", action="store_true",
                    help="test of this script: corrupt one output bit and check that exactly that mismatch is reported")
    ap.add_argument("--repro-bytes", type=int, default=1 << 20, help="keep inputs/outputs in a reproducer up to this size")
    a = ap.parse_args()
    if a.work is None:
        import tempfile
        a.work = tempfile.mkdtemp(prefix="stnc-random-campaign-")
    return Campaign(a).main()


if __name__ == "__main__":
    sys.exit(main())
