#!/usr/bin/env python3
"""Self-test of gpu_check.py's checking machinery (no GPU, no numpy, no stnc needed; needs a C compiler).

  python3 scripts/gpu/selftest.py

Checks that the .npy writer/reader round-trips, that the comparison applies the documented
tolerances, and that the poison harness catches the faults it is meant to catch: it builds a fake
entry point `stnc_entry_copy_cpu` (out = in[i+1], f64, 3-D, halo 1) in several broken variants.
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_check as g  # noqa: E402

FAKE = r"""
#include <math.h>
#include <string.h>
// Layout as in stnc_runtime.h makeLayout, f64 (16 elements per 128 bytes), halo (1,1,1).
static long ru(long x, long m) { return (x + m - 1) / m * m; }
int stnc_entry_copy_cpu(const long* n, void** f, const double* p, long steps, int nsrc, const long* srcAt,
                        const double* srcWave, long reps, double* ms, char* err, unsigned long errlen) {
  (void)p; (void)steps; (void)nsrc; (void)srcAt; (void)srcWave; (void)reps; (void)ms; (void)err; (void)errlen;
  long h = 1, pad2 = ru(h, 16), d1 = n[1] + 2 * h, d2 = ru(pad2 + n[2] + h, 16);
  long s0 = d1 * d2, s1 = d2, org = h * s0 + h * s1 + pad2;
  double* in = (double*)f[0];
  double* out = (double*)f[1];
  for (long x = 0; x < n[0]; ++x)
    for (long y = 0; y < n[1]; ++y)
      for (long z = 0; z < n[2]; ++z) {
        long q = org + x * s0 + y * s1 + z;
#if MODE == 1
        if (x == n[0] - 1 && y == n[1] - 1 && z == n[2] - 1) continue;  // one point never written
#endif
#if MODE == 3
        if (z == n[2] - 1) { out[q] = in[q + h + 1]; continue; }       // reads one cell past the halo
#endif
        out[q] = in[q + s0];
      }
#if MODE == 2
  out[org + n[2] + 3] = 0.0;  // a stray write into the row's trailing pad
#endif
#if MODE == 4
  out[org - 1] = 0.0;         // a stray write into the (pure output's) halo
#endif
  return 0;
}
"""


def main():
    fails = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    tmp = tempfile.mkdtemp(prefix="gpu-check-selftest-")
    # .npy round trip (and the header is the 64-byte-aligned v1.0 numpy writes)
    for typ, shape in (("f64", [3, 4, 5]), ("f32", [7]), ("f64", [2, 9])):
        e = g.Elem(typ)
        cnt = 1
        for s in shape:
            cnt *= s
        data = e.random_bytes(cnt, g.random.Random(5), True)
        raw = g.npy_bytes(e.descr, shape, data)
        p = os.path.join(tmp, "t.npy")
        with open(p, "wb") as f:
            f.write(raw)
        d, s, b = g.read_npy(p)
        vals = e.values(b)
        check(d == e.descr and list(s) == shape and b == data and (len(raw) - len(data)) % 64 == 0 and
              all(1.0 <= abs(v) < 2.0 for v in vals) and any(v < 0 for v in vals) and any(v > 0 for v in vals),
              "npy round trip %s %s, values in +-[1,2)" % (typ, shape))
    pos = g.Elem("f32").values(g.Elem("f32").random_bytes(1000, g.random.Random(1), False))
    check(all(1.0 <= v < 2.0 for v in pos), "unsigned random values in [1,2)")

    # tolerances
    e64, e32 = g.Elem("f64"), g.Elem("f32")
    pk = lambda e, xs: struct.pack("<%d%s" % (len(xs), e.code), *xs)
    one_ulp = struct.unpack("<d", struct.pack("<q", struct.unpack("<q", struct.pack("<d", 1.5))[0] + 1))[0]
    five_ulp = struct.unpack("<d", struct.pack("<q", struct.unpack("<q", struct.pack("<d", 1.5))[0] + 5))[0]
    check(g.compare(e64, pk(e64, [1.5, 2.0]), pk(e64, [1.5, 2.0]), False)[0], "f64 identical passes")
    check(not g.compare(e64, pk(e64, [1.5, 2.0]), pk(e64, [one_ulp, 2.0]), False)[0], "f64 1 ulp fails without libm ops")
    ok, st = g.compare(e64, pk(e64, [1.5, 2.0]), pk(e64, [one_ulp, 2.0]), True)
    check(ok and st["max_ulp"] == 1, "f64 1 ulp passes with libm ops")
    check(not g.compare(e64, pk(e64, [1.5, 1.5]), pk(e64, [five_ulp, 1.5]), True)[0], "f64 5 ulp fails with libm ops")
    check(not g.compare(e64, pk(e64, [1.5, 0.0]), pk(e64, [1.5, -0.0]), False)[0], "f64 -0.0 vs 0.0 is not bit-identical")
    nan = float("nan")
    check(not g.compare(e64, pk(e64, [nan, 1.0]), pk(e64, [nan, 1.0]), False)[0], "NaN in both fails")
    check(g.compare(e32, pk(e32, [1.0, 100.0]), pk(e32, [1.000001, 100.0]), False)[0], "f32 rel 1e-6 passes")
    check(not g.compare(e32, pk(e32, [1.0, 1.0]), pk(e32, [1.0001, 1.0]), False)[0], "f32 rel 1e-4 fails")
    check(g.compare(e32, pk(e32, [1e-9, 100.0]), pk(e32, [2e-9, 100.0]), False)[0],
          "f32 cancellation: absolute 1e-9 of max 100 passes")

    # points no equation writes (regions): n = 4x3, region r = [1:-1, :] (rows 1..2)
    reg = [{"name": "r", "lo": [1, 0], "hi": [-1, 0]}]
    check(g.unwritten_points([4, 3], reg, [-1]) == [3, 4, 5, 6, 7, 8], "default equation only: the region is unwritten")
    check(g.unwritten_points([4, 3], reg, [0]) == [0, 1, 2, 9, 10, 11], "region equation only: the rest is unwritten")
    check(g.unwritten_points([4, 3], reg, [-1, 0]) == [], "region + default equations write every point")
    check(g.unwritten_points([4, 3], [], [-1]) == [], "no regions: every point written")
    zero, nan8 = b"\0" * 8, e64.nan
    got, bad, first = g.settle(e64, pk(e64, [1.5, 0.0, 2.5]), [1], zero)
    check(bad == 0 and got == pk(e64, [1.5, 0.0, 2.5]), "settle: an unwritten point holding its start value passes")
    got, bad, first = g.settle(e64, pk(e64, [1.5, 7.0, 2.5]), [1], nan8)
    check(bad == 1 and first == 1 and got == pk(e64, [1.5, 0.0, 2.5]), "settle: a write to an unwritten point is counted")

    # poison harness on fake entry points
    n = [5, 4, 6]
    e = g.Elem("f64")
    shape = [x + 2 for x in n]
    cnt = shape[0] * shape[1] * shape[2]
    data = e.random_bytes(cnt, g.random.Random(3), True)
    inp = os.path.join(tmp, "in.npy")
    with open(inp, "wb") as f:
        f.write(g.npy_bytes(e.descr, shape, data))
    vals = e.values(data)
    expect = [vals[((x + 2) * shape[1] + (y + 1)) * shape[2] + (z + 1)]
              for x in range(n[0]) for y in range(n[1]) for z in range(n[2])]
    cc = os.environ.get("CC", "cc")
    for mode, want in ((0, "clean"), (1, "unwritten"), (2, "stray"), (3, "pad read"), (4, "stray")):
        lib = os.path.join(tmp, "fake%d.so" % mode)
        src = os.path.join(tmp, "fake.c")
        with open(src, "w") as f:
            f.write(FAKE)
        subprocess.check_call([cc, "-O1", "-shared", "-fPIC", "-DMODE=%d" % mode, "-o", lib, src])
        outp = os.path.join(tmp, "out%d.npy" % mode)
        run = {"id": 0, "type": "f64", "n": n, "halo": [1, 1, 1], "entry": "stnc_entry_copy_cpu",
               "fields": [{"name": "u", "role": "in", "input": inp}, {"name": "w", "role": "out", "input": None}],
               "swaps": [], "params": [], "steps": 0, "outputs": {"w": outp}}
        res = g.harness_run(g.ctypes.CDLL(lib), run)
        got = e.values(g.read_npy(outp)[2])
        same = list(got) == expect
        nans = sum(1 for v in got if v != v)
        if want == "clean":
            check(res["status"] == 0 and not res["stray"] and same, "poison: correct entry is clean and exact")
        elif want == "unwritten":
            check(nans == 1 and not res["stray"], "poison: an unwritten output point shows as NaN")
        elif want == "stray":
            check(bool(res["stray"].get("w")), "poison: a stray write (mode %d) is reported: %s" % (mode, res["stray"]))
        else:
            check(nans == n[0] * n[1], "poison: a read past the halo gives NaN (%d points)" % nans)
    print("selftest: %d failure(s)" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
