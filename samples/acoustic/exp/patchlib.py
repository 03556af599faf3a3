"""Shared text surgery for the experiment patches of the generated acoustic.cu (kbox.py, kedge.py, kedgetile.py,
kedgering.py, kfuse.py, khf.py, kunroll.py)."""
import re
import sys


def replace_once(s, old, new, who):
    """s with `old` replaced by `new`; exits with `who`'s name if `old` is not there exactly once."""
    if s.count(old) != 1:
        sys.exit("%s: expected text not found once:\n%s" % (who, old))
    return s.replace(old, new)


def inner_dim2(s, lo, hi, who):
    """launchSweep with the inner region's box along dim 2 set to [lo, hi): C++ expressions that may name the box as
    {b} (the region's box, before the change) and the layout as L_,
    for the inner part's launch and for the default part's boxes around it alike."""
    s = replace_once(s, """        const stnc_rt::Box b_ = stnc_rt::intersect(clip_, stnc_rt::regionBox(L_, kLo_inner, kHi_inner));""",
                     """        stnc_rt::Box rb_ = stnc_rt::regionBox(L_, kLo_inner, kHi_inner);
        rb_.lo[2] = %s; rb_.hi[2] = %s;  // %s
        const stnc_rt::Box b_ = stnc_rt::intersect(clip_, rb_);""" % (lo.format(b="rb_"), hi.format(b="rb_"), who), who)
    return replace_once(s, """      if (nb_ >= 0) nb_ = stnc_rt::subtractBox(boxes_, nb_, 64, stnc_rt::regionBox(L_, kLo_inner, kHi_inner));""",
                        """      stnc_rt::Box kb_ = stnc_rt::regionBox(L_, kLo_inner, kHi_inner);
      kb_.lo[2] = %s; kb_.hi[2] = %s;  // %s
      if (nb_ >= 0) nb_ = stnc_rt::subtractBox(boxes_, nb_, 64, kb_);""" % (lo.format(b="kb_"), hi.format(b="kb_"), who), who)


# --- the k-faces in the inner kernel's edge tiles (kedgetile.py, kedgering.py) ---
INNER = "__global__ void __launch_bounds__(kBlockX * kBlockY) sweepPart_inner("
PML = 27  # the sample's PML width (kPml in main.cpp)


def inner_kernel(s):
    """[a, b): the text of the generated inner region kernel sweepPart_inner."""
    a = s.index(INNER)
    return a, s.index("}  // sweepPart_inner", a)


def shell_helper(who, no_divide=False):
    """shellPoint: one PML point, the default part's v and phi equations in the generated term order (-fmad=false
    keeps it bit for bit). no_divide (timing only, WRONG): multiply where the equations divide."""
    h = "// " + who + """: one PML point (the default part's v and phi equations, its term order, -fmad=false)
    __device__ __forceinline__ void shellPoint(float u0, float lap, float v0, float r, float e0, float exp_, float exm_, float eyp_, float eym_, float ezp_, float ezm_, float uxp_, float uxm_, float uyp_, float uym_, float uzp_, float uzm_, float phi0, float& vo, float& po) {
      const float t69 = 2.0f * e0, t70 = 2.0f + t69, t71 = e0 * e0, t72 = t70 - t71, t73 = t72 * u0, t74 = t73 - v0;
      const float t76 = lap + phi0, t77 = r * t76, t78 = t74 + t77, t79 = 1.0f + t69;
      vo = stnc_rt::divide(t78, t79);
      const float t84 = 0.5f * (exp_ - exm_), t86 = 0.5f * (uxp_ - uxm_), t87 = t84 * t86;
      const float t91 = 0.5f * (eyp_ - eym_), t93 = 0.5f * (uyp_ - uym_), t94 = t91 * t93, t95 = t87 + t94;
      const float t99 = 0.5f * (ezp_ - ezm_), t101 = 0.5f * (uzp_ - uzm_), t102 = t99 * t101, t103 = t95 + t102;
      const float t104 = phi0 - t103, t105 = 1.0f + e0;
      po = stnc_rt::divide(t104, t105);
    }
    """
    if no_divide:
        h = h.replace("vo = stnc_rt::divide(t78, t79);", "vo = t78 * t79;").replace("po = stnc_rt::divide(t104, t105);", "po = t104 * t105;")
    return h


def inner_columns(body, who):
    """Per column c = 0..3 of an inner-kernel thread: the names of the values the shell point reuses (lap8(u) as
    the value multiplied by roc2, u at the centre and its six neighbours at radius 1, v, roc2)."""
    def mustHave(v):
        if not re.search(r"const float %s = " % re.escape(v), body):
            sys.exit("%s: no %s in the inner body" % (who, v))
        return v

    def uname(di, dj, dk):
        return mustHave("u_%s_" % "_".join(("m%d" % -o) if o < 0 else str(o) for o in (di, dj, dk)))

    cols = []
    for c in range(4):
        lapm = re.search(r"const float t\d+_ = roc2_0_0_%d_ \* (t\d+_);" % c, body)
        if not lapm:
            sys.exit("%s: lap8 of column %d not found" % (who, c))
        cols.append(dict(lap=lapm.group(1), u0=uname(0, 0, c), v0=mustHave("v_0_0_%d_" % c), r=mustHave("roc2_0_0_%d_" % c),
                         uxp=uname(1, 0, c), uxm=uname(-1, 0, c), uyp=uname(0, 1, c), uym=uname(0, -1, c),
                         uzp=uname(0, 0, c + 1), uzm=uname(0, 0, c - 1)))
    return cols


# The inner kernel's store, v from vs_[] (the inner or the shell value per column) and phi where sh_[c].
STORE_WITH_SHELL = """        if (act_) {
          if (whole_) {
            stnc_rt::storeOnce(reinterpret_cast<float4*>(&v[p_]), float4{vs_[0], vs_[1], vs_[2], vs_[3]});
          }
          else {  // the box's first or last column group
            if (z_ + 0 >= B_.lo[2] && z_ + 0 < B_.hi[2]) v[p_] = vs_[0];
            if (z_ + 1 >= B_.lo[2] && z_ + 1 < B_.hi[2]) v[p_ + 1] = vs_[1];
            if (z_ + 2 >= B_.lo[2] && z_ + 2 < B_.hi[2]) v[p_ + 2] = vs_[2];
            if (z_ + 3 >= B_.lo[2] && z_ + 3 < B_.hi[2]) v[p_ + 3] = vs_[3];
          }
          if (sh_[0]) phi[p_] = ps_[0];
          if (sh_[1]) phi[p_ + 1] = ps_[1];
          if (sh_[2]) phi[p_ + 2] = ps_[2];
          if (sh_[3]) phi[p_ + 3] = ps_[3];
        }
"""


def replace_store(k, shell_lines):
    """The inner kernel text k with the shell lines inserted before its store and the store replaced by
    STORE_WITH_SHELL."""
    store = k.index("        if (act_) {\n          if (whole_) {")
    end = k.index("        }\n", k.index("          else {  // the box's first or last column group", store))
    end = k.index("        }\n", end + 1) + len("        }\n")
    return k[:store] + "\n".join(shell_lines) + "\n" + STORE_WITH_SHELL + k[end:]


# --- launchSweep rewrites of a --fuse-regions=on acoustic.cu (kbox.py, kfuse.py) ---
FIELDS = "u, roc2, eta, v, phi"  # the stencil acoustic's field arguments
FIELDS_SEP = "u, roc2, etax, etay, etaz, v, phi"  # acoustic_sep's (eta as three profiles)


def fused_launch(fields=FIELDS):
    """launchSweep's call of the fused kernel for the stencil with these field arguments."""
    return """        bool done_ = false;
        if ((e_ = fused_region::launchFused(L_, clip_, r_, %s, stream_, done_)) != cudaSuccess || done_) return e_;
      }""" % fields


FUSED_LAUNCH = fused_launch()


def default_part_rest(box, indent, fields=FIELDS):
    """Launcher lines: the default part over the clip box minus `box` (each remaining box on a lane of its own),
    then return; `indent` is the first line's indentation."""
    lines = ["stnc_rt::Box rest_[64] = {clip_};",
             "const int nr_ = stnc_rt::subtractBox(rest_, 1, 64, %s);" % box,
             "if (nr_ < 0) return cudaErrorInvalidValue;",
             "for (int b_ = 0; b_ < nr_; ++b_)",
             "  if (!stnc_rt::boxEmpty(rest_[b_])) if ((e_ = default_part::launchPart(L_, rest_[b_], %s, stnc_rt::laneOf(lanes_, stream_, 1 + b_))) != cudaSuccess) return e_;" % fields,
             "return e_;"]
    return "".join(indent + l + "\n" for l in lines)
