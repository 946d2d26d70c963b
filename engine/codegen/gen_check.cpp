// Bounds-check versioning. Range analysis proves the accesses whose indices determine the loop
// ranges (kProven). The others — explicit ranges, recurrence self-reads like `u[t - 1, x + 1]`,
// constant rows like `u[T - 1, x]` — are affine in loop variables whose bounds are known at
// kernel entry, so one test before the loops decides them all: when it passes, a fast version
// runs without per-element checks (and vectorises); when it fails, the checked version runs
// and reports exactly the first failing access, as the interpreter would.
#include "engine/codegen/gen.h"

namespace ein::codegen {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

namespace {

struct Range {
  NodeRef lo, hi;
};

// Loop variables of the statement (LFor, reduction LoopVars) and aliases bound by LLet.
void collect_loops(const NodeRef& n, std::unordered_map<std::string, Range>& loops,
                   std::unordered_map<std::string, std::string>& alias, std::vector<ir::DefId>& local) {
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::LFor || x->kind == Kind::LoopVar) {
      loops[def_key(x->def)] = Range{ir::loop_lo(x), ir::loop_hi(x)};
      local.push_back(x->def);
    } else if (x->kind == Kind::LLet && ir::llet_value(x)->kind == Kind::Name) {
      alias[def_key(x->def)] = def_key(ir::llet_value(x)->def);
      local.push_back(x->def);
    } else if (x->kind == Kind::LLet || x->kind == Kind::LLetIn || x->kind == Kind::PBind) {
      local.push_back(x->def);
    }
  });
}

bool invariant(const NodeRef& n, const std::vector<ir::DefId>& local) {
  bool ok = true;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::Name && std::find(local.begin(), local.end(), x->def) != local.end()) ok = false;
    if (x->kind == Kind::Index || x->kind == Kind::Call || x->kind == Kind::LReduce || x->kind == Kind::Block)
      ok = false;
  });
  return ok;
}

}  // namespace

std::string Gen::precheck(const NodeRef& stmt) {
  std::unordered_map<std::string, Range> loops;
  std::unordered_map<std::string, std::string> alias;
  std::vector<ir::DefId> local;
  collect_loops(stmt, loops, alias, local);
  auto range_of = [&](const NodeRef& name) -> const Range* {
    std::string key = def_key(name->def);
    for (int hops = 0; hops < 8 && alias.count(key); ++hops) key = alias[key];
    auto it = loops.find(key);
    if (it == loops.end()) return nullptr;
    if (!invariant(it->second.lo, local) || !invariant(it->second.hi, local)) return nullptr;
    return &it->second;
  };
  std::vector<std::string> conds;
  std::vector<NodeRef> accesses;
  ir::for_each_node(stmt, [&](const NodeRef& x) {
    if (x->kind != Kind::Index || is_proven(*unit, x) || ir::index_base(x)->kind != Kind::Name) return;
    if (fusion.producers.count(ir::index_base(x)->def)) return;
    accesses.push_back(x);
  });
  for (auto& x : accesses) {
    // Only reads of this clause's own unit (not of inlined callees) and of real buffers.
    ir::TypeRef t = type_of_def(ir::index_base(x));
    if (ir::rank_of(t) != static_cast<int>(ir::index_args_count(x))) continue;
    bool ok = true;
    std::vector<std::string> mine;
    int b = -1;
    for (size_t a = 1; a < x->kids.size() && ok; ++a) {
      const NodeRef& e = ir::index_args(x)[a - 1];
      NodeRef var, off;
      bool neg = false;
      if (e->kind == Kind::Name && range_of(e)) {
        var = e;
      } else if (e->kind == Kind::Binary && (static_cast<BinOp>(e->ival) == BinOp::Add || static_cast<BinOp>(e->ival) == BinOp::Sub)) {
        bool sub = static_cast<BinOp>(e->ival) == BinOp::Sub;
        const NodeRef &l = ir::bin_lhs(e), &r = ir::bin_rhs(e);
        if (l->kind == Kind::Name && range_of(l) && invariant(r, local)) {
          var = l;
          off = r;
          neg = sub;
        } else if (!sub && r->kind == Kind::Name && range_of(r) && invariant(l, local)) {
          var = r;
          off = l;
        }
      }
      if (!var && !invariant(e, local)) {
        ok = false;
        break;
      }
      if (b < 0) b = buffer_of(ir::index_base(x));
      std::string ext = x->has(ir::kWindowed) && a == 1 ? "b" + std::to_string(b) + "_l0"
                                                         : extent(b, static_cast<int>(a) - 1);
      if (!var) {
        std::string v = index(e).c;
        mine.push_back("((uint64_t)" + v + " < (uint64_t)" + ext + ")");
        continue;
      }
      const Range* r = range_of(var);
      std::string lo = index(r->lo).c, hi = index(r->hi).c;
      std::string o = off ? index(off).c : "0";
      // Exact (128-bit): a wrapped first or last index would pass the test and run unchecked.
      const char* pm = neg ? " - " : " + ";
      std::string first = "((__int128)" + lo + pm + "(__int128)" + o + ")";
      std::string last1 = "((__int128)" + hi + pm + "(__int128)" + o + ")";  // last + 1
      mine.push_back("(" + lo + " >= " + hi + " || (" + first + " >= 0 && " + last1 + " <= " + ext + "))");
    }
    if (!ok || mine.empty()) continue;
    for (auto& m : mine) conds.push_back(m);
    assumed_.insert(x->id);
  }
  if (assumed_.empty()) return "";
  std::string all;
  for (auto& c : conds)
    if (all.find(c) == std::string::npos) all += (all.empty() ? "" : " && ") + c;
  std::string name = em.fresh("pc");
  em.line("const bool " + name + " = " + all + ";");
  return name;
}

}  // namespace ein::codegen
