// The front ends' progress display (see progress_monitor.h).
#include "engine/session/progress_monitor.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>

namespace ein {

ProgressMonitor::ProgressMonitor(const Session& s, View view, std::chrono::milliseconds delay,
                                 std::chrono::milliseconds period)
    : session_(s), view_(std::move(view)), delay_(delay), period_(period) {
  // The timer thread takes no signals: SIGINT must reach the thread that reads the terminal
  // (its read() returns EINTR) or runs the cell, as it did before this thread existed.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  thread_ = std::thread([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

ProgressMonitor::~ProgressMonitor() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressMonitor::begin() {
  std::lock_guard<std::mutex> lk(mu_);
  active_ = true;
  ++generation_;
  started_ = std::chrono::steady_clock::now();
  cv_.notify_all();
}

void ProgressMonitor::end() {
  std::unique_lock<std::mutex> lk(mu_);
  active_ = false;
  cv_.notify_all();
  cv_.wait(lk, [this] { return !showing_; });
}

void ProgressMonitor::run() {
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    cv_.wait(lk, [this] { return stop_ || active_; });
    if (stop_) return;
    const uint64_t gen = generation_;
    auto current = [&] { return !stop_ && active_ && generation_ == gen; };
    // Short inputs end before the delay and show nothing.
    cv_.wait_until(lk, started_ + delay_, [&] { return !current(); });
    if (!current()) {
      // Ended (or replaced by the next input): wait for the next begin().
      cv_.wait(lk, [&] { return stop_ || (active_ && generation_ != gen); });
      continue;
    }
    showing_ = true;
    while (current()) {
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      lk.unlock();
      view_.show(session_.progress(), seconds);
      lk.lock();
      cv_.wait_for(lk, period_, [&] { return !current(); });
    }
    lk.unlock();
    view_.hide();
    lk.lock();
    showing_ = false;
    cv_.notify_all();
  }
}

namespace {

// Characters shown for a UTF-8 string (continuation bytes take no column).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The longest prefix of s that takes at most `cols` columns, with "…" when cut.
std::string fit(const std::string& s, size_t cols) {
  if (columns(s) <= cols) return s;
  if (cols == 0) return "";
  size_t n = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == cols - 1) break;
      ++n;
    }
  }
  return s.substr(0, i) + "\u2026";
}

// 999, 1.50k, 12.3M, 2.00G: three significant digits and an SI prefix.
std::string count(int64_t v) {
  if (v < 1000) return std::to_string(v);
  static const char* kUnits[] = {"k", "M", "G", "T", "P", "E"};
  double x = static_cast<double>(v);
  int u = -1;
  while (x >= 999.5 && u < 5) x /= 1000, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 9.995 ? "%.2f%s" : x < 99.95 ? "%.1f%s" : "%.0f%s", x, kUnits[u]);
  return buf;
}

std::string elapsed(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return buf;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "line 3: let x[t] = …" or what the cell is doing when no statement runs.
std::string what(const ProgressSnapshot& p) {
  if (p.compiling) return "compiling native kernels";
  if (!p.running) return p.label.empty() ? "compiling" : "";
  if (p.line <= 0) return "starting";
  return "line " + std::to_string(p.line) + ": " + trim(p.statement);
}

std::string percent(const ProgressSnapshot& p) {
  return std::to_string(static_cast<int>(100.0 * static_cast<double>(p.done) / static_cast<double>(p.total))) + "%";
}

}  // namespace

std::string progress_text(const ProgressSnapshot& p, double seconds, int width) {
  std::string tail;
  if (p.total > 0) {
    constexpr int kBar = 20;
    int full = static_cast<int>(kBar * static_cast<double>(p.done) / static_cast<double>(p.total));
    std::string bar = "[";
    for (int i = 0; i < kBar; ++i) bar += i < full ? "\u2588" : "\u2591";
    bar += "] ";
    std::string pc = percent(p);
    tail = "  " + bar + std::string(4 - std::min<size_t>(4, pc.size()), ' ') + pc + "  " + count(p.done) + "/" + count(p.total);
  }
  tail += " \u00b7 " + elapsed(seconds);
  std::string head = p.label;
  std::string w = what(p);
  if (!w.empty()) head += (head.empty() ? "" : " \u00b7 ") + w;
  size_t room = static_cast<size_t>(std::max(20, width - 1));
  size_t used = columns(tail);
  return fit(head, room > used ? room - used : 0) + (room > used ? tail : fit(tail, room));
}

std::string progress_html(const ProgressSnapshot& p, double seconds) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '<') o += "&lt;";
      else if (c == '>') o += "&gt;";
      else if (c == '&') o += "&amp;";
      else o += c;
    }
    return o;
  };
  std::string head = p.label;
  std::string w = what(p);
  if (!w.empty()) head += (head.empty() ? "" : " \u00b7 ") + w;
  std::string html = "<div class=\"ein-progress\" style=\"font-family: monospace\">";
  if (p.total > 0)
    html += "<progress max=\"" + std::to_string(p.total) + "\" value=\"" + std::to_string(p.done) + "\"></progress> " +
            percent(p) + " (" + count(p.done) + "/" + count(p.total) + ") ";
  html += "<code>" + esc(fit(head, 200)) + "</code> \u00b7 " + elapsed(seconds) + "</div>";
  return html;
}

}  // namespace ein
