// The machine's roofline: STREAM triad bandwidth (OpenMP) and OpenBLAS sgemm GFLOP/s.
#include <cblas.h>
#include <vector>
#include "bench.h"
int main() {
  const long N = 1L << 25;
  std::vector<double> a(N), b(N, 1.0), c(N, 2.0);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < N; ++i) a[i] = 0.0;
  double ms = best_ms(7, [&] {
    double* __restrict x = a.data();
    const double* __restrict y = b.data();
    const double* __restrict z = c.data();
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < N; ++i) x[i] = y[i] + 3.0 * z[i];
  });
  double gbs = 3.0 * 8.0 * double(N) / (ms * 1e-3) / 1e9;
  const int M = 2048;
  std::vector<float> A((size_t)M * M, 0.5f), B((size_t)M * M, 0.25f), C((size_t)M * M);
  double gms = best_ms(5, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, M, M, 1.0f, A.data(), M, B.data(), M, 0.0f, C.data(), M);
  });
  double gflops = 2.0 * double(M) * M * M / (gms * 1e-3) / 1e9;
  std::printf("triad_gbs=%.2f sgemm_gflops=%.1f\n", gbs, gflops);
}
