// Expression evaluation. Scalar arithmetic of the common dtypes has a fast path here; everything
// else goes through engine/value's operators, which implement SPEC §4 exactly.
#include <cmath>
#include <limits>

#include "engine/interp/interp_impl.h"
#include "lang/ir/member_field.h"

namespace ein {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

namespace {

[[noreturn]] void rethrow_at(const Fault& f, const NodeRef& n) {
  throw DiagError(make_diag(f.code, f.what(), n->span));
}

// + - * / computed at the precision of F (float for f32: rounding each step as f32 does).
template <class F>
bool float_arith(BinOp op, F x, F y, DType dt, Value& out) {
  switch (op) {
    case BinOp::Add: out = Value::floating(x + y, dt); return true;
    case BinOp::Sub: out = Value::floating(x - y, dt); return true;
    case BinOp::Mul: out = Value::floating(x * y, dt); return true;
    case BinOp::Div: out = Value::floating(x / y, dt); return true;
    default: return false;
  }
}

// == != < <= > >= of two numbers of one type.
template <class T>
bool compare(BinOp op, T a, T b, Value& out) {
  switch (op) {
    case BinOp::Lt: out = Value::boolean(a < b); return true;
    case BinOp::Le: out = Value::boolean(a <= b); return true;
    case BinOp::Gt: out = Value::boolean(a > b); return true;
    case BinOp::Ge: out = Value::boolean(a >= b); return true;
    case BinOp::Eq: out = Value::boolean(a == b); return true;
    case BinOp::Ne: out = Value::boolean(a != b); return true;
    default: return false;
  }
}

bool fast_float(BinOp op, DType dt, double a, double b, Value& out) {
  if (dt == DType::F32 && float_arith(op, static_cast<float>(a), static_cast<float>(b), dt, out)) return true;
  if (dt == DType::F64 && float_arith(op, a, b, dt, out)) return true;
  return compare(op, a, b, out);
}

bool fast_int(BinOp op, DType dt, int64_t a, int64_t b, Value& out) {
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  switch (op) {
    case BinOp::Add: out = Value::integer(static_cast<int64_t>(u(a) + u(b)), dt); return true;
    case BinOp::Sub: out = Value::integer(static_cast<int64_t>(u(a) - u(b)), dt); return true;
    case BinOp::Mul: out = Value::integer(static_cast<int64_t>(u(a) * u(b)), dt); return true;
    default: return compare(op, a, b, out);  // / % ** with their zero and sign rules: engine/value
  }
}

}  // namespace

ir::TypeRef Interpreter::Impl::static_elem(const NodeRef& e) {
  auto it = unit->types.find(e->id);
  if (it != unit->types.end()) return ir::elem_of(it->second);
  for (auto& u : cx.units) {  // consts are typed in the cell unit
    auto jt = u->types.find(e->id);
    if (jt != u->types.end()) return ir::elem_of(jt->second);
  }
  return nullptr;
}

DType Interpreter::Impl::dtype_of(const NodeRef& e, DType fallback) {
  if (e->dt >= 0) return static_cast<DType>(e->dt);
  ir::TypeRef el = static_elem(e);
  if (el && el->k == ir::Type::K::Scalar) return el->dtype;
  return fallback;
}

bool Interpreter::Impl::runtime_typed(const NodeRef& e) {
  if (e->dt >= 0) return false;
  ir::TypeRef el = static_elem(e);
  return el && el->k == ir::Type::K::Unknown;
}

Value Interpreter::Impl::eval(const NodeRef& e) {
  try {
    return eval_inner(e);
  } catch (const Fault& f) {
    rethrow_at(f, e);
  }
}

const Value& Interpreter::Impl::lookup(const NodeRef& n) {
  if (n->slot >= 0) return (*frame)[static_cast<size_t>(n->slot)];
  auto it = env.globals.find(n->def);
  if (it != env.globals.end()) return it->second;
  const DefInfo& info = cx.resolver.info(n->def);
  if (info.kind == DefKind::Fn || info.kind == DefKind::Builtin) {
    auto jt = fn_values.find(n->def);
    if (jt == fn_values.end()) jt = fn_values.emplace(n->def, fn_value(n->def)).first;
    return jt->second;
  }
  fault("E003", "`" + n->name + "` is used before it has a value");
}

std::string wide_str(Wide v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  std::string s;
  while (v != 0) {
    int d = static_cast<int>(v % 10);
    s += static_cast<char>('0' + (d < 0 ? -d : d));
    v /= 10;
  }
  if (neg) s += '-';
  return std::string(s.rbegin(), s.rend());
}

int64_t Interpreter::Impl::eval_int(const NodeRef& e) {
  Wide v = eval_wide(e);
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max())
    fault("E006", "integer overflow: this index or bound is " + wide_str(v) + ", outside the range of i64");
  return static_cast<int64_t>(v);
}

// Index, bound and extent arithmetic is exact: `n + 1` for the end of `0..=n` is 2^63 when n is
// i64::MAX, and the loop over it still has n + 1 points. Callers decide what fits.
Wide Interpreter::Impl::eval_wide(const NodeRef& e) {
  auto overflow = [] { fault("E006", "integer overflow in an index or bound"); };
  switch (e->kind) {
    case Kind::IntLit: return e->ival;
    case Kind::Name: {
      const Value& v = lookup(e);
      if (v.tag == Value::Tag::Int) return v.i;
      if (v.tag != Value::Tag::Bool && v.tag != Value::Tag::Float)
        fault("E002", "expected an integer, found " + type_string(v));
      return v.as_i64();
    }
    case Kind::Binary: {
      auto op = static_cast<BinOp>(e->ival);
      if (op != BinOp::Add && op != BinOp::Sub && op != BinOp::Mul) break;
      const Wide a = eval_wide(ir::bin_lhs(*e)), b = eval_wide(ir::bin_rhs(*e));
      Wide r = 0;
      bool o = op == BinOp::Add ? __builtin_add_overflow(a, b, &r)
             : op == BinOp::Sub ? __builtin_sub_overflow(a, b, &r)
                                : __builtin_mul_overflow(a, b, &r);
      if (o) overflow();
      return r;
    }
    case Kind::Unary:
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
        Wide r = 0;
        if (__builtin_sub_overflow(Wide{0}, eval_wide(ir::unary_operand(*e)), &r)) overflow();
        return r;
      }
      break;
    case Kind::IMin: return std::min(eval_wide(ir::imin_a(*e)), eval_wide(ir::imin_b(*e)));
    case Kind::IMax: return std::max(eval_wide(ir::imax_a(*e)), eval_wide(ir::imax_b(*e)));
    case Kind::DimOf: {
      const NodeRef& tensor = ir::dimof_tensor(*e);
      // The extent of an array expression other than a name (a call's result indexed in a
      // declaration, `softmax(x)[j]`, lang/passes/range_site.cpp) is that of its value.
      const bool named = tensor->kind == Kind::Name || tensor->kind == Kind::Path;
      Value computed = named ? Value::unit() : eval(tensor);
      const Value& v = named ? lookup(tensor) : computed;
      int axis = static_cast<int>(e->ival);
      if (v.tag == Value::Tag::Tensor) {
        const Tensor& t = v.tensor_ref();
        if (axis < t.rank()) return (axis == 0 && v.window.rows > 0) ? v.window.logical0 : t.dim(axis);
        fault("E004", "`" + tensor->name + "` has rank " + std::to_string(t.rank()) +
                          ", so it has no axis " + std::to_string(axis));
      }
      if (v.tag == Value::Tag::List && axis == 0) return static_cast<int64_t>(v.items().size());
      fault("E004", "`" + tensor->name + "` is not an array of rank > " + std::to_string(axis));
    }
    default: break;
  }
  Value v = eval(e);
  if (v.tag != Value::Tag::Int && v.tag != Value::Tag::Bool)
    fault("E002", "expected an integer, found " + type_string(v));
  return v.as_i64();
}

LoopSpan Interpreter::Impl::loop_span(const NodeRef& lo_e, const NodeRef& hi_e, DType var) {
  Wide lo = eval_wide(lo_e), hi = eval_wide(hi_e);
  if (hi <= lo) return LoopSpan{};
  Wide vmin = std::numeric_limits<int64_t>::min(), vmax = std::numeric_limits<int64_t>::max();
  if (var == DType::I32) vmin = std::numeric_limits<int32_t>::min(), vmax = std::numeric_limits<int32_t>::max();
  if (var == DType::I8) vmin = std::numeric_limits<int8_t>::min(), vmax = std::numeric_limits<int8_t>::max();
  if (lo < vmin || hi - 1 > vmax)
    fault("E006", "the range " + wide_str(lo) + ".." + wide_str(hi) + " does not fit its index type " +
                      std::string(dtype_name(var)));
  return LoopSpan{static_cast<int64_t>(lo), static_cast<uint64_t>(hi - lo)};
}

Value Interpreter::Impl::block(const NodeRef& b) {
  bool tail = b->has(ir::kHasTail);
  for (const NodeRef& s : b->kids) {
    if (!s) continue;
    if (tail && &s == &b->kids.back()) return eval(s);
    exec(s);
  }
  return Value::unit();
}

Value Interpreter::Impl::binary(const NodeRef& e) {
  auto op = static_cast<BinOp>(e->ival);
  if (op == BinOp::And || op == BinOp::Or) {
    Value a = eval(ir::bin_lhs(*e));
    if (a.tag != Value::Tag::Bool) fault("E002", "expected a bool");
    if (op == BinOp::And ? !a.b : a.b) return a;
    return eval(ir::bin_rhs(*e));
  }
  Value a = eval(ir::bin_lhs(*e));
  Value b = eval(ir::bin_rhs(*e));
  Value out;
  if (a.tag == Value::Tag::Float && b.tag == Value::Tag::Float && a.dt == b.dt &&
      fast_float(op, a.dt, a.f, b.f, out))
    return out;
  if (a.tag == Value::Tag::Int && b.tag == Value::Tag::Int && a.dt == b.dt &&
      fast_int(op, a.dt, a.i, b.i, out))
    return out;
  if (op == BinOp::In) return Value::boolean(value_contains(b, a));
  // A literal beside a value whose type was only known at run time (std::io::load_npy) takes
  // that value's element type, as it would have at compile time (`v[0] / 2` with an i64 v).
  if (op != BinOp::Pow) {
    auto elem = [](const Value& v) -> std::optional<DType> {
      if (v.tag == Value::Tag::Int || v.tag == Value::Tag::Float) return v.dt;
      if (v.tag == Value::Tag::Tensor) return v.tensor_ref().dtype();
      return std::nullopt;
    };
    auto literal = [](const NodeRef& n) {
      const NodeRef& m = n->kind == Kind::Unary ? ir::unary_operand(*n) : n;
      return m->kind == Kind::IntLit || m->kind == Kind::FloatLit;
    };
    auto da = elem(a), db = elem(b);
    if (da && db && *da != *db && is_float(*da) == is_float(*db)) {
      if (literal(ir::bin_rhs(*e)) && !literal(ir::bin_lhs(*e))) b = cast_value(b, *da);
      else if (literal(ir::bin_lhs(*e)) && !literal(ir::bin_rhs(*e))) a = cast_value(a, *db);
    }
  }
  return binary_op(op, a, b);
}

Value Interpreter::Impl::index(const NodeRef& e) {
  const NodeRef& base_node = ir::index_base(*e);
  Value base_tmp;
  const Value* base;
  if (base_node->kind == Kind::Name) {
    base = &lookup(base_node);
  } else {
    base_tmp = eval(base_node);
    base = &base_tmp;
  }
  const ir::Kids args = ir::index_args(*e);
  size_t n = args.size();
  if (n == 0) return *base;  // a rest pattern over zero axes
  int64_t idx[16];
  if (n > 16) fault("E011", "more than 16 indices");
  for (size_t i = 0; i < n; ++i) idx[i] = eval_int(args[i]);
  if (base->tag == Value::Tag::Tensor) {
    const Tensor& t = base->tensor_ref();
    if (static_cast<int>(n) > t.rank())
      fault("E004", "too many indices: rank " + std::to_string(t.rank()) + ", " + std::to_string(n) + " indices");
    int64_t window = e->has(ir::kWindowed) ? base->window.rows : 0;
    if (static_cast<int>(n) == t.rank()) {
      int64_t flat = flat_index(t, idx, n, window, base->window.logical0);
      switch (t.dtype()) {
        case DType::F32: return Value::floating(t.data_as<float>()[flat], DType::F32);
        case DType::F64: return Value::floating(t.data_as<double>()[flat], DType::F64);
        case DType::I32: return Value::integer(t.data_as<int32_t>()[flat], DType::I32);
        case DType::I64: return Value::integer(t.data_as<int64_t>()[flat], DType::I64);
        default: return tensor_get(t, flat);
      }
    }
    // Partial index: a view of the remaining axes.
    Tensor cur = t;
    for (size_t a = 0; a < n; ++a) {
      int64_t i = idx[a];
      if (a == 0 && window > 0) {
        int64_t dummy[1] = {i};
        flat_index(t, dummy, 1, window, base->window.logical0);
        i %= window;
      }
      cur = cur.row(i);
    }
    return Value::tensor(cur);
  }
  if (base->tag == Value::Tag::Str) {
    if (n != 1) fault("E004", "a string takes one index");
    const std::string& s = base->str();
    int64_t count = 0;
    for (size_t b = 0; b < s.size();) {
      size_t len = 1;
      unsigned char c = static_cast<unsigned char>(s[b]);
      if (c >= 0xF0) len = 4;
      else if (c >= 0xE0) len = 3;
      else if (c >= 0xC0) len = 2;
      if (count == idx[0]) return Value::string(s.substr(b, std::min(len, s.size() - b)));
      b += len;
      ++count;
    }
    fault("E005", "index " + std::to_string(idx[0]) + " is out of bounds for a string of length " +
                      std::to_string(count));
  }
  if (base->tag == Value::Tag::List) {
    const auto& items = base->items();
    if (n != 1) fault("E004", "a jagged array takes one index at a time");
    if (idx[0] < 0 || idx[0] >= static_cast<int64_t>(items.size()))
      fault("E005", "index " + std::to_string(idx[0]) + " is out of bounds for length " +
                        std::to_string(items.size()));
    return items[static_cast<size_t>(idx[0])];
  }
  fault("E002", "cannot index a value of type " + type_string(*base));
}

Value Interpreter::Impl::member(const NodeRef& e) {
  Value b = eval(ir::member_base(*e));
  const std::string& f = e->name;  // shown in messages
  const ir::MemberField field = ir::member_field(e);
  if (field == ir::MemberField::Tuple) {
    auto i = static_cast<size_t>(e->ival);
    if (b.tag == Value::Tag::Tuple && i < b.items().size()) return b.items()[i];
    fault("E002", "no field ." + f + " on " + type_string(b));
  }
  if (b.tag == Value::Tag::Tensor) {
    const Tensor& t = b.tensor_ref();
    std::vector<int64_t> shape = t.shape();
    if (b.window.rows > 0 && !shape.empty()) shape[0] = b.window.logical0;
    if (field == ir::MemberField::Shape) {
      Tensor s = Tensor::alloc(DType::I32, {static_cast<int64_t>(shape.size())});
      for (size_t i = 0; i < shape.size(); ++i) s.set_i64(static_cast<int64_t>(i), shape[i]);
      return Value::tensor(s);
    }
    if (field == ir::MemberField::Length) return Value::integer(shape.empty() ? 1 : shape[0], DType::I32);
    if (field == ir::MemberField::Rank) return Value::integer(static_cast<int64_t>(shape.size()), DType::I32);
    if (field == ir::MemberField::Size) {
      int64_t n = 1;
      for (auto d : shape) n *= d;
      return Value::integer(n, DType::I32);
    }
  }
  if (b.tag == Value::Tag::List) {
    int64_t n = static_cast<int64_t>(b.items().size());
    if (field == ir::MemberField::Length || field == ir::MemberField::Size) return Value::integer(n, DType::I32);
    if (field == ir::MemberField::Shape) return make_array({Value::integer(n, DType::I32)}, DType::I32);
    if (field == ir::MemberField::Rank) return Value::integer(1, DType::I32);
  }
  if (b.tag == Value::Tag::Str && (field == ir::MemberField::Length || field == ir::MemberField::Size)) {
    int64_t n = 0;
    for (unsigned char c : b.str()) n += (c & 0xC0) != 0x80;
    return Value::integer(n, DType::I32);
  }
  fault("E002", "no field `" + f + "` on " + type_string(b));
}

// `a as [T; d0, d1, ...]`: the listed extents are a promise the compiler relied on (shapes,
// proven accesses), so a value that breaks it stops here with E004 (SPEC §3).
Value Interpreter::Impl::cast_array(const Value& v, const NodeRef& ty) {
  const std::string& elem = ir::tyarray_elem(ty)->name;
  const ir::Kids dims_of = ir::tyarray_dims(ty);
  auto dt = dtype_from_name(elem);
  if (!dt) fault("E002", "cannot cast to an array of " + elem);
  if (v.tag != Value::Tag::Tensor) fault("E004", "`as` an array type needs an array, found " + type_string(v));
  const Tensor& t = v.tensor_ref();
  bool any_rank = ty->has(ir::kAnyRank) || dims_of.empty();
  auto shape_text = [](const std::vector<int64_t>& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
  };
  if (!any_rank) {
    size_t want = dims_of.size();
    bool ok = static_cast<size_t>(t.rank()) == want;
    for (size_t i = 0; ok && i < want; ++i)
      ok = dims_of[i]->ival < 0 || dims_of[i]->ival == t.dim(static_cast<int>(i));
    if (!ok) {
      std::string dims;
      for (size_t i = 0; i < want; ++i)
        dims += (i ? ", " : "") + (dims_of[i]->ival < 0 ? std::string("?") : std::to_string(dims_of[i]->ival));
      fault("E004", "shape mismatch: `as [" + elem + "; " + dims + "]` but the value has shape " +
                        shape_text(t.shape()));
    }
  }
  return cast_value(v, *dt);
}

Value Interpreter::Impl::eval_inner(const NodeRef& e) {
  switch (e->kind) {
    case Kind::IntLit: return Value::integer(e->ival, dtype_of(e, DType::I32));
    case Kind::FloatLit: return Value::floating(e->fval, dtype_of(e, DType::F32));
    case Kind::BoolLit: return Value::boolean(e->ival != 0);
    case Kind::StrLit: return Value::string(e->name);
    case Kind::Interp: {
      std::string s;
      MemoryHold hold;  // "{s}{s}" doubles like s + s does
      for (auto& p : e->kids) {
        if (p->kind == Kind::StrLit) {
          s += p->name;
          continue;
        }
        Value v = eval(ir::hole_expr(*p));
        std::string part = p->aux.empty() ? format_value(v) : format_with_spec(v, p->aux);
        hold.grow_to(static_cast<int64_t>(s.size() + part.size()), "an interpolated string");
        s += part;
      }
      return Value::string(std::move(s));
    }
    case Kind::Name:
    case Kind::Path: return lookup(e);
    case Kind::ArrayLit: {
      std::vector<Value> vals;
      vals.reserve(e->kids.size());
      for (auto& k : e->kids) vals.push_back(eval(k));
      if (e->has(ir::kJagged)) return Value::list(std::move(vals));
      return make_array(vals, runtime_typed(e) ? widest_dtype(vals, DType::F32) : dtype_of(e, DType::F32));
    }
    case Kind::TupleLit: {
      if (e->kids.empty()) return Value::unit();
      std::vector<Value> vals;
      for (auto& k : e->kids) vals.push_back(eval(k));
      return Value::tuple(std::move(vals));
    }
    case Kind::RangeLit: {
      int64_t lo = eval_int(ir::range_lo(*e)), hi = eval_int(ir::range_hi(*e));
      return e->has(ir::kInclusive) ? Value::range_inclusive(lo, hi) : Value::range(lo, hi);
    }
    case Kind::Unary: {
      Value a = eval(ir::unary_operand(*e));
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
        if (a.tag == Value::Tag::Float) return Value::floating(-a.f, a.dt);
        if (a.tag == Value::Tag::Int) return Value::integer(static_cast<int64_t>(0 - static_cast<uint64_t>(a.i)), a.dt);
      } else if (a.tag == Value::Tag::Bool) {
        return Value::boolean(!a.b);
      }
      return unary_op(static_cast<ir::UnOp>(e->ival), a);
    }
    case Kind::Binary: return binary(e);
    case Kind::Cast: {
      Value v = eval(ir::cast_expr(*e));
      const NodeRef& ty = ir::cast_type(*e);
      if (ty->kind == Kind::TyArray) return cast_array(v, ty);
      auto dt = dtype_from_name(ty->name);
      if (!dt) fault("E002", "cannot cast to " + ty->name);
      return cast_value(v, *dt);
    }
    case Kind::Call: return call(e);
    case Kind::Index: return index(e);
    case Kind::Member: return member(e);
    case Kind::If: {
      Value c = eval(ir::if_cond(*e));
      if (c.tag != Value::Tag::Bool) fault("E002", "an `if` condition must be a bool");
      if (!ir::if_else(*e)) {
        // Without `else` the `if` is a statement: its value is unit (SPEC §4).
        if (c.b) eval(ir::if_then(*e));
        return Value::unit();
      }
      return eval(c.b ? ir::if_then(*e) : ir::if_else(*e));
    }
    case Kind::Block: return block(e);
    case Kind::Match: return match(e);
    case Kind::Lambda: return make_lambda(e);
    case Kind::Comp: return comp(e);
    case Kind::LReduce: return reduce(e);
    case Kind::LLetIn:
      set_def(e, eval(ir::lletin_value(*e)));
      return eval(ir::lletin_body(*e));
    case Kind::LGuard: {
      Value c = eval(ir::lguard_cond(*e));
      return c.b ? eval(ir::lguard_value(*e)) : Value::unit();
    }
    case Kind::DimOf:
    case Kind::IMin:
    case Kind::IMax: return Value::integer(eval_int(e), DType::I64);
    case Kind::ExprStmt: eval(ir::stmt_expr(*e)); return Value::unit();
    case Kind::Let:
    case Kind::LTensor:
    case Kind::LStore:
    case Kind::LAccum:
    case Kind::LFor:
    case Kind::LLet:
    case Kind::LIf:
    case Kind::LSeq:
    case Kind::LCheck:
    case Kind::LNop: exec(e); return Value::unit();
    default: fault("E011", std::string("cannot execute `") + ir::kind_name(e->kind) + "`");
  }
}

}  // namespace ein
