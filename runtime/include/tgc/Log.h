#ifndef TGC_LOG_H
#define TGC_LOG_H

// Runtime logging. TGC_LOG=error|warn|info|debug (or off) selects the level
// (default warn); messages go to stderr, or are appended to the file named by
// TGC_LOG_FILE. The environment is read on first use; tools and tests may
// override it with setLogLevel()/setLogFile() or re-read it with
// reloadLogConfig().

#include "tgc/Status.h"

#include <string>

namespace tgc {

enum class LogLevel : int { Off = -1, Error = 0, Warn = 1, Info = 2, Debug = 3 };

const char *logLevelName(LogLevel level);
LogLevel logLevel();
void setLogLevel(LogLevel level);
/// Empty path: stderr.
void setLogFile(const std::string &path);
/// Re-reads TGC_LOG and TGC_LOG_FILE.
void reloadLogConfig();

inline bool logEnabled(LogLevel level) {
  return static_cast<int>(level) <= static_cast<int>(logLevel());
}
/// Writes "[tgc <level>] <message>" as one line.
void logMessage(LogLevel level, const std::string &message);

} // namespace tgc

// The message expression is only evaluated when the level is enabled.
#define TGC_LOG_AT(level, ...)                                                 \
  do {                                                                         \
    if (::tgc::logEnabled(level))                                              \
      ::tgc::logMessage(level, ::tgc::strCat(__VA_ARGS__));                    \
  } while (false)
#define TGC_LOG_ERROR(...) TGC_LOG_AT(::tgc::LogLevel::Error, __VA_ARGS__)
#define TGC_LOG_WARN(...) TGC_LOG_AT(::tgc::LogLevel::Warn, __VA_ARGS__)
#define TGC_LOG_INFO(...) TGC_LOG_AT(::tgc::LogLevel::Info, __VA_ARGS__)
#define TGC_LOG_DEBUG(...) TGC_LOG_AT(::tgc::LogLevel::Debug, __VA_ARGS__)

#endif // TGC_LOG_H
