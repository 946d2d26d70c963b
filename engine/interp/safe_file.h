// Opening the files a program names (std::io): never blocking, regular files only, reads
// bounded by the memory limit. A FIFO, a device such as /dev/zero or a directory is refused
// with E009 instead of hanging or reading forever; text larger than the memory limit is E008
// before it is read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ein {

// An open regular file for reading (closed by the destructor). Fault E009 when `path` cannot
// be opened or is not a regular file.
class InFile {
 public:
  explicit InFile(const std::string& path);
  ~InFile();
  InFile(const InFile&) = delete;
  InFile& operator=(const InFile&) = delete;
  int64_t size() const { return size_; }  // at open time (0 for some /proc files)
  // Reads up to n bytes (fewer only at the end of the file); returns how many were read.
  size_t read(void* buf, size_t n);

 private:
  std::string path_;
  int fd_ = -1;
  int64_t size_ = 0;
};

// The whole file as bytes: E009 as above, E008 when it does not fit under the memory limit
// (checked against its size before reading, and again as it grows while being read).
std::string read_regular_file(const std::string& path);

// Opens `path` for writing (created 0666 & ~umask, truncated) without blocking on a FIFO that
// has no reader; returns the descriptor. Fault E009 when it cannot be opened.
int open_for_write(const std::string& path);
// Writes all of data to fd (E009 naming `path` on failure).
void write_all(int fd, const char* data, size_t n, const std::string& path);

}  // namespace ein
