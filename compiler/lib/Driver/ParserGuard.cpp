// Checks before MLIR's parser sees graph text, and the large-stack thread it
// runs on (tg/Driver/ParserGuard.h).
#include "tg/Driver/ParserGuard.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <pthread.h>

using namespace mlir;

namespace {
/// Scans the text as MLIR's lexer would for the two things that matter
/// here: brackets outside string literals and comments, and the keyword
/// `array` followed by `<`.
class TextScanner {
public:
  TextScanner(const llvm::SourceMgr &sourceMgr, MLIRContext *context)
      : sourceMgr(sourceMgr), context(context),
        text(sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                 ->getBuffer()) {}

  LogicalResult scan();

private:
  InFlightDiagnostic errorAt(size_t offset) {
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(text.data() + offset));
    StringRef name =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
            ->getBufferIdentifier();
    return emitError(FileLineColLoc::get(context, name, line, column));
  }
  LogicalResult checkDenseArray(size_t keywordEnd);
  static bool isIdentifierChar(char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  }

  const llvm::SourceMgr &sourceMgr;
  MLIRContext *context;
  StringRef text;
};

/// Element types the dense-array parser handles: integers and floats.
bool isIntOrFloatKeyword(StringRef word) {
  StringRef digits = word;
  if (digits.consume_front("si") || digits.consume_front("ui") ||
      digits.consume_front("i"))
    return !digits.empty() && llvm::all_of(digits, llvm::isDigit);
  static constexpr StringLiteral kFloats[] = {
      "f16",      "bf16",       "f32",        "f64",           "f80",
      "f128",     "tf32",       "f8E5M2",     "f8E4M3",        "f8E4M3FN",
      "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E3M4",   "f8E8M0FNU",
      "f4E2M1FN", "f6E2M3FN",   "f6E3M2FN"};
  return llvm::is_contained(kFloats, word);
}

LogicalResult TextScanner::checkDenseArray(size_t keywordEnd) {
  size_t i = keywordEnd;
  while (i < text.size() && llvm::isSpace(text[i]))
    ++i;
  if (i >= text.size() || text[i] != '<')
    return success();
  size_t typeStart = ++i;
  while (typeStart < text.size() && llvm::isSpace(text[typeStart]))
    ++typeStart;
  size_t typeEnd = typeStart;
  while (typeEnd < text.size() && isIdentifierChar(text[typeEnd]))
    ++typeEnd;
  StringRef word = text.slice(typeStart, typeEnd);
  if (isIntOrFloatKeyword(word))
    return success();
  // The parser would read the type and then crash asking it for a bit
  // width; it means to reject it, so reject it here with its message.
  StringRef shown = word.empty() ? text.substr(typeStart, 1) : word;
  return errorAt(typeStart)
         << "expected an integer or float element type in 'array<...>', "
            "found '"
         << shown << "'";
}

LogicalResult TextScanner::scan() {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
    case '"': // string literal, with backslash escapes
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (i + 1 < text.size() && text[i + 1] == '/')
        while (i < text.size() && text[i] != '\n')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > tg::kMaxTextNesting)
        return errorAt(i) << "brackets nest more than "
                          << tg::kMaxTextNesting
                          << " levels deep, more than tgc parses";
      break;
    case '>':
      if (i > 0 && text[i - 1] == '-')
        break; // '->'
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      if (c == 'a' && text.substr(i).starts_with("array") &&
          (i == 0 || !isIdentifierChar(text[i - 1])) &&
          (i + 5 >= text.size() || !isIdentifierChar(text[i + 5])))
        if (failed(checkDenseArray(i + 5)))
          return failure();
      break;
    }
  }
  return success();
}

struct ThreadBody {
  llvm::function_ref<void()> body;
};

void *runThreadBody(void *arg) {
  static_cast<ThreadBody *>(arg)->body();
  return nullptr;
}
} // namespace

std::unique_ptr<llvm::MemoryBuffer> tg::openGraphFile(StringRef path,
                                                      std::string &error) {
  if (path != "-") {
    llvm::sys::fs::file_status status;
    if (std::error_code ec = llvm::sys::fs::status(path, status)) {
      error = ("cannot read '" + path + "': " + ec.message()).str();
      return nullptr;
    }
    using llvm::sys::fs::file_type;
    file_type type = status.type();
    if (type == file_type::directory_file) {
      error = ("cannot read '" + path + "': it is a directory").str();
      return nullptr;
    }
    if (type != file_type::regular_file && type != file_type::fifo_file) {
      error = ("cannot read '" + path + "': it is not a file or a pipe").str();
      return nullptr;
    }
    if (type == file_type::regular_file && status.getSize() > kMaxGraphFileBytes) {
      error = ("cannot read '" + path + "': it has " +
               llvm::Twine(status.getSize()) + " bytes, more than the " +
               llvm::Twine(kMaxGraphFileBytes) + " tgc reads")
                  .str();
      return nullptr;
    }
  }
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    error = ("cannot read '" + path + "': " + buffer.getError().message()).str();
    return nullptr;
  }
  return std::move(*buffer);
}

LogicalResult tg::checkParserInput(const llvm::SourceMgr &sourceMgr,
                                   MLIRContext *context) {
  return TextScanner(sourceMgr, context).scan();
}

OwningOpRef<ModuleOp> tg::parseGuarded(llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context) {
  if (failed(checkParserInput(sourceMgr, context)))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

void tg::runOnLargeStack(llvm::function_ref<void()> body, size_t stackBytes) {
  ThreadBody state{body};
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0;
  if (started) {
    started = pthread_attr_setstacksize(&attr, stackBytes) == 0 &&
              pthread_create(&thread, &attr, runThreadBody, &state) == 0;
    pthread_attr_destroy(&attr);
  }
  if (!started) {
    body(); // e.g. thread limits reached: the caller's stack will have to do
    return;
  }
  pthread_join(thread, nullptr);
}
