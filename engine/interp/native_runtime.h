// Internal to engine/interp: binding interpreter values to kernel arguments, calling a kernel,
// turning its error record into a diagnostic, and the services kernels call back into
// (memory under the session's limit, BLAS).
#pragma once
#include <atomic>

#include "engine/interp/native_tier.h"

namespace ein {

// Do the kernel's inputs (all but the tensor it fills) exist with the dtypes and ranks it was
// generated for?
bool native_inputs_fit(Interpreter::Impl& in, const NativeKernel& nk);

// Do all arguments of a loop kernel's clauses (outputs too, the loop variable excepted) exist
// with the dtypes, ranks, windows and fixed extents each clause was generated for? Checked once
// before the loop, so that no clause refuses its arguments after earlier ones wrote memory.
bool native_loop_args_fit(Interpreter::Impl& in, const NativeKernel& nk);

// Points a statement will execute, measured from its outer loop bounds in the current frame
// (for auto-mode tiering of clauses whose size was unknown at compile time).
// `past_i64` (when given) is set if an outer range does not fit i64 or its index type (`n -
// 3..=n` with n = i64::MAX ends at 2^63): kernels compute bounds in i64 and would wrap, so such
// a statement is interpreted (exactly, or E006).
double runtime_points(Interpreter::Impl& in, const ir::NodeRef& stmt, bool* past_i64 = nullptr);

// Calls nk.fn. Returns 0 when it ran (result set for expression kernels) and EIN_MISMATCH when
// the arguments do not fit; throws DiagError for a failure inside the kernel.
int call_native_kernel(Interpreter::Impl& in, NativeKernel& nk, Value* result,
                       const std::atomic<bool>* interrupt);

}  // namespace ein
