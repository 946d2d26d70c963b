#include <cmath>
#include <vector>
#include "bench.h"
int main() {
  const int BH = 64, N = 512, D = 64;
  std::vector<float> Q((size_t)BH * N * D), K(Q.size()), V(Q.size()), O;
  for (int b = 0; b < BH; ++b)
    for (int i = 0; i < N; ++i)
      for (int d = 0; d < D; ++d) {
        size_t at = ((size_t)b * N + i) * D + d;
        Q[at] = float((b * 3 + i * 5 + d * 7) % 17) * 0.05f - 0.4f;
        K[at] = float((b * 5 + i * 3 + d * 11) % 19) * 0.05f - 0.45f;
        V[at] = float((b * 7 + i * 13 + d * 5) % 23) * 0.04f - 0.44f;
      }
  double ms = best_ms(3, [&] {
    O = std::vector<float>(Q.size());
#pragma omp parallel
    {
      std::vector<float> s(N);
#pragma omp for schedule(static) collapse(2)
      for (int b = 0; b < BH; ++b)
        for (int i = 0; i < N; ++i) {
          const float* q = &Q[((size_t)b * N + i) * D];
          float m = -INFINITY;
          for (int j = 0; j < N; ++j) {
            const float* k = &K[((size_t)b * N + j) * D];
            float acc = 0;
#pragma omp simd reduction(+ : acc)
            for (int d = 0; d < D; ++d) acc += q[d] * k[d];
            s[j] = acc * 0.125f;
            m = s[j] > m ? s[j] : m;
          }
          float z = 0;
          for (int j = 0; j < N; ++j) {
            s[j] = std::exp(s[j] - m);
            z += s[j];
          }
          float* o = &O[((size_t)b * N + i) * D];
          for (int j = 0; j < N; ++j) {
            const float* v = &V[((size_t)b * N + j) * D];
            float p = s[j] / z;
#pragma omp simd
            for (int e = 0; e < D; ++e) o[e] += p * v[e];
          }
        }
    }
  });
  report(ms, O[((size_t)3 * N + 100) * D + 5], O[((size_t)63 * N + 511) * D + 63]);
}
