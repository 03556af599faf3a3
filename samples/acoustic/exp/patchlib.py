"""Shared text surgery for the experiment patches of the generated acoustic.cu (kedge.py, kedgetile.py, khf.py)."""
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
