#include <vector>
#include "bench.h"
int main() {
  const long N = 10000000;
  std::vector<double> a(N), s;
  for (long t = 0; t < N; ++t) a[t] = double((t * 7) % 13) * 0.01 - 0.06;
  double ms = best_ms(7, [&] {
    s = std::vector<double>(N);
    s[0] = a[0];
    for (long t = 1; t < N; ++t) s[t] = s[t - 1] + a[t];
  });
  report(ms, s[N / 2], s[N - 1]);
}
