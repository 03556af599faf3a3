#!/usr/bin/env python3
"""sass_summary.py — the instruction mix of each kernel in a `cuobjdump -sass` listing.

    cuobjdump -sass BINARY > k.sass && python3 scripts/gpu/sass_summary.py k.sass [NAME_SUBSTRING]

Prints a Markdown table: per function (demangled name cut to its last `::` part), the static SASS
instruction count and the count per class (FP32, FP64, shared-memory, global, cp.async/LDGSTS, branches and
barriers, integer/address, moves). A kernel's plane loop is most of its static code, so the classes show
where the issue slots of an issue-bound kernel go. Static counts only: not weighted by trip counts.
"""
import re
import sys
from collections import Counter, OrderedDict

CLASSES = [
    ("fp32", re.compile(r"^(FADD|FMUL|FFMA|FMNMX|FSETP|FSEL|MUFU|FCHK|FSET)")),
    ("fp64", re.compile(r"^(DADD|DMUL|DFMA|DSETP|DMNMX)")),
    ("lds/sts", re.compile(r"^(LDS|STS)")),
    ("ldg/stg", re.compile(r"^(LDG|STG|LD|ST)\b")),
    ("cp.async", re.compile(r"^(LDGSTS|LDGDEPBAR|DEPBAR)")),
    ("branch/bar", re.compile(r"^(BRA|BAR|BSSY|BSYNC|EXIT|CALL|RET|WARPSYNC|BMOV)")),
    ("int/addr", re.compile(r"^(IMAD|IADD|LEA|ISETP|SHF|LOP|SEL|IABS|I2F|F2I|IMNMX|SHL|SHR|UIADD|ULEA|UIMAD|USHF|ULOP|USEL|UISETP|FLO|POPC|PRMT)")),
    ("mov", re.compile(r"^(MOV|UMOV|S2R|S2UR|CS2R|R2UR)")),
]
def classify(ops):
    """Counter opcode -> count  ->  Counter class -> count (the classes above, else "other")."""
    got = Counter()
    for op, k in ops.items():
        got[next((name for name, rx in CLASSES if rx.match(op)), "other")] += k
    return got


INSN = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(?:\.[A-Z0-9_.]+)?\b")
FUNC = re.compile(r"Function\s*:\s*(\S+)")


def short(name):
    """The last two components of a mangled nested name (_ZN 8acoustic 4cuda ... E...), else the name."""
    if not name.startswith("_ZN"):
        return name
    body, parts = name[3:].lstrip("K"), []
    while body and body[0].isdigit():
        digits = re.match(r"\d+", body).group(0)
        n = int(digits)
        parts.append(body[len(digits):len(digits) + n])
        body = body[len(digits) + n:]
    return "::".join(parts[-2:]) if parts else name


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    want = argv[2] if len(argv) > 2 else ""
    funcs = OrderedDict()
    cur = None
    with open(argv[1], errors="replace") as f:
        for line in f:
            m = FUNC.search(line)
            if m:
                cur = m.group(1)
                funcs.setdefault(cur, Counter())
                continue
            if cur is None:
                continue
            m = INSN.search(line)
            if m and m.group(1) != "NOP":
                funcs[cur][m.group(1)] += 1
    names = [n for n in funcs if want in n]
    if not names:
        print("(no SASS functions found)\n")
        return 0
    heads = [c for c, _ in CLASSES]
    print("| kernel | SASS | " + " | ".join(heads) + " | other |")
    print("| --- | ---: | " + " | ".join("---:" for _ in heads) + " | ---: |")
    for n in names:
        ops = funcs[n]
        total = sum(ops.values())
        got = classify(ops)
        print(f"| {short(n)} | {total} | " + " | ".join(str(got[c]) for c in heads) + f" | {got['other']} |")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
