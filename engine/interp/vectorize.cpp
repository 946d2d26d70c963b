#include "engine/interp/vectorize.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "engine/config/env.h"
#include "lang/ir/visitor.h"

namespace ein {

int64_t min_points();

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

namespace {

constexpr int64_t kMaxPoints = int64_t(1) << 24;  // larger spaces: scalar path
// The space is evaluated in row-major chunks of this many points: each whole-array operation
// then takes well under a millisecond, so the interrupt is polled between chunks (a 2^24-point
// clause used to run for tens of seconds between two polls), and temporaries stay small. The
// points of a vectorised clause are independent, so the chunk order changes no result.
constexpr int64_t kChunkPoints = int64_t(1) << 14;

struct Loop {
  ir::DefId var;
  int64_t lo, extent;
  DType dt;  // the index variable's type: i32 unless its range is typed wider (SPEC §3)
};

class Vectorizer {
 public:
  Vectorizer(Interpreter::Impl& in, const NodeRef& tensor) : in_(in), tensor_(tensor) {}

  bool run(const NodeRef& nest) {
    if (nest->kind != Kind::LFor || !in_.unit) return false;
    auto st = in_.unit->strategies.find(nest->id);
    if (st == in_.unit->strategies.end() || st->second != LoopStrategy::Vectorized) return false;
    NodeRef cur = nest;
    std::vector<NodeRef> fors;
    while (cur->kind == Kind::LFor) {
      if (cur->has(ir::kSequential) || cur->has(ir::kReverse)) return false;
      fors.push_back(cur);
      cur = ir::lfor_body(cur);
    }
    for (auto& f : fors) nest_vars_.insert(f->def);
    body_ = cur;
    if (!accept_stmt(body_)) return false;
    for (auto& f : fors)
      if (mentions_nest(ir::lfor_lo(f)) || mentions_nest(ir::lfor_hi(f))) return false;  // triangular
    const Value& target = binding(tensor_);
    if (target.tag != Value::Tag::Tensor || target.window.rows > 0 || tensor_->has(ir::kHasElem)) return false;
    n_ = 1;
    bool empty = false, too_big = false;
    for (auto& f : fors) {
      DType dt = f->dt >= 0 ? static_cast<DType>(f->dt) : DType::I32;
      LoopSpan sp = in_.loop_span(ir::lfor_lo(f), ir::lfor_hi(f), dt);
      int64_t ext = sp.n > static_cast<uint64_t>(kMaxPoints) ? kMaxPoints + 1 : static_cast<int64_t>(sp.n);
      loops_.push_back(Loop{f->def, sp.lo, ext, dt});
      if (ext == 0) empty = true;
      if (ext > 0 && n_ > kMaxPoints / ext) too_big = true;
      else n_ *= ext;
    }
    if (empty) return true;  // no points, however large the other axes
    if (too_big) return false;
    if (n_ < min_points()) return false;  // tiny spaces: the scalar path has less overhead
    const int64_t total = n_;
    for (base_ = 0; base_ < total; base_ += kChunkPoints) {
      in_.check_interrupt();
      n_ = std::min(kChunkPoints, total - base_);
      lets_.clear();
      exec_stmt(body_, nullptr);
    }
    return true;
  }

 private:
  // ---- the accepted fragment ----------------------------------------------------------------
  bool mentions_nest(const NodeRef& n) {
    bool hit = false;
    ir::for_each_node(n, [&](const NodeRef& m) {
      if (m->kind == Kind::Name && nest_vars_.count(m->def)) hit = true;
    });
    return hit;
  }

  bool accept_stmt(const NodeRef& s) {
    switch (s->kind) {
      case Kind::LStore:
        if (s->def != tensor_->def || s->has(ir::kWindowed)) return false;
        for (const NodeRef& ix : ir::lstore_index(s))
          if (!accept_expr(ix)) return false;
        return accept_expr(ir::lstore_value(s));
      case Kind::LSeq:
        for (auto& k : s->kids)
          if (!accept_stmt(k)) return false;
        return true;
      case Kind::LLet:
        locals_.insert(s->def);
        return accept_expr(ir::llet_value(s));
      case Kind::LIf:
        return accept_expr(ir::lif_cond(s)) && accept_stmt(ir::lif_then(s)) &&
               (!ir::lif_else(s) || accept_stmt(ir::lif_else(s)));
      default: return false;
    }
  }

  bool accept_expr(const NodeRef& e) {
    if (!e) return false;
    switch (e->kind) {
      case Kind::IntLit:
      case Kind::FloatLit:
      case Kind::BoolLit: return true;
      case Kind::Name: {
        if (nest_vars_.count(e->def) || locals_.count(e->def)) return true;
        const Value* v = lookup(e);
        return v && v->is_scalar();
      }
      case Kind::Index: {
        if (e->has(ir::kWindowed) || ir::index_base(e)->kind != Kind::Name) return false;
        const Value* v = lookup(ir::index_base(e));
        if (!v || v->tag != Value::Tag::Tensor || v->window.rows > 0) return false;
        if (v->tensor_ref().rank() != static_cast<int>(ir::index_args_count(e))) return false;
        for (const NodeRef& ix : ir::index_args(e))
          if (!accept_expr(ix)) return false;
        return true;
      }
      case Kind::Cast:
        if (ir::cast_type(e)->kind != Kind::TyPrim) return false;  // array casts
        return accept_expr(ir::cast_expr(e));
      case Kind::Unary:
      case Kind::Binary:
      case Kind::If:
        for (const NodeRef& k : e->kids)
          if (!accept_expr(k)) return false;
        return e->kind != Kind::Binary || static_cast<BinOp>(e->ival) != BinOp::In;
      case Kind::Call: {
        auto b = builtin_of(ir::call_callee(e)->def);
        if (!b || !is_math_intrinsic(*b)) return false;
        for (const NodeRef& a : ir::call_args(e))
          if (!accept_expr(a)) return false;
        return true;
      }
      case Kind::DimOf:
      case Kind::IMin:
      case Kind::IMax: return !mentions_nest(e);
      default: return false;
    }
  }

  const Value* lookup(const NodeRef& name) {
    try {
      return &in_.lookup(name);
    } catch (const Fault&) {
      return nullptr;
    }
  }

  const Value& binding(const NodeRef& t) {
    return t->slot >= 0 ? (*in_.frame)[static_cast<size_t>(t->slot)] : in_.env.globals[t->def];
  }

  // ---- evaluation over the iteration space --------------------------------------------------
  // A grid value is a scalar Value or a rank-1 tensor with one element per point of the
  // current chunk (row-major over the nest's loops).
  Value coords(size_t k) {
    const Loop& L = loops_[k];
    Tensor t = Tensor::alloc(L.dt, {n_});
    int64_t inner = 1;
    for (size_t j = k + 1; j < loops_.size(); ++j) inner *= loops_[j].extent;
    auto fill = [&](auto* d) {
      using T = std::remove_pointer_t<decltype(d)>;
      for (int64_t p = 0; p < n_; ++p) d[p] = static_cast<T>(L.lo + ((base_ + p) / inner) % L.extent);
    };
    switch (L.dt) {
      case DType::I64: fill(t.data_as<int64_t>()); break;
      case DType::I8: fill(t.data_as<int8_t>()); break;
      default:
        if (L.dt != DType::I32) { t = Tensor::alloc(DType::I32, {n_}); }
        fill(t.data_as<int32_t>());
    }
    return Value::tensor(t);
  }

  static bool grid(const Value& v) { return v.tag == Value::Tag::Tensor; }

  // `mask_` holds the points that must be computed (the enclosing guards and `if` branches);
  // the others may hold anything but must not fault (an index out of range there is fine).
  Value eval(const NodeRef& e) {
    try {
      return eval_inner(e);
    } catch (const Fault& f) {
      throw DiagError(make_diag(f.code, f.what(), e->span));
    }
  }

  bool live(int64_t p) const { return !mask_ || (*mask_)[static_cast<size_t>(p)]; }

  Value eval_inner(const NodeRef& e) {
    switch (e->kind) {
      case Kind::IntLit:
      case Kind::FloatLit:
      case Kind::BoolLit:
      case Kind::DimOf:
      case Kind::IMin:
      case Kind::IMax: return in_.eval(e);
      case Kind::Name: {
        for (size_t k = 0; k < loops_.size(); ++k)
          if (loops_[k].var == e->def) return coords(k);
        if (auto it = lets_.find(e->def); it != lets_.end()) return it->second;
        return in_.lookup(e);
      }
      case Kind::Index: return gather(e);
      case Kind::Unary: return unary_op(static_cast<ir::UnOp>(e->ival), eval(ir::unary_operand(e)));
      case Kind::Binary: return binary(e);
      case Kind::Cast: {
        auto dt = dtype_from_name(ir::cast_type(e)->name);
        if (!dt) fault("E002", "cannot cast to " + ir::cast_type(e)->name);
        return cast_value(eval(ir::cast_expr(e)), *dt);
      }
      case Kind::Call: {
        Builtin b = *builtin_of(ir::call_callee(e)->def);
        MathFn f = math_fn_of(b);
        const ir::Kids args = ir::call_args(e);
        if (is_binary_math_intrinsic(b)) {
          std::vector<Value> vs{eval(args[0]), eval(args[1])};
          adapt_literal_args(e, vs);
          return math2(f, vs[0], vs[1]);
        }
        return math1(f, eval(args[0]));
      }
      case Kind::If: {
        Value c = eval(ir::if_cond(e));
        if (!grid(c)) return eval(c.b ? ir::if_then(e) : ir::if_else(e));
        std::vector<bool> yes(static_cast<size_t>(n_)), no(static_cast<size_t>(n_));
        for (int64_t p = 0; p < n_; ++p) {
          bool v = c.tensor_ref().get_bool(p);
          yes[static_cast<size_t>(p)] = live(p) && v;
          no[static_cast<size_t>(p)] = live(p) && !v;
        }
        const std::vector<bool>* saved = mask_;
        mask_ = &yes;
        Value a = eval(ir::if_then(e));
        mask_ = &no;
        Value b = eval(ir::if_else(e));
        mask_ = saved;
        return select(c, a, b);
      }
      default: fault("E011", "not vectorisable");
    }
  }

  // Elementwise comparisons and logic give bool grids (engine/value compares whole arrays).
  Value binary(const NodeRef& e) {
    auto op = static_cast<BinOp>(e->ival);
    Value a = eval(ir::bin_lhs(e)), b = eval(ir::bin_rhs(e));
    bool cmp = op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt || op == BinOp::Le ||
               op == BinOp::Gt || op == BinOp::Ge || op == BinOp::And || op == BinOp::Or;
    if ((op == BinOp::Div || op == BinOp::Mod) && grid(b) && !is_float(b.tensor_ref().dtype())) {
      // A zero divisor at a point that is not computed must not fault: make it 1 there.
      Tensor d = b.tensor_ref().copy();
      for (int64_t p = 0; p < n_; ++p)
        if (!live(p) && d.get_i64(p) == 0) d.set_i64(p, 1);
      b = Value::tensor(d);
    }
    // An extent (`DimOf`, i64 in the interpreter, i32 to type inference) against the loops'
    // i32 coordinates (`len(v) - 1 - k` of an inlined row call): the scalar takes the grid's
    // integer type, as the scalar interpreter's arithmetic does.
    auto align = [&](Value& s, const Value& g) {
      if (s.tag == Value::Tag::Int && grid(g) && is_int(g.tensor_ref().dtype()) && s.dt != g.tensor_ref().dtype())
        s = Value::integer(s.as_i64(), g.tensor_ref().dtype());
    };
    if (a.tag == Value::Tag::Int && b.tag == Value::Tag::Int && a.dt != b.dt) {
      a = Value::integer(a.as_i64(), DType::I64);
      b = Value::integer(b.as_i64(), DType::I64);
    }
    align(a, b);
    align(b, a);
    if (!cmp || (!grid(a) && !grid(b))) return binary_op(op, a, b);
    Tensor out = Tensor::alloc(DType::Bool, {n_});
    bool ints = !((grid(a) ? is_float(a.tensor_ref().dtype()) : a.tag == Value::Tag::Float) ||
                  (grid(b) ? is_float(b.tensor_ref().dtype()) : b.tag == Value::Tag::Float));
    for (int64_t p = 0; p < n_; ++p) {
      bool r = false;
      if (ints) {
        int64_t x = grid(a) ? a.tensor_ref().get_i64(p) : a.as_i64();
        int64_t y = grid(b) ? b.tensor_ref().get_i64(p) : b.as_i64();
        r = compare(op, x, y);
      } else {
        double x = grid(a) ? a.tensor_ref().get_f64(p) : a.as_f64();
        double y = grid(b) ? b.tensor_ref().get_f64(p) : b.as_f64();
        r = compare(op, x, y);
      }
      out.set_i64(p, r ? 1 : 0);
    }
    return Value::tensor(out);
  }

  template <class T>
  static bool compare(BinOp op, T x, T y) {
    switch (op) {
      case BinOp::Eq: return x == y;
      case BinOp::Ne: return x != y;
      case BinOp::Lt: return x < y;
      case BinOp::Le: return x <= y;
      case BinOp::Gt: return x > y;
      case BinOp::Ge: return x >= y;
      case BinOp::And: return x != 0 && y != 0;
      default: return x != 0 || y != 0;
    }
  }

  Value select(const Value& c, const Value& a, const Value& b) {
    if (!grid(c)) return c.b ? a : b;
    DType dt = grid(a) ? a.tensor_ref().dtype() : grid(b) ? b.tensor_ref().dtype() : a.dt;
    if (!grid(a) && a.tag == Value::Tag::Bool) dt = DType::Bool;
    Tensor out = Tensor::alloc(dt, {n_});
    for (int64_t p = 0; p < n_; ++p) {
      const Value& s = c.tensor_ref().get_bool(p) ? a : b;
      if (grid(s)) tensor_set(out, p, tensor_get(s.tensor_ref(), p));
      else tensor_set(out, p, s);
    }
    return Value::tensor(out);
  }

  // Flat offsets of index grids into a tensor of `shape`, bounds-checked (E005).
  std::vector<int64_t> offsets(const std::vector<Value>& idx, const std::vector<int64_t>& shape) {
    std::vector<int64_t> off(static_cast<size_t>(n_), 0);
    for (size_t a = 0; a < idx.size(); ++a) {
      int64_t extent = shape[a];
      for (int64_t p = 0; p < n_; ++p) {
        int64_t i = grid(idx[a]) ? idx[a].tensor_ref().get_i64(p) : idx[a].as_i64();
        if (i < 0 || i >= extent) {
          if (live(p))
            fault("E005", "index " + std::to_string(i) + " is out of bounds for axis " +
                              std::to_string(a) + " with extent " + std::to_string(extent));
          off[static_cast<size_t>(p)] = -1;  // not computed: read as 0
          continue;
        }
        if (off[static_cast<size_t>(p)] >= 0) off[static_cast<size_t>(p)] = off[static_cast<size_t>(p)] * extent + i;
      }
    }
    return off;
  }

  Value gather(const NodeRef& e) {
    const Tensor& src = in_.lookup(ir::index_base(e)).tensor_ref();
    std::vector<Value> idx;
    for (const NodeRef& ix : ir::index_args(e)) idx.push_back(eval(ix));
    auto off = offsets(idx, src.shape());
    Tensor out = Tensor::alloc(src.dtype(), {n_});
    for (int64_t p = 0; p < n_; ++p) {
      int64_t o = off[static_cast<size_t>(p)];
      if (o < 0) continue;  // a point that is not computed
      if (is_float(src.dtype())) out.set_f64(p, src.get_f64(o));
      else out.set_i64(p, src.get_i64(o));
    }
    return Value::tensor(out);
  }

  // `mask`: points where the enclosing guards hold (nullptr: all points).
  void exec_stmt(const NodeRef& s, const std::vector<bool>* mask) {
    mask_ = mask;
    switch (s->kind) {
      case Kind::LSeq:
        for (auto& k : s->kids) exec_stmt(k, mask);
        return;
      case Kind::LLet: lets_[s->def] = eval(ir::llet_value(s)); return;
      case Kind::LIf: {
        Value c = eval(ir::lif_cond(s));
        std::vector<bool> yes(static_cast<size_t>(n_)), no(static_cast<size_t>(n_));
        for (int64_t p = 0; p < n_; ++p) {
          bool m = !mask || (*mask)[static_cast<size_t>(p)];
          bool v = grid(c) ? c.tensor_ref().get_bool(p) : c.b;
          yes[static_cast<size_t>(p)] = m && v;
          no[static_cast<size_t>(p)] = m && !v;
        }
        exec_stmt(ir::lif_then(s), &yes);
        if (ir::lif_else(s)) exec_stmt(ir::lif_else(s), &no);
        mask_ = mask;
        return;
      }
      case Kind::LStore: store(s, mask); return;
      default: fault("E011", "not vectorisable");
    }
  }

  void store(const NodeRef& s, const std::vector<bool>* mask) {
    Value v = eval(ir::lstore_value(s));
    std::vector<Value> idx;
    for (const NodeRef& ix : ir::lstore_index(s)) idx.push_back(eval(ix));
    Tensor& t = const_cast<Tensor&>(binding(tensor_).tensor_ref());
    std::vector<int64_t> off;
    try {
      off = offsets(idx, t.shape());
    } catch (const Fault& f) {
      throw DiagError(make_diag(f.code, f.what(), s->span));
    }
    bool fl = grid(v) ? is_float(v.tensor_ref().dtype()) : v.tag == Value::Tag::Float;
    for (int64_t p = 0; p < n_; ++p) {
      if (mask && !(*mask)[static_cast<size_t>(p)]) continue;
      int64_t o = off[static_cast<size_t>(p)];
      if (fl) t.set_f64(o, grid(v) ? v.tensor_ref().get_f64(p) : v.f);
      else t.set_i64(o, grid(v) ? v.tensor_ref().get_i64(p) : v.as_i64());
    }
  }

  Interpreter::Impl& in_;
  NodeRef tensor_;
  NodeRef body_;
  std::unordered_set<ir::DefId> nest_vars_, locals_;
  std::unordered_map<ir::DefId, Value> lets_;
  std::vector<Loop> loops_;
  int64_t n_ = 0;     // points in the current chunk
  int64_t base_ = 0;  // row-major number of the chunk's first point
  const std::vector<bool>* mask_ = nullptr;
};

}  // namespace

// $EIN_INTERP: "vector" vectorises every eligible clause, "scalar" none, default (auto) those
// with at least 64 points. Tests run both ways to keep the two strategies identical.
int64_t min_points() {
  static const int64_t m = [] {
    auto e = config::value(config::Env::Interp);
    if (e == "vector") return int64_t(0);
    if (e == "scalar") return INT64_MAX;
    return int64_t(64);
  }();
  return m;
}

bool run_vectorized(Interpreter::Impl& in, const NodeRef& tensor, const NodeRef& nest) {
  Vectorizer v(in, tensor);
  return v.run(nest);
}

}  // namespace ein
