#include "output/OutputFile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace candor {

namespace {
std::string parentDir(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
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
  int fd = openOutputFile(path, why);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      *why = strerror(errno);
      close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    *why = strerror(errno);
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
