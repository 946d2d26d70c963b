// Value construction, element access, equality, membership, array literals and typeof().
#include <algorithm>
#include <cstring>

#include "engine/value/value.h"
#include "engine/value/value_detail.h"

namespace ein {

using vdetail::shape_str;

// ---- factories ------------------------------------------------------------------------------
Value Value::boolean(bool v) {
  Value x;
  x.tag = Tag::Bool;
  x.dt = DType::Bool;
  x.b = v;
  return x;
}

Value Value::integer(int64_t v, DType dt) {
  // A caller that asks for a non-integer dtype gets the matching kind rather than a Value whose
  // tag and dtype disagree (which every consumer would have to guard against).
  if (dt == DType::Bool) return boolean(v != 0);
  if (is_float(dt)) return floating(static_cast<double>(v), dt);
  Value x;
  x.tag = Tag::Int;
  x.dt = dt;
  x.i = vdetail::wrap_int(v, dt);
  return x;
}

Value Value::floating(double v, DType dt) {
  if (dt == DType::Bool) return boolean(v != 0);
  if (is_int(dt)) return integer(vdetail::saturate_to_dtype(v, dt), dt);
  Value x;
  x.tag = Tag::Float;
  x.dt = dt;
  x.f = round_to_float_dtype(v, dt);
  return x;
}

namespace {

// A string or item vector with its bytes counted in memory_in_use() while it lives, so that
// the limit sees text and lists as well as tensors. The Value points at `v` (aliasing
// shared_ptr), so readers see a plain std::string / std::vector<Value>.
template <class T> struct Counted {
  T v;
  int64_t bytes;
  Counted(T x, int64_t b) : v(std::move(x)), bytes(b) { vdetail::count_memory(bytes); }
  ~Counted() { release_memory(bytes); }
};

template <class T> std::shared_ptr<const void> counted(T x, int64_t payload) {
  auto h = std::make_shared<Counted<T>>(std::move(x), static_cast<int64_t>(sizeof(Counted<T>) + 16) + payload);
  return std::shared_ptr<const void>(h, &h->v);
}

int64_t payload_of(const std::string& s) { return s.capacity() > 15 ? static_cast<int64_t>(s.capacity()) + 1 : 0; }
int64_t payload_of(const std::vector<Value>& v) { return static_cast<int64_t>(v.capacity() * sizeof(Value)); }

}  // namespace

namespace {

// A string, tuple or list: its storage counted with what it holds (payload_of).
template <class T>
Value string_or_items(Value::Tag tag, T content) {
  Value x;
  x.tag = tag;
  int64_t p = payload_of(content);
  x.obj = counted(std::move(content), p);
  return x;
}

}  // namespace

Value Value::string(std::string s) { return string_or_items(Tag::Str, std::move(s)); }

Value Value::tensor(Tensor t) {
  Value x;
  x.tag = Tag::Tensor;
  x.dt = t.dtype();
  x.obj = std::make_shared<const Tensor>(std::move(t));
  return x;
}

Value Value::tuple(std::vector<Value> items) { return string_or_items(Tag::Tuple, std::move(items)); }
Value Value::list(std::vector<Value> items) { return string_or_items(Tag::List, std::move(items)); }

Value Value::range(int64_t lo, int64_t hi_exclusive) {
  if (hi_exclusive > std::numeric_limits<int64_t>::min()) return range_inclusive(lo, hi_exclusive - 1);
  // `lo..i64::MIN` is empty whatever lo is.
  return lo > std::numeric_limits<int64_t>::min() ? range_inclusive(lo, lo - 1) : range_inclusive(0, -1);
}

Value Value::range_inclusive(int64_t lo, int64_t hi) {
  Value x;
  x.tag = Tag::Range;
  x.dt = DType::I32;
  x.r[0] = lo;
  x.r[1] = hi;
  return x;
}

Value Value::func(std::shared_ptr<const FuncObj> f) {
  Value x;
  x.tag = Tag::Func;
  x.obj = std::move(f);
  return x;
}

double Value::as_f64() const {
  switch (tag) {
    case Tag::Bool: return b ? 1.0 : 0.0;
    case Tag::Int: return static_cast<double>(i);
    case Tag::Float: return f;
    case Tag::Tensor:
      if (tensor_ref().rank() == 0) return tensor_ref().get_f64(0);
      break;
    default: break;
  }
  fault("E002", "expected a number, found " + vdetail::kind_name(*this));
}

int64_t Value::as_i64() const {
  switch (tag) {
    case Tag::Bool: return b ? 1 : 0;
    case Tag::Int: return i;
    case Tag::Float: return vdetail::saturate_to<int64_t>(f);
    case Tag::Tensor:
      if (tensor_ref().rank() == 0) return tensor_ref().get_i64(0);
      break;
    default: break;
  }
  fault("E002", "expected a number, found " + vdetail::kind_name(*this));
}

// ---- element access -------------------------------------------------------------------------
Value tensor_get(const Tensor& t, int64_t flat) {
  vdetail::require_storage(t);
  if (flat < 0 || flat >= t.size()) {
    fault("E005", "element " + std::to_string(flat) + " is out of bounds for an array of " +
                      std::to_string(t.size()) + " elements");
  }
  DType dt = t.dtype();
  if (dt == DType::Bool) return Value::boolean(t.get_bool(flat));
  if (is_int(dt)) return Value::integer(t.get_i64(flat), dt);
  return Value::floating(t.get_f64(flat), dt);
}

void tensor_set(Tensor& t, int64_t flat, const Value& v) {
  vdetail::require_storage(t);
  if (flat < 0 || flat >= t.size()) {
    fault("E005", "element " + std::to_string(flat) + " is out of bounds for an array of " +
                      std::to_string(t.size()) + " elements");
  }
  Value s = vdetail::scalarize(v);
  switch (s.tag) {
    case Value::Tag::Bool: t.set_i64(flat, s.b ? 1 : 0); return;
    case Value::Tag::Int: t.set_i64(flat, s.i); return;
    case Value::Tag::Float: t.set_f64(flat, s.f); return;
    default:
      fault("E002", "cannot store " + vdetail::kind_name(v) + " in an array of " +
                        dtype_name(t.dtype()));
  }
}

namespace vdetail {

Value scalarize(const Value& v) {
  if (v.tag == Value::Tag::Tensor && v.tensor_ref().rank() == 0) return tensor_get(v.tensor_ref(), 0);
  return v;
}

std::string kind_name(const Value& v) {
  switch (v.tag) {
    case Value::Tag::Tuple: return "tuple";
    case Value::Tag::List: return "list";
    case Value::Tag::Func: return "function";
    default: return type_string(v);
  }
}

}  // namespace vdetail

// ---- equality -------------------------------------------------------------------------------
namespace {

// Tensors and lists are both "sequences of rows" for equality and membership, so a jagged List
// can be compared to a Tensor row by row.
bool is_seq(const Value& v) {
  return (v.tag == Value::Tag::Tensor && v.tensor_ref().rank() > 0) || v.tag == Value::Tag::List;
}
int64_t seq_len(const Value& v) {
  return v.tag == Value::Tag::List ? static_cast<int64_t>(v.items().size()) : v.tensor_ref().dim(0);
}
Value seq_at(const Value& v, int64_t i) {
  if (v.tag == Value::Tag::List) return v.items()[static_cast<size_t>(i)];
  const Tensor& t = v.tensor_ref();
  if (t.rank() == 1) return tensor_get(t, i);
  return Value::tensor(t.row(i));
}

bool scalars_equal(const Value& a, const Value& b) {
  if (a.tag == Value::Tag::Float || b.tag == Value::Tag::Float) return a.as_f64() == b.as_f64();
  return a.as_i64() == b.as_i64();
}

bool tensors_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  const int64_t n = a.size();
  const bool fl = is_float(a.dtype()) || is_float(b.dtype());
  for (int64_t k = 0; k < n; ++k) {
    if (fl ? a.get_f64(k) != b.get_f64(k) : a.get_i64(k) != b.get_i64(k)) return false;
  }
  return true;
}

}  // namespace

bool values_equal(const Value& a0, const Value& b0) {
  Value a = vdetail::scalarize(a0), b = vdetail::scalarize(b0);
  using T = Value::Tag;
  if (a.is_scalar() && b.is_scalar()) return scalars_equal(a, b);
  if (a.tag == T::Tensor && b.tag == T::Tensor) return tensors_equal(a.tensor_ref(), b.tensor_ref());
  if (is_seq(a) && is_seq(b)) {
    const int64_t n = seq_len(a);
    if (n != seq_len(b)) return false;
    for (int64_t i = 0; i < n; ++i) {
      if (!values_equal(seq_at(a, i), seq_at(b, i))) return false;
    }
    return true;
  }
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case T::Unit: return true;
    case T::Str: return a.str() == b.str();
    case T::Tuple: {
      const auto& x = a.items();
      const auto& y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!values_equal(x[i], y[i])) return false;
      }
      return true;
    }
    case T::Range: {
      const bool ea = a.range_size() == 0, eb = b.range_size() == 0;
      return (ea && eb) || (a.r[0] == b.r[0] && a.r[1] == b.r[1]);
    }
    case T::Func: return a.obj == b.obj;
    default: return false;
  }
}

// ---- membership -----------------------------------------------------------------------------
bool value_contains(const Value& c, const Value& x0) {
  using T = Value::Tag;
  Value x = vdetail::scalarize(x0);
  switch (c.tag) {
    case T::Range: {
      if (!x.is_scalar()) return false;
      if (x.tag == T::Float) {
        double d = x.f;
        return d == std::floor(d) && d >= static_cast<double>(c.r[0]) &&
               d <= static_cast<double>(c.r[1]);
      }
      return c.range_has(x.as_i64());
    }
    case T::Tensor: {
      const Tensor& t = c.tensor_ref();
      if (t.rank() == 0) return values_equal(c, x);
      if (t.rank() == 1) {
        if (!x.is_scalar()) return false;
        const int64_t n = t.size();
        if (x.tag != T::Float && !is_float(t.dtype())) {
          const int64_t v = x.as_i64();
          for (int64_t k = 0; k < n; ++k) if (t.get_i64(k) == v) return true;
          return false;
        }
        const double v = x.as_f64();
        for (int64_t k = 0; k < n; ++k) if (t.get_f64(k) == v) return true;
        return false;
      }
      for (int64_t i = 0; i < t.dim(0); ++i) {
        if (values_equal(Value::tensor(t.row(i)), x)) return true;
      }
      return false;
    }
    case T::List:
    case T::Tuple:
      for (const Value& item : c.items()) {
        if (values_equal(item, x)) return true;
      }
      return false;
    case T::Str:
      // Substring test, as in Python; cheap and unambiguous.
      if (x.tag != T::Str) fault("E002", "`in` on a string needs a string, found " + vdetail::kind_name(x));
      return c.str().find(x.str()) != std::string::npos;
    default:
      fault("E002", "`in` needs a range, array or list on the right, found " +
                        vdetail::kind_name(c));
  }
}

// ---- array literals -------------------------------------------------------------------------
namespace {

// A List whose leaves are all numbers (e.g. a comprehension result used as a row) takes part in
// an array literal as the tensor it spells; lists of strings or tuples stay lists.
Value numeric_rows(const Value& v, DType dt) {
  if (v.tag != Value::Tag::List || v.items().empty()) return v;
  std::vector<Value> items;
  items.reserve(v.items().size());
  for (const Value& item : v.items()) {
    Value x = numeric_rows(vdetail::scalarize(item), dt);
    if (!x.is_scalar() && x.tag != Value::Tag::Tensor) return v;
    items.push_back(std::move(x));
  }
  try {
    return make_array(items, dt);
  } catch (const Fault& f) {
    if (f.code != "E004") throw;
    return v;  // itself jagged: stays a list
  }
}

}  // namespace

std::optional<DType> value_dtype(const Value& v) {
  using T = Value::Tag;
  if (v.tag == T::Int || v.tag == T::Float) return v.dt;
  if (v.tag == T::Bool) return DType::Bool;
  if (v.tag == T::Tensor) return v.tensor_ref().dtype();
  return std::nullopt;
}

DType widen(DType a, DType b) {
  if (a == b) return a;
  if (is_float(a) != is_float(b)) {
    const DType f = is_float(a) ? a : b, i = is_float(a) ? b : a;
    return i == DType::I64 ? DType::F64 : f;
  }
  // Within integers and within floats the enumeration is ordered by width; bf16 and f16 meet
  // in f32, which holds both.
  if ((a == DType::F16 && b == DType::BF16) || (a == DType::BF16 && b == DType::F16)) return DType::F32;
  return a > b ? a : b;
}

DType widest_dtype(const std::vector<Value>& elems, DType fallback) {
  std::optional<DType> out;
  for (const Value& e : elems)
    if (auto d = value_dtype(e)) out = out ? widen(*out, *d) : *d;
  return out ? *out : fallback;
}

Value make_array(const std::vector<Value>& elems0, DType dt) {
  using T = Value::Tag;
  if (elems0.empty()) return Value::tensor(Tensor::alloc(dt, {0}));
  MemoryHold hold;  // the working copy of the elements
  hold.grow_to(static_cast<int64_t>(elems0.size() * sizeof(Value)), "an array of " + std::to_string(elems0.size()) + " elements");
  std::vector<Value> elems;
  elems.reserve(elems0.size());
  for (const Value& e : elems0) elems.push_back(numeric_rows(vdetail::scalarize(e), dt));

  bool any_scalar = false, any_tensor = false, any_other = false;
  for (const Value& e : elems) {
    if (e.is_scalar()) any_scalar = true;
    else if (e.tag == T::Tensor) any_tensor = true;
    else any_other = true;
  }
  // Strings, tuples, lists, functions: no tensor representation.
  if (any_other) {
    if (!any_scalar && !any_tensor) return Value::list(elems0);
    for (size_t i = 0; i < elems.size(); ++i) {
      if (elems[i].tag != elems[0].tag) {
        fault("E004", "array literal mixes " + vdetail::kind_name(elems[0]) + " (element 0) and " +
                          vdetail::kind_name(elems[i]) + " (element " + std::to_string(i) + ")");
      }
    }
    return Value::list(elems0);
  }
  const int64_t n = static_cast<int64_t>(elems.size());
  if (any_scalar && any_tensor) {
    size_t first_t = 0, first_s = 0;
    while (elems[first_t].tag != T::Tensor) ++first_t;
    while (!elems[first_s].is_scalar()) ++first_s;
    const size_t later = std::max(first_t, first_s), earlier = std::min(first_t, first_s);
    auto desc = [&](size_t i) {
      return elems[i].is_scalar() ? std::string("is a scalar")
                                  : "has " + std::to_string(elems[i].tensor_ref().dim(0)) +
                                        (elems[i].tensor_ref().dim(0) == 1 ? " element" : " elements");
    };
    fault("E004", "array literal is not rectangular: row " + std::to_string(later) + " " +
                      desc(later) + ", row " + std::to_string(earlier) + " " + desc(earlier));
  }
  if (any_scalar) {
    Tensor t = Tensor::alloc(dt, {n});
    for (int64_t i = 0; i < n; ++i) tensor_set(t, i, elems[size_t(i)]);
    return Value::tensor(std::move(t));
  }
  const std::vector<int64_t>& s0 = elems[0].tensor_ref().shape();
  for (size_t i = 1; i < elems.size(); ++i) {
    const std::vector<int64_t>& si = elems[i].tensor_ref().shape();
    if (si == s0) continue;
    std::string msg = "array literal is not rectangular: row " + std::to_string(i);
    if (si.size() == 1 && s0.size() == 1) {
      auto el = [](int64_t k) { return std::to_string(k) + (k == 1 ? " element" : " elements"); };
      msg += " has " + el(si[0]) + ", row 0 has " + el(s0[0]);
    } else {
      msg += " has shape " + shape_str(si) + ", row 0 has shape " + shape_str(s0);
    }
    fault("E004", msg);
  }
  std::vector<int64_t> shape{n};
  shape.insert(shape.end(), s0.begin(), s0.end());
  Tensor out = Tensor::alloc(dt, shape);
  const int64_t inner = out.size() / std::max<int64_t>(n, 1);
  const int64_t esz = dtype_storage_bytes(dt);
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& src = elems[size_t(i)].tensor_ref();
    if (inner == 0) break;
    Tensor conv = src.dtype() == dt ? src : src.cast(dt);
    std::memcpy(static_cast<char*>(out.data()) + i * inner * esz, conv.data(),
                static_cast<size_t>(inner * esz));
  }
  return Value::tensor(std::move(out));
}

// ---- typeof ---------------------------------------------------------------------------------
namespace {

std::string dims_str(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s;
}

// Element type shared by every leaf of a nested list, or "" when the leaves disagree.
std::string leaf_type(const Value& v) {
  if (v.tag == Value::Tag::Tensor) return dtype_name(v.dt);
  if (v.tag != Value::Tag::List) return type_string(v);
  std::string common;
  bool first = true;
  for (const Value& item : v.items()) {
    std::string t = leaf_type(item);
    if (t.empty()) return "";
    if (first) common = t, first = false;
    else if (t != common) return "";
  }
  return first ? "?" : common;
}

// An array's type in parts: "[str; 3, 2]" is {"str", "3, 2"}. A uniform list of arrays reads as
// one more leading axis; a list whose items differ is jagged (nullopt).
struct ArrayType {
  std::string elem, dims;
};
std::optional<ArrayType> array_type(const Value& v) {
  using T = Value::Tag;
  if (v.tag == T::Tensor && v.tensor_ref().rank() > 0)
    return ArrayType{dtype_name(v.tensor_ref().dtype()), dims_str(v.tensor_ref().shape())};
  if (v.tag != T::List) return std::nullopt;
  const auto& items = v.items();
  const std::string n = std::to_string(items.size());
  if (items.empty()) return ArrayType{"?", "0"};
  std::string first = type_string(items[0]);
  for (const Value& item : items)
    if (type_string(item) != first) return std::nullopt;
  if (auto inner = array_type(items[0])) return ArrayType{inner->elem, n + ", " + inner->dims};
  return ArrayType{first, n};
}

}  // namespace

std::string type_string(const Value& v) {
  using T = Value::Tag;
  switch (v.tag) {
    case T::Unit: return "()";
    case T::Bool: return "bool";
    case T::Int:
    case T::Float: return dtype_name(v.dt);
    case T::Str: return "str";
    case T::Range: return "range";
    case T::Func: return "fn";
    case T::Tensor: {
      const Tensor& t = v.tensor_ref();
      if (t.rank() == 0) return dtype_name(t.dtype());
      return std::string("[") + dtype_name(t.dtype()) + "; " + dims_str(t.shape()) + "]";
    }
    case T::Tuple: {
      const auto& items = v.items();
      std::string s = "(";
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) s += ", ";
        s += type_string(items[i]);
      }
      return s + (items.size() == 1 ? ",)" : ")");
    }
    case T::List: {
      if (auto a = array_type(v)) return "[" + a->elem + "; " + a->dims + "]";
      const std::string leaf = leaf_type(v);
      return "jagged[" + (leaf.empty() ? std::string("?") : leaf) + "]";
    }
  }
  return "?";
}

}  // namespace ein
