#include <cmath>
#include <vector>
#include "bench.h"
int main() {
  const int N = 4096;
  std::vector<float> X((size_t)N * N), Y;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) X[(size_t)i * N + j] = float((i * 7 + j * 13) % 101) * 0.01f;
  double ms = best_ms(5, [&] {
    Y = std::vector<float>((size_t)N * N);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; ++i) {
      const float* x = &X[(size_t)i * N];
      float* y = &Y[(size_t)i * N];
      float m = -INFINITY;
      for (int j = 0; j < N; ++j) m = x[j] > m ? x[j] : m;
      float z = 0;
      for (int j = 0; j < N; ++j) {
        y[j] = std::exp(x[j] - m);
        z += y[j];
      }
      for (int j = 0; j < N; ++j) y[j] /= z;
    }
  });
  report(ms, Y[3 * N + 4], Y[(size_t)4095 * N + 4095]);
}
