#include "engine/interp/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/value/value.h"

namespace ein {

namespace {

[[noreturn]] void io_fault(const std::string& path, const std::string& why) {
  fault("E009", "cannot read " + path + ": " + why);
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "it is a directory";
  if (S_ISFIFO(m)) return "it is a pipe (FIFO), not a regular file";
  if (S_ISCHR(m) || S_ISBLK(m)) return "it is a device, not a regular file";
  if (S_ISSOCK(m)) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

}  // namespace

InFile::InFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever. It is cleared
  // once fstat has shown a regular file (where it has no effect anyway).
  fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) io_fault(path, std::strerror(errno));
  struct stat st {};
  if (fstat(fd_, &st) != 0) {
    int e = errno;
    close(fd_);
    io_fault(path, std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd_);
    io_fault(path, kind_of(st.st_mode));
  }
  int fl = fcntl(fd_, F_GETFL);
  if (fl >= 0) fcntl(fd_, F_SETFL, fl & ~O_NONBLOCK);
  size_ = static_cast<int64_t>(st.st_size);
}

InFile::~InFile() {
  if (fd_ >= 0) close(fd_);
}

size_t InFile::read(void* buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd_, static_cast<char*>(buf) + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) io_fault(path_, std::strerror(errno));
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

std::string read_regular_file(const std::string& path) {
  InFile in(path);
  MemoryHold hold;
  // The string's final size is reserved before any byte is read; a file that grows while being
  // read (or a /proc file that reports size 0) is reserved chunk by chunk.
  int64_t want = in.size();
  hold.grow_to(want + 1, "reading " + path + " (" + std::to_string(want) + " bytes)");
  std::string out;
  out.reserve(static_cast<size_t>(want));
  constexpr size_t kChunk = size_t{1} << 16;
  char buf[kChunk];
  while (true) {
    size_t n = in.read(buf, kChunk);
    if (n == 0) break;
    int64_t next = static_cast<int64_t>(out.size() + n);
    hold.grow_to(next + 1, "reading " + path + " (more than " + std::to_string(out.size()) + " bytes)");
    out.append(buf, n);
    if (n < kChunk) break;
  }
  return out;
}

int open_for_write(const std::string& path) {
  // O_NONBLOCK: a FIFO without a reader fails with ENXIO instead of blocking the session.
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd < 0) fault("E009", "cannot write " + path + ": " + std::strerror(errno));
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return fd;
}

void write_all(int fd, const char* data, size_t n, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = ::write(fd, data + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fault("E009", "cannot write " + path + ": " + std::strerror(w < 0 ? errno : EIO));
    done += static_cast<size_t>(w);
  }
}

}  // namespace ein
