#include <vector>
#include "bench.h"
int main() {
  const int X = 10000, T = 1000;
  std::vector<float> u0(X, 0.0f), u1(X);
  double ms = best_ms(7, [&] {
    std::vector<float> cur(X, 0.0f), nxt(X);
    cur[X / 2] = 1.0f;
    for (int t = 1; t < T; ++t) {
      nxt[0] = 0.0f;
      nxt[X - 1] = 0.0f;
      const float* __restrict p = cur.data();
      float* __restrict o = nxt.data();
#pragma omp simd
      for (int x = 1; x < X - 1; ++x) o[x] = p[x] + 0.25f * (p[x - 1] - 2.0f * p[x] + p[x + 1]);
      cur.swap(nxt);
    }
    u1 = cur;
  });
  report(ms, u1[X / 2], u1[X / 2 + 10]);
}
