#include "engine/interp/native_runtime.h"

#include <cblas.h>

#include <climits>
#include <cstring>
#include <functional>
#include <mutex>
#include <type_traits>
#include <vector>

#include "engine/interp/interp_impl.h"
#include "engine/jit/blas_core.h"
#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

namespace {

// ---- services for kernels --------------------------------------------------------------------

// Scratch memory of one kernel call, counted against the session's memory limit (E008).
// Blocks go back to a small process-wide pool when the call ends, so a kernel that runs again
// (a function called in a loop, a re-run cell) gets memory that is already mapped: first-touch
// page faults cost more than the computation for small contractions.
struct Pool {
  std::mutex mu;
  std::vector<Tensor> free;  // DType::I8 blocks
  int64_t bytes = 0;
  static constexpr int64_t kMaxBytes = int64_t{256} << 20;
  static constexpr size_t kMaxBlocks = 16;
};

// Never destroyed: its blocks would be freed at exit for nothing, and into the big-block cache
// of tensor.cpp, whose static lifetime is not ordered against this one.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

struct CallCtx {
  std::vector<Tensor> blocks;
  ~CallCtx() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    for (auto& t : blocks) {
      if (p.free.size() >= Pool::kMaxBlocks || p.bytes + t.size() > Pool::kMaxBytes) continue;
      p.bytes += t.size();
      p.free.push_back(std::move(t));
    }
  }
};

void* rt_alloc(void* ctx, int64_t bytes) {
  if (bytes < 1) bytes = 1;
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    size_t best = p.free.size();
    for (size_t i = 0; i < p.free.size(); ++i)
      if (p.free[i].size() >= bytes && p.free[i].size() <= 2 * bytes &&
          (best == p.free.size() || p.free[i].size() < p.free[best].size()))
        best = i;
    if (best < p.free.size()) {
      Tensor t = std::move(p.free[best]);
      p.free.erase(p.free.begin() + static_cast<long>(best));
      p.bytes -= t.size();
      std::memset(t.data(), 0, static_cast<size_t>(bytes));
      static_cast<CallCtx*>(ctx)->blocks.push_back(t);
      return t.data();
    }
  }
  try {
    Tensor t = Tensor::alloc(DType::I8, {bytes});
    static_cast<CallCtx*>(ctx)->blocks.push_back(t);
    return t.data();
  } catch (...) {
    return nullptr;
  }
}

void rt_release(void*, void*, int64_t) {
  // Blocks return to the pool when the call ends.
}

bool fits_int(std::initializer_list<int64_t> xs) {
  for (int64_t x : xs)
    if (x < 0 || x > INT_MAX) return false;
  return true;
}

// Row-major GEMM/GEMV through OpenBLAS; sizes beyond its int interface take a plain loop.
template <class T>
void gemm_loop(int ta, int tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
               int64_t ldb, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T s = 0;
      for (int64_t p = 0; p < k; ++p) s += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      c[i * ldc + j] = alpha * s + (beta == T(0) ? T(0) : beta * c[i * ldc + j]);
    }
}

// One body per element type: the float and double entry points of the runtime table differ only
// in which BLAS routine they reach.
template <class T>
void rt_gemm(int ta, int tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
             int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (!fits_int({m, n, k, lda, ldb, ldc})) return gemm_loop(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(m), int(n),
                int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(m), int(n),
                int(k), alpha, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

template <class T>
void rt_gemv(int ta, int64_t m, int64_t n, T alpha, const T* a, int64_t lda, const T* x, T beta, T* y) {
  if (!fits_int({m, n, lda})) {
    gemm_loop(ta, 0, ta ? n : m, int64_t{1}, ta ? m : n, alpha, a, lda, x, int64_t{1}, beta, y, int64_t{1});
    return;
  }
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, int(m), int(n), alpha, a, int(lda), x, 1, beta, y, 1);
  else
    cblas_dgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, int(m), int(n), alpha, a, int(lda), x, 1, beta, y, 1);
}

// A Gram matrix: half the multiply-adds of the GEMM it replaces (NumPy does the same for
// `X.T @ X`); the lower triangle is a copy of the upper one.
template <class T>
void rt_syrk(int trans, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, T* c, int64_t ldc) {
  if (!fits_int({n, k, lda, ldc})) return gemm_loop(trans, trans ? 0 : 1, n, n, k, alpha, a, lda, a, lda, T(0), c, ldc);
  auto t = trans ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_ssyrk(CblasRowMajor, CblasUpper, t, int(n), int(k), alpha, a, int(lda), 0.0f, c, int(ldc));
  else
    cblas_dsyrk(CblasRowMajor, CblasUpper, t, int(n), int(k), alpha, a, int(lda), 0.0, c, int(ldc));
  for (int64_t i = 1; i < n; ++i)
    for (int64_t j = 0; j < i; ++j) c[i * ldc + j] = c[j * ldc + i];
}

// OpenBLAS (the pthread build Debian links by default) has one global thread count; kernels set
// it to 1 around a parallel loop of calls and restore it after.
int rt_blas_threads(int n) {
  int prev = openblas_get_num_threads();
  if (n > 0 && n != prev) openblas_set_num_threads(n);
  return prev;
}

const ein_rt kRuntime = {rt_alloc,       rt_release,      rt_gemm<float>, rt_gemm<double>,
                         rt_gemv<float>, rt_gemv<double>, rt_blas_threads, rt_syrk<float>,
                         rt_syrk<double>};

// ---- argument binding ---------------------------------------------------------------------

const Value* value_of(Interpreter::Impl& in, ir::DefId def, int32_t slot) {
  if (slot >= 0) {
    if (!in.frame || static_cast<size_t>(slot) >= in.frame->size()) return nullptr;
    return &(*in.frame)[static_cast<size_t>(slot)];
  }
  auto it = in.env.globals.find(def);
  return it == in.env.globals.end() ? nullptr : &it->second;
}

bool bind_buf(const Value* v, const codegen::BufArg& b, ein_buf* out) {
  if (!v || v->tag != Value::Tag::Tensor) return false;
  const Tensor& t = v->tensor_ref();
  if (t.dtype() != b.dt || t.rank() != b.rank) return false;
  if (t.size() > 0 && !t.data()) return false;
  out->data = t.data();
  out->dtype = static_cast<int32_t>(t.dtype());
  out->rank = t.rank();
  out->extents = t.shape().data();
  out->window = v->window.rows > 0 ? v->window.rows : 0;
  out->logical0 = v->window.rows > 0 ? v->window.logical0 : (t.rank() > 0 ? t.dim(0) : 1);
  if (b.windowed != (out->window > 0) || (b.windowed && b.window > 0 && out->window != b.window)) return false;
  return true;
}

bool bind_scalar(const Value* v, const codegen::ScalarArg& s, ein_scalar* out) {
  if (!v) return false;
  switch (v->tag) {
    case Value::Tag::Int:
      if (!is_int(s.dt) || v->dt != s.dt) return false;
      out->i = v->i;
      return true;
    case Value::Tag::Float:
      if (!is_float(s.dt) || v->dt != s.dt) return false;
      out->f = v->f;
      return true;
    case Value::Tag::Bool:
      if (s.dt != DType::Bool) return false;
      out->i = v->b ? 1 : 0;
      return true;
    default: return false;
  }
}

[[noreturn]] void raise(const NativeKernel& nk, const ein_err& e) {
  const auto& k = nk.k;
  Span span = k.stmt->span;
  std::string code = "E007", msg;
  const codegen::Site* site = e.site >= 0 && static_cast<size_t>(e.site) < k.sites.size() ? &k.sites[static_cast<size_t>(e.site)] : nullptr;
  if (site) span = site->span;
  switch (e.code) {
    case EIN_E_BOUNDS:
      code = "E005";
      msg = "index " + std::to_string(e.v0) + " is out of bounds for axis " + std::to_string(e.v1) +
            " with extent " + std::to_string(e.v2);
      break;
    case EIN_E_DIV: msg = "division by zero"; break;
    case EIN_E_REM: msg = "remainder by zero"; break;
    case EIN_E_INTERRUPT: msg = "interrupted"; break;
    case EIN_E_NEGPOW:
      code = "E006";
      msg = "negative exponent " + std::to_string(e.v0) + " in integer power";
      break;
    case EIN_E_EMPTY:
    case EIN_E_CHECK:
      code = site ? site->code : "E007";
      msg = site ? site->message : "check failed";
      break;
    case EIN_E_NOMEM:
      code = "E008";
      msg = "allocation of " + std::to_string(e.v0) + " bytes exceeds the memory limit (EIN_MAX_MEMORY)";
      break;
    default: msg = "native kernel failed (code " + std::to_string(e.code) + ")"; break;
  }
  Diagnostic d = make_diag(code, msg, span);
  if (site && e.code == EIN_E_CHECK) d.help = site->help;
  throw DiagError(std::move(d));
}

}  // namespace

bool native_inputs_fit(Interpreter::Impl& in, const NativeKernel& nk) {
  ein_buf b{};
  for (auto& a : nk.k.bufs)
    if (!a.output && !bind_buf(value_of(in, a.def, a.slot), a, &b)) return false;
  ein_scalar s{};
  for (auto& a : nk.k.scalars)
    if (!bind_scalar(value_of(in, a.def, a.slot), a, &s)) return false;
  return true;
}

bool native_loop_args_fit(Interpreter::Impl& in, const NativeKernel& nk) {
  const ir::DefId var = nk.k.stmt->def;
  for (const codegen::Kernel& part : nk.k.parts) {
    for (auto& a : part.bufs) {
      ein_buf b{};
      if (!bind_buf(value_of(in, a.def, a.slot), a, &b)) return false;
      for (size_t x = 0; x < a.fixed.size() && x < static_cast<size_t>(b.rank); ++x)
        if (a.fixed[x] >= 0 && b.extents[x] != a.fixed[x]) return false;
    }
    ein_scalar s{};
    for (auto& a : part.scalars)
      if (a.def != var && !bind_scalar(value_of(in, a.def, a.slot), a, &s)) return false;
  }
  return true;
}

double runtime_points(Interpreter::Impl& in, const NodeRef& stmt, bool* past_i64) {
  // Exact arithmetic: a bound past i64 (`0..=i64::MAX`) is counted, never wrapped.
  auto extent = [&](const NodeRef& var) {
    Wide a = in.eval_wide(ir::loop_lo(var)), b = in.eval_wide(ir::loop_hi(var));
    if (past_i64 && b > a) {
      // Kernels hold bounds in i64 and the index in its own type: a range that only exact
      // arithmetic can hold (the interpreter's E006, or 2^63 as an exclusive end) is theirs.
      DType dt = var->dt >= 0 ? static_cast<DType>(var->dt) : DType::I32;
      if (b > std::numeric_limits<int64_t>::max()) *past_i64 = true;
      try {
        in.loop_span(ir::loop_lo(var), ir::loop_hi(var), dt);
      } catch (const Fault&) {
        *past_i64 = true;
      }
    }
    return static_cast<double>(std::max<Wide>(0, b - a));
  };
  // The points of the deepest loop chain under `cur`: of a sequence, its largest statement (a
  // recurrence step's interior loop, not the boundary store after it). Bounds that depend on
  // variables of the loops themselves count as one point: what was measured above them.
  std::function<double(const NodeRef&)> points = [&](const NodeRef& cur) -> double {
    try {
      if (cur->kind == Kind::LFor) {
        double e = extent(cur);
        return e * points(ir::lfor_body(cur));
      }
      if (cur->kind == Kind::LReduce) {
        double pts = 1;
        for (const NodeRef& v : ir::lreduce_items(cur))
          if (v->kind == Kind::LoopVar) pts *= extent(v);
        return pts;
      }
      if (cur->kind == Kind::LStore && ir::lstore_value(*cur)->kind != Kind::LReduce) {
        // A reduction inside the stored value (`sum[i](x[b, i] * W[o, i]) + bias[o]`, an
        // activation around a contraction): its terms count as the point's work, the largest
        // one if there are several (a library `linear` on a few rows stayed interpreted:
        // 1 x 256 x 1024, 85 ms against 0.04 ms native).
        double most = 1;
        ir::for_each_node(ir::lstore_value(*cur), [&](const NodeRef& r) {
          if (r->kind != Kind::LReduce) return;
          double terms = 1;
          try {
            for (const NodeRef& v : ir::lreduce_items(r))
              if (v->kind == Kind::LoopVar) terms *= extent(v);
          } catch (...) {
            terms = 1;  // bounds that move with the points: not counted
          }
          most = std::max(most, terms);
        });
        return most;
      }
      double most = 1;
      if (cur->kind == Kind::LStore || cur->kind == Kind::LSeq || cur->kind == Kind::LIf)
        for (auto& k : cur->kids)
          // A guarded store (`where` bounds of an adjoint: nested LIfs) counts its reduction too.
          if (k && (k->kind == Kind::LFor || k->kind == Kind::LReduce || k->kind == Kind::LSeq ||
                    k->kind == Kind::LIf || k->kind == Kind::LStore))
            most = std::max(most, points(k));
      return most;
    } catch (...) {
      return 1;
    }
  };
  NodeRef top = stmt->kind == Kind::Let || stmt->kind == Kind::ExprStmt ? codegen::expr_kernel_value(stmt) : stmt;
  return top ? points(top) : 1;
}

int call_native_kernel(Interpreter::Impl& in, NativeKernel& nk, Value* result, const std::atomic<bool>* interrupt) {
  const codegen::Kernel& k = nk.k;
  std::vector<ein_buf> bufs(k.bufs.size());
  for (size_t i = 0; i < k.bufs.size(); ++i)
    if (!bind_buf(value_of(in, k.bufs[i].def, k.bufs[i].slot), k.bufs[i], &bufs[i])) return EIN_MISMATCH;
  std::vector<ein_scalar> scalars(k.scalars.size());
  for (size_t i = 0; i < k.scalars.size(); ++i)
    if (!bind_scalar(value_of(in, k.scalars[i].def, k.scalars[i].slot), k.scalars[i], &scalars[i])) return EIN_MISMATCH;
  static const unsigned char never = 0;
  in.check_interrupt();
  ein_scalar res{};
  ein_err err{};
  CallCtx ctx;
  ein_args a{};
  a.abi = EIN_ABI_VERSION;
  a.nbufs = static_cast<int32_t>(bufs.size());
  a.nscalars = static_cast<int32_t>(scalars.size());
  a.bufs = bufs.data();
  a.scalars = scalars.data();
  a.result = &res;
  a.err = &err;
  a.interrupt = interrupt ? reinterpret_cast<const unsigned char*>(interrupt) : &never;
  // Only a kernel that is the statement's outermost loop reports progress; one called inside
  // an interpreted loop writes to a sink nobody reads.
  static int64_t unread[2];
  a.progress = unread;
  if (in.opt.progress && in.loop_depth == 0) {
    in.opt.progress->enter_loop(in.progress_line(k.stmt), 0);  // the kernel stores the count
    a.progress = in.opt.progress->raw_steps();
  }
  jit::select_blas_core();
  a.rt = &kRuntime;
  a.rt_ctx = &ctx;
  int rc = nk.fn(&a);
  if (rc == EIN_MISMATCH) return rc;
  if (rc != 0) raise(nk, err);
  if (result) {
    DType dt = k.result_dt;
    if (dt == DType::Bool) *result = Value::boolean(res.i != 0);
    else if (is_float(dt)) *result = Value::floating(res.f, dt);
    else *result = Value::integer(res.i, dt);
  }
  return 0;
}

}  // namespace ein
