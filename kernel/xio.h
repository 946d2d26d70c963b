// Batches program output into Jupyter `stream` messages.
//
// print() may be called millions of times in a loop; one zmq message per call would flood the
// front end and dominate run time. Writes are buffered and published by a small flusher thread
// about every 50 ms (so output of a long cell appears while it runs), and by flush() at the end
// of a cell, before the execute_result. Publishing is serialised by one mutex: the zmq socket
// is used by one thread at a time (the shell thread is blocked in execute meanwhile).
#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace ein::kernel {

class OutputSink {
 public:
  // publish(stream_name, text) sends one `stream` message ("stdout" or "stderr").
  using Publish = std::function<void(const std::string&, const std::string&)>;
  explicit OutputSink(Publish publish);
  ~OutputSink();
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;

  // Any thread. Dropped while disabled (silent execution).
  void write(const std::string& stream, const std::string& text);
  // Publishes everything buffered; returns when it has been sent.
  void flush();
  void set_enabled(bool on);
  // Publishes what is buffered, then runs `publish` (which sends other messages, such as a
  // progress display) in the same turn on the socket: another thread may call it.
  void publish_after_streams(const std::function<void()>& publish);

 private:
  void run();
  void flush_locked_out();

  Publish publish_;
  std::mutex buf_mu_;  // guards the buffers and flags
  std::mutex pub_mu_;  // held while taking the buffers and publishing them, keeps order
  std::condition_variable cv_;
  std::string out_, err_;
  bool enabled_ = true;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ein::kernel
