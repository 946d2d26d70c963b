// Buffered stream publishing (see xio.h).
#include "kernel/xio.h"

#include <chrono>

namespace ein::kernel {

namespace {
constexpr auto kBatch = std::chrono::milliseconds(50);
constexpr size_t kEager = 1 << 16;  // publish at once beyond this many buffered bytes
}  // namespace

OutputSink::OutputSink(Publish publish) : publish_(std::move(publish)) {
  thread_ = std::thread([this] { run(); });
}

OutputSink::~OutputSink() {
  {
    std::lock_guard<std::mutex> lk(buf_mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void OutputSink::write(const std::string& stream, const std::string& text) {
  if (text.empty()) return;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lk(buf_mu_);
    if (!enabled_) return;
    wake = out_.empty() && err_.empty();
    (stream == "stderr" ? err_ : out_) += text;
    wake = wake || out_.size() + err_.size() > kEager;
  }
  if (wake) cv_.notify_one();
}

void OutputSink::set_enabled(bool on) {
  std::lock_guard<std::mutex> lk(buf_mu_);
  enabled_ = on;
}

void OutputSink::flush() { flush_locked_out(); }

void OutputSink::publish_after_streams(const std::function<void()>& publish) {
  std::lock_guard<std::mutex> pub(pub_mu_);
  std::string out, err;
  {
    std::lock_guard<std::mutex> lk(buf_mu_);
    out.swap(out_);
    err.swap(err_);
  }
  if (publish_) {
    if (!out.empty()) publish_("stdout", out);
    if (!err.empty()) publish_("stderr", err);
  }
  publish();
}

// Takes both buffers and publishes them, stdout first: program output and the warnings that
// follow it are rarely interleaved within one 50 ms batch.
void OutputSink::flush_locked_out() {
  publish_after_streams([] {});
}

void OutputSink::run() {
  std::unique_lock<std::mutex> lk(buf_mu_);
  for (;;) {
    cv_.wait(lk, [this] { return stop_ || !out_.empty() || !err_.empty(); });
    if (stop_) return;
    // Let a burst of writes accumulate, unless the buffer is already large.
    if (out_.size() + err_.size() < kEager)
      cv_.wait_for(lk, kBatch, [this] { return stop_ || out_.size() + err_.size() >= kEager; });
    lk.unlock();
    flush_locked_out();
    lk.lock();
  }
}

}  // namespace ein::kernel
