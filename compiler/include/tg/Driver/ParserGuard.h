#ifndef TG_DRIVER_PARSERGUARD_H
#define TG_DRIVER_PARSERGUARD_H

// Guards around MLIR's text parser, which crashes on some bad text instead
// of reporting it: tgc's tools and API must not. The known cases are
// rejected before parsing with a located diagnostic, and parsing runs on a
// thread with a large stack (docs/fuzzing.md).

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace mlir::tg {

/// Deepest bracket nesting ('(', '[', '{', '<') accepted in graph text.
/// Real graphs nest fewer than 20 deep; MLIR's recursive-descent parser
/// overflows its stack at some ten thousand.
constexpr unsigned kMaxTextNesting = 256;

/// Stack of the thread that parses and compiles (only touched pages are
/// committed).
constexpr size_t kParserStackBytes = size_t(256) << 20;

/// Largest graph file read.
constexpr uint64_t kMaxGraphFileBytes = uint64_t(1) << 30;

/// Opens a graph file (or stdin for "-") as openInputFile does, refusing
/// what would be read forever or is not text: directories, devices
/// (/dev/zero), sockets, and regular files over kMaxGraphFileBytes. Pipes
/// and FIFOs are read (`tg-compile <(generate)`). On failure returns null and
/// sets `error` ("cannot read '/dev/zero': it is not a file or a pipe").
std::unique_ptr<llvm::MemoryBuffer> openGraphFile(llvm::StringRef path,
                                                  std::string &error);

/// Rejects text that MLIR 22's parser is known to crash on: nesting deeper
/// than kMaxTextNesting, and a dense array `array<T ...>` whose T is not an
/// integer or float type (the parser asks such a type for its bit width).
/// Emits a located error through `context`'s diagnostic engine.
LogicalResult checkParserInput(const llvm::SourceMgr &sourceMgr,
                               MLIRContext *context);

/// checkParserInput, then parseSourceFile<ModuleOp>.
OwningOpRef<ModuleOp> parseGuarded(llvm::SourceMgr &sourceMgr,
                                   MLIRContext *context);

/// Runs `body` on a thread with `stackBytes` of stack and waits for it; runs
/// it on the calling thread when no such thread can be started.
void runOnLargeStack(llvm::function_ref<void()> body,
                     size_t stackBytes = kParserStackBytes);

} // namespace mlir::tg

#endif // TG_DRIVER_PARSERGUARD_H
