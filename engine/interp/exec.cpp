// Statements and lowered tensor code: LTensor allocation, clause loop nests, stores.
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "engine/interp/interp_impl.h"
#include "engine/interp/vectorize.h"
#include "engine/interp/native_tier.h"
#include "engine/interp/writes_whole.h"
#include "lang/ir/kid_families.h"
#include "lang/ir/reduce_op.h"
#include "lang/ir/visitor.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

Interpreter::Interpreter(CompileCtx& cx, RuntimeEnv& env, ExecOptions opt)
    : impl_(new Impl(cx, env, std::move(opt))) {}
Interpreter::~Interpreter() { delete impl_; }
std::optional<Value> Interpreter::run_cell() { return impl_->run_cell(); }
const std::vector<StmtTiming>& Interpreter::stmt_timings() const { return impl_->timings; }

namespace {

// Converts a Fault raised while executing `n` into a diagnostic at n's span.
[[noreturn]] void rethrow_at(const Fault& f, const NodeRef& n) {
  throw DiagError(make_diag(f.code, f.what(), n->span));
}

// A file run (whole program) can observe a top-level binding only through a later statement:
// no later cell exists. So after the statement that mentions a binding last, the interpreter
// drops its reference, and a program of large intermediates (`let A = ..; let s = sum(A);
// let B = ..;`) holds one at a time instead of all of them (the buffer goes to the allocator's
// cache and is reused by the next tensor of its size). Bindings a function or lambda mentions
// stay: a call can read them at any later time; so do a module's lets. Returns, per top-level statement, the
// bindings whose last mention it is, as (def, frame slot or -1).
std::vector<std::vector<std::pair<ir::DefId, int>>> last_mentions(const NodeRef& prog, const NodeRef& resolved,
                                                                   Resolver& resolver,
                                                                   const std::function<bool(const NodeRef&)>& elided) {
  std::vector<std::vector<std::pair<ir::DefId, int>>> out(prog->kids.size());
  std::unordered_map<ir::DefId, int> bound;  // top-level binding -> slot
  std::unordered_set<ir::DefId> pinned;
  auto pin_inside = [&](const NodeRef& root) {
    ir::for_each_node(root, [&](const NodeRef& n) {
      if (n->kind != Kind::Fn && n->kind != Kind::Lambda) return;
      ir::for_each_node(n, [&](const NodeRef& m) {
        if (m->def.valid()) pinned.insert(m->def);
      });
    });
  };
  if (resolved) pin_inside(resolved);
  std::unordered_map<ir::DefId, size_t> last;
  std::unordered_map<ir::DefId, std::vector<ir::DefId>> fused_inputs;
  const ir::Kids stmts = prog->kids;  // a statement sequence: positions are order, not layout
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s) continue;
    pin_inside(s);
    if (s->kind == Kind::LTensor && s->def.valid()) bound.emplace(s->def, s->slot);
    if (s->kind == Kind::Let)
      ir::for_each_node(ir::let_pattern(s), [&](const NodeRef& n) {
        if (n->kind == Kind::PBind && n->def.valid()) bound.emplace(n->def, n->slot);
      });
    std::unordered_set<ir::DefId> seen;
    ir::for_each_node(s, [&](const NodeRef& n) {
      if (n->def.valid()) seen.insert(n->def);
    });
    // A producer fused into its consumer's kernel runs when the consumer does: what it reads
    // is read there too (transitively through fused chains).
    std::vector<ir::DefId> more;
    for (auto& d : seen)
      if (auto it = fused_inputs.find(d); it != fused_inputs.end()) more.insert(more.end(), it->second.begin(), it->second.end());
    seen.insert(more.begin(), more.end());
    for (auto& d : seen) last[d] = i;
    if (s->kind == Kind::LTensor && s->def.valid() && elided(s))
      fused_inputs[s->def] = std::vector<ir::DefId>(seen.begin(), seen.end());
  }
  // A module's top-level lets run inside the program too, but its functions (not in this
  // tree) may read them: only the session's own globals are dropped.
  auto own = [&](ir::DefId d) {
    if (d.crate != ir::kUserCrate) return false;
    const DefInfo& info = resolver.info(d);
    // Top-level Locals are tensors the passes made (adjoints, checkpoints, recomputed
    // segments): nothing outside this tree names them, and dropping them lets the next
    // gradient reuse their buffers instead of touching fresh pages.
    return info.module.empty() && (info.kind == DefKind::Global || info.kind == DefKind::Local);
  };
  for (auto& [d, slot] : bound)
    if (!pinned.count(d) && last.count(d) && own(d)) out[last[d]].push_back({d, slot});
  return out;
}

}  // namespace

std::optional<Value> Interpreter::Impl::run_cell() {
  Unit& cell = cx.cell();
  std::vector<Value> frame_storage(static_cast<size_t>(cell.frame_size));
  unit = &cell;
  frame = &frame_storage;
  // Native kernels are planned and compiled (one translation unit) before anything runs.
  if (opt.jit != "never") native = std::make_shared<NativeTier>(cx, opt);
  // Consts first (items are hoisted); each is evaluated once per session.
  for (auto& c : cx.consts) {
    if (env.globals.count(c->def)) continue;
    try {
      env.globals[c->def] = eval(ir::const_value(*c));
    } catch (const Fault& f) {
      rethrow_at(f, c);
    }
  }
  const NodeRef& prog = cell.lowered;
  bool tail = prog->has(ir::kHasTail);
  std::optional<Value> result;
  std::vector<std::vector<std::pair<ir::DefId, int>>> dead_after;
  if (cx.opt.whole_program) dead_after = last_mentions(prog, cell.body, cx.resolver, [&](const NodeRef& t) {
      return native && native->elided(t);
    });
  const ir::Kids stmts = ir::program_stmts(*prog);
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s || s->kind == Kind::LNop) continue;
    auto t0 = std::chrono::steady_clock::now();
    if (opt.progress) opt.progress->start_statement(static_cast<int32_t>(cx.sm.start(s->span).line));
    try {
      if (tail && i + 1 == stmts.size()) result = eval_statement_value(s, s);
      else exec(s);
    } catch (const Fault& f) {
      drop_invariants(0);
      rethrow_at(f, s);
    } catch (...) {
      drop_invariants(0);
      throw;
    }
    drop_invariants(0);  // nothing computed for one statement outlives it
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    timings.push_back(StmtTiming{cx.sm.start(s->span).line, ms});
    if (i < dead_after.size())
      for (auto& [d, slot] : dead_after[i]) {
        if (slot >= 0 && static_cast<size_t>(slot) < frame->size()) (*frame)[static_cast<size_t>(slot)] = Value();
        else env.globals.erase(d);
      }
  }
  return result;
}

void Interpreter::Impl::set_def(const NodeRef& n, Value v) {
  if (n->slot >= 0) (*frame)[static_cast<size_t>(n->slot)] = std::move(v);
  else env.globals[n->def] = std::move(v);
}

void Interpreter::Impl::bind(const NodeRef& p, const Value& v) {
  if (!p) return;
  if (p->kind == Kind::PBind) {
    set_def(p, v);
  } else if (p->kind == Kind::PTuple) {
    const ir::Kids elems = ir::ptuple_elems(*p);
    if (v.tag != Value::Tag::Tuple || v.items().size() != elems.size())
      fault("E002", "cannot destructure " + type_string(v) + " into " + std::to_string(elems.size()) + " names");
    for (size_t i = 0; i < elems.size(); ++i) bind(elems[i], v.items()[i]);
  }
}

void Interpreter::Impl::exec(const NodeRef& s) {
  try {
    switch (s->kind) {
      case Kind::Let:
        if (s->has(ir::kInvariantCall)) {
          // A block `let` whose value the inner loops do not change (lang/passes/memo_plan.h).
          std::vector<Value> key = memo_key(s);
          if (const Value* v = memo_find(s, key)) {
            bind(ir::let_pattern(*s), *v);
            return;
          }
          Value v = eval_statement_value(s, ir::let_value(*s));
          bind(ir::let_pattern(*s), v);
          memo_keep(s, std::move(key), v);
          return;
        }
        bind(ir::let_pattern(*s), eval_statement_value(s, ir::let_value(*s)));
        return;
      case Kind::LTensor:
        if (s->has(ir::kInvariantCall) && s->slot >= 0 && !(native && native->elided(s))) {
          // So is a local tensor's: a single assignment, never written again once complete.
          std::vector<Value> key = memo_key(s);
          if (const Value* v = memo_find(s, key)) {
            set_def(s, *v);
            return;
          }
          exec_tensor(s);
          memo_keep(s, std::move(key), (*frame)[static_cast<size_t>(s->slot)]);
          return;
        }
        exec_tensor(s);
        return;
      case Kind::LStore:
      case Kind::LAccum: exec_store(s); return;
      case Kind::LFor: exec_for(s); return;
      case Kind::LLet: set_def(s, eval(ir::llet_value(*s))); return;
      case Kind::LIf: {
        Value c = eval(ir::lif_cond(*s));
        if (c.b) exec(ir::lif_then(*s));
        else if (const NodeRef& e = ir::lif_else(*s)) exec(e);
        return;
      }
      case Kind::LSeq:
        for (auto& k : s->kids) exec(k);
        return;
      case Kind::LCheck: {
        Value c = eval(ir::lcheck_cond(*s));
        if (!c.b) {
          Diagnostic d = make_diag(s->name, s->aux, s->span);
          if (const NodeRef& help = ir::lcheck_help(*s)) d.help = help->name;
          throw DiagError(std::move(d));
        }
        return;
      }
      case Kind::LNop:
      case Kind::Error: return;
      case Kind::ExprStmt: eval_statement_value(s, ir::stmt_expr(*s)); return;
      default: eval(s); return;
    }
  } catch (const Fault& f) {
    rethrow_at(f, s);
  }
}

// The value of a `let`, an expression statement or a cell's trailing expression: the native
// kernel when the plan has one (tiered alike), else the interpreter. A reduction over an empty
// inner range is instant here; a kernel would walk its outer loops.
Value Interpreter::Impl::eval_statement_value(const NodeRef& stmt, const NodeRef& value) {
  if (native && !has_empty_reduction(value))
    if (auto v = native->run_let(*this, stmt)) return std::move(*v);
  return eval(value);
}

// A tensor among another tensor's statements is its scratch (an f64 accumulator of a scatter,
// lang/passes/scatter_plan.h): nothing reads it once the outer tensor is complete.
void Interpreter::Impl::drop_scratch(const NodeRef& t) {
  for (const NodeRef& k : ir::ltensor_stmts(*t)) {
    if (k->kind != Kind::LTensor) continue;
    if (k->slot >= 0 && static_cast<size_t>(k->slot) < frame->size()) (*frame)[static_cast<size_t>(k->slot)] = Value();
    else env.globals.erase(k->def);
  }
}

void Interpreter::Impl::exec_for(const NodeRef& f) {
  if (native && loop_depth == 0 && native->run_loop(*this, f)) return;
  DType idt = f->dt >= 0 ? static_cast<DType>(f->dt) : DType::I32;
  const LoopSpan sp = loop_span(ir::lfor_lo(*f), ir::lfor_hi(*f), idt);
  if (sp.n == 0 || (sp.n > 1 && nest_empty(f))) return;
  const NodeRef& body = ir::lfor_body(*f);
  Value& var = (*frame)[static_cast<size_t>(f->slot)];
  // The statement's outermost loop reports its iterations (a relaxed store each: the
  // interpreter spends far more per iteration).
  std::atomic<int64_t>* done = nullptr;
  if (opt.progress && loop_depth == 0) {
    opt.progress->enter_loop(progress_line(f), static_cast<int64_t>(sp.n));
    done = &opt.progress->steps[0];
  }
  InLoop in_loop(loop_depth);
  const bool reverse = f->has(ir::kReverse);
  for (uint64_t i = 0; i < sp.n; ++i) {
    var = Value::integer(sp.at(reverse ? sp.n - 1 - i : i), idt);
    if ((++poll & 1023) == 0) check_interrupt();
    if (done) done->store(static_cast<int64_t>(i), std::memory_order_relaxed);
    exec(body);
  }
}

void Interpreter::Impl::exec_tensor(const NodeRef& t) {
  // A producer fused into its consumer's kernel is computed there, never stored.
  if (native && native->elided(t)) return;
  if (t->has(ir::kResume)) {
    // More statements of a tensor allocated earlier (a checkpointed sweep's segment: its
    // allocation and base rows ran before the loop over segments; lang/passes/checkpoint.h).
    const size_t mark = invariant_log.size();
    try {
      for (const NodeRef& k : ir::ltensor_stmts(*t)) {
        if (k->kind == Kind::LFor && nest_empty(k)) continue;
        if (native && native->run_clause(*this, t, k)) continue;
        exec(k);
        drop_invariants(mark);
      }
    } catch (...) {
      drop_invariants(mark);
      throw;
    }
    drop_invariants(mark);
    return;
  }
  if (native) native->prepare(*this, t);
  const NodeRef& shape_node = native ? native->shape_of(t) : ir::ltensor_shape(*t);
  std::vector<int64_t> shape;
  for (auto& e : shape_node->kids) {
    Wide x = eval_wide(e);
    if (x > std::numeric_limits<int64_t>::max())
      fault("E008", "an extent of " + wide_str(x) + " elements is too large to allocate");
    shape.push_back(x < 0 ? 0 : static_cast<int64_t>(x));
  }
  auto dt = static_cast<DType>(t->ival);
  int64_t window = ir::ltensor_window(t);
  int64_t logical0 = shape.empty() ? 0 : shape[0];
  std::vector<int64_t> alloc = shape;
  if (window > 0 && !alloc.empty()) alloc[0] = std::min(window, alloc[0]);
  Value v;
  if (t->has(ir::kHasElem)) {
    // Element shape is known at the first store; until then the binding is unit.
    v = Value::unit();
    v.window.rows = window;
    v.window.logical0 = logical0;
  } else {
    bool whole = t->has(ir::kFilledLater) || writes_every_point(t, shape, [&](const NodeRef& e) {
      // A bound may name a producer fused into this tensor's kernel (fusion_plan): it has no
      // value of its own to measure. Unknown means "maybe not every point": zeroed storage.
      try {
        Wide x = eval_wide(e);
        return x > std::numeric_limits<int64_t>::max() ? int64_t{-1} : static_cast<int64_t>(x);
      } catch (const Fault&) {
        return int64_t{-1};
      } catch (const DiagError&) {
        return int64_t{-1};
      }
    });
    v = Value::tensor(whole ? Tensor::alloc_overwritten(dt, alloc) : Tensor::alloc(dt, alloc));
    v.window.rows = window;
    v.window.logical0 = logical0;
  }
  set_def(t, v);
  pending_shapes[t->def] = shape;
  if (runtime_typed(t)) runtime_typed_tensors.insert(t->def);
  else runtime_typed_tensors.erase(t->def);
  const std::vector<NodeRef>* checks = native ? native->checks_of(t) : nullptr;
  const size_t invariants_mark = invariant_log.size();
  try {
    if (checks)
      for (auto& c : *checks) exec(c);
    for (const NodeRef& k : ir::ltensor_stmts(*t)) {
      if (checks && k->kind == Kind::LCheck) continue;
      // A clause with an empty inner range has no points, whichever tier would run it.
      if (k->kind == Kind::LFor && nest_empty(k)) continue;
      if (native && k->kind != Kind::LCheck && native->run_clause(*this, t, k)) continue;
      if (k->kind == Kind::LFor && run_vectorized(*this, t, k)) continue;
      exec(k);
      // What memo_plan proved about reads of `t` holds within one statement's loop nest.
      drop_invariants(invariants_mark);
    }
  } catch (...) {
    // Nothing partial survives a failed definition (SPEC §11).
    if (t->slot < 0) env.globals.erase(t->def);
    drop_scratch(t);
    drop_invariants(invariants_mark);
    throw;
  }
  drop_scratch(t);
  drop_invariants(invariants_mark);
  if (shape.empty() && !t->has(ir::kHasElem)) {
    // A definition over zero axes is a scalar.
    const Value& cur = t->slot >= 0 ? (*frame)[static_cast<size_t>(t->slot)] : env.globals[t->def];
    set_def(t, tensor_get(cur.tensor_ref(), 0));
    return;
  }
  if (t->has(ir::kHasElem)) {
    const Value& cur = t->slot >= 0 ? (*frame)[static_cast<size_t>(t->slot)] : env.globals[t->def];
    if (cur.tag != Value::Tag::Tensor) {
      // No point was written: an empty tensor of the declared outer shape.
      std::vector<int64_t> s = shape;
      int extra = ir::rank_of(unit->type(t)) - static_cast<int>(shape.size());
      for (int k = 0; k < extra; ++k) s.push_back(0);
      set_def(t, Value::tensor(Tensor::alloc(dt, s)));
    }
  }
}

int64_t flat_index(const Tensor& t, const int64_t* idx, size_t n, int64_t window, int64_t logical0) {
  int64_t flat = 0;
  const auto& shape = t.shape();
  for (size_t a = 0; a < n; ++a) {
    int64_t i = idx[a];
    int64_t extent = shape[a];
    if (a == 0 && window > 0) {
      if (i < 0 || i >= logical0)
        fault("E005", "index " + std::to_string(i) + " is out of bounds for axis 0 with extent " +
                          std::to_string(logical0));
      i %= window;  // storage-window analysis proved only the last `window` steps are read
    } else if (i < 0 || i >= extent) {
      fault("E005", "index " + std::to_string(i) + " is out of bounds for axis " +
                        std::to_string(a) + " with extent " + std::to_string(extent));
    }
    flat = flat * extent + i;
  }
  return flat;
}

void Interpreter::Impl::exec_store(const NodeRef& s) {
  Value v = eval(ir::lstore_value(*s));
  Value& target = s->slot >= 0 ? (*frame)[static_cast<size_t>(s->slot)] : env.globals[s->def];
  const ir::Kids index = ir::lstore_index(*s);
  size_t n = index.size();
  int64_t idx[16];
  if (n > 16) fault("E011", "tensors of rank above 16 are not supported");
  for (size_t i = 0; i < n; ++i) idx[i] = eval_int(index[i]);
  const bool dynamic = runtime_typed_tensors.count(s->def) > 0;
  if (target.tag != Value::Tag::Tensor) {
    // First store into a tensor with array elements, or elements whose type only the values
    // tell (`x[i, 0]` of an unannotated load_npy): now the element shape and type are known.
    std::optional<DType> vdt = value_dtype(v);
    if (!vdt || (v.tag != Value::Tag::Tensor && !dynamic))
      fault("E004", "tensor elements must all have the same shape");
    std::vector<int64_t> shape = pending_shapes[s->def];
    int64_t window = target.window.rows, logical0 = target.window.logical0;
    if (window > 0 && !shape.empty()) shape[0] = std::min(window, shape[0]);
    if (v.tag == Value::Tag::Tensor)
      for (auto d : v.tensor_ref().shape()) shape.push_back(d);
    target = Value::tensor(Tensor::alloc(*vdt, shape));
    target.window.rows = window;
    target.window.logical0 = logical0;
  } else if (dynamic) {
    // A later value of a wider type (an i64 after an i32 literal in `if .. { z[i] } else { 0 }`)
    // widens what is stored so far instead of being narrowed into it.
    std::optional<DType> vdt = value_dtype(v);
    const DType have = target.tensor_ref().dtype();
    if (vdt && widen(have, *vdt) != have) {
      Value wider = Value::tensor(target.tensor_ref().cast(widen(have, *vdt)));
      wider.window = target.window;
      target = std::move(wider);
    }
  }
  Tensor& t = const_cast<Tensor&>(target.tensor_ref());
  int64_t flat = flat_index(t, idx, n, s->has(ir::kWindowed) ? target.window.rows : 0, target.window.logical0);
  if (n == static_cast<size_t>(t.rank()) && s->kind == Kind::LAccum) {
    // A scatter's term (lang/passes/scatter_plan.h): integers wrap at the tensor's type.
    const auto op = static_cast<ir::ReduceOp>(s->ival);
    if (op == ir::ReduceOp::Max || op == ir::ReduceOp::Min) {
      // The reduction's rule (control.cpp): the first NaN stays, a NaN term replaces a number.
      const bool mx = op == ir::ReduceOp::Max;
      if (v.tag == Value::Tag::Float) {
        const double a = t.get_f64(flat);
        if (!std::isnan(a) && (std::isnan(v.f) || (mx ? v.f > a : v.f < a))) t.set_f64(flat, v.f);
      } else if (v.tag == Value::Tag::Int) {
        const int64_t a = t.get_i64(flat);
        if (mx ? v.i > a : v.i < a) t.set_i64(flat, v.i);
      } else {
        fault("E011", "a scatter compares numbers only");
      }
      return;
    }
    if (v.tag == Value::Tag::Float) t.set_f64(flat, t.get_f64(flat) + v.f);
    else if (v.tag == Value::Tag::Int) t.set_i64(flat, static_cast<int64_t>(static_cast<uint64_t>(t.get_i64(flat)) + static_cast<uint64_t>(v.i)));
    else if (v.tag == Value::Tag::Bool) t.set_i64(flat, t.get_i64(flat) + (v.b ? 1 : 0));
    else fault("E011", "a scatter adds numbers only");
    return;
  }
  if (n == static_cast<size_t>(t.rank())) {
    switch (v.tag) {
      case Value::Tag::Float: t.set_f64(flat, v.f); break;
      case Value::Tag::Int: t.set_i64(flat, v.i); break;
      case Value::Tag::Bool: t.set_i64(flat, v.b ? 1 : 0); break;
      default: tensor_set(t, flat, v); break;
    }
    return;
  }
  // Array-valued element: copy the whole sub-block.
  if (v.tag != Value::Tag::Tensor) fault("E004", "expected an array element, found " + type_string(v));
  const Tensor& src = v.tensor_ref();
  int64_t block = 1;
  for (int a = static_cast<int>(n); a < t.rank(); ++a) block *= t.dim(a);
  if (src.size() != block || src.rank() != t.rank() - static_cast<int>(n))
    fault("E004", "tensor elements must all have the same shape");
  for (int64_t k = 0; k < block; ++k) {
    if (is_float(t.dtype())) t.set_f64(flat * block + k, src.get_f64(k));
    else t.set_i64(flat * block + k, src.get_i64(k));
  }
}

}  // namespace ein
