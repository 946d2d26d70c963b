#include <vector>
#include "bench.h"
int main() {
  const int N = 2000, M = 2000;
  std::vector<int> a(N), b(M), D;
  for (int i = 0; i < N; ++i) a[i] = (i * 7 + 3) % 26;
  for (int j = 0; j < M; ++j) b[j] = (j * 11 + 5) % 26;
  const int W = M + 1;
  double ms = best_ms(7, [&] {
    D = std::vector<int>((N + 1) * W);
    for (int j = 0; j <= M; ++j) D[j] = j;
    for (int i = 1; i <= N; ++i) {
      D[i * W] = i;
      for (int j = 1; j <= M; ++j) {
        int cost = a[i - 1] == b[j - 1] ? 0 : 1;
        int del = D[(i - 1) * W + j] + 1, ins = D[i * W + j - 1] + 1, sub = D[(i - 1) * W + j - 1] + cost;
        D[i * W + j] = del < ins ? (del < sub ? del : sub) : (ins < sub ? ins : sub);
      }
    }
  });
  report(ms, D[N * W + M], D[1000 * W + 1500]);
}
