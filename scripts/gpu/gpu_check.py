#!/usr/bin/env python3
"""CPU-vs-CUDA validation of stnc's backends (driven by scripts/gpu-check.sh; see scripts/gpu/README.md).

For every stencil and group of every test file, at an odd and a power-of-two extent:
  * random inputs (shape n + 2*halo per axis, the kernel's dtype) and random params;
  * `stnc run --backend cpu` and `stnc run --backend cuda` on the same inputs (plus `--steps N` for
    kernels with a `swap`), outputs compared: f64 bit-identical (<= 4 ulp where the kernel uses
    exp/log/pow/sin/cos), f32 <= 1e-5 relative; no NaN;
  * a poison run: the generated entry point is called directly (ctypes, the cached .so that
    `stnc run` built) with every cell outside the supplied data set to NaN (the pads, and all of
    every `out` field); outputs must equal `stnc run`'s bit for bit, the pads must stay NaN, and
    an `out` field's halo must stay NaN (no stray writes);
  * compute-sanitizer memcheck and racecheck over the CUDA runs at the odd extent.
Writes gpu-check.md / gpu-check.json / logs into --out and prints a summary table last.

Pure Python 3.8+ (no numpy needed), so --dry-run works on machines without numpy and without a GPU:
there the CUDA code is still generated and compiled with nvcc (the run stops at "no CUDA device"),
and the CPU poison run stands in for the CUDA side of every comparison.
"""
import argparse
import array
import ast
import ctypes
import datetime
import glob
import hashlib
import itertools
import json
import math
import os
import random
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

try:
    import numpy as np  # optional: only makes the random inputs faster
except ImportError:
    np = None

TRANSCENDENTAL = {"exp", "log", "pow", "sin", "cos"}
DOMAIN_LIMITED = {"sqrt", "log", "pow"}  # positive inputs only (no NaN from the math itself)
# The 3-D odd extent is 53 columns wide along k (the contiguous axis): a box narrower than 3/4 of a tile goes to
# the one-point kernel, and the policy's ring tiles are 32 (f64, vec 2) and 64 (f32) columns wide, so 23 columns
# (before session 20) never reached the ring kernels in --quick runs.
ODD = {1: [101], 2: [37, 19], 3: [37, 19, 53]}
POW2 = {1: [1024], 2: [256, 256], 3: [64, 64, 64]}
F32_RTOL = 1e-5
F64_MAX_ULP = 4

# ----------------------------------------------------------------------------------------------
# .npy (version 1.0 written; 1.0-3.0 read), little-endian f4/f8 only.


def npy_bytes(descr, shape, data):
    dims = ", ".join("%d" % s for s in shape) + ("," if len(shape) == 1 else "")
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    total = 10 + len(hdr) + 1
    hdr += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode("latin1") + data


def read_npy(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    major = raw[6]
    if major == 1:
        hl, start = struct.unpack("<H", raw[8:10])[0], 10
    else:
        hl, start = struct.unpack("<I", raw[8:12])[0], 12
    hdr = ast.literal_eval(raw[start:start + hl].decode("latin1"))
    if hdr.get("fortran_order"):
        raise ValueError("%s: fortran order" % path)
    return hdr["descr"], tuple(hdr["shape"]), raw[start + hl:]


# ----------------------------------------------------------------------------------------------
# Element helpers (pure Python; the hot paths run at C speed through bytes/array/big-int ops).


class Elem:
    def __init__(self, typ):
        self.typ = typ
        self.size = 8 if typ == "f64" else 4
        self.code = "d" if typ == "f64" else "f"
        self.descr = "<f8" if typ == "f64" else "<f4"
        self.nan = struct.pack("<" + self.code, float("nan"))
        self.eps = 2.0 ** -52 if typ == "f64" else 2.0 ** -23

    def random_bytes(self, count, rng, signed):
        """count values uniform in [1,2) (with a random sign when signed), built from random bits."""
        if np is not None:  # same distribution, faster
            g = np.random.default_rng(rng.getrandbits(64))
            bits = g.integers(0, 1 << 62, size=count, dtype=np.int64).astype(np.uint64)
            if self.size == 8:
                v = (bits & np.uint64(0x000FFFFFFFFFFFFF)) | np.uint64(0x3FF0000000000000)
                if signed:
                    v |= (bits >> np.uint64(61)) << np.uint64(63)
                return v.astype("<u8").tobytes()
            b32 = bits.astype(np.uint32)
            v = (b32 & np.uint32(0x007FFFFF)) | np.uint32(0x3F800000)
            if signed:
                v |= ((bits >> np.uint64(61)).astype(np.uint32) & np.uint32(1)) << np.uint32(31)
            return v.astype("<u4").tobytes()
        raw = rng.getrandbits(8 * self.size * count).to_bytes(self.size * count, "little") if count else b""
        if self.size == 8:
            keep = b"\xff" * 6 + b"\x0f" + (b"\x80" if signed else b"\x00")
            setb = b"\x00" * 6 + b"\xf0\x3f"
        else:
            keep = b"\xff\xff\x7f" + (b"\x80" if signed else b"\x00")
            setb = b"\x00\x00\x80\x3f"
        k = int.from_bytes(keep * count, "little")
        s = int.from_bytes(setb * count, "little")
        v = (int.from_bytes(raw, "little") & k) | s
        return v.to_bytes(self.size * count, "little")

    def values(self, data):
        a = array.array(self.code)
        a.frombytes(data)
        if sys.byteorder != "little":
            a.byteswap()
        return a

    def ulp(self, x):
        """The spacing of this type's values at magnitude x (x finite)."""
        if x == 0:
            return 0.0
        return math.ldexp(1.0, math.frexp(abs(x))[1] - (53 if self.size == 8 else 24))

    def ordered(self, x):
        """Maps a float to an integer whose order is the float order (for ulp distances)."""
        if self.size == 8:
            i = struct.unpack("<q", struct.pack("<d", x))[0]
            return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)
        i = struct.unpack("<i", struct.pack("<f", x))[0]
        return i if i >= 0 else -(i & 0x7FFFFFFF)


def has_nan(values):
    s = sum(values)  # C loop; NaN or inf-inf propagates
    if s == s and not math.isinf(s):
        return 0
    return sum(1 for x in values if x != x)


def unwritten_points(n, regions, parts):
    """Flat indices (C order over the interior n) of the points no equation of an output writes: with regions
    a stencil writes an output only in the parts with an equation of it (`parts`: region indices, -1 = the
    default equations, which cover every point outside all regions). [] when every point is written."""
    if not regions:
        return []
    rank = len(n)
    parts = set(parts)
    # per region and axis: which coordinates lie inside it (lo <= x < n + hi)
    ins = [[[g["lo"][a] <= x < n[a] + g["hi"][a] for x in range(n[a])] for a in range(rank)] for g in regions]
    if np is not None:  # the same, as boolean masks (large extents)
        def box(g):
            m = np.ones(n, dtype=bool)
            for a in range(rank):
                shape = [1] * rank
                shape[a] = n[a]
                m = m & np.array(ins[g][a], dtype=bool).reshape(shape)
            return m
        boxes = [box(g) for g in range(len(regions))]
        written = np.zeros(n, dtype=bool)
        if -1 in parts:
            written |= ~np.logical_or.reduce(boxes)
        for g in parts - {-1}:
            written |= boxes[g]
        return np.nonzero(~written.reshape(-1))[0].tolist()
    idx = []
    for i, pt in enumerate(itertools.product(*[range(x) for x in n])):
        inr = [all(ins[g][a][pt[a]] for a in range(rank)) for g in range(len(regions))]
        if not ((-1 in parts and not any(inr)) or any(inr[g] for g in parts - {-1})):
            idx.append(i)
    return idx


def settle(elem, data, idx, start):
    """-> (data with the points idx set to +0, how many of them did not hold `start`, the first such index):
    points no equation writes must keep their buffer's start value (+0 from `stnc run`, NaN poison)."""
    es = elem.size
    raw = bytearray(data)
    bad = [i for i in idx if raw[i * es:(i + 1) * es] != start]
    for i in idx:
        raw[i * es:(i + 1) * es] = b"\0" * es
    return bytes(raw), len(bad), (bad[0] if bad else None)


def source_args(sources):
    """`stnc run` options for point sources [{field, at, path, ...}]: --source FIELD@I,J,K=WAVE.npy each."""
    return [x for q in sources for x in ("--source", "%s@%s=%s" % (q["field"], ",".join(map(str, q["at"])), q["path"]))]


def harness_sources(field_names, sources):
    """The same sources as the poison harness passes them to the entry point: field index, point, wavelet."""
    return [{"field": field_names.index(q["field"]), "at": q["at"], "wave": q["wave"]} for q in sources]


def compare(elem, ref_bytes, got_bytes, transcendental):
    """Returns (ok, stats dict). ref = CPU backend, got = CUDA backend (or the stand-in)."""
    st = {"bit_identical": ref_bytes == got_bytes, "max_abs": 0.0, "max_rel": 0.0, "max_ulp": 0,
          "nan_ref": 0, "nan_got": 0, "diff_points": 0, "points": len(ref_bytes) // elem.size}
    a, b = elem.values(ref_bytes), elem.values(got_bytes)
    st["nan_ref"], st["nan_got"] = has_nan(a), has_nan(b)
    if len(a) != len(b):
        st["note"] = "size mismatch: %d vs %d values" % (len(a), len(b))
        return False, st
    if st["bit_identical"]:
        ok = st["nan_got"] == 0 and st["nan_ref"] == 0
        return ok, st
    scale = max((abs(x) for x in a if x == x and not math.isinf(x)), default=0.0)
    max_abs = max_rel = 0.0
    max_ulp = 0
    bad = 0
    strict = elem.typ == "f64" and not transcendental
    for x, y in zip(a, b):
        if x != x and y != y:
            continue
        if x == y:
            if x == 0 and math.copysign(1, x) != math.copysign(1, y):
                st["diff_points"] += 1
                st["signed_zero"] = st.get("signed_zero", 0) + 1
                bad += strict  # +0 vs -0: equal values, different bits
            continue
        st["diff_points"] += 1
        if x != x or y != y or math.isinf(x) or math.isinf(y):
            max_abs = max_rel = float("inf")
            bad += 1
            continue
        d = abs(x - y)
        m = max(abs(x), abs(y))
        r = d / m if m > 0 else 0.0
        u = abs(elem.ordered(x) - elem.ordered(y))
        max_abs, max_rel, max_ulp = max(max_abs, d), max(max_rel, r), max(max_ulp, u)
        if elem.typ == "f32":
            good = r <= F32_RTOL or d <= F32_RTOL * scale
        elif transcendental:
            # pointwise <= 4 ulp; where the math cancels, 4 ulp of the output's largest magnitude
            good = u <= F64_MAX_ULP or d <= F64_MAX_ULP * elem.ulp(scale)
        else:
            good = False  # f64 without libm calls: bit-identical only
        if not good:
            bad += 1
    st.update(max_abs=max_abs, max_rel=max_rel, max_ulp=max_ulp, out_of_tolerance=bad)
    ok = bad == 0 and st["nan_got"] == 0 and st["nan_ref"] == 0
    return ok, st


# ----------------------------------------------------------------------------------------------
# The layout of the generated code (src/codegen/runtime/stnc_runtime.h makeLayout; internal 3-D,
# a rank-r kernel uses the last r dimensions).


def make_layout(n_axes, halo_axes, es, align_at=0):
    """align_at: the interior column the rows align on (`stnc info`'s align_region_column under --align-region=on)."""
    r = len(n_axes)
    n = [1, 1, 1]
    h = [0, 0, 0]
    for a in range(r):
        n[3 - r + a] = n_axes[a]
        h[3 - r + a] = halo_axes[a]
    align = 128 // es
    ru = lambda x, m: (x + m - 1) // m * m
    a = align_at if 0 <= align_at < n[2] else 0
    pad = [h[0], h[1], 0 if h[2] == 0 else ru(h[2] + a, align) - a]
    dim = [n[0] + 2 * h[0], n[1] + 2 * h[1], ru(pad[2] + n[2] + h[2], align)]
    stride = [dim[1] * dim[2], dim[2], 1]
    origin = pad[0] * stride[0] + pad[1] * stride[1] + pad[2]
    return {"n": n, "halo": h, "pad": pad, "dim": dim, "stride": stride, "origin": origin,
            "count": dim[0] * stride[0]}


def at(L, x, y, z):
    return L["origin"] + x * L["stride"][0] + y * L["stride"][1] + z


def field_axes(k, f):
    """The kernel axes (indices) lower-rank input f varies along (`stnc info`'s field_axes), or None for a field
    of every axis."""
    names = k.get("lower", {}).get(f)
    return [k["axes"].index(a) for a in names] if names else None


def field_shape(k, f, n):
    """The .npy shape `stnc run` takes for field f at interior extents n: n + 2*halo per axis it has."""
    ax = field_axes(k, f)
    return [n[a] + 2 * k["halo"][a] for a in (range(len(n)) if ax is None else ax)]


# ----------------------------------------------------------------------------------------------
# Poison harness: runs in its own process (a CUDA fault kills only it). Spec: one JSON file with
# the library, and a list of runs.


def harness_main(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    lib = ctypes.CDLL(spec["lib"], mode=getattr(ctypes, "RTLD_LOCAL", 0))
    results = []
    for run in spec["runs"]:
        try:
            results.append(harness_run(lib, run))
        except Exception as e:  # report, continue with the next run
            results.append({"id": run["id"], "error": "%s: %s" % (type(e).__name__, e)})
        with open(spec["result"], "w") as f:  # rewritten after every run: survives a later crash
            json.dump(results, f)
    return 0


def harness_run(lib, run):
    elem = Elem(run["type"])
    es = elem.size
    L = make_layout(run["n"], run["halo"], es, run.get("align", 0))
    count = L["count"]
    nbytes = count * es
    keep = []  # keeps the ctypes buffers alive
    bases = []
    poison = elem.nan * count
    r = len(run["n"])
    lower = {}  # field index -> its input bytes (a lower-rank input: a dense array over its own axes, no pad)
    for i, fld in enumerate(run["fields"]):
        if fld.get("axes") is not None:
            descr, shape, data = read_npy(fld["input"])
            if descr != elem.descr or list(shape) != [run["n"][a] + 2 * run["halo"][a] for a in fld["axes"]]:
                raise ValueError("input %s: %s %s does not match the lower-rank field" % (fld["input"], descr, shape))
            lower[i] = data
        size = len(lower[i]) if i in lower else nbytes
        buf = (ctypes.c_char * (size + 128))()
        keep.append(buf)
        base = (ctypes.addressof(buf) + 127) // 128 * 128
        ctypes.memmove(base, lower[i] if i in lower else poison, size)
        bases.append(base)
    ext_full = [1, 1, 1]
    off = [0, 0, 0]
    for a in range(r):
        ext_full[3 - r + a] = run["n"][a] + 2 * run["halo"][a]
        off[3 - r + a] = -run["halo"][a]
    loaded = set()
    for i, fld in enumerate(run["fields"]):
        if not fld.get("input") or i in lower:
            continue
        descr, shape, data = read_npy(fld["input"])
        if descr != elem.descr or list(shape) != [run["n"][a] + 2 * run["halo"][a] for a in range(r)]:
            raise ValueError("input %s: %s %s does not match the kernel" % (fld["input"], descr, shape))
        src = (ctypes.c_char * len(data)).from_buffer_copy(data)
        keep.append(src)
        sa = ctypes.addressof(src)
        row = ext_full[2] * es
        pos = 0
        for x in range(ext_full[0]):
            for y in range(ext_full[1]):
                ctypes.memmove(bases[i] + at(L, x + off[0], y + off[1], off[2]) * es, sa + pos, row)
                pos += row
        loaded.add(fld["name"])
    names = [f["name"] for f in run["fields"]]
    for a, b in run["swaps"]:  # both buffers of a swap pair start as a copy of the input
        ia, ib = names.index(a), names.index(b)
        if a in loaded and b not in loaded:
            ctypes.memmove(bases[ib], bases[ia], nbytes)
        if b in loaded and a not in loaded:
            ctypes.memmove(bases[ia], bases[ib], nbytes)
    nf = len(run["fields"])
    ptrs = (ctypes.c_void_p * nf)(*bases)
    n_arr = (ctypes.c_long * r)(*run["n"])
    params = (ctypes.c_double * max(1, len(run["params"])))(*run["params"])
    ms = (ctypes.c_double * 2)()
    err = ctypes.create_string_buffer(512)
    fn = getattr(lib, run["entry"])
    fn.restype = ctypes.c_int
    # point sources (codegen/Backends.h): field index + interior point per source, one wavelet value per step
    srcs = run.get("sources", [])
    src_at = [v for q in srcs for v in [q["field"]] + q["at"]]
    wave = [v for q in srcs for v in q["wave"]]
    at_arr = (ctypes.c_long * max(1, len(src_at)))(*src_at)
    wave_arr = (ctypes.c_double * max(1, len(wave)))(*wave)
    fn.argtypes = [ctypes.POINTER(ctypes.c_long), ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_double),
                   ctypes.c_long, ctypes.c_int, ctypes.POINTER(ctypes.c_long), ctypes.POINTER(ctypes.c_double),
                   ctypes.c_long, ctypes.POINTER(ctypes.c_double), ctypes.c_char_p, ctypes.c_ulong]
    status = fn(n_arr, ptrs, params, run["steps"], len(srcs), at_arr, wave_arr, 0, ms, err, 512)
    res = {"id": run["id"], "status": status, "message": err.value.decode("utf-8", "replace")}
    if status != 0:
        return res
    # After the call the pointer array holds each role's buffer (the CPU entry swaps pointers).
    after = [ptrs[i] for i in range(nf)]
    swapped = {x for p in run["swaps"] for x in p}
    stray = {}
    for i, fld in enumerate(run["fields"]):
        if i in lower:  # an input: the kernel must leave every element as it was
            now = ctypes.string_at(after[i], len(lower[i]))
            if now != lower[i]:  # count the changed elements only when there are some
                stray[fld["name"]] = sum(1 for k in range(0, len(now), es) if now[k:k + es] != lower[i][k:k + es])
            continue
        whole = ctypes.string_at(after[i], nbytes)
        pure_out = fld["role"] == "out" and fld["name"] not in swapped
        # Box that may legitimately hold data: interior for pure outputs, interior + halo otherwise.
        grow = [0, 0, 0] if pure_out else L["halo"]
        lo = [L["pad"][d] - grow[d] for d in range(3)]
        hi = [L["pad"][d] + L["n"][d] + grow[d] for d in range(3)]
        bad = 0
        rowb = L["dim"][2] * es
        for x in range(L["dim"][0]):
            for y in range(L["dim"][1]):
                s = (x * L["stride"][0] + y * L["stride"][1]) * es
                rowbytes = whole[s:s + rowb]
                if lo[0] <= x < hi[0] and lo[1] <= y < hi[1]:
                    segs = [rowbytes[:lo[2] * es], rowbytes[hi[2] * es:]]
                else:
                    segs = [rowbytes]
                for seg in segs:
                    if seg != elem.nan * (len(seg) // es):
                        bad += sum(1 for k in range(0, len(seg), es) if seg[k:k + es] != elem.nan)
        if bad:
            stray[fld["name"]] = bad
        if fld["name"] in run["outputs"]:
            out = []
            for x in range(L["n"][0]):
                for y in range(L["n"][1]):
                    s = at(L, x, y, 0) * es
                    out.append(whole[s:s + L["n"][2] * es])
            with open(run["outputs"][fld["name"]], "wb") as f:
                f.write(npy_bytes(elem.descr, run["n"], b"".join(out)))
    res["stray"] = stray
    return res


# ----------------------------------------------------------------------------------------------
# The driver.


class Check:
    def __init__(self, args):
        self.a = args
        self.root = os.path.abspath(args.root)
        self.t0 = time.time()
        self.deadline = self.t0 + args.budget
        self.lock = threading.Lock()
        self.log_lines = []
        self.work = args.work or tempfile.mkdtemp(prefix="stnc-gpu-check-")
        os.makedirs(self.work, exist_ok=True)
        self.out = os.path.abspath(args.out)
        os.makedirs(self.out, exist_ok=True)
        self.cores = os.cpu_count() or 4
        self.jobs = args.jobs or self.cores
        self.omp = str(max(1, self.cores // self.jobs))
        self.env = dict(os.environ)
        self.env.setdefault("STNC_STDLIB", os.path.join(self.root, "stdlib"))
        self.env["OMP_NUM_THREADS"] = self.omp
        self.stnc = os.path.abspath(args.stnc)

    # -- utilities ------------------------------------------------------------------------------
    def log(self, msg, echo=True):
        line = "[%6.1fs] %s" % (time.time() - self.t0, msg)
        with self.lock:
            self.log_lines.append(line)
            if echo:
                print(line, flush=True)

    def left(self):
        return self.deadline - time.time()

    def sh(self, cmd, env=None, timeout=120, cwd=None):
        t = time.time()
        try:
            p = subprocess.run(cmd, env=env or self.env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
            out, err, rc = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode("utf-8", "replace")
            err = (e.stderr or b"").decode("utf-8", "replace") + "\n[timed out after %ds]" % timeout
            rc = 124
        except OSError as e:
            out, err, rc = "", str(e), 127
        with self.lock:
            self.log_lines.append("$ %s  (rc %d, %.1fs)" % (" ".join(shlex.quote(c) for c in cmd), rc, time.time() - t))
        return rc, out, err

    def pool(self, fn, items, jobs):
        if not items:
            return []
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
            return list(ex.map(fn, items))

    # -- environment ----------------------------------------------------------------------------
    def environment(self):
        env = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
               "host": os.uname().nodename, "cores": self.cores, "jobs": self.jobs,
               "mode": "dry-run (no GPU)" if self.a.dry_run else "FAKE CUDA (the CPU backend stands in)" if self.a.fake_cuda else "gpu"}
        def first(cmd, n=None):
            rc, out, err = self.sh(cmd, timeout=60)
            text = (out + err).strip()
            return (text if n is None else "\n".join(text.splitlines()[-n:])) if rc == 0 else "unavailable (%s)" % (text.splitlines() or ["rc %d" % rc])[-1]
        env["gpu"] = first(["nvidia-smi", "-L"]) if shutil.which("nvidia-smi") else "no nvidia-smi"
        env["driver"] = first(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,compute_cap",
                               "--format=csv,noheader"]) if shutil.which("nvidia-smi") else "no nvidia-smi"
        # the nvcc that stnc run picks (driver/Cache.cpp findNvcc): $NVCC, its build-time path, the CUDA default, PATH
        nvcc = self.env.get("NVCC") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else "nvcc")
        env["nvcc"] = first([nvcc, "--version"], 2)
        env["cxx"] = (first([self.env.get("CXX", "c++"), "--version"]).splitlines() or ["?"])[0]
        env["sanitizer"] = first(["compute-sanitizer", "--version"], 1) if shutil.which("compute-sanitizer") else "not found"
        env["stnc"] = first([self.stnc, "--version"])
        env["stnc_path"] = self.a.stnc
        rc, out, _ = self.sh(["git", "-C", self.root, "rev-parse", "--short", "HEAD"], timeout=20)
        env["commit"] = out.strip() if rc == 0 else "unknown"
        rc, out, _ = self.sh(["git", "-C", self.root, "status", "--porcelain", "--untracked-files=no"], timeout=20)
        if rc == 0 and out.strip():
            env["commit"] += " (+ local changes)"
        env["python"] = sys.version.split()[0]
        self.envinfo = env
        for k in ("date", "mode", "gpu", "driver", "nvcc", "cxx", "sanitizer", "stnc", "commit"):
            for i, line in enumerate(str(env[k]).splitlines() or [""]):
                print("%-10s %s" % (k + ":" if i == 0 else "", line))
        sys.stdout.flush()

    # -- discovery ------------------------------------------------------------------------------
    def discover(self):
        files = []
        if self.a.files:
            files = [os.path.abspath(f) for f in self.a.files]
        else:
            e2e = sorted(glob.glob(os.path.join(self.root, "tests/e2e/stn/*.stn")))
            files += e2e
            for f in sorted(glob.glob(os.path.join(self.root, "samples/**/*.stn"), recursive=True)):
                parts = os.path.relpath(f, self.root).split(os.sep)
                if not any(p in ("build", "out") or p.startswith(".") for p in parts[:-1]):
                    files.append(f)
            files += sorted(glob.glob(os.path.join(self.root, "tests/gpu/*.stn")))
            if not e2e:
                self.log("tests/e2e/stn/ has no .stn files: adding the LANGUAGE.md examples of scripts/gpu/cases/")
                files += sorted(glob.glob(os.path.join(self.root, "scripts/gpu/cases/*.stn")))
        seen, uniq = set(), []
        for f in files:
            r = os.path.realpath(f)
            if r not in seen:
                seen.add(r)
                uniq.append(f)
        return uniq

    def rel(self, f):
        r = os.path.relpath(f, self.root)
        return f if r.startswith("..") else r

    def inspect(self, path):
        """stnc info (names, inputs, params, halo, type) + --emit=json (field order, ops, swaps, regions)."""
        rel = self.rel(path)
        fid = re.sub(r"[^A-Za-z0-9]+", "_", os.path.splitext(rel)[0]).strip("_")
        inc = ["-I", os.path.dirname(path)]
        rec = {"file": rel, "path": path, "fid": fid, "kernels": [], "error": None}
        rc, out, err = self.sh([self.stnc, "info", path] + inc, timeout=60)
        if rc != 0:
            rec["error"] = "stnc info failed: " + (err.strip() or out.strip())[:600]
            return rec
        info = json.loads(out)
        rc, jout, err = self.sh([self.stnc, path] + inc + ["--emit=json"], timeout=60)
        dj = {k["name"]: k for k in json.loads(jout)["kernels"]} if rc == 0 else {}
        for kind, lst in (("stencil", info.get("stencils", [])), ("group", info.get("groups", []))):
            for k in lst:
                d = dj.get(k["name"], {})
                order = [f["name"] for f in d.get("fields", [])]
                roles = {f["name"]: f["role"] for f in d.get("fields", [])}
                ops = sorted({n.get("op") for n in d.get("nodes", []) if n.get("op")})
                regions = d.get("regions", [])
                rnames = [g["name"] for g in regions]
                written = {}  # output -> the parts with an equation of it (region index, -1 = default)
                for o in d.get("outputs", []):
                    written.setdefault(o["field"], set()).add(rnames.index(o["region"]) if "region" in o else -1)
                rec["kernels"].append({
                    "name": k["name"], "kind": kind, "type": k.get("type", "f64"), "axes": k["axes"],
                    "halo": k["halo"], "inputs": k.get("inputs", []), "outputs": k.get("outputs", []),
                    "inouts": k.get("inouts", []), "params": k.get("params", []),
                    "fields": order, "roles": roles, "ops": ops, "swaps": d.get("swaps", []),
                    "regions": regions, "written": {f: sorted(v) for f, v in written.items()},
                    "lower": k.get("field_axes", {}), "meta_ok": bool(d)})
        return rec

    # -- cases ----------------------------------------------------------------------------------
    def build_cases(self, files):
        cases, skipped = [], []
        for rec in files:
            if rec["error"]:
                skipped.append({"file": rec["file"], "error": rec["error"]})
                continue
            for k in rec["kernels"]:
                r = len(k["axes"])
                sizes = [("odd", ODD[r]), ("pow2", POW2[r])]
                if self.a.quick:
                    sizes = sizes[:1]
                for tag, n in sizes:
                    kdir = os.path.join(self.work, rec["fid"], k["name"], "x".join(map(str, n)))
                    seed = int(hashlib.sha256(("%s/%s/%s/%d" % (rec["file"], k["name"], n, self.a.seed)).encode()).hexdigest()[:12], 16)
                    rng = random.Random(seed)
                    params = {p: float("%.6g" % rng.uniform(0.05, 0.5)) for p in k["params"]}
                    for steps in ([0, self.a.steps] if k["swaps"] else [0]):
                        cases.append({"file": rec["file"], "path": rec["path"], "fid": rec["fid"], "k": k, "n": n,
                                      "size": "x".join(map(str, n)), "tag": tag, "steps": steps, "dir": kdir,
                                      "seed": seed, "params": params, "notes": [], "runs": {}})
        return cases, skipped

    def make_inputs(self, case):
        k = case["k"]
        elem = Elem(k["type"])
        os.makedirs(case["dir"], exist_ok=True)
        signed = not (set(k["ops"]) & DOMAIN_LIMITED)
        rng = random.Random(case["seed"])
        case["inputs"] = {}
        for f in k["inputs"] + k["inouts"]:
            shape = field_shape(k, f, case["n"])
            count = 1
            for s in shape:
                count *= s
            p = os.path.join(case["dir"], "in_%s.npy" % f)
            if not os.path.exists(p):
                with open(p + ".tmp", "wb") as fh:
                    fh.write(npy_bytes(elem.descr, shape, elem.random_bytes(count, rng, signed)))
                os.replace(p + ".tmp", p)
            case["inputs"][f] = p
        case["input_range"] = "+-[1,2)" if signed else "[1,2)"

    def make_sources(self, case):
        """Time-stepping runs get two point sources (stnc run --source) on the first written field of a swap
        pair: at the interior's centre and next to its first corner, a random wavelet in [1,2) each."""
        k = case["k"]
        rng = random.Random(case["seed"] * 7 + case["steps"])
        case["sources"] = []
        written = [f for p in k["swaps"] for f in p if k["roles"].get(f) in ("out", "inout")]
        if not (case["steps"] and written):
            return
        f64 = Elem("f64")
        for q, at in enumerate([[x // 2 for x in case["n"]], [min(1, x - 1) for x in case["n"]]]):
            raw = f64.random_bytes(case["steps"], rng, False)
            p = os.path.join(case["dir"], "wave%d_s%d.npy" % (q, case["steps"]))
            with open(p, "wb") as fh:
                fh.write(npy_bytes(f64.descr, [case["steps"]], raw))
            case["sources"].append({"field": written[0], "at": at, "path": p, "wave": list(f64.values(raw))})

    def compared_fields(self, case):
        k = case["k"]
        names = list(k["outputs"]) + list(k["inouts"])
        if case["steps"]:
            for a, b in k["swaps"]:
                for x in (a, b):
                    if x not in names:
                        names.append(x)
        return names

    def unwritten(self, case, f):
        """The points of output f no equation writes (regions; unwritten_points), where f's buffers start
        without data (a pure output outside every swap); [] otherwise."""
        k = case["k"]
        if f not in k["outputs"] or any(f in p for p in k["swaps"]):
            return []
        cache = case.setdefault("unwritten", {})
        if f not in cache:
            cache[f] = unwritten_points(case["n"], k["regions"], k["written"].get(f, []))
        return cache[f]

    def settled(self, case, elem, f, outputs):
        """outputs: (tag, start value, bytes) of output f per side; at the points no equation writes each must
        still hold its start value, and is then set to +0 for the comparison of the rest. -> ([bytes...], [problem...])."""
        idx = self.unwritten(case, f)
        out, problems = [], []
        for tag, start, b in outputs:
            if idx:
                b, bad, first = settle(elem, b, idx, start)
                if bad:
                    problems.append("%s: %s wrote %d of the %d points no equation writes (first at flat index %d)" % (
                        f, tag, bad, len(idx), first))
            out.append(b)
        return out, problems

    def out_path(self, case, tag, field):
        return os.path.join(case["dir"], "%s_s%d_%s.npy" % (tag, case["steps"], field))

    def cache_env(self, case):
        env = dict(self.env)
        env["STNC_CACHE_DIR"] = os.path.join(self.work, "cache", case["fid"])
        return env

    def run_cmd(self, case, backend, tag, verbose=False):
        k = case["k"]
        cmd = [self.stnc, "run", case["path"], "-I", os.path.dirname(case["path"]), "--stencil", k["name"],
               "--size", case["size"], "--backend", self.real(backend)]
        if verbose:
            cmd.append("-v")
        for f, p in case["inputs"].items():
            cmd += ["--in", "%s=%s" % (f, p)]
        for f in self.compared_fields(case):
            cmd += ["--out", "%s=%s" % (f, self.out_path(case, tag, f))]
        for p, v in case["params"].items():
            cmd += ["--param", "%s=%r" % (p, v)]
        if case["steps"]:
            cmd += ["--steps", str(case["steps"])]
        cmd += source_args(case.get("sources", []))
        if self.a.stnc_flags:
            cmd += self.a.stnc_flags.split()
        if backend == "cuda" and self.a.cuda_flags:
            cmd += self.a.cuda_flags.split()
        return cmd

    def stnc_run(self, case, backend, verbose=False):
        if self.left() <= 0:
            case["runs"][backend] = {"rc": None, "error": "not run: time budget exhausted"}
            return
        rc, out, err = self.sh(self.run_cmd(case, backend, backend, verbose), env=self.cache_env(case), timeout=240)
        r = {"rc": rc, "stderr": err.strip()[-2000:]}
        if verbose:
            r["compile_cmd"] = [l[len("stnc: "):] for l in err.splitlines() if l.startswith("stnc: ") and "-o " in l][:1]
        if rc != 0:
            r["error"] = (err.strip() or out.strip() or "exit %d" % rc)[-1500:]
        case["runs"][backend] = r

    # -- poison harness -------------------------------------------------------------------------
    def real(self, backend):
        """--fake-cuda (a test of this script without a GPU): the CPU backend stands in for CUDA."""
        return "cpu" if self.a.fake_cuda and backend == "cuda" else backend

    def find_lib(self, case, backend):
        libs = glob.glob(os.path.join(self.work, "cache", case["fid"], "*-%s-*" % self.real(backend), "lib.so"))
        return sorted(libs, key=os.path.getmtime)[-1] if libs else None

    def poison(self, group):
        """group: (fid, backend, [cases]) -> runs the harness in a subprocess for all the cases."""
        fid, backend, cases = group
        todo = [c for c in cases if c["runs"].get(backend, {}).get("rc") == 0]
        for c in cases:
            if c not in todo:
                c.setdefault("poison", {})[backend] = {"result": "not run (no stnc run output)"}
        if not todo:
            return
        if self.left() <= 0:
            for c in todo:
                c.setdefault("poison", {})[backend] = {"result": "not run (time budget)"}
            return
        for c in [c for c in todo if not c["k"]["meta_ok"]]:
            c.setdefault("poison", {})[backend] = {"result": "not run (no --emit metadata)"}
        todo = [c for c in todo if c["k"]["meta_ok"]]
        if not todo:
            return
        lib = self.find_lib(todo[0], backend)
        if not lib:
            for c in todo:
                c.setdefault("poison", {})[backend] = {"result": "FAIL", "error": "no cached lib.so found for %s" % backend}
            return
        runs = []
        for i, c in enumerate(todo):
            k = c["k"]
            runs.append({"id": i, "type": k["type"], "n": c["n"], "halo": k["halo"], "entry": "stnc_entry_%s_%s" % (k["name"], self.real(backend)),
                         "fields": [{"name": f, "role": k["roles"].get(f, "in"), "input": c["inputs"].get(f), "axes": field_axes(k, f)}
                                    for f in k["fields"]],
                         "swaps": k["swaps"], "params": [c["params"][p] for p in k["params"]], "steps": c["steps"],
                         "sources": harness_sources(k["fields"], c["sources"]),
                         "outputs": {f: self.out_path(c, "poison-" + backend, f) for f in self.compared_fields(c)}})
        spec = {"lib": lib, "runs": runs, "result": os.path.join(self.work, "poison-%s-%s.result.json" % (fid, backend))}
        sp = os.path.join(self.work, "poison-%s-%s.json" % (fid, backend))
        with open(sp, "w") as f:
            json.dump(spec, f)
        rc, out, err = self.sh([sys.executable, os.path.abspath(__file__), "--harness", sp], env=self.cache_env(todo[0]),
                               timeout=max(30, min(300, int(self.left()) + 30)))
        try:
            with open(spec["result"]) as f:
                results = {r["id"]: r for r in json.load(f)}
        except (OSError, ValueError):
            results = {}
        for i, c in enumerate(todo):
            r = results.get(i)
            if r is None:
                c.setdefault("poison", {})[backend] = {"result": "FAIL", "error": "harness died (rc %d): %s" % (rc, (err.strip() or out.strip())[-600:])}
            elif r.get("error") or r.get("status"):
                c.setdefault("poison", {})[backend] = {"result": "FAIL", "error": r.get("error") or "entry returned %s: %s" % (r["status"], r.get("message"))}
            else:
                c.setdefault("poison", {})[backend] = {"result": "ok", "stray": r.get("stray", {})}

    # -- sanitizers -----------------------------------------------------------------------------
    def sanitize(self, item):
        case, tool = item
        key = "san_" + tool
        if case["runs"].get("cuda", {}).get("rc") != 0:
            case[key] = {"result": "not run (cuda run failed)"}
            return
        if self.left() <= 0:
            case[key] = {"result": "not run (time budget)"}
            return
        cmd = ["compute-sanitizer", "--tool", tool, "--error-exitcode", "1", "--print-limit", "20",
               "--target-processes", "application-only"] + self.run_cmd(case, "cuda", tool)
        rc, out, err = self.sh(cmd, env=self.cache_env(case), timeout=max(30, min(300, int(self.left()) + 60)))
        text = out + err
        # memcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"
        errs = [int(x) for x in re.findall(r"ERROR SUMMARY:\s*(\d+) errors?", text)]
        races = re.findall(r"RACECHECK SUMMARY:\s*(\d+) hazards? displayed\s*\((\d+) errors?,\s*(\d+) warnings?\)", text)
        errs += [int(h) for h, e, w in races]
        n = sum(errs) if errs else None
        res = {"rc": rc, "errors": n}
        outputs_ok = all(os.path.exists(self.out_path(case, tool, f)) for f in self.compared_fields(case))
        if rc == 0 and n == 0 and outputs_ok:
            res["result"] = "clean"
        else:
            res["result"] = "DIRTY" if n else "FAIL"
            if n is None:
                res.setdefault("notes", []).append("no sanitizer summary line")
            if not outputs_ok:
                res.setdefault("notes", []).append("stnc run wrote no outputs under the sanitizer")
            res["log"] = text.strip()[-3000:]
        # the run under the sanitizer must give the same outputs as the plain run
        for f in self.compared_fields(case):
            a, b = self.out_path(case, "cuda", f), self.out_path(case, tool, f)
            if rc == 0 and os.path.exists(a) and os.path.exists(b) and read_npy(a)[2] != read_npy(b)[2]:
                res["result"] = "DIRTY"
                res.setdefault("notes", []).append("output %s differs from the plain CUDA run" % f)
        case[key] = res
        with self.lock:
            self.san_logs.append("==== %s :: %s %s steps=%d [%s] rc=%d errors=%s\n%s\n" % (
                case["file"], case["k"]["name"], case["size"], case["steps"], tool, rc, n, text.strip()[-4000:]))

    # -- evaluation -----------------------------------------------------------------------------
    def evaluate(self, case):
        k = case["k"]
        elem = Elem(k["type"])
        trans = bool(set(k["ops"]) & TRANSCENDENTAL)
        case["transcendental"] = trans
        gpu_tag = "cuda" if not self.a.dry_run else "poison-cpu"
        fails = []
        stats = {}
        cpu = case["runs"].get("cpu", {})
        cuda = case["runs"].get("cuda", {})
        if cpu.get("rc") != 0:
            fails.append("cpu run: " + (cpu.get("error") or "failed"))
        if self.a.dry_run:
            if cuda.get("rc") == 0:
                case["notes"].append("cuda ran without a GPU?")
            elif "no CUDA device" in (cuda.get("error") or ""):
                case["cuda_build"] = "ok"
            else:
                case["cuda_build"] = "FAIL"
                fails.append("cuda build: " + (cuda.get("error") or "failed"))
        elif cuda.get("rc") != 0:
            fails.append("cuda run: " + (cuda.get("error") or "failed"))
        if not fails:
            for f in self.compared_fields(case):
                try:
                    d1, s1, b1 = read_npy(self.out_path(case, "cpu", f))
                    d2, s2, b2 = read_npy(self.out_path(case, gpu_tag, f))
                except (OSError, ValueError) as e:
                    fails.append("%s: cannot read output: %s" % (f, e))
                    continue
                if d1 != elem.descr or d2 != elem.descr or s1 != s2 or list(s1) != case["n"]:
                    fails.append("%s: dtype/shape %s%s vs %s%s (expected %s %s)" % (f, d1, s1, d2, s2, elem.descr, case["n"]))
                    continue
                zero = b"\0" * elem.size  # `stnc run` starts outputs at +0, the poison run (dry runs) at NaN
                (b1, b2), problems = self.settled(case, elem, f, [("cpu", zero, b1), (gpu_tag, zero if gpu_tag == "cuda" else elem.nan, b2)])
                fails.extend(problems)
                ok, st = compare(elem, b1, b2, trans)
                stats[f] = st
                if st["nan_ref"] or st["nan_got"]:
                    fails.append("%s: NaN in output (cpu %d, %s %d points)" % (f, st["nan_ref"], gpu_tag, st["nan_got"]))
                elif not ok:
                    fails.append("%s: %d of %d points out of tolerance (max abs %.3g, rel %.3g, %d ulp%s)" % (
                        f, st.get("out_of_tolerance", 0), st["points"], st["max_abs"], st["max_rel"], st["max_ulp"],
                        ", %d are +0 vs -0" % st["signed_zero"] if st.get("signed_zero") else ""))
        # poison: each backend's direct run must equal its `stnc run` output, with no stray writes
        for be, pr in sorted(case.get("poison", {}).items()):
            if pr["result"] != "ok":
                if pr["result"] == "FAIL":
                    fails.append("poison[%s]: %s" % (be, pr.get("error", "failed")))
                continue
            for f in self.compared_fields(case):
                ref = self.out_path(case, be, f)
                got = self.out_path(case, "poison-" + be, f)
                if be == "cpu" and self.a.dry_run:
                    continue  # this comparison is the main one in a dry run
                if not os.path.exists(ref):
                    continue
                try:
                    (b1, b2), problems = self.settled(case, elem, f, [(be, b"\0" * elem.size, read_npy(ref)[2]),
                                                                      ("poison-" + be, elem.nan, read_npy(got)[2])])
                    fails.extend("poison[%s] %s" % (be, p) for p in problems)
                except (OSError, ValueError) as e:
                    fails.append("poison[%s] %s: %s" % (be, f, e))
                    continue
                if b1 != b2:
                    ok, st = compare(elem, b1, b2, False)
                    pr["result"] = "FAIL"
                    fails.append("poison[%s] %s: differs from stnc run at %d points (%d NaN): reads outside the data?" % (
                        be, f, st["diff_points"], st["nan_got"]))
            if pr.get("stray"):
                pr["result"] = "FAIL"
                fails.append("poison[%s]: writes outside the allowed box: %s" % (
                    be, ", ".join("%s %d cells" % kv for kv in sorted(pr["stray"].items()))))
        case["stats"] = stats
        case["fails"] = fails
        case["status"] = "PASS" if not fails else "FAIL"
        if any(r.get("rc") is None for r in (cpu, cuda)):
            case["status"] = "NOT RUN"  # the time budget ran out before this case

    # -- the whole check ------------------------------------------------------------------------
    def main(self):
        self.san_logs = []
        self.environment()
        if not os.access(self.stnc, os.X_OK):
            print("error: stnc binary '%s' is not executable (build it, or set STNC)" % self.stnc)
            return 2
        paths = self.discover()
        if not paths:
            print("error: no .stn files found")
            return 2
        self.log("%d files; inspecting (stnc info / --emit)" % len(paths))
        files = self.pool(self.inspect, paths, self.jobs)
        cases, skipped = self.build_cases(files)
        for s in skipped:
            self.log("SKIP %s: %s" % (s["file"], s["error"].splitlines()[0] if s["error"] else ""))
        for rec in files:
            for k in rec["kernels"]:
                if not k["meta_ok"]:
                    self.log("warning: %s:%s: --emit=json/dag gave no metadata (field order/swaps unknown)" % (rec["file"], k["name"]))
        self.log("%d kernels, %d cases; generating inputs" % (sum(len(r["kernels"]) for r in files), len(cases)))
        byinput = {}
        for c in cases:
            byinput.setdefault(c["dir"], []).append(c)
        def gen(group):
            self.make_inputs(group[0])
            for c in group[1:]:
                c["inputs"], c["input_range"] = group[0]["inputs"], group[0]["input_range"]
            for c in group:
                self.make_sources(c)
        self.pool(gen, list(byinput.values()), self.jobs)

        # 1. runs, per (file, backend) as a pipeline: the first case compiles the .so into the file's cache
        #    (verbose, to record the compiler command), the other cases then run from the cache, then the
        #    poison harness runs over them. At most --jobs processes at a time.
        backends = ["cpu", "cuda"]
        groups = {}
        for c in cases:
            for be in backends:
                groups.setdefault((c["fid"], be), []).append(c)
        self.compile_cmds = {}
        self.log("running %d stnc runs (%d compiles first), then %d poison runs; %d jobs, OMP_NUM_THREADS=%s" % (
            len(cases) * 2, len(groups), 0 if self.a.no_poison else len(groups) // (2 if self.a.dry_run else 1),
            self.jobs, self.omp))
        runner = ThreadPoolExecutor(max_workers=max(1, self.jobs))

        def pipeline(key):
            try:
                pipeline_(key)
            except Exception as e:  # a bug here must not lose the other files' results
                import traceback
                self.log("internal error in %s [%s]: %s\n%s" % (key[0], key[1], e, traceback.format_exc()))
                for c in groups[key]:
                    c["runs"].setdefault(key[1], {"rc": -1, "error": "internal error in gpu_check.py: %s" % e})

        def pipeline_(key):
            fid, be = key
            cs = groups[key]
            runner.submit(self.stnc_run, cs[0], be, True).result()
            r0 = cs[0]["runs"][be]
            if r0.get("compile_cmd"):
                with self.lock:
                    self.compile_cmds[be] = r0["compile_cmd"][0].replace(self.work, "$WORK").replace(" 2>&1", "")
            err0 = r0.get("error", "")
            no_device = "no CUDA device" in err0
            if r0["rc"] != 0 and not (self.a.dry_run and no_device):
                self.log("  %s [%s] failed: %s" % (cs[0]["file"], be, err0.strip().splitlines()[-1] if err0.strip() else ""))
            if "compiling the generated" in err0 or "cannot run the" in err0:
                # the generated code did not build: the other cases would only repeat the failure
                for c in cs[1:]:
                    c["runs"][be] = dict(r0, error="(same build failure as the first case of this file) " + err0[-800:])
            elif self.a.dry_run and be == "cuda":
                # no GPU: the build is what a dry run checks; every later CUDA case would only repeat it
                for c in cs[1:]:
                    c["runs"][be] = dict(r0)
            else:
                for f in [runner.submit(self.stnc_run, c, be) for c in cs[1:]]:
                    f.result()
            if not self.a.no_poison and not (self.a.dry_run and be == "cuda"):
                runner.submit(self.poison, (fid, be, cs)).result()

        with ThreadPoolExecutor(max_workers=max(1, len(groups))) as ex:
            list(ex.map(pipeline, list(groups)))
        runner.shutdown()

        # 3. compare
        self.log("comparing")
        for c in cases:
            self.evaluate(c)

        # 4. sanitizers: the CUDA runs at the odd extent
        self.sanitizers = [] if (self.a.dry_run or self.a.no_sanitizer) else ["memcheck", "racecheck"]
        # one kernel of every file first, so that a short budget still covers every file
        odd = [c for c in cases if c["tag"] == "odd"]
        rank, seen_f = {}, {}
        for c in odd:
            rank[id(c)] = seen_f.get(c["fid"], 0)
            seen_f[c["fid"]] = rank[id(c)] + 1
        san_items = sorted([(c, t) for t in self.sanitizers for c in odd],
                           key=lambda it: (rank[id(it[0])], self.sanitizers.index(it[1])))
        if san_items:
            if not shutil.which("compute-sanitizer"):
                self.log("compute-sanitizer not found")
                for c, t in san_items:
                    c["san_" + t] = {"result": "FAIL", "log": "compute-sanitizer not found"}
            else:
                self.log("compute-sanitizer: %d runs (%s; %d jobs)" % (len(san_items), "+".join(self.sanitizers), self.a.san_jobs))
                self.pool(self.sanitize, san_items, self.a.san_jobs)
        return self.report(cases, skipped)

    # -- report ---------------------------------------------------------------------------------
    def report(self, cases, skipped):
        elapsed = time.time() - self.t0
        passed = sum(1 for c in cases if c["status"] == "PASS")
        san_runs = [c.get("san_" + t) for c in cases for t in self.sanitizers if c.get("san_" + t)]
        san_clean = sum(1 for s in san_runs if s["result"] == "clean")
        san_not_run = sum(1 for s in san_runs if s["result"].startswith("not run"))
        san_bad = len(san_runs) - san_clean - san_not_run
        if self.a.dry_run or not self.sanitizers:
            san_word = "not run"
        elif san_bad:
            san_word = "DIRTY"
        elif san_not_run:
            san_word = "INCOMPLETE (%d not run)" % san_not_run
        else:
            san_word = "clean"
        not_run = sum(1 for c in cases if c["status"] == "NOT RUN")
        summary = "%d cases, %d passed%s, sanitizers %s" % (
            len(cases), passed, " (%d not run: time budget)" % not_run if not_run else "", san_word)
        if self.a.dry_run:
            builds = {c["fid"]: c.get("cuda_build") for c in cases}
            summary += " [DRY RUN: no GPU; CUDA builds %d/%d ok; CPU poison run stands in for CUDA]" % (
                sum(1 for v in builds.values() if v == "ok"), len(builds))
        if self.a.fake_cuda:
            summary += " [FAKE CUDA: the CPU backend stood in for CUDA; this tests the script, not the GPU]"
        if skipped:
            summary += "; %d file(s) or kernel(s) skipped (stnc info failed)" % len(skipped)

        def fmt(x):
            if x is None:
                return "-"
            if isinstance(x, float):
                return "0" if x == 0 else ("inf" if math.isinf(x) else "%.2e" % x)
            return str(x)

        def san(c, t):
            s = c.get("san_" + t)
            if not s:
                return "-"
            if s["result"] == "clean":
                return "clean"
            if s["result"].startswith("not run"):
                return "not run"
            return "%s(%s)" % (s["result"], s.get("errors") if s.get("errors") is not None else "rc %s" % s.get("rc"))

        rows = []
        for c in cases:
            st = c.get("stats", {})
            mabs = max((s["max_abs"] for s in st.values()), default=None)
            mrel = max((s["max_rel"] for s in st.values()), default=None)
            mulp = max((s["max_ulp"] for s in st.values()), default=None)
            ident = all(s["bit_identical"] for s in st.values()) if st else None
            tol = ("bit-identical" if c["k"]["type"] == "f64" and not c.get("transcendental") else
                   "<=4 ulp (libm)" if c["k"]["type"] == "f64" else "rel<=1e-5")
            pz = c.get("poison", {})
            pois = ",".join("%s:%s" % (b, pz[b]["result"]) for b in sorted(pz)) if pz else "-"
            rows.append({"file": c["file"], "stencil": c["k"]["name"], "kind": c["k"]["kind"], "type": c["k"]["type"],
                         "size": c["size"], "steps": c["steps"], "status": c["status"], "bit_identical": ident,
                         "max_abs": mabs, "max_rel": mrel, "max_ulp": mulp, "tolerance": tol, "poison": pois,
                         "memcheck": san(c, "memcheck"), "racecheck": san(c, "racecheck"),
                         "inputs": c.get("input_range"), "params": c["params"], "fails": c["fails"],
                         "fields": {f: {k: v for k, v in s.items()} for f, s in st.items()},
                         "ops": c["k"]["ops"]})
        env = self.envinfo
        cmd = os.environ.get("GPU_CHECK_CMD") or " ".join(shlex.quote(x) for x in sys.argv)
        # Markdown
        md = ["# stnc CUDA backend check — %s" % env["date"], "",
              "| | |", "| --- | --- |",
              "| date | %s |" % env["date"], "| mode | %s |" % env["mode"],
              "| GPU | %s |" % env["gpu"].replace("\n", "<br>"), "| driver / GPU | %s |" % env["driver"].replace("\n", "<br>"),
              "| nvcc | %s |" % env["nvcc"].replace("\n", " "), "| host C++ | %s |" % env["cxx"],
              "| compute-sanitizer | %s |" % env["sanitizer"], "| stnc | %s (%s), commit %s |" % (env["stnc"], env["stnc_path"], env["commit"]),
              "| command | `%s` |" % cmd,
              "| CUDA schedule options | %s |" % ("`%s`" % self.a.cuda_flags if self.a.cuda_flags else "none (each kernel's default)"),
              "| options of both backends | %s |" % ("`%s`" % self.a.stnc_flags if self.a.stnc_flags else "none"),
              "| compile (cpu) | `%s` |" % self.compile_cmds.get("cpu", "?"),
              "| compile (cuda) | `%s` |" % self.compile_cmds.get("cuda", "?"),
              "| elapsed | %.0f s on %d cores, %d jobs |" % (elapsed, self.cores, self.jobs), "",
              "Tolerances: f64 bit-identical (kernels using exp/log/pow/sin/cos: <= 4 ulp, or 4 ulp of the output's "
              "largest magnitude where the math cancels); f32 relative <= 1e-5 (or 1e-5 of the output's largest "
              "magnitude). Any NaN fails. Inputs: random in +-[1,2) ([1,2) for kernels using sqrt/log/pow), shape "
              "n + 2*halo; params random in [0.05, 0.5]. `poison`: the entry point called directly with NaN in every "
              "cell outside the supplied data; outputs must equal `stnc run`'s bit for bit, pads (and the halo of "
              "pure `out` fields) must stay NaN. Sanitizers: CUDA runs at the odd extent, `--error-exitcode 1`.", "",
              "| file | stencil | type | size | steps | result | tolerance | bit-identical | max abs | max rel | max ulp | poison | memcheck | racecheck |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            md.append("| %s | %s%s | %s | %s | %d | **%s** | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["file"], r["stencil"], " (group)" if r["kind"] == "group" else "", r["type"], r["size"], r["steps"],
                r["status"], r["tolerance"], {True: "yes", False: "no", None: "-"}[r["bit_identical"]], fmt(r["max_abs"]),
                fmt(r["max_rel"]), fmt(r["max_ulp"]), r["poison"], r["memcheck"], r["racecheck"]))
        fails = [r for r in rows if r["fails"]]
        if fails:
            md += ["", "## Failures", ""]
            for r in fails:
                md.append("- **%s :: %s %s steps=%d**" % (r["file"], r["stencil"], r["size"], r["steps"]))
                for f in r["fails"]:
                    md.append("  - " + f.replace("\n", "\n    "))
        dirty = [(c, t) for c in cases for t in self.sanitizers
                 if c.get("san_" + t, {}).get("result") not in (None, "clean") and not c["san_" + t]["result"].startswith("not run")]
        if dirty:
            md += ["", "## Sanitizer findings", ""]
            for c, t in dirty:
                s = c["san_" + t]
                md += ["- **%s :: %s %s steps=%d [%s]: %s**" % (c["file"], c["k"]["name"], c["size"], c["steps"], t, s["result"]),
                       "", "```", (s.get("log") or "; ".join(s.get("notes", [])))[-1500:], "```"]
        if skipped:
            md += ["", "## Skipped files", ""] + ["- %s: %s" % (s["file"], s["error"].replace("\n", " ")) for s in skipped]
        md += ["", "**%s**" % summary, ""]
        with open(os.path.join(self.out, "gpu-check.md"), "w") as f:
            f.write("\n".join(md))
        with open(os.path.join(self.out, "gpu-check.json"), "w") as f:
            json.dump({"environment": env, "command": cmd, "compile": self.compile_cmds, "elapsed_s": round(elapsed, 1),
                       "summary": summary, "cases": rows, "skipped": skipped,
                       "passed": passed, "total": len(cases), "sanitizers": san_word}, f, indent=1, default=str)
        with open(os.path.join(self.out, "gpu-check.log"), "w") as f:
            f.write("\n".join(self.log_lines) + "\n")
            for c in cases:
                for be, r in sorted(c["runs"].items()):
                    if r.get("rc") not in (0, None) or (r.get("stderr") and "warning" in r.get("stderr", "")):
                        f.write("---- %s :: %s %s steps=%d [%s] rc=%s\n%s\n" % (c["file"], c["k"]["name"], c["size"], c["steps"], be, r.get("rc"), r.get("stderr", "")))
        if self.san_logs:
            with open(os.path.join(self.out, "gpu-check-sanitizer.log"), "w") as f:
                f.write("\n".join(self.san_logs))

        # stdout: the table last (the device tool returns the last 12,000 characters)
        def line(r):
            diff = "identical" if r["bit_identical"] else fmt(r["max_abs"])
            return "%-7s %-34s %-4s %-9s %2d %-9s %-8s %-5s %-17s %-9s %-9s" % (
                r["status"], (r["file"].split("/")[-1].replace(".stn", "") + ":" + r["stencil"])[:34], r["type"],
                r["size"], r["steps"], diff, fmt(r["max_rel"]), fmt(r["max_ulp"]), r["poison"][:17], r["memcheck"][:9],
                r["racecheck"][:9])
        head = "%-7s %-34s %-4s %-9s %2s %-9s %-8s %-5s %-17s %-9s %-9s" % (
            "result", "file:stencil", "type", "size", "st", "max abs", "max rel", "ulp", "poison", "memcheck", "racecheck")
        body = [line(r) for r in rows]
        budget = 8500
        print("\n" + "=" * 100)
        print("stnc gpu-check  %s  |  %s" % (env["date"], env["gpu"].splitlines()[0] if env["gpu"] else "?"))
        print("driver: %s  |  nvcc: %s" % (env["driver"].splitlines()[0] if env["driver"] else "?", env["nvcc"].splitlines()[-1] if env["nvcc"] else "?"))
        if sum(len(b) + 1 for b in body) <= budget:
            print(head)
            print("\n".join(body))
        else:
            shown = [line(r) for r in rows if r["status"] != "PASS" or r["memcheck"] not in ("-", "clean") or r["racecheck"] not in ("-", "clean")]
            perfile = {}
            for r in rows:
                p = perfile.setdefault(r["file"], {"n": 0, "pass": 0, "ident": 0, "rel": 0.0, "ulp": 0, "mc": [0, 0], "rc": [0, 0]})
                p["n"] += 1
                p["pass"] += r["status"] == "PASS"
                p["ident"] += bool(r["bit_identical"])
                p["rel"] = max(p["rel"], r["max_rel"] or 0.0)
                p["ulp"] = max(p["ulp"], r["max_ulp"] or 0)
                for col, key in (("memcheck", "mc"), ("racecheck", "rc")):
                    if r[col] != "-":
                        p[key][0] += r[col] == "clean"
                        p[key][1] += 1
            print("(%d rows: per-file totals here, then every row that is not all PASS/clean; the full table is in "
                  "gpu-check.md)" % len(rows))
            print("%-40s %-9s %-9s %-8s %-5s %-8s %-8s" % ("file", "passed", "bit-ident", "max rel", "ulp", "memcheck", "racecheck"))
            for f, p in perfile.items():
                print("%-40s %-9s %-9s %-8s %-5s %-8s %-8s" % (
                    f[-40:], "%d/%d" % (p["pass"], p["n"]), "%d/%d" % (p["ident"], p["n"]), fmt(p["rel"]), p["ulp"],
                    "%d/%d" % tuple(p["mc"]), "%d/%d" % tuple(p["rc"])))
            if shown:
                print(head)
                print("\n".join(shown[:40]))
        for r in fails[:15]:
            print("%s %s :: %s %s steps=%d: %s" % (r["status"], r["file"], r["stencil"], r["size"], r["steps"], "; ".join(r["fails"])[:400]))
        for c, t in dirty[:10]:
            s = c["san_" + t]
            last = [l.strip("= ").strip() for l in (s.get("log") or "").splitlines()
                    if l.startswith("========= ") and l.strip("= ").strip()][:3] or s.get("notes", [])[:2]
            print("SANITIZER %s :: %s %s [%s] %s: %s" % (c["file"], c["k"]["name"], c["size"], t, s["result"], " | ".join(last)[:300]))
        for s in skipped:
            print("SKIPPED %s: %s" % (s["file"], s["error"].splitlines()[0][:200]))
        print("results: %s/gpu-check.md, gpu-check.json, gpu-check.log%s  (%.0f s)" % (
            self.out, ", gpu-check-sanitizer.log" if self.san_logs else "", elapsed))
        print(summary)
        ok = passed == len(cases) and len(cases) > 0 and san_word in ("clean", "not run") and not (
            self.a.dry_run and any(c.get("cuda_build") == "FAIL" for c in cases))
        if self.a.strict and skipped:
            ok = False
        return 0 if ok else 1


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--harness":
        return harness_main(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help=".stn files (default: tests/e2e/stn/*.stn, samples/**/*.stn, tests/gpu/*.stn; "
                    "scripts/gpu/cases/*.stn when tests/e2e/stn is empty)")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--stnc", default=os.environ.get("STNC", "build-static/stnc"))
    ap.add_argument("--out", default=os.environ.get("OUT") or "build-gpu-check")
    ap.add_argument("--work", help="scratch directory (default: a new temporary directory)")
    ap.add_argument("--dry-run", "--no-gpu", dest="dry_run", action="store_true",
                    help="no GPU: build the CUDA code but do not run it; the CPU poison run stands in for CUDA")
    ap.add_argument("--jobs", type=int, default=0, help="parallel runs (default: the number of cores)")
    ap.add_argument("--san-jobs", type=int, default=max(2, (os.cpu_count() or 4) // 2),
                    help="parallel compute-sanitizer runs (default: half the cores)")
    ap.add_argument("--no-sanitizer", action="store_true")
    ap.add_argument("--no-poison", action="store_true")
    ap.add_argument("--cuda-flags", default=os.environ.get("GPU_CHECK_CUDA_FLAGS", ""),
                    help="extra stnc options for the CUDA runs, e.g. '--schedule=stream --vec 2 --rows 3' "
                         "(a schedule the policy does not pick by default; env GPU_CHECK_CUDA_FLAGS)")
    ap.add_argument("--stnc-flags", default=os.environ.get("GPU_CHECK_STNC_FLAGS", ""),
                    help="extra stnc options for the CPU and the CUDA runs, e.g. '--factor-sums=on' (options that "
                         "change the DAG, which both backends must share; env GPU_CHECK_STNC_FLAGS)")
    ap.add_argument("--quick", action="store_true", help="odd extents only")
    ap.add_argument("--steps", type=int, default=5, help="steps of the time-stepping runs (kernels with swap)")
    ap.add_argument("--budget", type=float, default=330, help="seconds after which no new run starts (default 330)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fake-cuda", action="store_true", help=argparse.SUPPRESS)  # tests this script without a GPU
    ap.add_argument("--strict", action="store_true", help="also fail when a file is skipped (stnc info failed)")
    args = ap.parse_args()
    return Check(args).main()


if __name__ == "__main__":
    sys.exit(main())
