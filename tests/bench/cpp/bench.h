// Hand-written baselines: plain loops, -O3 -march=native -fopenmp, best of `reps` runs.
#pragma once
#include <chrono>
#include <cstdio>
#include <functional>

inline double best_ms(int reps, const std::function<void()>& f) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms < best) best = ms;
  }
  return best;
}

inline void report(double ms, double a, double b) { std::printf("ms=%.4f check=%.9g %.9g\n", ms, a, b); }
