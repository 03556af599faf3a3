#!/usr/bin/env python3
"""CPU model of the dim-0 (streaming) logic of bench/cluster/cluster_star25.cu.

Walks one thread's program (every thread of a cluster runs the same dim-0 control flow) as a list
of events: cp.async issues into ring slots, commits, cp.async.wait_group, pushes into a
neighbour's slot (st.shared::cluster), barrier arrive / wait, and reads of the ring (queue
initialisation, the queue's new centre value, the full plane). Then checks, per chunk length:
  * every read finds the plane it expects in its slot, landed (cp.async.wait_group) in the writing
    thread and published to the reader by a barrier (arrive before / wait after),
  * no other plane's write into that slot can land between that write and the read (cp.async of one
    thread to one address unordered unless waited for; another plane's write after the read only
    behind a barrier that follows the read),
  * the register queue holds planes t .. t+8 at iteration t and the full plane is t+4,
  * stored planes: every interior i stored exactly once over the chunks of the grid (chunk rule of
    the program), global plane reads inside the allocation.
Conservative: each write may be by another thread than each read (true for halo rows and for
neighbouring blocks). Run: python3 bench/cluster/ring_model.py   (exit 1 on any violation).
--buggy models the first version (queue planes 0..3 read from ring slots) to show the check bites.
"""
import sys

BUGGY = "--buggy" in sys.argv


def program(nt, E, G, push):
    NS = 6 + E + G
    nq = nt + 8
    ev = []  # (kind, args)
    slot = lambda q: q % NS
    first_ring = 0 if BUGGY else 4  # planes 0..3 (x0-4 .. x0-1): global loads in the fixed kernel

    def copy(q):
        if q >= nq or q < first_ring:
            return
        ev.append(("issue", q, slot(q)))

    def do_push(q):
        if not push or q < 4 or q >= nq - 4:
            return
        ev.append(("pushread", q, slot(q)))  # reads my own landed rows of plane q
        ev.append(("push", q, slot(q)))      # writes them into the neighbour's halo rows, same slot

    for q in range(first_ring, 8 + E):
        copy(q)
    ev.append(("commit",))
    for g in range(G):
        copy(8 + E + g)
        ev.append(("commit",))
    ev.append(("wait_group", G))
    for q in range(4, 8 + E):
        do_push(q)
    ev.append(("arrive", 0))
    ev.append(("wait", 0))
    queue = []
    for m in range(8):
        if m < first_ring:
            queue.append(m)  # from global memory
        else:
            ev.append(("read", m, slot(m), "own"))
            queue.append(m)
    for t in range(nt):
        copy(t + 8 + E + G)
        ev.append(("commit",))
        ev.append(("wait_group", G))
        do_push(t + 8 + E)
        ev.append(("arrive", t + 1))
        if not E:
            ev.append(("wait", t + 1))
        q = t + 4
        ev.append(("read", t + 8, slot(t + 8), "own"))
        queue.append(t + 8)
        ev.append(("read", q, slot(q), "own"))
        ev.append(("read", q, slot(q), "halo"))
        ev.append(("check_queue", t, tuple(queue)))
        if E:
            ev.append(("wait", t + 1))
        queue = queue[1:]
    ev.append(("wait_group", 0))
    ev.append(("arrive", nt + 1))
    ev.append(("wait", nt + 1))
    return ev, NS, nq


def check(nt, E, G, push):
    ev, NS, nq = program(nt, E, G, push)
    errs = []
    # barrier positions: last wait before each event, next arrive after each event
    lw, na = [], [None] * len(ev)
    cur = -1
    for i, e in enumerate(ev):
        lw.append(cur)
        if e[0] == "wait":
            cur = e[1]
    nxt = 10**9
    for i in range(len(ev) - 1, -1, -1):
        na[i] = nxt
        if ev[i][0] == "arrive":
            nxt = ev[i][1]
    # cp.async groups: issue -> position of the wait_group that covers it
    groups, open_ = [], []
    land = {}
    for i, e in enumerate(ev):
        if e[0] == "issue":
            open_.append(i)
        elif e[0] == "commit":
            groups.append(open_)
            open_ = []
        elif e[0] == "wait_group":
            done = groups[: max(0, len(groups) - e[1])]
            for gr in done:
                for w in gr:
                    land.setdefault(w, i)
    # writes per (slot, region): ("issue": own rows and copied halo rows; "push": pushed halo rows)
    writes = []  # (pos, plane, slot, region, land_pos)
    for i, e in enumerate(ev):
        if e[0] == "issue":
            if i not in land:
                errs.append(f"copy of plane {e[1]} never waited for")
                continue
            for reg in ("own", "halo"):
                writes.append((i, e[1], e[2], reg, land[i]))
        elif e[0] == "push":
            writes.append((i, e[1], e[2], "halo", i))
    hb = lambda a, b: na[a] <= lw[b]  # event a (any thread) happens before event b (any thread)
    for i, e in enumerate(ev):
        if e[0] == "read" or e[0] == "pushread":
            _, q, s = e[:3]
            reg = e[3] if e[0] == "read" else "own"
            same_thread = e[0] == "pushread"
            ws = [w for w in writes if w[2] == s and w[3] == reg]
            mine = [w for w in ws if w[1] == q and (not same_thread or ev[w[0]][0] == "issue")]
            if not mine:
                errs.append(f"{e[0]} of plane {q} at {i}: never written to slot {s} ({reg})")
                continue
            for w in mine:
                ok = w[4] <= i if same_thread else hb(w[4], i)
                if not ok:
                    errs.append(f"{e[0]} of plane {q} ({reg}) at {i}: write at {w[0]} not landed/published")
            for w in ws:
                if w[1] == q:
                    continue
                for m in mine:
                    before = (w[4] < m[0]) if ev[w[0]][0] == ev[m[0]][0] else hb(w[4], m[0])
                    after = (i < w[0]) if same_thread else hb(i, w[0])
                    if not (before or after):
                        errs.append(f"{e[0]} of plane {q} ({reg}, slot {s}) at {i}: plane {w[1]} written at {w[0]} may clobber it")
        elif e[0] == "check_queue":
            t, qu = e[1], e[2]
            if list(qu) != list(range(t, t + 9)):
                errs.append(f"queue at t={t}: {qu}")
        elif e[0] == "push":
            q = e[1]
            if not (4 <= q < nq - 4):
                errs.append(f"push of plane {q} outside 4..nq-5")
    # planes read from global memory: x0-4 .. x0+nt+3 (q 0 .. nq-1)
    return sorted(set(errs))


def chunk_rule(ni, nj, nk, sms=132):
    c = (ni * ((nk + 63) // 64) * ((nj + 7) // 8) + 24 * sms - 1) // (24 * sms)
    return max(min(ni, 32), min(c, 64))


def coverage(ni, chunk):
    stored = [0] * ni
    nz = (ni + chunk - 1) // chunk
    lens = set()
    for z in range(nz):
        x0 = z * chunk
        x1 = min(x0 + chunk, ni)
        nt = x1 - x0
        lens.add(nt)
        for t in range(nt):
            stored[x0 + t] += 1  # p = at(x0) + t * stride0
        for q in range(nt + 8):  # copies and global queue loads: plane x0 - 4 + q
            x = x0 - 4 + q
            assert -4 <= x < ni + 4, (ni, chunk, z, q)
    assert all(s == 1 for s in stored), (ni, chunk)
    return lens


def main():
    variants = [(0, 2, False), (0, 2, True), (1, 1, False), (1, 1, True)]  # (E, G, push): the program's
    bad = 0
    lens = set(range(1, 70))
    for grid in ((61, 37, 45), (256, 256, 256), (512, 512, 512)):
        ch = chunk_rule(*grid)
        ls = coverage(grid[0], ch)
        print(f"{grid[0]}x{grid[1]}x{grid[2]}: chunk {ch}, chunk lengths {sorted(ls)}, every i stored once")
        lens |= ls
    for E, G, push in variants:
        for nt in sorted(lens):
            errs = check(nt, E, G, push)
            if errs:
                bad += 1
                print(f"E={E} G={G} push={push} nt={nt}: {len(errs)} problem(s)")
                for x in errs[:6]:
                    print("   ", x)
    print("model:", "VIOLATIONS" if bad else "clean", "(buggy version)" if BUGGY else "")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
