#include <vector>
#include "bench.h"
template <class T> void run() {
  const int N = 1024;
  std::vector<T> A(N * N), B(N * N), C;
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < N; ++k) A[i * N + k] = T((i * 7 + k * 3) % 17) * T(0.1) - T(0.8);
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < N; ++j) B[k * N + j] = T((k * 5 + j * 11) % 13) * T(0.1) - T(0.6);
  double ms = best_ms(5, [&] {
    C.assign(N * N, T(0));
    // i-k-j order: the inner loop streams rows of B and C (vectorises).
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < N; ++k) {
        T a = A[i * N + k];
        T* __restrict c = &C[i * N];
        const T* __restrict b = &B[k * N];
#pragma omp simd
        for (int j = 0; j < N; ++j) c[j] += a * b[j];
      }
  });
  report(ms, C[3 * N + 5], C[1000 * N + 17]);
}
int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] == 'd') run<double>();
  else run<float>();
}
