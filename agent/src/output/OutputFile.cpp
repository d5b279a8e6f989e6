#include "output/OutputFile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <streambuf>

namespace candor {

namespace {
std::string parentDir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A std::streambuf over a file descriptor; remembers the first write error.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    while (p < pptr() && error_ == 0) {
      ssize_t n = write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n < 0 && errno != EINTR) error_ = errno;
      if (n > 0) p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0;
  }
  int fd_;
  int error_ = 0;
  char buffer_[64 * 1024];
};
}  // namespace

constexpr const char* kNotRegular = "it is not a regular file (a FIFO, device or socket); candor writes only regular files";

int openOutputFile(const std::string& path, std::string* why) {
  // O_NONBLOCK: opening a FIFO planted at the path must not block the JVM (with no reader it
  // fails with ENXIO at once). Truncation waits until the file is known to be a regular one.
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0666);  // umask applies
  if (fd < 0) {
    *why = errno == ELOOP ? "it is a symbolic link; candor does not write through links"
           : errno == ENXIO ? kNotRegular
                            : strerror(errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *why = kNotRegular;
    close(fd);
    return -1;
  }
  if (ftruncate(fd, 0) != 0) {
    *why = strerror(errno);
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, 0);  // back to blocking writes
  return fd;
}

bool writeOutputFile(const std::string& path, const std::string& content, std::string* why) {
  return writeOutputFileStreamed(path, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); }, why);
}

bool writeOutputFileStreamed(const std::string& path, const std::function<void(std::ostream&)>& write,
                             std::string* why) {
  int fd = openOutputFile(path, why);
  if (fd < 0) return false;
  auto buf = std::make_unique<FdStreamBuf>(fd);  // 64 kB: not on a Java thread's stack
  {
    std::ostream out(buf.get());
    write(out);
    out.flush();
  }
  int error = buf->error();
  if (close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    *why = strerror(error);
    return false;
  }
  return true;
}

bool checkOutputWritable(const std::string& path, std::string* why) {
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      *why = "it is a symbolic link; candor does not write through links";
      return false;
    }
    if (S_ISDIR(st.st_mode)) {
      *why = "it is a directory";
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      *why = kNotRegular;
      return false;
    }
    if (access(path.c_str(), W_OK) != 0) {
      *why = strerror(errno);
      return false;
    }
    return true;
  }
  std::string dir = parentDir(path);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    *why = "cannot create it in " + dir + ": " + strerror(errno);
    return false;
  }
  return true;
}

}  // namespace candor
