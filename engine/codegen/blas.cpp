// GEMM/GEMV recognition. exec_facts marks the plain `sum[k](A[i, k] * B[k, j])` as
// strategy=gemm; here the same idea covers every layout BLAS can take without copies:
//   C[i, j]    = s * sum[k](L * R)   L in {A[i,k], A[k,i]}, R in {B[k,j], B[j,k]}  -> ?gemm
//   C[b, i, j] = s * sum[k](L * R)   L, R batched on axis 0 or shared (rank 2)    -> ?gemm per b
//   y[i]       = s * sum[k](L * x[k])  L in {A[i,k], A[k,i]}                       -> ?gemv
// where s is a product of loop-invariant scalar factors (or a division by one), the output
// covers [0, hi) of every axis and both reads are proven in bounds (so the BLAS call reads
// exactly what the loops would).
#include "engine/codegen/gen.h"

namespace ein::codegen {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

namespace {

struct Match {
  std::vector<NodeRef> loops;      // output loops, outer to inner
  NodeRef store, reduce;
  std::vector<NodeRef> tensors;    // the two Index factors
  std::vector<NodeRef> scalars;    // invariant factors (multiply alpha)
  NodeRef divisor;                 // `sum(...) / d`
  ir::DefId k;
};

bool mentions(const NodeRef& n, const std::vector<ir::DefId>& vars) {
  bool hit = false;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if ((x->kind == Kind::Name) && std::find(vars.begin(), vars.end(), x->def) != vars.end()) hit = true;
    if (x->kind == Kind::Index || x->kind == Kind::LReduce || x->kind == Kind::Call) hit = true;
  });
  return hit;
}

void factors(const NodeRef& e, std::vector<NodeRef>& out) {
  if (e->kind == Kind::Binary && static_cast<BinOp>(e->ival) == BinOp::Mul) {
    factors(e->kids[0], out);
    factors(e->kids[1], out);
  } else {
    out.push_back(e);
  }
}

bool is_zero_lit(const NodeRef& n) { return n->kind == Kind::IntLit && n->ival == 0; }

std::optional<Match> match(const NodeRef& clause) {
  Match m;
  NodeRef cur = clause;
  while (cur->kind == Kind::LFor) {
    if (!is_zero_lit(cur->kids[0]) || cur->has(ir::kSequential) || cur->has(ir::kReverse)) return std::nullopt;
    m.loops.push_back(cur);
    cur = cur->kids[2];
  }
  if (cur->kind != Kind::LStore || m.loops.empty() || m.loops.size() > 3) return std::nullopt;
  m.store = cur;
  std::vector<ir::DefId> vars;
  for (auto& l : m.loops) vars.push_back(l->def);
  if (m.store->kids.size() != m.loops.size() + 1) return std::nullopt;
  for (size_t a = 1; a < m.store->kids.size(); ++a)
    if (m.store->kids[a]->kind != Kind::Name) return std::nullopt;
  std::vector<NodeRef> outer;
  NodeRef v = m.store->kids[0];
  if (v->kind == Kind::Binary && static_cast<BinOp>(v->ival) == BinOp::Div && v->kids[0]->kind == Kind::LReduce) {
    m.divisor = v->kids[1];
    v = v->kids[0];
  } else {
    factors(v, outer);
    v = nullptr;
    for (auto& f : outer) {
      if (f->kind == Kind::LReduce && !v) v = f;
      else m.scalars.push_back(f);
    }
    if (!v) return std::nullopt;
  }
  if (v->kind != Kind::LReduce || v->name != "sum" || v->kids.size() != 2 || v->kids[1]->kind != Kind::LoopVar)
    return std::nullopt;
  m.reduce = v;
  m.k = v->kids[1]->def;
  if (!is_zero_lit(v->kids[1]->kids[0])) return std::nullopt;
  std::vector<NodeRef> fs;
  factors(v->kids[0], fs);
  vars.push_back(m.k);
  for (auto& f : fs) {
    if (f->kind == Kind::Index) m.tensors.push_back(f);
    else m.scalars.push_back(f);
  }
  if (m.tensors.size() != 2) return std::nullopt;
  for (auto& s : m.scalars)
    if (mentions(s, vars)) return std::nullopt;
  if (m.divisor && mentions(m.divisor, vars)) return std::nullopt;
  for (auto& t : m.tensors) {
    if (t->kids[0]->kind != Kind::Name || t->has(ir::kWindowed)) return std::nullopt;
    for (size_t a = 1; a < t->kids.size(); ++a)
      if (t->kids[a]->kind != Kind::Name || std::find(vars.begin(), vars.end(), t->kids[a]->def) == vars.end())
        return std::nullopt;
  }
  return m;
}

// Positions of variables in an access: e.g. A[k, i] -> {k: 0, i: 1}.
int pos(const NodeRef& access, ir::DefId d) {
  for (size_t a = 1; a < access->kids.size(); ++a)
    if (access->kids[a]->def == d) return static_cast<int>(a) - 1;
  return -1;
}

}  // namespace

bool Gen::blas(const NodeRef& tensor, const NodeRef& clause) {
  auto m = match(clause);
  if (!m) return false;
  DType dt = static_cast<DType>(tensor->ival);
  if (dt != DType::F32 && dt != DType::F64) return false;
  if (tensor->has(ir::kWindowed) || tensor->has(ir::kHasElem)) return false;
  size_t rank = m->loops.size();
  if (static_cast<int>(tensor->kids[0]->kids.size()) != static_cast<int>(rank)) return false;
  // Output axes: store index a names a loop variable.
  std::vector<ir::DefId> ax;
  for (size_t a = 1; a < m->store->kids.size(); ++a) ax.push_back(m->store->kids[a]->def);
  for (auto& t : m->tensors)
    if (!is_proven(*unit, t) || t->kids[0]->def == tensor->def) return false;
  ir::DefId bvar, ivar = ax[rank == 3 ? 1 : 0], jvar, kv = m->k;
  if (rank == 3) bvar = ax[0];
  if (rank >= 2) jvar = ax[rank - 1];
  NodeRef L, R;
  for (auto& t : m->tensors) (pos(t, ivar) >= 0 ? L : R) = t;
  if (!L || !R || L == R) return false;
  auto plain2 = [&](const NodeRef& t, ir::DefId x, ir::DefId y) {  // rank-2 access of {x, y}, maybe batched
    size_t n = t->kids.size() - 1;
    bool batched = rank == 3 && n == 3 && pos(t, bvar) == 0;
    if (n != (batched ? 3u : 2u)) return false;
    int px = pos(t, x), py = pos(t, y);
    return px >= 0 && py >= 0 && px != py && (!batched || (px > 0 && py > 0));
  };
  bool gemv = rank == 1;
  if (gemv) {
    if (!plain2(L, ivar, kv) || R->kids.size() != 2 || pos(R, kv) != 0) return false;
  } else {
    if (!plain2(L, ivar, kv) || !plain2(R, kv, jvar)) return false;
    if (rank == 3 && pos(L, bvar) != 0 && pos(R, bvar) != 0) return false;  // no batch operand
  }
  for (auto& t : m->tensors) {
    ir::TypeRef ty = type_of_def(t->kids[0]);
    if (!ty || ir::elem_of(ty)->dtype != dt) return false;
  }

  // ---- emission -------------------------------------------------------------------------
  BufArg out;
  out.def = tensor->def;
  out.slot = tensor->slot;
  out.name = tensor->name;
  out.dt = dt;
  out.rank = static_cast<int>(rank);
  out.output = true;
  k.bufs.push_back(out);
  out_buf = 0;
  out_def = tensor->def;
  int bl = buffer_of(L->kids[0]), br = buffer_of(R->kids[0]);
  std::string T = ctype(dt);
  Val alpha = literal(dt == DType::F32 ? "1.0f" : "1.0", dt);
  for (auto& s : m->scalars) {
    Val v = value(s);
    if (v.dt != dt) return false;
    alpha = em.define(dt, T, "(" + alpha.c + " * " + v.c + ")", 0, Motion::Cheap);
  }
  if (m->divisor) {
    Val d = value(m->divisor);
    if (d.dt != dt) return false;
    alpha = em.define(dt, T, "(" + alpha.c + " / " + d.c + ")", 0, Motion::Cheap);
  }
  auto hi_of = [&](ir::DefId d) -> std::string {
    for (auto& l : m->loops)
      if (l->def == d) return index(l->kids[1]).c;
    return index(m->reduce->kids[1]->kids[1]).c;
  };
  std::string M = hi_of(ivar), K = hi_of(kv);
  std::string N = gemv ? "1" : hi_of(jvar);
  int st = site(m->store->span);
  // The output block the loops would write must fit the allocation (it does by construction).
  std::string fits = "(" + M + " <= " + extent(0, rank == 3 ? 1 : 0) + ")";
  if (!gemv) fits += " && (" + N + " <= " + extent(0, static_cast<int>(rank) - 1) + ")";
  em.line("if (!(" + fits + ")) { ein_fail(A, " + std::to_string(st) + ", EIN_E_BOUNDS, 0, " + M + ", 0, " +
          extent(0, 0) + "); return A->err->code; }");
  std::string f = dt == DType::F32 ? "s" : "d";
  auto ld = [&](int b) { return extent(b, k.bufs[static_cast<size_t>(b)].rank - 1); };
  std::string lname = "b" + std::to_string(bl), rname = "b" + std::to_string(br);
  std::string plan;
  if (gemv) {
    int ta = pos(L, ivar) == 1;  // stored [k, i]
    std::string rows = ta ? K : M, cols = ta ? M : K;
    em.line("if (" + M + " > 0) A->rt->" + f + "gemv(" + std::to_string(ta) + ", " + rows + ", " + cols + ", " +
            alpha.c + ", " + lname + ", " + ld(bl) + ", " + rname + ", 0, b0);");
    plan = f + "gemv(" + (ta ? "trans " : "") + L->kids[0]->name + ", " + R->kids[0]->name + ")";
    k.strategy = "gemv";
  } else {
    bool lb = rank == 3 && L->kids.size() == 4, rb = rank == 3 && R->kids.size() == 4;
    int ta = pos(L, ivar) > pos(L, kv);  // stored [.., k, i]
    int tb = pos(R, jvar) < pos(R, kv);  // stored [.., j, k]
    std::string call = "A->rt->" + f + "gemm(" + std::to_string(ta) + ", " + std::to_string(tb) + ", " + M + ", " + N +
                       ", " + K + ", " + alpha.c + ", " + lname + (lb ? " + bi * " + stride(bl, 0) : "") + ", " +
                       ld(bl) + ", " + rname + (rb ? " + bi * " + stride(br, 0) : "") + ", " + ld(br) + ", 0, b0" +
                       (rank == 3 ? " + bi * " + stride(0, 0) : "") + ", " + extent(0, static_cast<int>(rank) - 1) + ");";
    em.open("if (" + M + " > 0 && " + N + " > 0) {", false);
    if (rank == 3) {
      std::string B = hi_of(bvar);
      em.line("if (" + B + " > " + extent(0, 0) + ") { ein_fail(A, " + std::to_string(st) + ", EIN_E_BOUNDS, 0, " + B +
              ", 0, " + extent(0, 0) + "); return A->err->code; }");
      em.open("for (int64_t bi = 0; bi < " + B + "; ++bi) {", false);
      em.line("if (ein_stop(A, INT64_MAX)) break;");
      em.line(call);
      em.close();
    } else {
      em.line(call);
    }
    em.close();
    plan = f + "gemm(" + L->kids[0]->name + (ta ? "ᵀ" : "") + ", " + R->kids[0]->name + (tb ? "ᵀ" : "") + ")" +
           (rank == 3 ? " batched over axis 0" : "");
    k.strategy = rank == 3 ? "batched-gemm" : "gemm";
  }
  if (!m->scalars.empty() || m->divisor) plan += " with alpha";
  k.plan.push_back("BLAS: " + plan);
  k.accesses += 2;
  return true;
}

}  // namespace ein::codegen
