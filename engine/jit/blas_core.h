// Which OpenBLAS kernels the process runs (see blas_core.cpp).
#pragma once
#include <string>

namespace ein::jit {

// Once per process, before the first BLAS call of a kernel: when the library fell back to a
// pre-AVX2 core on a CPU that has AVX2/AVX-512 (a CPU model newer than the library), it is
// switched to the matching one. OPENBLAS_CORETYPE set by the user always wins.
void select_blas_core();

// "SkylakeX" or "SkylakeX (OpenBLAS chose Prescott)", for EIN_JIT_TRACE and docs.
std::string blas_core();

}  // namespace ein::jit
