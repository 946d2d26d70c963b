// Runtime values: a small tagged union with unboxed scalars and shared immutable heavy objects.
// Tensors are dtype-erased, contiguous row-major, backed by xtensor storage (see tensor.cpp);
// a Tensor may be a view (shared storage, element offset) so that row access M[i] is O(1).
//
// Errors raised here are Faults (code + message, no span): the interpreter attaches the span of
// the node that was executing when it catches one.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lang/ir/dtype.h"
#include "lang/ir/node.h"
#include "lang/ir/reduce_op.h"

namespace ein {

// A runtime error without a source location. code is an SPEC §9 code such as "E005".
struct Fault : std::runtime_error {
  std::string code;
  Fault(std::string c, const std::string& msg) : std::runtime_error(msg), code(std::move(c)) {}
};
[[noreturn]] void fault(std::string code, const std::string& msg);

// ---- memory accounting ----------------------------------------------------------------------
// Every tensor allocation is counted; exceeding the limit raises Fault E008 before allocating.
// Default limit: $EIN_MAX_MEMORY (bytes; suffixes K M G accepted) else half of physical memory.
int64_t memory_limit();
void set_memory_limit(int64_t bytes);
int64_t memory_in_use();  // bytes of live tensor, string, list and tuple storage

// Reserves `bytes` against the limit before something is built (Fault E008 naming `what` when
// they do not fit); release_memory gives them back. Strings, lists and tuples count their own
// storage from construction to destruction, so callers reserve only while they build one.
void reserve_memory(int64_t bytes, const std::string& what);
void release_memory(int64_t bytes);

// A growing reservation for a buffer under construction (comprehension results, concatenated
// text): grow_to(total) reserves the difference first; the destructor gives everything back.
class MemoryHold {
 public:
  MemoryHold() = default;
  MemoryHold(const MemoryHold&) = delete;
  MemoryHold& operator=(const MemoryHold&) = delete;
  ~MemoryHold() { release_memory(held_); }
  void grow_to(int64_t total, const std::string& what) {
    if (total <= held_) return;
    reserve_memory(total - held_, what);
    held_ = total;
  }

 private:
  int64_t held_ = 0;
};

// ---- tensors --------------------------------------------------------------------------------
class Tensor {
 public:
  Tensor() = default;
  // Zero-filled allocation. Checks extents (non-negative, product overflow) and the memory
  // limit: Fault E006 for a negative extent, E008 for too large.
  static Tensor alloc(DType dt, std::vector<int64_t> shape);
  // The same without the zero fill, for a producer the caller has proved writes every element
  // before anything reads one (a reused buffer keeps its old bytes until then).
  static Tensor alloc_overwritten(DType dt, std::vector<int64_t> shape);
  static Tensor scalar_tensor(DType dt, double v);  // rank 0

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t size() const;           // element count (1 for rank 0)
  int64_t dim(int axis) const { return shape_[static_cast<size_t>(axis)]; }
  std::vector<int64_t> strides() const;  // row-major, in elements

  void* data() const { return data_; }
  template <class T> T* data_as() const { return static_cast<T*>(data_); }

  // Element access by flat row-major index (no bounds check; callers check).
  double get_f64(int64_t flat) const;
  int64_t get_i64(int64_t flat) const;
  bool get_bool(int64_t flat) const;
  // Stores v converted to this tensor's dtype (f32/f16/bf16 rounding, integer truncation).
  void set_f64(int64_t flat, double v);
  void set_i64(int64_t flat, int64_t v);

  // Sub-tensor sharing storage: fixes the leading index (rank - 1 result). Bounds-checked (E005).
  Tensor row(int64_t i) const;
  // Same elements, new shape (product must match; E004 otherwise). Shares storage.
  Tensor reshaped(std::vector<int64_t> shape) const;
  // Deep copy into fresh storage (contiguous, offset 0).
  Tensor copy() const;
  // Converted copy (Rust `as` semantics: float->int truncates toward zero and saturates, NaN->0).
  Tensor cast(DType dt) const;

 private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_;
  std::shared_ptr<void> storage_;  // owns the xtensor container; shared by views
  void* data_ = nullptr;           // first element of this (possibly offset) tensor
  friend struct TensorAccess;
};

// ---- values ---------------------------------------------------------------------------------
// Implemented by the interpreter (closures, function items, builtins).
struct FuncObj {
  virtual ~FuncObj() = default;
  virtual std::string display_name() const = 0;
};

struct Value {
  enum class Tag : uint8_t {
    Unit,
    Bool,    // b
    Int,     // i, with dt in {I8, I32, I64}; always kept wrapped to dt's width
    Float,   // f, with dt in {F16, BF16, F32, F64}; always kept rounded to dt's precision
    Str,     // obj: std::string
    Tensor,  // obj: Tensor (numeric or bool elements)
    Tuple,   // obj: std::vector<Value>
    List,    // obj: std::vector<Value> — jagged arrays, arrays of strings/tuples, comprehension
             //      results before they are known to be rectangular
    Range,   // r[0]..=r[1]: the inclusive end, so that `n..=i64::MAX` is representable;
             //      empty when r[1] < r[0] (use range_lo/range_size/range_end_text)
    Func,    // obj: FuncObj
  };
  Tag tag = Tag::Unit;
  DType dt = DType::I32;
  // Tensor: stored as a circular window of `rows` rows on axis 0 (0: stored whole) that stands
  // for `logical0` rows, the axis-0 extent the program sees (storage_window).
  struct Window {
    int64_t rows;
    int64_t logical0;
  };
  union {
    bool b;
    int64_t i;
    double f;
    int64_t r[2];  // Range: the first and the last element
    Window window;  // Tensor
  };
  std::shared_ptr<const void> obj;

  Value() : r{0, 0} {}

  static Value unit() { return Value(); }
  static Value boolean(bool v);
  static Value integer(int64_t v, DType dt = DType::I32);  // wraps to dt
  static Value floating(double v, DType dt = DType::F32);  // rounds to dt
  static Value string(std::string s);
  static Value tensor(Tensor t);
  static Value tuple(std::vector<Value> items);
  static Value list(std::vector<Value> items);
  static Value range(int64_t lo, int64_t hi_exclusive);
  static Value range_inclusive(int64_t lo, int64_t hi);
  static Value func(std::shared_ptr<const FuncObj> f);

  bool is_scalar() const { return tag == Tag::Bool || tag == Tag::Int || tag == Tag::Float; }
  bool is_tensor() const { return tag == Tag::Tensor; }
  const Tensor& tensor_ref() const { return *static_cast<const Tensor*>(obj.get()); }
  const std::string& str() const { return *static_cast<const std::string*>(obj.get()); }
  const std::vector<Value>& items() const {
    return *static_cast<const std::vector<Value>*>(obj.get());
  }
  const FuncObj& func_ref() const { return *static_cast<const FuncObj*>(obj.get()); }
  // Ranges: first element and element count (saturated at 2^64 - 1 for i64::MIN..=i64::MAX).
  int64_t range_lo() const { return r[0]; }
  uint64_t range_size() const {
    if (r[1] < r[0]) return 0;
    uint64_t n = static_cast<uint64_t>(r[1]) - static_cast<uint64_t>(r[0]);
    return n == UINT64_MAX ? n : n + 1;
  }
  bool range_has(int64_t i) const { return i >= r[0] && i <= r[1]; }
  // Scalar payload as double / int64 regardless of Bool/Int/Float tag.
  double as_f64() const;
  int64_t as_i64() const;
};

// Scalar Value of a tensor element.
Value tensor_get(const Tensor& t, int64_t flat);
// Store a scalar Value into a tensor element (converted to the tensor's dtype).
void tensor_set(Tensor& t, int64_t flat, const Value& v);

// ---- operations (SPEC §3, §4) ----------------------------------------------------------------
// Arithmetic/comparison on scalars, strings (+, ==, <...), tensors elementwise with identical
// shape or tensor-scalar broadcast. Operand element types must already agree (the type checker
// guarantees it), except `**` which accepts f**i, f**f, i**i. Faults: E007 integer division or
// remainder by zero; E004 shape/rank mismatch; E006 negative integer exponent.
// ==/!= compare whole values and return one bool (shapes differ => false).
Value binary_op(ir::BinOp op, const Value& a, const Value& b);
Value unary_op(ir::UnOp op, const Value& a);
// `as` casts of scalars and tensors (Rust semantics, see Tensor::cast). Bool <-> numbers allowed.
Value cast_value(const Value& v, DType to);
bool values_equal(const Value& a, const Value& b);
// `x in c`: c a Range (integer x), a 1-D tensor/list (element), or a rank>=2 tensor (x a row).
bool value_contains(const Value& container, const Value& x);

// Array literal: elements are scalars of one dtype, or tensors of one shape (stacked to rank+1),
// or anything else (strings, tuples: a List). Non-rectangular nesting => Fault E004 "ragged".
// `dt` is the element dtype the type checker decided (used for the empty literal too).
Value make_array(const std::vector<Value>& elems, DType dt);

// Values whose type the compiler could not know (computed from an unannotated load_npy) are
// stored at the type their values have: the element type of a number, bool or tensor, and the
// type that holds both of two (NumPy's promotion: wider wins, i64 with a float needs f64).
std::optional<DType> value_dtype(const Value& v);
DType widen(DType a, DType b);
// The widest element type of `elems`, `fallback` if none has one.
DType widest_dtype(const std::vector<Value>& elems, DType fallback);

// Elementwise math used by std::math intrinsics; scalar or tensor of floats (integers are
// converted to f32 first only where the intrinsic allows it). Results keep the input dtype.
enum class MathFn : uint8_t {
  Abs, Sqrt, Exp, Log, Log2, Log10, Log1p, Expm1, Sin, Cos, Tan, Asin, Acos, Atan,
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Floor, Ceil, Round, Trunc, Erf, Sign, Rsqrt,
  // binary
  Atan2, Pow, Fmod, Min2, Max2,
};
std::optional<MathFn> mathfn_from_name(std::string_view name);  // "sqrt" -> Sqrt
Value math1(MathFn f, const Value& x);
Value math2(MathFn f, const Value& x, const Value& y);  // broadcast like binary_op

// Whole-array reductions (the builtins sum(a) max(a) min(a) prod(a)): a tensor (any rank) ->
// scalar of its dtype (sum of bool counts as i32?  no: E002 at type level). Empty max/min of
// floats: -inf/+inf; of integers: Fault E006.
Value reduce_all(ir::ReduceOp op, const Value& t);  // Sum Prod Max Min All Any

// ---- formatting (SPEC §8) --------------------------------------------------------------------
// Shortest round-trip decimal at the dtype's precision, Python-repr style: "2.0", "0.33333334",
// "1e-05", "1e+16", "inf", "-inf", "nan". Scientific when exponent < -4 or >= 16.
std::string format_float(double v, DType dt);
// print()/interpolation form: strings raw at top level, quoted inside containers.
std::string format_value(const Value& v);
// Interpolation with a format spec ("{x:.4f}"): [[fill]align][width][.precision][f|e|g|d].
// Fault E006 for an invalid spec or a spec that does not fit the value (e.g. 'd' on a float).
std::string format_with_spec(const Value& v, std::string_view spec);
// typeof(): "i32", "f64", "bool", "str", "()", "[f32; 2, 3]", "(i32, str)", "range",
// "jagged[i32]"/"[str; 3]" for lists, "fn" for functions.
std::string type_string(const Value& v);

}  // namespace ein
