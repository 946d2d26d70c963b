// Loop unswitching: an `if` whose condition does not change inside a loop nest is decided once,
// before the nest, and each outcome gets its own copy of the nest without the branch.
//
// Why: a library function taking a flag computes both of its forms in one clause,
//
//   let y[o, j, i] = if take_log { (v[o, j, i] - m[o, i]) - log(s[o, i]) }
//                    else { exp(v[o, j, i] - m[o, i]) / s[o, i] };
//
// (std::ml::softmax_axis / log_softmax_axis share along_axis). In the kernel the branch sits in
// the innermost loop; GCC does not vectorise a loop whose branch calls libm (`logf` "clobbers
// memory"), so the exp of the other branch, the one that runs, went scalar too: softmax_axis
// over axis 0 of a 2048² f32 ran its quotient at about a third of the speed of the same softmax
// written out. Unswitched, each version's innermost loop is straight-line code.
//
// A condition qualifies when it reads only names already bound where the nest starts (kernel
// scalars, outer loop variables), literals and arithmetic on them (no array read, no call),
// cannot fail, and one of its branches calls something or reduces (a plain select GCC converts
// itself; copying the nest for it would only add compile time). Conditions that are the same
// expression are decided together; at most two per nest (four copies). The values are the same
// bits: each version evaluates exactly the branch the original evaluated at every point.
#include "engine/codegen/gen.h"

#include <functional>
#include <unordered_set>

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

bool costly(const NodeRef& n) {
  bool found = false;
  ir::for_each_node(n, [&](const NodeRef& x) { found = found || x->kind == Kind::Call || x->kind == Kind::LReduce; });
  return found;
}

}  // namespace

bool Gen::unswitch(const NodeRef& loop) {
  if (unswitched_ >= 2) return false;
  // Names the nest binds itself (its loops, lets, reduction variables) move with it; any other
  // name is bound before it (an outer loop's variable) or is one of the kernel's scalars.
  std::unordered_set<ir::DefId> inside;
  ir::for_each_node(loop, [&](const NodeRef& x) {
    if (x->kind == Kind::LFor || x->kind == Kind::LLet || x->kind == Kind::LoopVar || x->kind == Kind::LLetIn ||
        x->kind == Kind::PBind || x->kind == Kind::Param)
      inside.insert(x->def);
  });
  std::function<bool(const NodeRef&)> invariant = [&](const NodeRef& c) -> bool {
    if (!c) return false;
    switch (c->kind) {
      case Kind::IntLit:
      case Kind::FloatLit:
      case Kind::BoolLit: return true;
      case Kind::Name: {
        if (inside.count(c->def)) return false;
        if (lookup(c->def)) return true;
        auto t = unit->def_types.find(c->def);
        return t != unit->def_types.end() && ir::is_scalar(t->second);
      }
      case Kind::Unary:
      case Kind::Binary:
        for (const NodeRef& k2 : c->kids)
          if (!invariant(k2)) return false;
        return true;
      default: return false;
    }
  };
  NodeRef cond;
  std::vector<uint32_t> ifs;  // the If/LIf nodes decided by `cond`
  ir::for_each_node(ir::lfor_body(loop), [&](const NodeRef& x) {
    const bool expr = x->kind == Kind::If && x->kids.size() > 2;
    if ((!expr && x->kind != Kind::LIf) || forced_if_.count(x->id)) return;
    const NodeRef& c = x->kids[0];
    if (cond) {
      if (ir::structurally_equal(c, cond)) ifs.push_back(x->id);
      return;
    }
    if (!invariant(c) || may_fail(c, *unit, 0)) return;
    if (!costly(x->kids[1]) && !(x->kids.size() > 2 && costly(x->kids[2]))) return;
    cond = c;
    ifs.push_back(x->id);
  });
  if (!cond) return false;
  const std::string note = "unswitched: an `if` on values fixed before the loops is decided once, one copy of the "
                           "loops per outcome (no branch inside them)";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  Val c = value(cond);
  const std::string u = em.fresh("us");
  em.line("const bool " + u + " = (bool)(" + c.c + ");");
  ++unswitched_;
  const bool saved = counting_;
  for (int outcome = 1; outcome >= 0; --outcome) {
    for (uint32_t id : ifs) forced_if_[id] = outcome == 1;
    em.open(std::string(outcome ? "if (" : "if (!") + u + ") {", true);
    stmt(loop);
    em.close();
    counting_ = false;  // accesses are counted once, not per version
  }
  counting_ = saved;
  for (uint32_t id : ifs) forced_if_.erase(id);
  --unswitched_;
  return true;
}

}  // namespace ein::codegen
