// The kernel prelude: the calling convention between the runtime and native kernels, and the
// helpers generated code relies on. It is a real header (the runtime includes it for the ABI
// structs) and, embedded at build time (prelude_embed.cpp), the head of every generated
// translation unit, which defines EIN_KERNEL_TU first to get the helpers.
//
// Only C headers: generated code must compile fast (ARCHITECTURE "Native kernels"). Every
// change to a struct below must bump EIN_ABI_VERSION, which is part of the kernel cache key.
#ifndef EIN_CODEGEN_PRELUDE_H
#define EIN_CODEGEN_PRELUDE_H
#include <stdint.h>

#define EIN_ABI_VERSION 7

// Error codes in ein_err::code (the runtime turns them into diagnostics with the site's span).
#define EIN_OK 0
#define EIN_E_BOUNDS 1      /* E005 index v0 out of bounds for axis v1 with extent v2 */
#define EIN_E_DIV 2         /* E007 division by zero */
#define EIN_E_REM 3         /* E007 remainder by zero */
#define EIN_E_INTERRUPT 4   /* E007 interrupted */
#define EIN_E_NEGPOW 5      /* E006 negative exponent v0 in integer power */
#define EIN_E_EMPTY 6       /* E006 max/min/argmax over an empty range (site names the op) */
#define EIN_E_CHECK 7       /* the site's own code and message (LCheck) */
#define EIN_E_NOMEM 8       /* E008 allocation of v0 bytes refused */
#define EIN_MISMATCH 100    /* arguments do not fit the specialisation: interpret instead */

#ifdef __cplusplus
extern "C" {
#endif

// One tensor argument: contiguous row-major storage.
typedef struct ein_buf {
  void* data;
  int32_t dtype;            // ein::DType
  int32_t rank;
  const int64_t* extents;   // storage extents; axis 0 holds `window` rows when windowed
  int64_t window;           // > 0: circular buffer on axis 0 (logical index mod window)
  int64_t logical0;         // logical extent of axis 0 (what bounds checks and DimOf see)
} ein_buf;

// First failure in sequential order wins: `order` is the iteration of the outermost parallel
// loop that failed, so a parallel kernel reports the same error the interpreter would.
typedef struct ein_err {
  int32_t code;
  int32_t site;             // index into the kernel's site table (span, check message)
  int64_t v0, v1, v2;
  int64_t order;
  int32_t lock;
} ein_err;

typedef union ein_scalar {
  int64_t i;
  double f;
} ein_scalar;

// Runtime services: kernels never allocate or print through the C library themselves.
typedef struct ein_rt {
  void* (*alloc)(void* ctx, int64_t bytes);  // zeroed; NULL when the memory limit refuses it
  void (*release)(void* ctx, void* p, int64_t bytes);
  // Row-major BLAS (OpenBLAS behind it). trans: 0 = as stored, 1 = transposed.
  void (*sgemm)(int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
  void (*dgemm)(int ta, int tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);
  void (*sgemv)(int ta, int64_t m, int64_t n, float alpha, const float* a, int64_t lda,
                const float* x, float beta, float* y);
  void (*dgemv)(int ta, int64_t m, int64_t n, double alpha, const double* a, int64_t lda,
                const double* x, double beta, double* y);
  // Sets the number of threads of each later BLAS call and returns the previous one: a loop of
  // small calls over batch points runs them in parallel, one thread each.
  int (*blas_threads)(int n);
  // C = alpha · op(A) · op(A)ᵀ (a Gram matrix; trans 0: A is n × k, 1: A is k × n), the whole
  // n × n block (BLAS fills one triangle; the runtime mirrors it).
  void (*ssyrk)(int trans, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, float* c,
                int64_t ldc);
  void (*dsyrk)(int trans, int64_t n, int64_t k, double alpha, const double* a, int64_t lda, double* c,
                int64_t ldc);
} ein_rt;

typedef struct ein_args {
  uint32_t abi;             // EIN_ABI_VERSION of the caller
  int32_t nbufs, nscalars;
  ein_buf* bufs;
  const ein_scalar* scalars;
  ein_scalar* result;       // expression kernels: the value
  ein_err* err;
  const unsigned char* interrupt;  // std::atomic<bool> of the session, polled in outer loops
  const ein_rt* rt;
  void* rt_ctx;
  int64_t* progress;        // [0] iterations done, [1] count, of the kernel's outermost loop
} ein_args;

typedef int (*ein_kernel_fn)(ein_args*);

#ifdef __cplusplus
}
#endif

#ifdef EIN_KERNEL_TU
// ---------------------------------------------------------------------------------------------
// Helpers for generated code. Everything is static inline so one TU can hold many kernels.
#include <math.h>
// glibc's vector math library (libmvec, linked through libm's AS_NEEDED group) has SIMD versions
// of these functions, within 4 ulp. <math.h> announces them only under -ffast-math, which
// kernels do not use (it would reassociate reductions against the interpreter's order), so they
// are announced here: a `#pragma omp simd` or auto-vectorised loop then calls 8 or 16 lanes at a
// time. tanhf over 2^20 floats: 82 ms scalar, 0.4 ms vector (max relative error 1.1e-7 against
// tanh in double); exp in f64 23 ms -> 0.7 ms. The interpreter calls the scalar functions, so the
// tiers can differ by a few ulp (SPEC §8 prints 8 / 17 significant digits; goldens compare at
// 1e-5). docs/jit.md, "Vector math".
#if defined(__x86_64__) && defined(_OPENMP) && defined(__GLIBC__) && !defined(__FAST_MATH__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define EIN_VMATH1(fn)                                                       \
  _Pragma("omp declare simd notinbranch") double fn(double) noexcept; \
  _Pragma("omp declare simd notinbranch") float fn##f(float) noexcept;
#define EIN_VMATH2(fn)                                                               \
  _Pragma("omp declare simd notinbranch") double fn(double, double) noexcept; \
  _Pragma("omp declare simd notinbranch") float fn##f(float, float) noexcept;
extern "C" {
EIN_VMATH1(sin) EIN_VMATH1(cos) EIN_VMATH1(tan) EIN_VMATH1(asin) EIN_VMATH1(acos) EIN_VMATH1(atan)
EIN_VMATH1(sinh) EIN_VMATH1(cosh) EIN_VMATH1(tanh) EIN_VMATH1(asinh) EIN_VMATH1(acosh)
EIN_VMATH1(atanh) EIN_VMATH1(exp) EIN_VMATH1(log) EIN_VMATH1(log2) EIN_VMATH1(log10)
EIN_VMATH1(log1p) EIN_VMATH1(expm1) EIN_VMATH1(erf)
EIN_VMATH2(pow) EIN_VMATH2(atan2)
}
#undef EIN_VMATH1
#undef EIN_VMATH2
#endif
#ifdef _OPENMP
extern "C" int omp_get_thread_num(void);
extern "C" int omp_get_num_threads(void);
extern "C" int omp_get_max_threads(void);
#else
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_max_threads(void) { return 1; }
#endif

#define EIN_LIKELY(x) __builtin_expect(!!(x), 1)
#define EIN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define EIN_STRIP 65536
#define EIN_MAX_THREADS 256
#define EIN_EXPORT extern "C" __attribute__((visibility("default")))

// Per-thread partial arrays have EIN_MAX_THREADS slots.
static inline int ein_threads(void) {
  int n = omp_get_max_threads();
  return n > EIN_MAX_THREADS ? EIN_MAX_THREADS : n;
}

typedef float ein_f32;
typedef double ein_f64;

// Records a failure unless an earlier one (in sequential order) is already recorded.
static __attribute__((noinline, cold)) void ein_fail(ein_args* A, int32_t site, int32_t code,
                                                      int64_t order, int64_t v0, int64_t v1,
                                                      int64_t v2) {
  ein_err* e = A->err;
  while (__atomic_exchange_n(&e->lock, 1, __ATOMIC_ACQUIRE)) {
  }
  if (e->code == 0 || order < e->order) {
    e->site = site;
    e->v0 = v0;
    e->v1 = v1;
    e->v2 = v2;
    e->order = order;
    __atomic_store_n(&e->code, code, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&e->lock, 0, __ATOMIC_RELEASE);
}

// Should the current iteration (of sequential rank `order`) stop? Yes once interrupted, or
// once a failure at or before it is known; later iterations of other threads keep going so
// that the earliest failure is the one reported.
static inline int ein_stop(ein_args* A, int64_t order) {
  if (EIN_UNLIKELY(__atomic_load_n(A->interrupt, __ATOMIC_RELAXED))) {
    if (__atomic_load_n(&A->err->code, __ATOMIC_RELAXED) != EIN_E_INTERRUPT)
      ein_fail(A, -1, EIN_E_INTERRUPT, -1, 0, 0, 0);
    return 1;
  }
  return EIN_UNLIKELY(__atomic_load_n(&A->err->code, __ATOMIC_RELAXED) != 0) &&
         __atomic_load_n(&A->err->order, __ATOMIC_RELAXED) <= order;
}

// Progress of the kernel's outermost loop for the front ends (engine/interp/progress.h): one
// relaxed store per outer iteration (or per strip of an innermost loop), read by a timer thread.
static inline void ein_progress_total(ein_args* A, int64_t total) {
  __atomic_store_n(&A->progress[0], 0, __ATOMIC_RELAXED);
  __atomic_store_n(&A->progress[1], total, __ATOMIC_RELAXED);
}
static inline void ein_progress(ein_args* A, int64_t done) {
  __atomic_store_n(&A->progress[0], done, __ATOMIC_RELAXED);
}

static inline int64_t ein_imin(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t ein_imax(int64_t a, int64_t b) { return a > b ? a : b; }
// Index arithmetic wraps instead of overflowing (no UB on any input).
static inline int64_t ein_iadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t ein_isub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t ein_imul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

// Index and bound arithmetic whose operands may be large (i64 values) is exact: computed in
// 128 bits and narrowed once, E006 (the site's check) when a value leaves the range. The
// saturated result is never used: the loops stop at their next poll.
#define EIN_WOP(NAME, BUILTIN)                                                                   \
  static inline __int128 NAME(ein_args* A, int32_t site, int64_t ord, __int128 a, __int128 b) { \
    __int128 r;                                                                                 \
    if (EIN_UNLIKELY(BUILTIN(a, b, &r))) {                                                      \
      ein_fail(A, site, EIN_E_CHECK, ord, 0, 0, 0);                                             \
      return 0;                                                                                 \
    }                                                                                           \
    return r;                                                                                   \
  }
EIN_WOP(ein_wadd, __builtin_add_overflow)
EIN_WOP(ein_wsub, __builtin_sub_overflow)
EIN_WOP(ein_wmul, __builtin_mul_overflow)
static inline int64_t ein_narrow(ein_args* A, int32_t site, int64_t ord, __int128 v) {
  if (EIN_UNLIKELY(v < (__int128)INT64_MIN || v > (__int128)INT64_MAX)) {
    ein_fail(A, site, EIN_E_CHECK, ord, 0, 0, 0);
    return INT64_MAX;
  }
  return (int64_t)v;
}
// Sizes of scratch buffers: saturated, so that an impossible size is refused by alloc (E008).
static inline int64_t ein_smul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

// Integer division and remainder: SPEC §4 (truncation, sign of dividend), zero -> E007,
// MIN / -1 wraps.
#define EIN_INT_DIVMOD(T, U)                                                                  \
  static inline T ein_div_##T(ein_args* A, int32_t site, int64_t ord, T a, T b) {             \
    if (EIN_UNLIKELY(b == 0)) {                                                               \
      ein_fail(A, site, EIN_E_DIV, ord, 0, 0, 0);                                             \
      return 0;                                                                               \
    }                                                                                         \
    if (b == -1) return (T)(U)((U)0 - (U)a);                                                  \
    return (T)(a / b);                                                                        \
  }                                                                                           \
  static inline T ein_rem_##T(ein_args* A, int32_t site, int64_t ord, T a, T b) {             \
    if (EIN_UNLIKELY(b == 0)) {                                                               \
      ein_fail(A, site, EIN_E_REM, ord, 0, 0, 0);                                             \
      return 0;                                                                               \
    }                                                                                         \
    if (b == -1) return 0;                                                                    \
    return (T)(a % b);                                                                        \
  }                                                                                           \
  static inline T ein_ipow_##T(ein_args* A, int32_t site, int64_t ord, T base, int64_t e) {   \
    if (EIN_UNLIKELY(e < 0)) {                                                                \
      ein_fail(A, site, EIN_E_NEGPOW, ord, e, 0, 0);                                          \
      return 0;                                                                               \
    }                                                                                         \
    uint64_t r = 1, b = (uint64_t)(int64_t)base, ue = (uint64_t)e;                            \
    while (ue) {                                                                              \
      if (ue & 1) r *= b;                                                                     \
      b *= b;                                                                                 \
      ue >>= 1;                                                                               \
    }                                                                                         \
    return (T)(U)r;                                                                           \
  }
typedef int8_t i8;
typedef int32_t i32;
typedef int64_t i64;
EIN_INT_DIVMOD(i8, uint8_t)
EIN_INT_DIVMOD(i32, uint32_t)
EIN_INT_DIVMOD(i64, uint64_t)

// Rust `as` from float to integer: truncate, saturate, NaN -> 0 (a plain C cast would be UB).
#define EIN_F2I(T, LO, HI_EXCL)                                     \
  static inline T ein_f2##T(double v) {                             \
    if (v != v) return 0;                                           \
    if (v <= (double)(LO)) return (T)(LO);                          \
    if (v >= (double)(HI_EXCL)) return (T)(-((LO) + 1));            \
    return (T)v;                                                    \
  }
EIN_F2I(i8, -128, 128.0)
EIN_F2I(i32, -2147483648LL, 2147483648.0)
EIN_F2I(i64, (-9223372036854775807LL - 1), 9223372036854775808.0)

// NumPy-like helpers the interpreter also implements (engine/value/math.cpp).
static inline float ein_signf(float x) { return x > 0.f ? 1.f : x < 0.f ? -1.f : x; }
static inline double ein_sign(double x) { return x > 0. ? 1. : x < 0. ? -1. : x; }
static inline float ein_min2f(float x, float y) { return (x != x || y != y) ? __builtin_nanf("") : (x < y ? x : y); }
static inline float ein_max2f(float x, float y) { return (x != x || y != y) ? __builtin_nanf("") : (x > y ? x : y); }
static inline double ein_min2(double x, double y) { return (x != x || y != y) ? __builtin_nan("") : (x < y ? x : y); }
static inline double ein_max2(double x, double y) { return (x != x || y != y) ? __builtin_nan("") : (x > y ? x : y); }

// exp for f32 in plain arithmetic, so loops calling it vectorise (libm's expf is a call per
// element). Cody-Waite reduction by ln 2 and the Cephes polynomial; within 2 ulp of the
// correctly rounded result (checked in tests/unit/codegen/prelude_test.cpp).
static inline float ein_expf(float x) {
  float kf = __builtin_rintf(x * 1.44269504088896341f);
  kf = kf == kf ? kf : 0.0f;
  kf = kf < -150.0f ? -150.0f : (kf > 128.0f ? 128.0f : kf);
  float r = x - kf * 0.693359375f;
  r = r - kf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  int32_t k = (int32_t)kf, k1 = k >> 1, k2 = k - k1;
  int32_t b1 = (k1 + 127) << 23, b2 = (k2 + 127) << 23;
  float s1, s2;
  __builtin_memcpy(&s1, &b1, 4);
  __builtin_memcpy(&s2, &b2, 4);
  float res = p * s1 * s2;
  res = x > 88.72283935546875f ? __builtin_inff() : res;
  res = x < -103.972084045410f ? 0.0f : res;
  return x != x ? x : res;
}

// Float max/min accumulation with the interpreter's NaN rule: the first NaN wins and stays.
#define EIN_FMAX_STEP(m, x) m = ((m) != (m)) ? (m) : (((x) != (x) || (x) > (m)) ? (x) : (m))
#define EIN_FMIN_STEP(m, x) m = ((m) != (m)) ? (m) : (((x) != (x) || (x) < (m)) ? (x) : (m))
#endif  // EIN_KERNEL_TU

#ifdef EIN_PRELUDE_EMBED
// prelude_embed.cpp: the bytes of this very file become the text of the prelude. __FILE__ names
// this header as the compiler found it, so no path is configured anywhere.
__asm__(".section .rodata\n.global ein_prelude_text\nein_prelude_text:\n.incbin \"" __FILE__
        "\"\n.byte 0\n.previous\n");
#endif
#endif  // EIN_CODEGEN_PRELUDE_H
