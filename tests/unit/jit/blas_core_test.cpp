// The BLAS core switch (engine/jit/blas_core.cpp): after it, products are still right and the
// environment is as it was. Which core is chosen depends on the machine; the test does not care.
#include "engine/jit/blas_core.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace ein::jit {
namespace {

TEST(BlasCore, ProductsStayExactAndTheEnvironmentIsRestored) {
  const bool had = std::getenv("OPENBLAS_CORETYPE") != nullptr;
  select_blas_core();
  select_blas_core();  // once per process
  EXPECT_EQ(std::getenv("OPENBLAS_CORETYPE") != nullptr, had);
  EXPECT_FALSE(blas_core().empty());
  // Small integers: every kernel gives the exact result. 37 x 29 by 29 x 41, both transposed.
  const int m = 37, n = 41, k = 29;
  std::vector<double> a(m * k), b(k * n), c(m * n, -1.0);
  for (int i = 0; i < m * k; ++i) a[i] = (i * 7) % 11 - 5;
  for (int i = 0; i < k * n; ++i) b[i] = (i * 5) % 13 - 6;
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasTrans, m, n, k, 1.0, a.data(), m, b.data(), k, 0.0, c.data(), n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double r = 0;
      for (int p = 0; p < k; ++p) r += a[p * m + i] * b[j * k + p];
      ASSERT_EQ(c[i * n + j], r) << i << "," << j;
    }
}

}  // namespace
}  // namespace ein::jit
