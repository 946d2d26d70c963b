// Hand-written baselines of the everyday programs (tests/bench/programs/{linear,rnn,sqdist,
// chain,bmm,transpose,stencil,maxplus}.ein): plain loops with OpenMP and simd, no BLAS — the
// code a careful C++ programmer writes without a library. argv[1] names the program.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bench.h"

using V = std::vector<float>;

// C[m x n] (+)= A[m x k] B[k x n], i-k-j order: the inner loop streams rows of B and C.
static void gemm(int m, int n, int k, const float* A, const float* B, float* C) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) {
      const float a = A[(size_t)i * k + p];
      float* __restrict c = C + (size_t)i * n;
      const float* __restrict b = B + (size_t)p * n;
#pragma omp simd
      for (int j = 0; j < n; ++j) c[j] += a * b[j];
    }
}

static void linear() {
  const int S = 1024, D = 512, K = 2048;
  V X((size_t)S * D), W((size_t)D * K), B(K), y;
  for (int s = 0; s < S; ++s)
    for (int d = 0; d < D; ++d) X[(size_t)s * D + d] = float((s * 7 + d * 3) % 17) * 0.1f - 0.8f;
  for (int d = 0; d < D; ++d)
    for (int k = 0; k < K; ++k) W[(size_t)d * K + k] = float((d * 5 + k * 11) % 13) * 0.01f - 0.06f;
  for (int k = 0; k < K; ++k) B[k] = float(k % 7) * 0.1f - 0.3f;
  double ms = best_ms(5, [&] {
    y.assign((size_t)S * K, 0.f);
#pragma omp parallel for schedule(static)
    for (int s = 0; s < S; ++s) std::memcpy(&y[(size_t)s * K], B.data(), K * sizeof(float));
    gemm(S, K, D, X.data(), W.data(), y.data());
  });
  report(ms, y[3 * K + 5], y[(size_t)1000 * K + 2000]);
}

static void rnn() {
  const int T = 1000, H = 256;
  V W((size_t)H * H), x((size_t)T * H), h;
  for (int j = 0; j < H; ++j)
    for (int k = 0; k < H; ++k) W[j * H + k] = float((j * 7 + k * 3) % 17) * 0.004f - 0.03f;
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < H; ++j) x[t * H + j] = float((t * 5 + j * 11) % 13) * 0.05f - 0.3f;
  double ms = best_ms(5, [&] {
    V a(H, 0.f), b(H);
    for (int t = 1; t < T; ++t) {
      for (int j = 0; j < H; ++j) {
        float s = 0.f;
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < H; ++k) s += W[j * H + k] * a[k];
        b[j] = std::tanh(s + x[t * H + j]);
      }
      std::swap(a, b);
    }
    h = a;
  });
  report(ms, h[3], h[200]);
}

static void sqdist() {
  const int N = 2048, M = 2048, D = 64;
  V P((size_t)N * D), Q((size_t)M * D), d;
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < D; ++k) P[i * D + k] = float((i * 7 + k * 3) % 17) * 0.1f - 0.8f;
  for (int j = 0; j < M; ++j)
    for (int k = 0; k < D; ++k) Q[j * D + k] = float((j * 5 + k * 11) % 13) * 0.1f - 0.6f;
  double ms = best_ms(5, [&] {
    d.assign((size_t)N * M, 0.f);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < M; ++j) {
        float s = 0.f;
#pragma omp simd reduction(+ : s)
        for (int k = 0; k < D; ++k) {
          float e = P[i * D + k] - Q[j * D + k];
          s += e * e;
        }
        d[(size_t)i * M + j] = s;
      }
  });
  report(ms, d[3 * M + 5], d[(size_t)2000 * M + 17]);
}

static void chain() {
  const int N = 512;
  V A(N * N), B(N * N), C(N * N), AB, M;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      A[i * N + j] = float((i * 7 + j * 3) % 17) * 0.01f - 0.08f;
      B[i * N + j] = float((i * 5 + j * 11) % 13) * 0.01f - 0.06f;
      C[i * N + j] = float((i * 3 + j * 13) % 11) * 0.01f - 0.05f;
    }
  double ms = best_ms(5, [&] {
    AB.assign(N * N, 0.f);
    M.assign(N * N, 0.f);
    gemm(N, N, N, A.data(), B.data(), AB.data());
    gemm(N, N, N, AB.data(), C.data(), M.data());
  });
  report(ms, M[3 * N + 5], M[500 * N + 17]);
}

static void bmm() {
  const int NB = 256, I = 96, J = 64, K = 96;
  V X((size_t)NB * I * J), Y((size_t)NB * J * K), Z;
  for (int b = 0; b < NB; ++b)
    for (int i = 0; i < I; ++i)
      for (int j = 0; j < J; ++j) X[((size_t)b * I + i) * J + j] = float((b * 3 + i * 7 + j * 5) % 17) * 0.1f - 0.8f;
  for (int b = 0; b < NB; ++b)
    for (int j = 0; j < J; ++j)
      for (int k = 0; k < K; ++k) Y[((size_t)b * J + j) * K + k] = float((b * 5 + j * 3 + k * 11) % 13) * 0.1f - 0.6f;
  double ms = best_ms(5, [&] {
    Z.assign((size_t)NB * I * K, 0.f);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < NB; ++b)
      for (int i = 0; i < I; ++i)
        for (int j = 0; j < J; ++j) {
          const float a = X[((size_t)b * I + i) * J + j];
          float* __restrict z = &Z[((size_t)b * I + i) * K];
          const float* __restrict y = &Y[((size_t)b * J + j) * K];
#pragma omp simd
          for (int k = 0; k < K; ++k) z[k] += a * y[k];
        }
  });
  report(ms, Z[(3 * I + 5) * K + 7], Z[((size_t)255 * I + 95) * K + 90]);
}

static void transpose() {
  const int N = 4096, TB = 64;
  V A((size_t)N * N), S;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) A[(size_t)i * N + j] = float((i * 7 + j * 3) % 17) * 0.1f - 0.8f;
  double ms = best_ms(5, [&] {
    S.assign((size_t)N * N, 0.f);
    // 64 x 64 blocks: the column read A[j, i] stays in cache while the block is written.
#pragma omp parallel for schedule(static)
    for (int ib = 0; ib < N; ib += TB)
      for (int jb = 0; jb < N; jb += TB)
        for (int i = ib; i < ib + TB; ++i)
#pragma omp simd
          for (int j = jb; j < jb + TB; ++j) S[(size_t)i * N + j] = A[(size_t)i * N + j] + A[(size_t)j * N + i];
  });
  report(ms, S[3 * N + 5], S[(size_t)4000 * N + 17]);
}

static void stencil() {
  const int N = 2048;
  V u((size_t)N * N), L;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) u[(size_t)i * N + j] = float((i * 7 + j * 3) % 17) * 0.1f - 0.8f;
  double ms = best_ms(5, [&] {
    L.assign((size_t)N * N, 0.f);
#pragma omp parallel for schedule(static)
    for (int i = 1; i < N - 1; ++i) {
      const float *up = &u[(size_t)(i - 1) * N], *c = &u[(size_t)i * N], *dn = &u[(size_t)(i + 1) * N];
      float* __restrict l = &L[(size_t)i * N];
#pragma omp simd
      for (int j = 1; j < N - 1; ++j) l[j] = up[j] + dn[j] + c[j - 1] + c[j + 1] - 4.0f * c[j];
    }
  });
  report(ms, L[3 * N + 5], L[(size_t)2000 * N + 17]);
}

static void maxplus() {
  const int T = 500, S = 400;
  V A(S * S), E(T * S), out;
  for (int p = 0; p < S; ++p)
    for (int s = 0; s < S; ++s) A[p * S + s] = float((p * 7 + s * 3) % 17) * -0.1f;
  for (int t = 0; t < T; ++t)
    for (int s = 0; s < S; ++s) E[t * S + s] = float((t * 5 + s * 11) % 13) * -0.05f;
  double ms = best_ms(5, [&] {
    V a(E.begin(), E.begin() + S), b(S);
    for (int t = 1; t < T; ++t) {
      std::fill(b.begin(), b.end(), -INFINITY);
      for (int p = 0; p < S; ++p) {
        const float v = a[p];
        const float* __restrict r = &A[p * S];
        float* __restrict o = b.data();
#pragma omp simd
        for (int s = 0; s < S; ++s) o[s] = std::max(o[s], v + r[s]);
      }
      for (int s = 0; s < S; ++s) b[s] += E[t * S + s];
      std::swap(a, b);
    }
    out = a;
  });
  report(ms, out[3], out[300]);
}

int main(int argc, char** argv) {
  std::string w = argc > 1 ? argv[1] : "";
  if (w == "linear") linear();
  else if (w == "rnn") rnn();
  else if (w == "sqdist") sqdist();
  else if (w == "chain") chain();
  else if (w == "bmm") bmm();
  else if (w == "transpose") transpose();
  else if (w == "stencil") stencil();
  else if (w == "maxplus") maxplus();
  else return 2;
  return 0;
}
