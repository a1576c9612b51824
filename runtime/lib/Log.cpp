#include "tgc/Log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <strings.h>
#include <mutex>

namespace tgc {

namespace {
struct LogState {
  std::mutex mutex;
  FILE *file = nullptr; // null: stderr
  std::string filePath;
  std::atomic<int> level{static_cast<int>(LogLevel::Warn)};
  std::string pendingWarning; // reported once the sink is set up
};

LogState &state() {
  static LogState *s = [] {
    auto *created = new LogState(); // never destroyed: usable during exit
    return created;
  }();
  return *s;
}

bool parseLevel(const char *text, LogLevel &level) {
  struct Name {
    const char *name;
    LogLevel level;
  };
  const Name names[] = {{"error", LogLevel::Error}, {"warn", LogLevel::Warn},
                        {"warning", LogLevel::Warn}, {"info", LogLevel::Info},
                        {"debug", LogLevel::Debug},  {"off", LogLevel::Off},
                        {"none", LogLevel::Off}};
  for (const Name &n : names)
    if (strcasecmp(text, n.name) == 0) {
      level = n.level;
      return true;
    }
  return false;
}

// Caller holds the mutex.
void openFileLocked(LogState &s, const std::string &path) {
  if (s.file)
    std::fclose(s.file);
  s.file = nullptr;
  s.filePath.clear();
  if (path.empty())
    return;
  s.file = std::fopen(path.c_str(), "a");
  if (s.file)
    s.filePath = path;
  else
    s.pendingWarning = "cannot open TGC_LOG_FILE '" + path + "' (" +
                       std::strerror(errno) + "); logging to stderr";
}

void configureLocked(LogState &s) {
  LogLevel level = LogLevel::Warn;
  if (const char *env = std::getenv("TGC_LOG"); env && *env) {
    if (!parseLevel(env, level)) {
      level = LogLevel::Warn;
      s.pendingWarning = std::string("unknown TGC_LOG value '") + env +
                         "' (expected error, warn, info, debug or off); using warn";
    }
  }
  s.level.store(static_cast<int>(level));
  const char *file = std::getenv("TGC_LOG_FILE");
  openFileLocked(s, file ? file : "");
}

void writeLocked(LogState &s, LogLevel level, const std::string &message) {
  FILE *out = s.file ? s.file : stderr;
  std::fprintf(out, "[tgc %s] %s\n", logLevelName(level), message.c_str());
  std::fflush(out);
}

void flushPendingLocked(LogState &s) {
  if (s.pendingWarning.empty())
    return;
  std::string warning;
  warning.swap(s.pendingWarning);
  if (s.level.load() >= static_cast<int>(LogLevel::Warn))
    writeLocked(s, LogLevel::Warn, warning);
}

std::once_flag configured;
void ensureConfigured() {
  std::call_once(configured, [] {
    LogState &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    configureLocked(s);
    flushPendingLocked(s);
  });
}
} // namespace

const char *logLevelName(LogLevel level) {
  switch (level) {
  case LogLevel::Off:
    return "off";
  case LogLevel::Error:
    return "error";
  case LogLevel::Warn:
    return "warn";
  case LogLevel::Info:
    return "info";
  case LogLevel::Debug:
    return "debug";
  }
  return "?";
}

LogLevel logLevel() {
  ensureConfigured();
  return static_cast<LogLevel>(state().level.load(std::memory_order_relaxed));
}

void setLogLevel(LogLevel level) {
  ensureConfigured();
  state().level.store(static_cast<int>(level));
}

void setLogFile(const std::string &path) {
  ensureConfigured();
  LogState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  openFileLocked(s, path);
  flushPendingLocked(s);
}

void reloadLogConfig() {
  ensureConfigured();
  LogState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  configureLocked(s);
  flushPendingLocked(s);
}

void logMessage(LogLevel level, const std::string &message) {
  if (!logEnabled(level))
    return;
  LogState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  writeLocked(s, level, message);
}

} // namespace tgc
