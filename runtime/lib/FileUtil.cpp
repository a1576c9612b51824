#include "FileUtil.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tgc {

Expected<std::string> readFileBytes(const std::string &path,
                                    uint64_t maxBytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return makeError(StatusCode::IoError, "cannot open '", path,
                     "': ", std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return makeError(StatusCode::IoError, "cannot read '", path,
                     "': ", std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return makeError(StatusCode::IoError, "cannot read '", path, "': it is ",
                     S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
  }
  if (uint64_t(st.st_size) > maxBytes) {
    ::close(fd);
    return makeError(StatusCode::IoError, "cannot read '", path, "': it has ",
                     uint64_t(st.st_size), " bytes, more than the limit of ",
                     maxBytes);
  }
  std::string bytes;
  bytes.reserve(size_t(st.st_size));
  char chunk[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd);
      return makeError(StatusCode::IoError, "cannot read '", path,
                       "': ", std::strerror(err));
    }
    if (n == 0)
      break;
    if (bytes.size() + size_t(n) > maxBytes) { // it grew while being read
      ::close(fd);
      return makeError(StatusCode::IoError, "cannot read '", path,
                       "': it has more than the limit of ", maxBytes, " bytes");
    }
    bytes.append(chunk, size_t(n));
  }
  ::close(fd);
  return bytes;
}

Status createDirectories(const std::string &path) {
  if (path.empty())
    return Status::ok();
  std::string prefix;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    prefix = path.substr(0, pos);
    if (prefix.empty())
      continue;
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return makeError(StatusCode::IoError, "cannot create directory '",
                       prefix, "': ", std::strerror(errno));
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return makeError(StatusCode::IoError, "'", path, "' is not a directory");
  return Status::ok();
}

Status writeFileAtomic(const std::string &path, const std::string &bytes) {
  static std::atomic<unsigned> counter{0};
  std::string temp = strCat(path, ".tmp.", ::getpid(), ".", counter++);
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return makeError(StatusCode::IoError, "cannot create '", temp,
                     "': ", std::strerror(errno));
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return makeError(StatusCode::IoError, "cannot write '", temp,
                       "': ", std::strerror(err));
    }
    written += size_t(n);
  }
  // fsync before rename so a crash cannot leave a renamed but empty file.
  int syncResult = ::fsync(fd);
  int syncErrno = errno;
  int closeResult = ::close(fd);
  if (syncResult != 0 || closeResult != 0) {
    int err = syncResult != 0 ? syncErrno : errno;
    ::unlink(temp.c_str());
    return makeError(StatusCode::IoError, "cannot flush '", temp,
                     "': ", std::strerror(err));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return makeError(StatusCode::IoError, "cannot rename '", temp, "' to '",
                     path, "': ", std::strerror(err));
  }
  return Status::ok();
}

} // namespace tgc
