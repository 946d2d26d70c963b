// A fused row reduction's terms kept in the output row. A softmax written the usual way,
//
//   let z[i] = sum[j](exp(X[i, j] - m[i]));
//   let y[i, j] = exp(X[i, j] - m[i]) / z[i];
//
// computes every exp twice: once for the row sum, once for the quotient. When the fusion plan
// computes z inside y's loops (lang/passes/fusion_plan: a row reduction read at y's outer loop
// variables), the sum is hoisted to the start of each row of y; here, when y's value contains
// the reduction's term itself (the same expression, y's variables for z's), the sum's loop also
// stores each term into y's row, y[i, j] = exp(..), and the term in y's own loop over the row
// reads it back before y[i, j] is overwritten with the quotient. The row is in cache between
// the two loops; each term is computed once. The values are the same bits as computing the term
// twice (the same expression at the same precision, stored at its own type), so the kernel's
// results do not change (they differ from the interpreter's as any kernel's row sum does:
// docs/jit.md "Rounding").
//
// Conditions (otherwise nothing is kept and the term is computed twice, as before): y's clause
// is a nest of loops storing y at exactly its loop variables, in order, the innermost over
// exactly [0, extent) of y's last axis (the terms are stored before the store's own range test),
// and reads nothing of y;
// the reduction is a sum/max/min/prod over one variable with the range of y's innermost loop;
// its term calls a function (a libm call is what is worth keeping) and has y's element type; a
// guarded term (`where M[i, j] > 0`, kept only where the guards hold) is read back only inside
// `if` branches on the same conditions (`if M[i, j] > 0 { exp(..) / z[i] } else { 0.0 }`). The reduction is computed once per row or the fused kernel is refused
// (Gen::reduce), so the row is always filled before it is read.
#include <cstring>
#include <functional>

#include "engine/codegen/gen.h"
#include "lang/passes/fusion_plan.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;
using ir::BinOp;

namespace {

using DefMap = std::unordered_map<ir::DefId, ir::DefId>;

// a (the producer's expression) equals b (the consumer's) when a's variables in `m` are read as
// their images.
bool same_under(const NodeRef& a, const NodeRef& b, const DefMap& m) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->ival != b->ival || a->dt != b->dt || a->aux != b->aux || a->kids.size() != b->kids.size())
    return false;
  if (std::memcmp(&a->fval, &b->fval, sizeof(double)) != 0) return false;
  if (a->kind == Kind::Name) {
    auto it = m.find(a->def);
    if (it != m.end()) return it->second == b->def;
    if (a->def != b->def || a->name != b->name) return false;
  } else if (a->name != b->name || a->def != b->def || a->path != b->path) {
    return false;
  }
  for (size_t i = 0; i < a->kids.size(); ++i)
    if (!same_under(a->kids[i], b->kids[i], m)) return false;
  return true;
}

// Whether the condition `c` (the consumer's; conjuncts of `&&` each count) keeps the row's
// variable `j` below `end` (the producer's range end, read through `m`): `j < end`, `end > j`,
// or `j <= e` / `e >= j` where end is `e + 1`. Integer comparisons of the variable itself only.
bool below_end(const NodeRef& c, ir::DefId j, const NodeRef& end, const DefMap& m) {
  if (!c || c->kind != Kind::Binary) return false;
  const auto op = static_cast<BinOp>(c->ival);
  if (op == BinOp::And) return below_end(ir::bin_lhs(c), j, end, m) || below_end(ir::bin_rhs(c), j, end, m);
  NodeRef var = ir::bin_lhs(c), bound = ir::bin_rhs(c);
  BinOp o = op;
  if (o == BinOp::Gt || o == BinOp::Ge) {
    std::swap(var, bound);
    o = o == BinOp::Gt ? BinOp::Lt : BinOp::Le;
  }
  if (var->kind != Kind::Name || var->def != j || var->dt < 0 || !is_int(static_cast<DType>(var->dt))) return false;
  if (o == BinOp::Lt) return same_under(end, bound, m);
  if (o != BinOp::Le || end->kind != Kind::Binary || static_cast<BinOp>(end->ival) != BinOp::Add) return false;
  const NodeRef& a = ir::bin_lhs(end);
  const NodeRef& b = ir::bin_rhs(end);
  if (b->kind == Kind::IntLit && b->ival == 1) return same_under(a, bound, m);
  if (a->kind == Kind::IntLit && a->ival == 1) return same_under(b, bound, m);
  return false;
}

// The store of a single-clause tensor's loop nest (no lets in between), its loops' variables.
NodeRef nest_store(const NodeRef& clause, std::vector<NodeRef>* loops) {
  NodeRef cur = clause;
  while (cur && cur->kind == Kind::LFor) {
    if (loops) loops->push_back(cur);
    cur = ir::lfor_body(cur);
  }
  return cur && cur->kind == Kind::LStore ? cur : nullptr;
}

bool calls_something(const NodeRef& n) {
  bool found = false;
  ir::for_each_node(n, [&](const NodeRef& x) { found = found || x->kind == Kind::Call; });
  return found;
}

}  // namespace

// `let A[i, j] = v where c;` lowers to loops around `if c { A[i, j] = v }`: the points where c
// fails keep the 0 the tensor starts with (SPEC §5.4). Row terms are stored into the row before
// the row's loop, so that loop must write every point of the row: the same clause storing
// `if c { v } else { 0 }` (same values, for the tensor's only clause of a float type; the
// loops, the store and every read keep their nodes and facts). Null when the clause is not of
// that form.
NodeRef Gen::filled_row_clause(const NodeRef& tensor, const NodeRef& clause) const {
  const auto dt = static_cast<DType>(tensor->ival);
  if (!is_float(dt) || fusion.producers.empty() || tensor->has(ir::kWindowed) || tensor->has(ir::kHasElem))
    return nullptr;
  size_t clauses = 0;
  for (const NodeRef& k : ir::ltensor_stmts(tensor)) clauses += k->kind != Kind::LCheck;
  if (clauses != 1) return nullptr;
  std::vector<NodeRef> loops;
  NodeRef cur = clause;
  while (cur->kind == Kind::LFor) {
    loops.push_back(cur);
    cur = ir::lfor_body(cur);
  }
  if (loops.size() < 2 || cur->kind != Kind::LIf || cur->kids.size() != 2) return nullptr;
  const NodeRef& st = cur->kids[1];
  if (st->kind != Kind::LStore || st->def != tensor->def || ir::lstore_index_count(st) != loops.size()) return nullptr;
  const NodeRef& v = ir::lstore_value(st);
  const int8_t vdt = static_cast<int8_t>(dt);
  auto typed = [&](ir::NodeInit init) { return ir::edited(ir::make(std::move(init)), [&](ir::Node& m) { m.dt = vdt; }); };
  NodeRef zero = typed({.kind = Kind::FloatLit, .span = v->span, .name = "0.0", .fval = 0.0});
  NodeRef then = typed({.kind = Kind::Block, .span = v->span, .kids = {v}, .flags = ir::kHasTail});
  NodeRef other = typed({.kind = Kind::Block, .span = v->span, .kids = {zero}, .flags = ir::kHasTail});
  NodeRef sel = typed({.kind = Kind::If, .span = cur->span, .kids = {cur->kids[0], then, other}});
  NodeRef body = ir::edited(st, [&](ir::Node& m) { m.kids[0] = sel; });
  for (size_t a = loops.size(); a-- > 0;) body = ir::edited(loops[a], [&](ir::Node& m) { m.kids[2] = body; });
  return body;
}

void Gen::plan_row_buffers(const NodeRef& tensor, const NodeRef& clause) {
  row_terms_.clear();
  row_reads_.clear();
  row_store_end_.clear();
  row_outer_.clear();
  if (fusion.producers.empty() || tensor->has(ir::kWindowed) || tensor->has(ir::kHasElem)) return;
  std::vector<NodeRef> loops;
  NodeRef st = nest_store(clause, &loops);
  if (!st || loops.size() < 2 || ir::lstore_index_count(st) != loops.size()) return;
  for (size_t a = 0; a < loops.size(); ++a) {
    const NodeRef& ix = ir::lstore_index(st)[a];
    if (ix->kind != Kind::Name || ix->def != loops[a]->def) return;
  }
  const NodeRef& value = ir::lstore_value(st);
  bool self = false;
  ir::for_each_node(value, [&](const NodeRef& x) {
    self = self || (x->kind == Kind::Index && ir::index_base(x)->kind == Kind::Name && ir::index_base(x)->def == tensor->def);
  });
  if (self) return;
  const DType out_dt = static_cast<DType>(tensor->ival);
  const NodeRef& row = loops.back();
  // The terms are stored before the store's own range test of the row axis runs: the row loop
  // must cover exactly [0, extent) of the last axis, as the tensor's shape says.
  const ir::Kids extents = ir::lshape_extents(ir::ltensor_shape(tensor));
  if (extents.size() != loops.size()) return;
  const NodeRef& ext = extents.back();
  const NodeRef& lo = ir::lfor_lo(row);
  const NodeRef& hi = ir::lfor_hi(row);
  if (lo->kind != Kind::IntLit || lo->ival != 0) return;
  if (!ir::structurally_equal(ext, hi) &&
      !(ext->kind == Kind::IMax && ir::imax_a(ext)->kind == Kind::IntLit && ir::imax_a(ext)->ival == 0 &&
        ir::structurally_equal(ir::imax_b(ext), hi)))
    return;
  // Reads of fused row reductions at the outer loop variables (under a branch too: Gen::reduce
  // refuses the kernel when the reduction cannot be hoisted before the row's loop).
  std::function<void(const NodeRef&)> walk = [&](const NodeRef& n) {
    if (!n) return;
    if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name) {
      auto fp = fusion.producers.find(ir::index_base(n)->def);
      if (fp != fusion.producers.end() && ir::index_args_count(n) == loops.size() - 1) {
        NodeRef pst = nest_store(fused_clause(fp->second), nullptr);
        const NodeRef r = pst ? ir::lstore_value(pst) : nullptr;
        bool ok = r && r->kind == Kind::LReduce && ir::lstore_index_count(pst) == ir::index_args_count(n) &&
                  (r->name == "sum" || r->name == "max" || r->name == "min" || r->name == "prod") &&
                  ir::lreduce_items_count(r) == 1 && ir::lreduce_items(r)[0]->kind == Kind::LoopVar;
        DefMap m;
        for (size_t a = 0; ok && a < ir::index_args_count(n); ++a) {
          const NodeRef& x = ir::index_args(n)[a];
          const NodeRef& slot = ir::lstore_index(pst)[a];
          ok = x->kind == Kind::Name && x->def == loops[a]->def && slot->kind == Kind::Name;
          if (ok) m[slot->def] = x->def;
        }
        if (ok) {
          const NodeRef& var = ir::lreduce_items(r)[0];
          // A guarded term (`where mask[i, j] > 0`) is kept only where its guards hold: it may
          // be read back only under `if` branches taken on the same conditions.
          std::vector<NodeRef> guards;
          NodeRef body = ir::lreduce_body(r);
          while (body->kind == Kind::LGuard) {
            guards.push_back(ir::lguard_cond(body));
            body = ir::lguard_value(body);
          }
          m[var->def] = row->def;
          // A sum over a prefix of the row (`sum[j in 0..i + 1](..)`, a causal row written with
          // a range) stores the terms it has, each only where the row has room, and they are
          // read back only under a branch that keeps j below the range's end (`if j <= i`).
          const bool whole_row = same_under(ir::loopvar_hi(*var), ir::lfor_hi(row), m);
          ok = body->kind != Kind::LLetIn && calls_something(body) && body->dt >= 0 &&
               static_cast<DType>(body->dt) == out_dt && same_under(ir::loopvar_lo(*var), ir::lfor_lo(row), m);
          if (ok) {
            bool any = false;
            std::vector<NodeRef> taken;  // conditions of the `if` branches around the node
            std::function<void(const NodeRef&)> find = [&](const NodeRef& x) {
              if (!x) return;
              if (x->kind == body->kind && same_under(body, x, m)) {
                bool covered = whole_row;
                for (const NodeRef& c : taken) covered = covered || below_end(c, row->def, ir::loopvar_hi(*var), m);
                for (const NodeRef& g : guards) {
                  bool in = false;
                  for (const NodeRef& c : taken) in = in || same_under(g, c, m);
                  covered = covered && in;
                }
                if (covered) {
                  row_terms_[x->id] = r->id;
                  any = true;
                  return;
                }
              }
              if (x->kind == Kind::If) {
                find(ir::if_cond(x));
                taken.push_back(ir::if_cond(x));
                find(ir::if_then(x));
                taken.pop_back();
                if (x->kids.size() > 2) find(ir::if_else(x));
                return;
              }
              for (const NodeRef& kid : x->kids) find(kid);
            };
            find(value);
            if (any) row_reads_[r->id] = n;
            if (any && !whole_row) row_store_end_[r->id] = ir::lfor_hi(row);
          }
        }
        return;  // the producer's read: nothing inside it to look at
      }
    }
    for (const NodeRef& k : n->kids) walk(k);
  };
  walk(value);
  if (row_reads_.empty()) {
    row_terms_.clear();
    return;
  }
  for (size_t a = 0; a + 1 < loops.size(); ++a) row_outer_.push_back(loops[a]->def);
  row_var_ = row->def;
}

Val Gen::row_read(const NodeRef&, uint32_t reduction) {
  // The reduction first (hoisted to the row's scope, storing its terms: Gen::reduce refuses the
  // kernel otherwise), then the term of this point from the row.
  value(row_reads_.at(reduction));
  std::vector<std::string> at;
  for (ir::DefId d : row_outer_) at.push_back(lookup(d)->c);
  const Val* j = lookup(row_var_);
  if (!j) unsupported("a kept row term outside its row loop");
  at.push_back(j->c);
  const BufArg& B = k.bufs[static_cast<size_t>(out_buf)];
  const std::string t = em.fresh("rk");
  em.line("const " + std::string(ctype(B.dt)) + " " + t + " = b" + std::to_string(out_buf) + "[" + flat(out_buf, at, false) + "];");
  return Val{t, B.dt, em.depth()};
}

void Gen::keep_row_term(const Val& v, const std::string& var) {
  if (v.dt != k.bufs[static_cast<size_t>(out_buf)].dt) unsupported("a kept row term of another type");
  std::vector<std::string> at;
  for (ir::DefId d : row_outer_) at.push_back(lookup(d)->c);
  at.push_back(var);
  const std::string store = "b" + std::to_string(out_buf) + "[" + flat(out_buf, at, false) + "] = " + v.c + ";";
  auto end = row_store_end_.find(keeping_);
  if (end == row_store_end_.end()) {
    em.line(store);
  } else {
    // A prefix of the row: its range may end past the row (no term is read back there).
    Val e = index(end->second);
    em.line("if (" + var + " < " + e.c + ") " + store);
  }
  ++kept_;
}

}  // namespace ein::codegen
