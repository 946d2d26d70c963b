// The kernel frame: arguments (buffers, scalars), tensor reads with their bounds checks, error
// sites, and the function text around the generated body.
#include <algorithm>
#include <functional>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/resolve/builtins.h"
#include "lang/ir/kid_families.h"
#include "lang/passes/fusion_plan.h"
#include "lang/ir/visitor.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

void unsupported(const std::string& why) { throw Unsupported{why}; }

const char* ctype(DType dt) {
  switch (dt) {
    case DType::Bool: return "bool";
    case DType::I8: return "i8";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::F32: return "float";
    case DType::F64: return "double";
    default: return "float";
  }
}

const char* stype(DType dt) { return dt == DType::Bool ? "uint8_t" : ctype(dt); }

bool kernel_dtype(DType dt) { return dt != DType::F16 && dt != DType::BF16; }

std::string def_key(ir::DefId d) { return std::to_string(d.crate) + ":" + std::to_string(d.index); }

bool is_proven(const Unit& u, const NodeRef& e) { return e->has(ir::kProven) || u.proven.count(e->id) > 0; }

bool has_loop(const NodeRef& n) {
  bool found = false;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::LFor || x->kind == Kind::LReduce) found = true;
  });
  return found;
}

Gen::Gen(const CompileCtx& c, const Unit& u, const FusionMap& f, Kernel& kernel)
    : cx(c), unit(&u), k(kernel), fusion(f) {}

const LoopFact& Gen::loop_fact(const NodeRef& n) const {
  auto it = unit->loops.find(n->id);
  if (it == unit->loops.end()) unsupported("a loop the loop plan did not see");
  return it->second;
}

bool Gen::contracted(const LoopFact& f) const {
  // Some but not all of them computed first (a plan whose sizes codegen could not take) counts
  // as none: the thresholds are then a little high, the values the same.
  if (f.planned.empty()) return false;
  for (uint32_t id : f.planned)
    if (!precomputed_.count(id)) return false;
  return true;
}

bool Gen::innermost(const NodeRef& n) const {
  const LoopFact& f = loop_fact(n);
  return contracted(f) ? f.innermost_contracted : f.innermost;
}

double Gen::loop_work(const NodeRef& n) const {
  const LoopFact& f = loop_fact(n);
  return contracted(f) ? f.work_contracted : f.work;
}

ir::TypeRef Gen::type_of_def(const NodeRef& name) const {
  // A Name's own type when inference recorded it, else its binding's.
  ir::TypeRef t = unit->type(name);
  if (t && t->k != ir::Type::K::Unknown) return t;
  if (auto it = unit->def_types.find(name->def); it != unit->def_types.end()) return it->second;
  if (auto it = cx.global_types.find(name->def); it != cx.global_types.end()) return it->second;
  return cx.env.type_of(name->def);
}

int Gen::buffer_of(const NodeRef& name) {
  std::string key = def_key(name->def);
  auto al = buf_alias.find(key);
  if (al != buf_alias.end()) return al->second;
  auto it = bufs_by_def_.find(key);
  if (it != bufs_by_def_.end()) return it->second;
  if (local_of(name->def) || is_local_def(name->def)) unsupported("a block-local array `" + name->name + "` read as an argument");
  ir::TypeRef t = type_of_def(name);
  ir::TypeRef el = ir::elem_of(t);
  int rank = ir::rank_of(t);
  if (!el || el->k != ir::Type::K::Scalar || rank <= 0) unsupported("`" + name->name + "` is not a rectangular array");
  if (!kernel_dtype(el->dtype)) unsupported("f16/bf16 arrays");
  BufArg b;
  b.def = name->def;
  b.slot = name->slot;
  b.name = name->name;
  b.dt = el->dtype;
  b.rank = rank;
  k.bufs.push_back(b);
  int idx = static_cast<int>(k.bufs.size()) - 1;
  bufs_by_def_[key] = idx;
  return idx;
}

Val Gen::scalar_of(const NodeRef& name) {
  std::string key = def_key(name->def);
  DType dt = dtype_of(name);
  if (!kernel_dtype(dt)) unsupported("f16/bf16 scalars");
  int idx;
  auto it = scalars_by_def_.find(key);
  if (it != scalars_by_def_.end()) {
    idx = it->second;
  } else {
    ScalarArg s;
    s.def = name->def;
    s.slot = name->slot;
    s.name = name->name;
    s.dt = dt;
    k.scalars.push_back(s);
    idx = static_cast<int>(k.scalars.size()) - 1;
    scalars_by_def_[key] = idx;
  }
  return Val{"a" + std::to_string(idx), k.scalars[static_cast<size_t>(idx)].dt, 0};
}

std::string Gen::extent(int b, int axis) {
  const BufArg& B = k.bufs[static_cast<size_t>(b)];
  if (axis == 0 && B.windowed) return "b" + std::to_string(b) + "_l0";
  return "b" + std::to_string(b) + "_e" + std::to_string(axis);
}

std::string Gen::stride(int b, int axis) { return "b" + std::to_string(b) + "_s" + std::to_string(axis); }

int Gen::site(Span span, const std::string& code, const std::string& message, const std::string& help) {
  // One site per distinct failure: code generated twice for the same node (a fused producer
  // read twice at the same point) then has the same text and is shared by CSE.
  for (size_t i = 0; i < k.sites.size(); ++i)
    if (k.sites[i].span.file == span.file && k.sites[i].span.lo == span.lo && k.sites[i].span.hi == span.hi && k.sites[i].code == code && k.sites[i].message == message) return static_cast<int>(i);
  k.sites.push_back(Site{span, code, message, help});
  return static_cast<int>(k.sites.size()) - 1;
}

void Gen::note_read(int b, const NodeRef& read) {
  BufArg& B = k.bufs[static_cast<size_t>(b)];
  if (read->has(ir::kWindowed) != B.windowed) {
    // A windowed tensor of an earlier statement: its window size comes with the value, or is
    // the window its allocation in this unit declares (then a constant: `x % 8192` is a mask,
    // `x % b_w` a division at every read of a scalar recurrence's previous row, checked at entry).
    if (b == out_buf || k.accesses_of(b) > 0) unsupported("a tensor read both windowed and not");
    B.windowed = true;
    B.window = -1;
    if (unit && unit->lowered)
      ir::for_each_node(unit->lowered, [&](const NodeRef& t) {
        if (B.window < 0 && t->kind == Kind::LTensor && t->def == ir::index_base(read)->def &&
            !t->has(ir::kResume) && t->has(ir::kWindowed) && ir::ltensor_window(t) > 0)
          B.window = ir::ltensor_window(t);
      });
  }
  ++B.reads;
}

Val Gen::load(const NodeRef& e) {
  if (auto sub = read_subst_.find(e->id); sub != read_subst_.end()) return sub->second;
  const NodeRef& base = ir::index_base(e);
  // `shape(X)[k]` at a literal k below X's rank (`c in 0..shape(X)[1]`): X's extent k, as
  // `len(X[0])` is (gen_call.cpp). Was: the whole clause interpreted.
  if (base->kind == Kind::Call && ir::index_args_count(e) == 1 && ir::call_args(base).size() == 1 &&
      ir::call_callee(base)->kind == Kind::Name && ir::call_args(base)[0]->kind == Kind::Name &&
      ir::index_args(e)[0]->kind == Kind::IntLit && !fusion.producers.count(ir::call_args(base)[0]->def)) {
    auto b = builtin_of(ir::call_callee(base)->def);
    const int64_t a = ir::index_args(e)[0]->ival;
    if (b && *b == Builtin::Shape) {
      const int bi = buffer_of(ir::call_args(base)[0]);
      if (a >= 0 && a < k.bufs[static_cast<size_t>(bi)].rank)
        return em.define(DType::I32, "i32", "((i32)" + extent(bi, static_cast<int>(a)) + ")", 0, Motion::Cheap);
    }
  }
  if (base->kind != Kind::Name) unsupported("indexing a computed value");
  if (const Local* L = local_of(base->def)) return load_local(e, *L);  // gen_local.cpp
  if (!carry_.name.empty() && carry_.reads.count(e->id)) {
    if (counting_) ++k.accesses;
    if (!is_proven(*unit, e) && !assumed(e)) {
      if (counting_) ++k.checked;
      Val x = index(ir::index_args(e)[carry_.axis]);
      std::string ext = extent(out_buf, static_cast<int>(carry_.axis));
      em.line("if (EIN_UNLIKELY(!((uint64_t)" + x.c + " < (uint64_t)" + ext + "))) ein_fail(A, " +
              std::to_string(site(e->span)) + ", EIN_E_BOUNDS, " + ord_ + ", " + x.c + ", " + std::to_string(carry_.axis) + ", " + ext + ");");
    }
    return Val{carry_.name, k.bufs[static_cast<size_t>(out_buf)].dt, em.depth()};
  }
  auto fp = fusion.producers.find(base->def);
  if (fp != fusion.producers.end() && !buf_alias.count(def_key(base->def))) return load_fused(e, fp->second);
  int b = buffer_of(base);
  size_t n = ir::index_args_count(e);
  if (static_cast<int>(n) != k.bufs[static_cast<size_t>(b)].rank) unsupported("a partial index (a row of `" + base->name + "`)");
  note_read(b, e);
  if (counting_) ++k.accesses;
  std::vector<Val> xs;
  int level = 0;
  for (size_t a = 0; a < n; ++a) {
    xs.push_back(index(ir::index_args(e)[a]));
    level = std::max(level, xs.back().level);
  }
  std::vector<std::string> xc;
  for (auto& x : xs) xc.push_back(x.c);
  bool self = b == out_buf;
  bool proven = is_proven(*unit, e) || assumed(e);
  if (assumed(e)) level = std::max(level, assume_level_);
  // Indices may have registered buffers: look the buffer up again.
  const BufArg& B = k.bufs[static_cast<size_t>(b)];
  std::string T = ctype(B.dt);
  std::vector<std::string> at = xc;
  bool circular = B.windowed;
  if (circular && B.window < 0) {
    // A window known only at run time: `x % b_w` is its own value, declared where `x` exists,
    // so an inner loop over the other axes keeps no division (GCC does not vectorise a loop
    // whose addresses divide by a variable, even an invariant one: a per-segment sum over a
    // checkpoint buffer ran scalar, 4x slower). b_w > 0 was checked at entry.
    at[0] = em.define(DType::I64, "int64_t", "(" + xc[0] + " % b" + std::to_string(b) + "_w)", xs[0].level, Motion::Cheap).c;
    circular = false;
  }
  std::string raw = "b" + std::to_string(b) + "[" + flat(b, at, circular) + "]";
  if (B.dt == DType::Bool) raw = "(bool)" + raw;
  if (proven && !self) return em.define(B.dt, T, raw, level, Motion::Cheap);
  std::string t = em.fresh("x");
  if (proven) {
    em.line("const " + T + " " + t + " = " + raw + ";");
    return Val{t, B.dt, em.depth()};
  }
  if (counting_) ++k.checked;
  std::string key = "load|" + raw;
  if (!self)
    if (const std::string* hit = em.find(key)) return Val{*hit, B.dt, em.depth()};
  int st = site(e->span);
  std::string ok, chain;
  for (size_t a = 0; a < n; ++a) {
    std::string c = "(uint64_t)" + xc[a] + " < (uint64_t)" + extent(b, static_cast<int>(a));
    ok += (ok.empty() ? "" : " && ") + c;
    chain += std::string(a ? " else if (!(" : "if (!(") + c + ")) ein_fail(A, " + std::to_string(st) +
             ", EIN_E_BOUNDS, " + ord_ + ", " + xc[a] + ", " + std::to_string(a) + ", " +
             extent(b, static_cast<int>(a)) + ");";
  }
  em.line(T + " " + t + " = 0;");
  em.line("if (EIN_LIKELY(" + ok + ")) " + t + " = " + raw + "; else { " + chain + " }");
  if (!self) em.remember(em.depth(), key, t);
  return Val{t, B.dt, em.depth()};
}

Val Gen::load_fused(const NodeRef& e, const NodeRef& producer) {
  // The producer's clause is a loop nest around one store; bind its loop variables to this
  // access's indices and compute the stored value here (no temporary tensor).
  NodeRef cur = fused_clause(producer);
  std::vector<NodeRef> lets;
  while (cur->kind == Kind::LFor) cur = ir::lfor_body(cur);
  while (cur->kind == Kind::LSeq && ir::lseq_stmts_count(cur) == 2 && ir::lseq_stmts(cur)[0]->kind == Kind::LLet) {
    lets.push_back(ir::lseq_stmts(cur)[0]);
    cur = ir::lseq_stmts(cur)[1];
  }
  if (cur->kind != Kind::LStore || ir::lstore_index_count(cur) != ir::index_args_count(e))
    unsupported("a fused producer of unexpected shape");
  size_t m = mark();
  for (size_t a = 0; a < ir::index_args_count(e); ++a) {
    const NodeRef& slot = ir::lstore_index(cur)[a];
    if (slot->kind != Kind::Name) unsupported("a fused producer with a literal index");
    Val x = index(ir::index_args(e)[a]);
    bind(slot->def, x);
  }
  for (auto& l : lets) bind(l->def, value(ir::llet_value(l)));
  const NodeRef& stored = ir::lstore_value(cur);
  // A row reduction (lang/passes/fusion_plan): computed once per row of this kernel, before the
  // loops inside the row (Gen::reduce); one that may fail would fail in another order than
  // unfused.
  bool row = false;
  ir::for_each_node(stored, [&](const NodeRef& x) {
    if (x->kind != Kind::LReduce) return;
    row = true;
    fused_rows_.insert(x->id);
  });
  if (row && may_fail(stored, *unit, 0)) unsupported("a fused row reduction that may fail");
  Val v = convert(value(stored), static_cast<DType>(producer->ival));
  unbind_to(m);
  return v;
}

int Gen::add_output(const NodeRef& tensor) {
  BufArg out;
  out.def = tensor->def;
  out.slot = tensor->slot;
  out.name = tensor->name;
  out.dt = static_cast<DType>(tensor->ival);
  out.rank = static_cast<int>(ir::lshape_extents_count(ir::ltensor_shape(tensor)));
  out.output = true;
  out.windowed = tensor->has(ir::kWindowed);
  out.window = ir::ltensor_window(tensor);
  if (out.windowed && out.window <= 0) unsupported("a storage window without a size");
  if (!kernel_dtype(out.dt)) unsupported("an f16/bf16 tensor");
  if (tensor->has(ir::kHasElem)) unsupported("a tensor with array elements");
  if (out.rank == 0) unsupported("a rank-0 tensor");
  if (bufs_by_def_.count(def_key(tensor->def))) unsupported("a tensor written twice");
  k.bufs.push_back(out);
  int b = static_cast<int>(k.bufs.size()) - 1;
  bufs_by_def_[def_key(tensor->def)] = b;
  return b;
}

void Gen::clause(const NodeRef& tensor, const NodeRef& given) {
  out_buf = add_output(tensor);
  out_def = tensor->def;
  note_locals(given);
  NodeRef cl = given;
  // A declaration guard's clause (`.. where j <= i`: the store under an `if`) keeps a fused row
  // reduction's terms only when its row loop writes the whole row: then it stores 0 where the
  // guard fails (gen_rowbuf.cpp filled_row_clause).
  if (NodeRef filled = filled_row_clause(tensor, given)) {
    plan_row_buffers(tensor, filled);
    if (!row_reads_.empty()) cl = filled;
  }
  if (cl == given) plan_row_buffers(tensor, cl);
  clause_root_ = cl;
  versions(cl, [&] { stmt(cl); });
  clause_root_ = nullptr;
}

void Gen::versions(const NodeRef& checked, const std::function<void()>& emit) {
  std::string pc = precheck(checked);
  const bool guarded = entry_guarded_;
  if (pc.empty()) {
    emit();
    return;
  }
  em.open("if (" + pc + ") {", true);
  assume_ = true;
  assume_level_ = em.depth();
  emit();
  em.close();
  assume_ = false;
  counting_ = false;
  em.open("if (!" + pc + ") {", true);
  if (guarded) {
    // A tested read under a guard (`if h >= p { X[h - p] } else { 0.0 }`): the test can fail
    // in a run that fails nowhere, so this copy is a normal path (a padded copy's every run).
    emit();
  } else {
    // Only a run about to fail (E005) takes this copy: a cold lambda, which GCC optimises for
    // size (no vectorising or unrolling of loops that are scalar anyway), without
    // team_split's second nest.
    em.open("[&]() __attribute__((cold, noinline)) {", true);
    const bool saved_checked = checked_copy_;
    checked_copy_ = true;
    emit();
    checked_copy_ = saved_checked;
    em.close("}();");
  }
  em.close();
  if (!assumed_.empty())
    k.plan.push_back("bounds: " + std::to_string(assumed_.size()) + " read(s) checked once at entry (fast and checked versions)");
  if (!safe_divisors_.empty())
    k.plan.push_back("divisors: " + std::to_string(safe_divisors_.size()) +
                     " integer divisor(s) fixed at entry tested once (neither 0 nor -1): plain quotients in the fast version");
}

void Gen::expr_let(const NodeRef& let) {
  const NodeRef& v = expr_kernel_value(let);
  note_locals(v);
  DType dt = dtype_of(v);
  k.result_dt = dt;
  Val r = (v->kind == Kind::LReduce) ? reduce_parallel(v) : value(v);
  r = convert(r, dt);
  if (is_float(dt)) em.line("A->result->f = (double)" + r.c + ";");
  else em.line("A->result->i = (int64_t)" + r.c + ";");
}

std::string Gen::finish() {
  std::string head = "(ein_args* A) {\n";
  head += "  if (A->abi != EIN_ABI_VERSION || A->nbufs != " + std::to_string(k.bufs.size()) +
          " || A->nscalars != " + std::to_string(k.scalars.size()) + ") return EIN_MISMATCH;\n";
  for (size_t i = 0; i < k.bufs.size(); ++i) {
    const BufArg& B = k.bufs[i];
    std::string b = "b" + std::to_string(i), src = "A->bufs[" + std::to_string(i) + "]";
    head += "  if (" + src + ".rank != " + std::to_string(B.rank) + " || " + src +
            ".dtype != " + std::to_string(static_cast<int>(B.dt)) + ") return EIN_MISMATCH;\n";
    head += std::string("  ") + (B.output ? "" : "const ") + stype(B.dt) + "* __restrict " + b + " = (" +
            (B.output ? "" : "const ") + stype(B.dt) + "*)" + src + ".data;\n";
    for (int a = 0; a < B.rank; ++a) {
      std::string ext = src + ".extents[" + std::to_string(a) + "]";
      int64_t fixed = static_cast<size_t>(a) < B.fixed.size() ? B.fixed[static_cast<size_t>(a)] : -1;
      if (fixed >= 0) {
        // Specialised: other sizes run in the interpreter; the constant lets loops unroll.
        head += "  if (" + ext + " != " + std::to_string(fixed) + ") return EIN_MISMATCH;\n";
        ext = std::to_string(fixed);
      }
      head += "  const int64_t " + b + "_e" + std::to_string(a) + " = " + ext + ";\n";
    }
    if (B.windowed) head += "  const int64_t " + b + "_l0 = " + src + ".logical0;\n";
    if (B.windowed && B.window < 0)
      head += "  const int64_t " + b + "_w = " + src + ".window;\n  if (" + b + "_w <= 0) return EIN_MISMATCH;\n";
    if (B.windowed && B.window > 0 && !B.output)
      head += "  if (" + src + ".window != " + std::to_string(B.window) + ") return EIN_MISMATCH;\n";
    for (int a = B.rank - 2; a >= 0; --a) {
      std::string next = a == B.rank - 2 ? b + "_e" + std::to_string(a + 1)
                                         : b + "_s" + std::to_string(a + 1) + " * " + b + "_e" + std::to_string(a + 1);
      head += "  const int64_t " + b + "_s" + std::to_string(a) + " = " + next + ";\n";
    }
  }
  for (size_t i = 0; i < k.scalars.size(); ++i) {
    const ScalarArg& S = k.scalars[i];
    std::string src = "A->scalars[" + std::to_string(i) + "]";
    std::string v = is_float(S.dt) ? src + ".f" : src + ".i";
    head += std::string("  const ") + ctype(S.dt) + " a" + std::to_string(i) + " = (" + ctype(S.dt) + ")" + v + ";\n";
  }
  k.entry_body = head + em.text() + "  return A->err->code;\n}\n";
  return "EIN_EXPORT int EIN_KERNEL" + k.entry_body;
}

}  // namespace ein::codegen
