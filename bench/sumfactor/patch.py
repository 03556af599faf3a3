#!/usr/bin/env python3
"""Rewrites the sumfactor kernel (sweepPart_sf) of a generated .cu for one experiment variant.

  patch.py IN.cu OUT.cu VARIANT[+VARIANT...]
Variants (each a hypothesis about what limits box125_rt, bench/sumfactor/run.sh):
  base    unchanged
  lb4     __launch_bounds__(threads, 4): 128 registers, 4 resident blocks per SM instead of 3
  chain   each class's FMA chain starts from the output's accumulator (no DMUL + DADD per class; the
          rounding becomes the plain left fold of the 125 terms, no longer the factored DAG's)
  split2  each class's 25-term chain as two interleaved chains added at the end (more independent FMAs)
"""
import re
import sys


def sf_span(text):
    start = text.index(") sweepPart_sf(")
    start = text.rindex("__global__", 0, start)
    end = text.index("}  // sweepPart_sf", start)
    return start, end


def lb4(k):
    return k.replace("__launch_bounds__(kBlockX * kBlockY) sweepPart_sf", "__launch_bounds__(kBlockX * kBlockY, 4) sweepPart_sf", 1)


def chain(k):
    # acc3_[r_][c_] = acc3_[r_][c_] + S1_;  ->  the chain S1_ starts from acc3_ instead.
    owner = dict((s, a) for a, s in re.findall(r"(acc\d_)\[r_\]\[c_\] = \1\[r_\]\[c_\] \+ (S\d+_);", k))
    for s, a in owner.items():
        k = re.sub(r"real %s = (c_\w+) \* (y_\w+);" % s, r"real %s = fma(\1, \2, %s[r_][c_]);" % (s, a), k)
        k = k.replace("%s[r_][c_] = %s[r_][c_] + %s;" % (a, a, s), "%s[r_][c_] = %s;" % (a, s))
    return k


def split2(k):
    out, n = [], {}
    for line in k.split("\n"):
        m = re.match(r"(\s*)(S\d+_) = fma\((c_\w+), (y_\w+), \2\);$", line)
        if m:
            ind, s, c, y = m.groups()
            n[s] = n.get(s, 0) + 1
            if n[s] == 1:
                line = "%sreal %sb = %s * %s;" % (ind, s, c, y)
            elif n[s] % 2 == 1:
                line = "%s%sb = fma(%s, %s, %sb);" % (ind, s, c, y, s)
        m = re.match(r"(\s*)(acc\d_\[r_\]\[c_\]) = (.*)\b(S\d+_);(.*)$", line)
        if m and m.group(4) in n:
            ind, a, pre, s, rest = m.groups()
            line = "%s%s = %s(%s + %sb);%s" % (ind, a, pre, s, s, rest)
            n.pop(s)
        out.append(line)
    return "\n".join(out)


def main():
    src, dst, variants = sys.argv[1], sys.argv[2], sys.argv[3].split("+")
    text = open(src).read()
    a, b = sf_span(text)
    k = text[a:b]
    for v in variants:
        if v != "base":
            k = {"lb4": lb4, "chain": chain, "split2": split2}[v](k)
    if "base" not in variants and k == text[a:b]:
        sys.exit("patch.py: variant %s changed nothing" % sys.argv[3])
    open(dst, "w").write(text[:a] + k + text[b:])


main()
