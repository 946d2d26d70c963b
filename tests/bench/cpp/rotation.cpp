#include <vector>
#include "bench.h"
// Factorised by hand: four O(n^5) contractions, one index at a time.
int main() {
  const int n = 16;
  const int n2 = n * n, n3 = n2 * n, n4 = n3 * n;
  std::vector<float> g(n2), T(n4), R, t1(n4), t2(n4), t3(n4);
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < n; ++i) g[a * n + i] = float((a * 3 + i * 5) % 7) * 0.1f - 0.3f;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c)
        for (int d = 0; d < n; ++d) T[a * n3 + b * n2 + c * n + d] = float((a + 2 * b + 3 * c + 5 * d) % 11) * 0.1f;
  double ms = best_ms(20, [&] {
    R.assign(n4, 0.0f);
    std::fill(t1.begin(), t1.end(), 0.0f);
    std::fill(t2.begin(), t2.end(), 0.0f);
    std::fill(t3.begin(), t3.end(), 0.0f);
    // t1[i,b,c,d] = sum_a g[a,i] T[a,b,c,d]
    for (int i = 0; i < n; ++i)
      for (int a = 0; a < n; ++a)
        for (int r = 0; r < n3; ++r) t1[i * n3 + r] += g[a * n + i] * T[a * n3 + r];
    // t2[i,j,c,d] = sum_b g[b,j] t1[i,b,c,d]
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int b = 0; b < n; ++b)
          for (int r = 0; r < n2; ++r) t2[i * n3 + j * n2 + r] += g[b * n + j] * t1[i * n3 + b * n2 + r];
    // t3[i,j,k,d] = sum_c g[c,k] t2[i,j,c,d]
    for (int ij = 0; ij < n2; ++ij)
      for (int k = 0; k < n; ++k)
        for (int c = 0; c < n; ++c)
          for (int d = 0; d < n; ++d) t3[ij * n2 + k * n + d] += g[c * n + k] * t2[ij * n2 + c * n + d];
    // R[i,j,k,l] = sum_d g[d,l] t3[i,j,k,d]
    for (int ijk = 0; ijk < n3; ++ijk)
      for (int d = 0; d < n; ++d)
        for (int l = 0; l < n; ++l) R[ijk * n + l] += g[d * n + l] * t3[ijk * n + d];
  });
  report(ms, R[1 * n3 + 2 * n2 + 3 * n + 4], R[15 * n3 + 0 * n2 + 7 * n + 9]);
}
