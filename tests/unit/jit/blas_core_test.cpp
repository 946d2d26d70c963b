// The BLAS core switch (engine/jit/blas_core.cpp): after it, products are still right and the
// environment is as it was. Which core is chosen depends on the machine; the test does not care.
#include "engine/jit/blas_core.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

extern "C" __attribute__((weak)) int openblas_thread_timeout(void);

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

// The idle-worker timeout (blas_core.cpp): the library holds 2^20 cycles unless the user chose,
// the variable is gone from the environment again, and a product large enough for OpenBLAS to
// split over its (restarted) workers is still exact.
TEST(BlasCore, IdleWorkersSleepSoonAndThreadedProductsStayExact) {
  const bool user_set = std::getenv("OPENBLAS_THREAD_TIMEOUT") != nullptr;
  select_blas_core();
  EXPECT_EQ(std::getenv("OPENBLAS_THREAD_TIMEOUT") != nullptr, user_set);
  if (openblas_thread_timeout && !user_set) EXPECT_EQ(openblas_thread_timeout(), 20);
  const int n = 300;
  std::vector<float> a(n * n), b(n * n), c(n * n, -1.0f);
  for (int i = 0; i < n * n; ++i) a[i] = static_cast<float>((i * 7) % 5 - 2);
  for (int i = 0; i < n * n; ++i) b[i] = static_cast<float>((i * 3) % 7 - 3);
  for (int rep = 0; rep < 2; ++rep) {  // the second call finds the workers asleep or restarted
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    for (int i = 0; i < n; i += 37)
      for (int j = 0; j < n; j += 11) {
        double r = 0;
        for (int p = 0; p < n; ++p) r += double(a[i * n + p]) * double(b[p * n + j]);
        ASSERT_EQ(c[i * n + j], static_cast<float>(r)) << i << "," << j;
      }
  }
}

}  // namespace
}  // namespace ein::jit
