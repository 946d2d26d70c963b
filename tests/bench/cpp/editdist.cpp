#include <vector>
#include "bench.h"
// Two rows of the table, as a careful hand-written DP keeps them.
int main() {
  const int N = 2000, M = 2000;
  std::vector<int> a(N), b(M), last;
  for (int i = 0; i < N; ++i) a[i] = (i * 7 + 3) % 26;
  for (int j = 0; j < M; ++j) b[j] = (j * 11 + 5) % 26;
  double ms = best_ms(7, [&] {
    std::vector<int> prev(M + 1), cur(M + 1);
    for (int j = 0; j <= M; ++j) prev[j] = j;
    for (int i = 1; i <= N; ++i) {
      cur[0] = i;
      const int ai = a[i - 1];
      for (int j = 1; j <= M; ++j) {
        int cost = ai == b[j - 1] ? 0 : 1;
        int del = prev[j] + 1, ins = cur[j - 1] + 1, sub = prev[j - 1] + cost;
        cur[j] = del < ins ? (del < sub ? del : sub) : (ins < sub ? ins : sub);
      }
      prev.swap(cur);
    }
    last = prev;
  });
  report(ms, last[M], last[M / 2]);
}
