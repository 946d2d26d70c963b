// Hand-written baseline of tests/bench/programs/transformer.ein: plain loops with OpenMP and
// simd, no BLAS. Products are i-k-j loops (the inner loop streams rows), conv1d loops over the
// filter taps inside the channel loop, the causal mask skips the masked columns.
#include <cmath>
#include <vector>

#include "bench.h"

using V = std::vector<float>;
static const int C = 80, L = 1028, T = 512, D = 256, H = 4, E = 64, F = 1024;

static float gelu(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f)); }

// C[m x n] = A[m x k] B[k x n] (+ bias[n]), row-major.
static void gemm_bias(int m, int n, int k, const float* A, const float* B, const float* bias, float* Cm) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m; ++i) {
    float* __restrict c = Cm + (size_t)i * n;
    for (int j = 0; j < n; ++j) c[j] = bias[j];
    for (int p = 0; p < k; ++p) {
      const float a = A[(size_t)i * k + p];
      const float* __restrict b = B + (size_t)p * n;
#pragma omp simd
      for (int j = 0; j < n; ++j) c[j] += a * b[j];
    }
  }
}

static void layer_norm(const V& x, const V& g, const V& b, V& out) {
#pragma omp parallel for schedule(static)
  for (int t = 0; t < T; ++t) {
    const float* r = &x[(size_t)t * D];
    float mu = 0, var = 0;
    for (int d = 0; d < D; ++d) mu += r[d];
    mu /= D;
    for (int d = 0; d < D; ++d) var += (r[d] - mu) * (r[d] - mu);
    var /= D;
    const float s = 1.0f / std::sqrt(var + 1e-5f);
    for (int d = 0; d < D; ++d) out[(size_t)t * D + d] = (r[d] - mu) * s * g[d] + b[d];
  }
}

int main() {
  auto fill = [](size_t n, auto f) { V v(n); for (size_t i = 0; i < n; ++i) v[i] = f(i); return v; };
  V mel = fill((size_t)C * L, [](size_t i) { int c = i / L, t = i % L; return float((c * 7 + t * 3) % 17) * 0.1f - 0.8f; });
  V W1 = fill((size_t)D * C * 3, [](size_t i) { int o = i / (C * 3), c = i / 3 % C, a = i % 3; return float((o * 5 + c * 3 + a * 7) % 13) * 0.01f - 0.06f; });
  V W2 = fill((size_t)D * D * 3, [](size_t i) { int o = i / (D * 3), c = i / 3 % D, a = i % 3; return float((o * 3 + c * 11 + a * 5) % 19) * 0.005f - 0.045f; });
  V b1 = fill(D, [](size_t o) { return float(o % 7) * 0.01f - 0.03f; });
  V b2 = fill(D, [](size_t o) { return float(o % 5) * 0.01f - 0.02f; });
  V pos = fill((size_t)T * D, [](size_t i) { int t = i / D, d = i % D; return float((t * 13 + d * 7) % 23) * 0.01f - 0.11f; });
  V g1 = fill(D, [](size_t d) { return 1.0f + float(d % 3) * 0.1f; });
  V be1 = fill(D, [](size_t d) { return float(d % 4) * 0.05f - 0.1f; });
  V g2 = fill(D, [](size_t d) { return 1.0f - float(d % 5) * 0.05f; });
  V be2 = fill(D, [](size_t d) { return float(d % 3) * 0.05f - 0.05f; });
  auto w3 = [&fill](int m1, int m2, int m3, int md, float s, float o) {
    return fill((size_t)D * H * E, [=](size_t i) { int d = i / (H * E), h = i / E % H, e = i % E; return float((d * m1 + h * m2 + e * m3) % md) * s - o; });
  };
  V Wq = w3(3, 7, 5, 11, 0.02f, 0.1f), Wk = w3(5, 3, 7, 13, 0.02f, 0.12f), Wv = w3(7, 5, 3, 17, 0.01f, 0.08f);
  V bq = fill(H * E, [](size_t i) { int h = i / E, e = i % E; return float((h + e) % 3) * 0.01f; });
  V bk = fill(H * E, [](size_t i) { int h = i / E, e = i % E; return float((h * 2 + e) % 5) * 0.01f; });
  V bv = fill(H * E, [](size_t i) { int h = i / E, e = i % E; return float((h * 3 + e) % 7) * 0.01f; });
  V Wo = fill((size_t)H * E * D, [](size_t i) { int h = i / (E * D), e = i / D % E, d = i % D; return float((h * 11 + e * 3 + d * 5) % 19) * 0.005f - 0.045f; });
  V bo = fill(D, [](size_t d) { return float(d % 6) * 0.01f - 0.025f; });
  V Wf1 = fill((size_t)D * F, [](size_t i) { int d = i / F, f = i % F; return float((d * 3 + f * 5) % 23) * 0.004f - 0.044f; });
  V bf1 = fill(F, [](size_t f) { return float(f % 9) * 0.01f - 0.04f; });
  V Wf2 = fill((size_t)F * D, [](size_t i) { int f = i / D, d = i % D; return float((f * 7 + d * 3) % 29) * 0.002f - 0.028f; });
  V bf2 = fill(D, [](size_t d) { return float(d % 8) * 0.01f - 0.035f; });
  V y;
  const int L1 = L - 2;
  double ms = best_ms(5, [&] {
    V h1((size_t)D * L1), x((size_t)T * D), n1(x.size()), qkv[3], att((size_t)T * H * E), r1(x.size()), n2(x.size());
    V f1((size_t)T * F);
    y.assign((size_t)T * D, 0.f);
#pragma omp parallel for schedule(static)
    for (int o = 0; o < D; ++o) {
      float* __restrict r = &h1[(size_t)o * L1];
      for (int t = 0; t < L1; ++t) r[t] = b1[o];
      for (int c = 0; c < C; ++c)
        for (int a = 0; a < 3; ++a) {
          const float w = W1[((size_t)o * C + c) * 3 + a];
          const float* __restrict m = &mel[(size_t)c * L + a];
#pragma omp simd
          for (int t = 0; t < L1; ++t) r[t] += w * m[t];
        }
      for (int t = 0; t < L1; ++t) r[t] = gelu(r[t]);
    }
#pragma omp parallel for schedule(static)
    for (int t = 0; t < T; ++t) {
      float* __restrict r = &x[(size_t)t * D];
      for (int o = 0; o < D; ++o) {
        const float* __restrict w = &W2[(size_t)o * D * 3];
        float s = 0;
        for (int c = 0; c < D; ++c)
          for (int a = 0; a < 3; ++a) s += w[c * 3 + a] * h1[(size_t)c * L1 + 2 * t + a];
        r[o] = gelu(s + b2[o]) + pos[(size_t)t * D + o];
      }
    }
    layer_norm(x, g1, be1, n1);
    const V* Ws[3] = {&Wq, &Wk, &Wv};
    const V* bs[3] = {&bq, &bk, &bv};
    for (int w = 0; w < 3; ++w) {  // [T][H*E]
      qkv[w].resize((size_t)T * H * E);
      gemm_bias(T, H * E, D, n1.data(), Ws[w]->data(), bs[w]->data(), qkv[w].data());
    }
#pragma omp parallel
    {
      V s(T);
#pragma omp for schedule(dynamic, 8) collapse(2)
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < T; ++i) {
          const float* q = &qkv[0][(size_t)i * H * E + h * E];
          float m = -INFINITY;
          for (int j = 0; j <= i; ++j) {
            const float* k = &qkv[1][(size_t)j * H * E + h * E];
            float acc = 0;
#pragma omp simd reduction(+ : acc)
            for (int e = 0; e < E; ++e) acc += q[e] * k[e];
            s[j] = acc * 0.125f;
            m = s[j] > m ? s[j] : m;
          }
          float z = 0;
          for (int j = 0; j <= i; ++j) z += (s[j] = std::exp(s[j] - m));
          float* o = &att[(size_t)i * H * E + h * E];
          for (int e = 0; e < E; ++e) o[e] = 0;
          for (int j = 0; j <= i; ++j) {
            const float* v = &qkv[2][(size_t)j * H * E + h * E];
            const float p = s[j];
#pragma omp simd
            for (int e = 0; e < E; ++e) o[e] += p * v[e];
          }
          for (int e = 0; e < E; ++e) o[e] /= z;
        }
    }
    gemm_bias(T, D, H * E, att.data(), Wo.data(), bo.data(), r1.data());
    for (size_t i = 0; i < r1.size(); ++i) r1[i] += x[i];
    layer_norm(r1, g2, be2, n2);
    gemm_bias(T, F, D, n2.data(), Wf1.data(), bf1.data(), f1.data());
    for (auto& v : f1) v = gelu(v);
    gemm_bias(T, D, F, f1.data(), Wf2.data(), bf2.data(), y.data());
    for (size_t i = 0; i < y.size(); ++i) y[i] += r1[i];
  });
  std::printf("ms=%.4f check=%.9g %.9g %.9g\n", ms, y[(size_t)3 * D + 5], y[(size_t)511 * D + 255],
              y[(size_t)200 * D + 100]);
}
