// Reductions, comprehensions and match.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/interp/interp_impl.h"
#include "engine/interp/native_tier.h"
#include "lang/ir/reduce_op.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

bool Interpreter::Impl::eval_point(const NodeRef& body, Value& out) {
  const NodeRef* cur = &body;
  while (true) {
    const NodeRef& n = *cur;
    if (n->kind == Kind::LLetIn) {
      set_def(n, eval(ir::lletin_value(*n)));
      cur = &ir::lletin_body(*n);
      continue;
    }
    if (n->kind == Kind::LGuard) {
      Value c = eval(ir::lguard_cond(*n));
      if (!c.b) return false;
      cur = &ir::lguard_value(*n);
      continue;
    }
    out = eval(n);
    return true;
  }
}

namespace {

using Op = ir::ReduceOp;

struct Acc {
  Op op;
  DType dt;
  bool is_f32;
  bool is_float;
  double f = 0;
  float f32 = 0;
  int64_t i = 0;
  bool b = false;
  bool any = false;   // at least one point contributed
  bool has = false;   // max/min: a best value exists
  bool done = false;  // all/any short-circuit
  int64_t arg = -1;
  Value arr;          // array-valued sum/prod
};

}  // namespace

Value Interpreter::Impl::reduce(const NodeRef& r) {
  // A reduction the cell plan compiled on its own (codegen/plan.cpp: one standing in an
  // expression rather than as a whole statement); empty domains stay here, as for statements.
  if (native && native->has_kernel(r->id) && !has_empty_reduction(r))
    if (auto v = native->run_let(*this, r)) return std::move(*v);
  InLoop in_loop(loop_depth);  // a function called per point must not report progress
  std::vector<const ir::Node*> vars;
  for (const NodeRef& k : ir::lreduce_items(*r)) {
    if (k->kind == Kind::LoopVar) vars.push_back(k.get());
    else if (k->kind == Kind::LCheck) exec(k);
  }
  Acc a;
  a.op = ir::reduce_op(*r);
  a.dt = dtype_of(r, DType::F32);
  a.is_float = is_float(a.dt);
  a.is_f32 = a.dt == DType::F32 || a.dt == DType::F16 || a.dt == DType::BF16;
  if (a.op == Op::Prod) {
    a.f = 1;
    a.f32 = 1;
    a.i = 1;
  }
  if (a.op == Op::All) a.b = true;
  const NodeRef& body = ir::lreduce_body(*r);
  // Terms typed only at run time (an unannotated load_npy's elements): the accumulator takes
  // the type of the terms, widening when a wider one comes (a sum of i64 stays i64).
  const bool dynamic = runtime_typed(r);
  bool typed = false;
  auto retype = [&](const Value& v) {
    if (v.tag != Value::Tag::Int && v.tag != Value::Tag::Float) return;
    const DType to = typed ? widen(a.dt, v.dt) : v.dt;
    if (typed && to == a.dt) return;
    if (typed && !a.is_float && is_float(to)) {
      a.f = static_cast<double>(a.i);
      a.f32 = static_cast<float>(a.i);
    }
    a.dt = to;
    a.is_float = is_float(to);
    a.is_f32 = to == DType::F32 || to == DType::F16 || to == DType::BF16;
    typed = true;
  };
  auto accumulate = [&](const Value& v, int64_t first_index) {
    a.any = true;
    switch (a.op) {
      case Op::All:
        if (!v.b) {
          a.b = false;
          a.done = true;
        }
        return;
      case Op::Any:
        if (v.b) {
          a.b = true;
          a.done = true;
        }
        return;
      default: break;
    }
    if (dynamic) retype(v);
    if (v.tag == Value::Tag::Tensor || a.arr.tag == Value::Tag::Tensor) {
      if (a.arr.tag != Value::Tag::Tensor) a.arr = v;
      else a.arr = binary_op(a.op == Op::Prod ? ir::BinOp::Mul : ir::BinOp::Add, a.arr, v);
      return;
    }
    double x = v.tag == Value::Tag::Float ? v.f : static_cast<double>(v.i);
    switch (a.op) {
      case Op::Sum:
        // f32 sums accumulate in f64 and round once at the end (the native tier does the same):
        // one f32 accumulator over 10^7 terms of 0.1 was 9% off.
        if (a.is_float) a.f += x;
        else a.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) + static_cast<uint64_t>(v.i));
        return;
      case Op::Prod:
        if (a.is_f32) a.f32 *= static_cast<float>(x);
        else if (a.is_float) a.f *= x;
        else a.i = static_cast<int64_t>(static_cast<uint64_t>(a.i) * static_cast<uint64_t>(v.i));
        return;
      case Op::Max:
      case Op::Min:
      case Op::ArgMax:
      case Op::ArgMin: {
        bool want_max = a.op == Op::Max || a.op == Op::ArgMax;
        // The compared values' type: argmax's result is an index, its values may be floats.
        bool fl = v.tag == Value::Tag::Float;
        bool better;
        if (!a.has) better = true;
        else if (fl && std::isnan(a.f)) better = false;  // the first NaN wins, as in NumPy
        else if (fl && std::isnan(x)) better = true;
        else if (v.tag == Value::Tag::Int) better = want_max ? v.i > a.i : v.i < a.i;
        else better = want_max ? x > a.f : x < a.f;
        if (better) {
          a.f = x;
          if (v.tag == Value::Tag::Int) a.i = v.i;
          a.arg = first_index;
        }
        a.has = true;
        return;
      }
      default: return;
    }
  };
  std::function<void(size_t)> loop = [&](size_t k) {
    if (a.done) return;
    if (k == vars.size()) {
      Value v;
      if (!eval_point(body, v)) return;
      int64_t first = vars.empty() ? 0 : (*frame)[static_cast<size_t>(vars[0]->slot)].i;
      accumulate(v, first);
      return;
    }
    const ir::Node* lv = vars[k];
    DType idt = lv->dt >= 0 ? static_cast<DType>(lv->dt) : DType::I32;
    const LoopSpan sp = loop_span(ir::loopvar_lo(*lv), ir::loopvar_hi(*lv), idt);
    Value& var = (*frame)[static_cast<size_t>(lv->slot)];
    for (uint64_t j = 0; j < sp.n && !a.done; ++j) {
      var = Value::integer(sp.at(j), idt);
      if ((++poll & 4095) == 0) check_interrupt();
      loop(k + 1);
    }
  };
  if (vars.size() < 2 || !reduce_empty(r)) loop(0);
  switch (a.op) {
    case Op::All:
    case Op::Any: return Value::boolean(a.b);
    case Op::ArgMax:
    case Op::ArgMin:
      if (a.arg < 0) fault("E006", r->name + " over an empty range");
      return Value::integer(a.arg, DType::I32);
    case Op::Max:
    case Op::Min:
      if (!a.has) {
        if (!a.is_float) fault("E006", r->name + " over an empty range of integers");
        double inf = std::numeric_limits<double>::infinity();
        return Value::floating(a.op == Op::Max ? -inf : inf, a.dt);
      }
      if (a.is_float) return Value::floating(a.f, a.dt);
      return Value::integer(a.i, a.dt);
    default:
      if (a.arr.tag == Value::Tag::Tensor) return a.arr;
      if (a.is_f32 && a.op != Op::Sum) return Value::floating(a.f32, a.dt);
      if (a.is_float) return Value::floating(a.f, a.dt);
      return Value::integer(a.i, a.dt);
  }
}

Value Interpreter::Impl::comp(const NodeRef& c) {
  InLoop in_loop(loop_depth);
  std::vector<Value> out;
  // The result grows under a reservation that is checked before each growth (E008), so a
  // comprehension over 2e9 points fails before allocating rather than with bad_alloc.
  MemoryHold hold;
  auto room_for = [&](size_t more) {
    if (out.size() + more <= out.capacity()) return;
    size_t want = std::max(out.size() + more, std::max<size_t>(16, out.capacity() * 2));
    const size_t kMax = size_t{std::numeric_limits<int64_t>::max()} / sizeof(Value);
    if (out.size() + more > kMax)
      fault("E008", "a comprehension result of " + std::to_string(out.size() + more) + " elements is too large");
    want = std::min(want, kMax);
    hold.grow_to(static_cast<int64_t>(want * sizeof(Value)),
                 "a comprehension result of " + std::to_string(out.size() + more) + " elements");
    out.reserve(want);
  };
  // The innermost generator knows how many elements it adds when no guard follows it.
  const ir::Kids clauses = ir::comp_clauses(c);
  size_t last_gen = SIZE_MAX;
  bool guard_after = false;
  for (size_t i = 0; i < clauses.size(); ++i) {
    if (clauses[i]->kind == Kind::CompGuard) guard_after = true;
    else if (clauses[i]->kind != Kind::CompLet) last_gen = i, guard_after = false;
  }
  auto known_count = [&](size_t i, uint64_t n) {
    if (i == last_gen && !guard_after && n > 0) room_for(n > SIZE_MAX / 2 ? SIZE_MAX / 2 : static_cast<size_t>(n));
  };
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == clauses.size()) {
      room_for(1);
      out.push_back(eval(ir::comp_elem(c)));
      return;
    }
    const NodeRef& cl = clauses[i];
    if (cl->kind == Kind::CompGuard) {
      Value g = eval(ir::compguard_cond(cl));
      if (g.b) rec(i + 1);
      return;
    }
    if (cl->kind == Kind::CompLet) {
      set_def(cl, eval(ir::complet_value(cl)));
      rec(i + 1);
      return;
    }
    Value it = eval(ir::compgen_iter(cl));
    auto each = [&](Value v) {
      if ((++poll & 1023) == 0) check_interrupt();
      set_def(cl, std::move(v));
      rec(i + 1);
    };
    switch (it.tag) {
      case Value::Tag::Range: {
        const uint64_t n = it.range_size();
        known_count(i, n);
        const DType idt = cl->dt >= 0 ? static_cast<DType>(cl->dt) : DType::I32;
        for (uint64_t k = 0; k < n; ++k)
          each(Value::integer(static_cast<int64_t>(static_cast<uint64_t>(it.r[0]) + k), idt));
        break;
      }
      case Value::Tag::Tensor: {
        const Tensor& t = it.tensor_ref();
        if (t.rank() == 0) fault("E002", "cannot iterate over a scalar");
        known_count(i, static_cast<uint64_t>(t.dim(0)));
        for (int64_t k = 0; k < t.dim(0); ++k)
          each(t.rank() == 1 ? tensor_get(t, k) : Value::tensor(t.row(k)));
        break;
      }
      case Value::Tag::List:
        known_count(i, it.items().size());
        for (const auto& v : it.items()) each(v);
        break;
      case Value::Tag::Str: {
        const std::string& s = it.str();
        for (size_t b = 0; b < s.size();) {
          unsigned char c = static_cast<unsigned char>(s[b]);
          size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
          each(Value::string(s.substr(b, std::min(len, s.size() - b))));
          b += len;
        }
        break;
      }
      default: fault("E002", "cannot iterate over " + type_string(it));
    }
  };
  if (!comp_empty(c)) rec(0);
  bool scalars = true, tensors = true;
  for (auto& v : out) {
    scalars = scalars && v.is_scalar();
    tensors = tensors && v.tag == Value::Tag::Tensor;
  }
  if (out.empty() || scalars || tensors)
    return make_array(out, runtime_typed(c) ? widest_dtype(out, DType::F32) : dtype_of(c, DType::F32));
  return Value::list(std::move(out));
}

bool Interpreter::Impl::match_pattern(const NodeRef& p, const Value& v) {
  switch (p->kind) {
    case Kind::PWild: return true;
    case Kind::PBind: set_def(p, v); return true;
    case Kind::PLit: return values_equal(v, eval(ir::plit_value(*p)));
    case Kind::PRange: {
      Value lo = eval(ir::prange_lo(*p)), hi = eval(ir::prange_hi(*p));
      double x = v.as_f64();
      return x >= lo.as_f64() && (p->has(ir::kInclusive) ? x <= hi.as_f64() : x < hi.as_f64());
    }
    case Kind::POr:
      for (auto& k : p->kids)
        if (match_pattern(k, v)) return true;
      return false;
    case Kind::PTuple:
      if (v.tag != Value::Tag::Tuple || v.items().size() != ir::ptuple_elems_count(*p)) return false;
      for (size_t i = 0; i < v.items().size(); ++i)
        if (!match_pattern(ir::ptuple_elems(*p)[i], v.items()[i])) return false;
      return true;
    case Kind::PAt:
      if (!match_pattern(ir::pat_inner(*p), v)) return false;
      set_def(p, v);
      return true;
    case Kind::PArray: return match_array(p, v);
    default: return false;
  }
}

// `[a, b]` matches length 2 exactly; `[a, ..rest, z]` length >= 2, binding `rest` to the middle
// rows (an array of the same rank, possibly empty) — SPEC §4.
bool Interpreter::Impl::match_array(const NodeRef& p, const Value& v) {
  int64_t n = 0;
  if (v.tag == Value::Tag::Tensor && v.tensor_ref().rank() >= 1) n = v.tensor_ref().dim(0);
  else if (v.tag == Value::Tag::List) n = static_cast<int64_t>(v.items().size());
  else return false;
  const ir::Kids elems = ir::parray_elems(p);
  auto rest = std::find_if(elems.begin(), elems.end(),
                           [](const NodeRef& k) { return k->kind == Kind::PRest; });
  bool has_rest = rest != elems.end();
  int64_t fixed = static_cast<int64_t>(elems.size()) - (has_rest ? 1 : 0);
  if (has_rest ? n < fixed : n != fixed) return false;
  int64_t before = rest - elems.begin();
  auto row = [&](int64_t i) -> Value {
    if (v.tag == Value::Tag::List) return v.items()[static_cast<size_t>(i)];
    const Tensor& t = v.tensor_ref();
    return t.rank() == 1 ? tensor_get(t, i) : Value::tensor(t.row(i));
  };
  for (int64_t k = 0; k < static_cast<int64_t>(elems.size()); ++k) {
    const NodeRef& sub = elems[static_cast<size_t>(k)];
    if (sub->kind == Kind::PRest) continue;
    int64_t i = k < before || !has_rest ? k : n - (static_cast<int64_t>(elems.size()) - k);
    if (!match_pattern(sub, row(i))) return false;
  }
  if (has_rest && (*rest)->def.valid()) {
    int64_t lo = before, hi = n - (fixed - before);
    if (v.tag == Value::Tag::List) {
      std::vector<Value> mid(v.items().begin() + lo, v.items().begin() + hi);
      set_def(*rest, Value::list(std::move(mid)));
    } else {
      const Tensor& t = v.tensor_ref();
      std::vector<int64_t> shape = t.shape();
      shape[0] = hi - lo;
      Tensor out = Tensor::alloc(t.dtype(), shape);
      int64_t stride = t.rank() == 1 ? 1 : t.size() / std::max<int64_t>(t.dim(0), 1);
      for (int64_t j = 0; j < (hi - lo) * stride; ++j) tensor_set(out, j, tensor_get(t, lo * stride + j));
      set_def(*rest, Value::tensor(std::move(out)));
    }
  }
  return true;
}

Value Interpreter::Impl::match(const NodeRef& m) {
  Value s = eval(ir::match_scrutinee(*m));
  for (const NodeRef& arm : ir::match_arms(*m)) {
    if (!match_pattern(ir::arm_pattern(*arm), s)) continue;
    if (const NodeRef& guard = ir::arm_guard(*arm)) {
      Value g = eval(guard);
      if (!g.b) continue;
    }
    return eval(ir::arm_body(*arm));
  }
  fault("E006", "no match arm matches " + format_value(s));
}

}  // namespace ein
