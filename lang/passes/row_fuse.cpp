#include "lang/passes/row_fuse.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/point_nest.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

// One member of a consumer's group.
struct Member {
  NodeRef tensor;
  PointNest nest;
  enum { Scalar, Local, Inline } form = Local;
  DefId local;  // the scalar's or block-local array's def
};

class Fuser : public ir::Mutator {
 public:
  Fuser(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {
    // Every reference to every def in the unit (a member must have no reader outside its block).
    ir::for_each_node(u.lowered, [&](const NodeRef& x) {
      if (x->kind == Kind::Name) ++refs_[x->def];
    });
  }

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::Block) return n;
    NodeRef r = n;
    // Consumers from the last: a fused group leaves the block with fewer statements.
    for (size_t guard = 0; guard < 64; ++guard) {
      NodeRef next = fuse_one(r);
      if (!next) break;
      r = next;
    }
    return r;
  }

 private:
  CompileCtx& cx_;
  Unit& u_;
  std::unordered_map<DefId, int> refs_;

  bool proven(const NodeRef& x) const { return x->has(ir::kProven) || u_.proven.count(x->id) > 0; }

  NodeRef typed(NodeRef n, ir::TypeRef t) {
    if (t) u_.types[n->id] = std::move(t);
    return n;
  }

  NodeRef var_ref(const NodeRef& loop) {
    auto it = u_.def_types.find(loop->def);
    return typed(irb::ref(loop->name, loop->def, loop->span), it != u_.def_types.end() ? it->second : ir::t_i32());
  }

  // Reads of `d` (Index nodes with base Name d) in n; false when d is referenced otherwise.
  static bool reads_of(const NodeRef& n, DefId d, std::vector<NodeRef>& out, int& names) {
    bool ok = true;
    ir::for_each_node(n, [&](const NodeRef& x) {
      if (x->kind == Kind::Name && x->def == d) ++names;
      if (x->kind == Kind::Index && ir::index_base(x)->kind == Kind::Name && ir::index_base(x)->def == d) out.push_back(x);
      if (x->kind == Kind::DimOf && ir::dimof_tensor(*x)->kind == Kind::Name && ir::dimof_tensor(*x)->def == d) ok = false;
    });
    return ok;
  }

  // How many leading subscripts of `read` are the reader's own leading loop variables.
  static size_t row_prefix(const NodeRef& read, const PointNest& reader) {
    size_t q = 0;
    const ir::Kids args = ir::index_args(read);
    while (q < args.size() && q < reader.loops.size() && args[q]->kind == Kind::Name &&
           args[q]->def == reader.loops[q]->def)
      ++q;
    return q;
  }

  static bool same_bounds(const PointNest& a, const PointNest& b, size_t p) {
    if (a.loops.size() < p || b.loops.size() < p) return false;
    for (size_t i = 0; i < p; ++i)
      if (!ir::structurally_equal(ir::lfor_lo(a.loops[i]), ir::lfor_lo(b.loops[i])) ||
          !ir::structurally_equal(ir::lfor_hi(a.loops[i]), ir::lfor_hi(b.loops[i])))
        return false;
    return true;
  }

  // An elementwise value that cannot fail: in-bounds reads, no checks, no integer division, no
  // call of a user or library function (those may check), no reduction.
  bool plain_value(const NodeRef& v) const {
    if (!cannot_fail(v)) return false;
    bool ok = true;
    ir::for_each_node(v, [&](const NodeRef& x) { ok = ok && x->kind != Kind::LReduce && x->kind != Kind::Block; });
    return ok;
  }

  // Reads in bounds, no checks, no integer division, no call of a user or library function,
  // float max/min and any sum.
  bool cannot_fail(const NodeRef& v) const {
    bool ok = true;
    ir::for_each_node(v, [&](const NodeRef& x) {
      switch (x->kind) {
        case Kind::Index:
          ok = ok && proven(x);
          break;
        case Kind::LCheck:
        case Kind::LTensor: ok = false; break;
        case Kind::Call: ok = ok && !u_.call_targets.count(x->id); break;
        case Kind::LReduce: {
          auto t = u_.types.find(x->id);
          const bool fl = t != u_.types.end() && t->second && ir::is_scalar(t->second) && is_float(t->second->dtype);
          ok = ok && (x->name == "sum" || ((x->name == "max" || x->name == "min") && fl));
          break;
        }
        case Kind::Binary: {
          auto op = static_cast<ir::BinOp>(x->ival);
          if (op == ir::BinOp::Div || op == ir::BinOp::Mod || op == ir::BinOp::Pow) {
            auto t = u_.types.find(x->id);
            if (t == u_.types.end() || !t->second || !ir::is_scalar(t->second) || !is_float(t->second->dtype)) ok = false;
          }
          break;
        }
        default: break;
      }
    });
    return ok;
  }

  // The block with its last fusable consumer's group fused, or null.
  NodeRef fuse_one(const NodeRef& block) {
    const bool tail = block->has(ir::kHasTail);
    const size_t nst = block->kids.size() - (tail ? 1 : 0);
    for (size_t c = nst; c-- > 1;) {
      const NodeRef& C = block->kids[c];
      if (C->kind != Kind::LTensor || !C->aux.empty()) continue;
      auto cn = point_nest(C);
      if (!cn) continue;
      if (NodeRef r = fuse_into(block, c, *cn)) return r;
    }
    return nullptr;
  }

  NodeRef fuse_into(const NodeRef& block, size_t c, const PointNest& cn) {
    // Group: earlier declarations read only by the consumer and the group, from the nearest.
    std::vector<size_t> at;                       // statement positions of members (descending)
    std::map<size_t, PointNest> nests;            // position -> its nest
    std::unordered_map<DefId, size_t> pos_of;     // member def -> position
    nests.emplace(c, cn);
    std::vector<std::pair<NodeRef, size_t>> reads;  // (read, reader position)
    for (size_t d = c; d-- > 0;) {
      const NodeRef& D = block->kids[d];
      if (D->kind != Kind::LTensor || !D->aux.empty() || D->has(ir::kAdjoint)) continue;
      auto dn = point_nest(D);
      if (!dn) continue;
      std::vector<std::pair<NodeRef, size_t>> mine;
      int names = 0, inside = 0;
      bool ok = true;
      for (size_t r = d + 1; r < block->kids.size() && ok; ++r) {
        std::vector<NodeRef> rs;
        ok = reads_of(block->kids[r], D->def, rs, names);
        if (rs.empty()) continue;
        if (!nests.count(r)) ok = false;
        for (auto& x : rs) mine.emplace_back(x, r);
      }
      inside = names;
      ok = ok && !mine.empty() && static_cast<int>(mine.size()) == inside && refs_[D->def] == inside;
      if (!ok) continue;
      at.push_back(d);
      nests.emplace(d, *dn);
      pos_of[D->def] = d;
      reads.insert(reads.end(), mine.begin(), mine.end());
    }
    if (at.empty()) return nullptr;
    // Every member is filled once per row only when it cannot fail (a native kernel keeps a fill
    // that may fail where it is read, at every point: std::ml pooling's separable sums, whose
    // reads are checked, were refilled per output point) and when what is kept per row is a row
    // (one axis past the prefix), not a slab.
    for (size_t d : at)
      if (!cannot_fail(ir::lstore_value(nests.at(d).store))) return nullptr;
    size_t p = cn.loops.size();
    for (auto& [x, r] : reads) p = std::min(p, row_prefix(x, nests.at(r)));
    if (p == 0) return nullptr;
    for (auto& [pos, nest] : nests)
      if (!same_bounds(nest, cn, p)) return nullptr;
    for (size_t d : at)
      if (nests.at(d).loops.size() > p + 1) return nullptr;
    // Forms.
    std::map<size_t, Member> members;
    for (size_t d : at) {
      Member m;
      m.tensor = block->kids[d];
      m.nest = nests.at(d);
      int nreads = 0;
      for (auto& [x, r] : reads)
        if (ir::index_base(x)->def == m.tensor->def) nreads += 1 + (proven(x) ? 0 : 100);
      if (m.nest.loops.size() == p) m.form = Member::Scalar;
      else if (nreads == 1 && plain_value(ir::lstore_value(m.nest.store))) m.form = Member::Inline;
      else m.form = Member::Local;
      if (m.form != Member::Inline) {
        m.local = cx_.resolver.new_def(m.tensor->name, DefKind::Local, m.tensor->span);
        const auto dt = static_cast<DType>(m.tensor->ival);
        u_.def_types[m.local] = m.form == Member::Scalar ? ir::t_scalar(dt)
                                                         : ir::t_array(ir::t_scalar(dt), static_cast<int>(m.nest.loops.size() - p));
      }
      members.emplace(d, std::move(m));
    }
    // Every member's and the consumer's row variables become the consumer's.
    std::unordered_map<DefId, NodeRef> row_var;  // def -> the consumer's loop
    for (auto& [pos, nest] : nests)
      for (size_t i = 0; i < p; ++i) row_var[nest.loops[i]->def] = cn.loops[i];
    std::unordered_map<DefId, const Member*> by_def;
    for (auto& [pos, m] : members) by_def[m.tensor->def] = &m;
    // Rewrites a value: row variables, and reads of members.
    struct Rw : ir::Mutator {
      Fuser* f;
      std::unordered_map<DefId, NodeRef>* row_var;
      std::unordered_map<DefId, const Member*>* by_def;
      std::unordered_map<DefId, NodeRef>* sub;  // an inlined member's own variables -> subscripts
      size_t p;
      NodeRef pre(const NodeRef& x) override {
        if (x->kind == Kind::Name) {
          if (auto it = sub->find(x->def); it != sub->end()) return f->copy(it->second);
          if (auto it = row_var->find(x->def); it != row_var->end()) return f->var_ref(it->second);
          return nullptr;
        }
        if (x->kind != Kind::Index || ir::index_base(x)->kind != Kind::Name) return nullptr;
        auto it = by_def->find(ir::index_base(x)->def);
        if (it == by_def->end()) return nullptr;
        const Member& m = *it->second;
        const ir::Kids args = ir::index_args(x);
        std::vector<NodeRef> rest;
        for (size_t a = p; a < args.size(); ++a) rest.push_back(mutate(args[a]));
        const auto dt = static_cast<DType>(m.tensor->ival);
        if (m.form == Member::Scalar) return f->typed(irb::ref(m.tensor->name, m.local, x->span), ir::t_scalar(dt));
        if (m.form == Member::Local) {
          std::vector<NodeRef> kids{f->typed(irb::ref(m.tensor->name, m.local, x->span), f->u_.def_types[m.local])};
          kids.insert(kids.end(), rest.begin(), rest.end());
          NodeRef r = ir::make({.kind = Kind::Index, .span = x->span, .kids = std::move(kids),
                                .flags = x->flags | (f->proven(x) ? ir::kProven : 0u)});
          return f->typed(r, ir::t_scalar(dt));
        }
        // Inline: the member's value at these subscripts.
        std::unordered_map<DefId, NodeRef> inner;
        for (size_t a = p; a < m.nest.loops.size(); ++a) inner[m.nest.loops[a]->def] = rest[a - p];
        Rw w = *this;
        w.sub = &inner;
        return w.mutate(f->copy(ir::lstore_value(m.nest.store)));
      }
    };
    std::unordered_map<DefId, NodeRef> none;
    Rw rw;
    rw.f = this;
    rw.row_var = &row_var;
    rw.by_def = &by_def;
    rw.sub = &none;
    rw.p = p;
    std::vector<NodeRef> stmts;
    for (auto it = members.begin(); it != members.end(); ++it) {
      const Member& m = it->second;
      if (m.form == Member::Inline) continue;
      NodeRef v = rw.mutate(copy(ir::lstore_value(m.nest.store)));
      const auto dt = static_cast<DType>(m.tensor->ival);
      if (m.form == Member::Scalar) {
        NodeRef pat = ir::make({.kind = Kind::PBind, .span = m.tensor->span, .name = m.tensor->name, .def = m.local});
        stmts.push_back(ir::make({.kind = Kind::Let, .span = m.tensor->span, .kids = {pat, nullptr, v}}));
        continue;
      }
      // The array over the member's other axes: its inner loops around a store at them.
      std::vector<NodeRef> idx, ext;
      const ir::Kids shape = ir::lshape_extents(ir::ltensor_shape(m.tensor));
      for (size_t a = p; a < m.nest.loops.size(); ++a) {
        idx.push_back(var_ref(m.nest.loops[a]));
        ext.push_back(copy(shape[a]));
      }
      std::vector<NodeRef> skids{v};
      skids.insert(skids.end(), idx.begin(), idx.end());
      NodeRef body = ir::make({.kind = Kind::LStore, .span = m.nest.store->span, .kids = std::move(skids),
                               .name = m.tensor->name, .def = m.local});
      for (size_t a = m.nest.loops.size(); a-- > p;) {
        const NodeRef& l = m.nest.loops[a];
        body = ir::with_kids(l, {copy(ir::lfor_lo(l)), copy(ir::lfor_hi(l)), body});
      }
      NodeRef shp = ir::make({.kind = Kind::LShape, .span = m.tensor->span, .kids = std::move(ext)});
      NodeRef lt = ir::make({.kind = Kind::LTensor, .span = m.tensor->span, .kids = {shp, body}, .name = m.tensor->name,
                             .def = m.local, .ival = static_cast<int64_t>(dt)});
      stmts.push_back(typed(lt, u_.def_types[m.local]));
    }
    // The consumer: its store's value is the block.
    NodeRef cv = rw.mutate(ir::lstore_value(cn.store));
    auto ct = u_.types.find(ir::lstore_value(cn.store)->id);
    stmts.push_back(cv);
    NodeRef blk = typed(ir::make({.kind = Kind::Block, .span = cv->span, .kids = std::move(stmts), .flags = ir::kHasTail}),
                        ct != u_.types.end() ? ct->second : nullptr);
    std::vector<NodeRef> skids{blk};
    for (const NodeRef& i : ir::lstore_index(cn.store)) skids.push_back(i);
    NodeRef store = ir::with_kids(cn.store, std::move(skids));
    std::unordered_map<uint32_t, NodeRef> with{{cn.store->id, store}};
    NodeRef consumer = irb::replace_by_id(block->kids[c], with);
    std::vector<NodeRef> kids;
    for (size_t i = 0; i < block->kids.size(); ++i) {
      if (members.count(i)) continue;
      kids.push_back(i == c ? consumer : block->kids[i]);
    }
    return ir::with_kids(block, std::move(kids));
  }

 public:
  NodeRef copy(const NodeRef& n) { return copy_with_facts(u_, n); }
};

}  // namespace

void row_fuse(CompileCtx& cx) {
  if (cx.opt.row_fuse == 0) return;
  rewrite_lowered<Fuser>(cx);
  for (auto& up : cx.units)
    if (up->lowered) up->lowered = row_hoist(cx, *up, up->lowered);
}

}  // namespace ein
