#include <vector>
#include "bench.h"
int main() {
  const int N = 2048, M = N - 2;
  std::vector<float> img(N * N), out;
  float w[3][3];
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) img[i * N + j] = float((i * 3 + j * 7) % 23) * 0.05f;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) w[a][b] = float(a * 3 + b + 1) * 0.1f - 0.5f;
  double ms = best_ms(7, [&] {
    out = std::vector<float>(M * M);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < M; ++i)
#pragma omp simd
      for (int j = 0; j < M; ++j) {
        float s = 0;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) s += img[(i + a) * N + j + b] * w[a][b];
        out[i * M + j] = s;
      }
  });
  report(ms, out[10 * M + 20], out[2045 * M + 2045]);
}
