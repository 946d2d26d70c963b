// Hand-written reference of probes7's rec_softmax_prev_row (issue 14: recurrences <= 1.5 x C++):
// h[t] = softmax(h[t - 1]) + x[t], T = 1000, H = 64, f32 (max, exp once per element, sum in
// double as ein's f32 sums, one division per element). Not in run.py's table; timed by hand:
//   c++ -O3 -march=native -fopenmp -std=c++17 -I tests/bench/cpp tests/bench/cpp/rec_softmax.cpp
#include <cmath>
#include <vector>
#include "bench.h"
int main() {
  const int T = 1000, H = 64;
  std::vector<float> x(T * H), h(T * H), e(H);
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < H; ++j) x[t * H + j] = float((t * 7 + j * 3) % 23) * 0.1f - 1.0f;
  double ms = best_ms(7, [&] {
    for (int j = 0; j < H; ++j) h[j] = x[j];
    for (int t = 1; t < T; ++t) {
      const float* p = &h[(t - 1) * H];
      float m = p[0];
      for (int j = 1; j < H; ++j) m = p[j] > m ? p[j] : m;
      double s = 0;
      for (int j = 0; j < H; ++j) {
        e[j] = std::exp(p[j] - m);
        s += e[j];
      }
      const float sf = float(s);
      for (int j = 0; j < H; ++j) h[t * H + j] = e[j] / sf + x[t * H + j];
    }
  });
  report(ms, h[3 * H + 5], h[999 * H + 63]);
}
