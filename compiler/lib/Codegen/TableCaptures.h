#ifndef TG_CODEGEN_TABLECAPTURES_H
#define TG_CODEGEN_TABLECAPTURES_H

// Captures in generated CUDA, one text for the forward and the backward
// generators: the check of their names and table ranks and, for table
// captures (tg.gather in a score region), the fields of the kernel's
// `Captures` struct, its clamping readers, the entry-point parameters that
// carry a table and the initializer that builds the struct from them.
//
// A table of rank R is a pointer with R sizes and R strides. Generated names
// for capture `c`:
//   c_offset(captures, stride, i0, ..)  offset of the element at the indices,
//                                       each clamped to its dimension, for the
//                                       given strides (the table's own, or a
//                                       gradient accumulator's)
//   c_at(captures, i0, ..)              the element there (never out of bounds)
//   c_in_range(captures, i0, ..)        tg.gather's fill test

#include "tg/Codegen/AttentionKernel.h"

#include <string>
#include <vector>

namespace tg::codegen {

/// The first problem with the names and table ranks of a generator's
/// captures, or "": each name a C identifier that `isReserved` does not
/// claim (`reservedNames` lists the region's own names for the message),
/// each table rank in [0, kMaxTableRank], no name twice.
std::string captureSpecProblem(const std::vector<AttentionCapture> &captures,
                               bool (*isReserved)(const std::string &),
                               const char *reservedNames);

/// How a generator reads one captured element: its type in global memory,
/// the type the score region sees, and the conversion of `raw` into it.
struct CaptureAccess {
  const char *pointerType;
  const char *valueType;
  const char *convert;
};

/// The access of a capture of element type `type` (both generators').
CaptureAccess captureAccess(CaptureType type);

/// The fields of `struct Captures` for table `c`.
std::string tableCaptureFields(const AttentionCapture &c, const CaptureAccess &access);

/// The readers of table `c` (free functions over `const Captures &`).
std::string tableCaptureReaders(const AttentionCapture &c, const CaptureAccess &access);

/// The entry-point parameters of table `c`, each list entry preceded by
/// ",\n    ": the pointer `capture_<c>`, then `<c>_size<d>`, then `<c>_stride<d>`.
std::string tableCaptureParams(const AttentionCapture &c, const CaptureAccess &access);

/// The aggregate initializer of table `c`'s fields from those parameters.
std::string tableCaptureInitializer(const AttentionCapture &c);

/// ScoreMod's `distance_term(b, h, d)`: the region's term of d = q_idx -
/// kv_idx (`statements` assign `value`, AttentionForwardSpec::distanceTerm),
/// which the kernel of `kernelFile` tabulates per tile.
std::string distanceTermMember(const std::string &statements, const char *kernelFile);

/// How many kernel parameters table `c` takes (pointer, sizes, strides).
inline unsigned tableCaptureParamCount(const AttentionCapture &c) {
  return 1 + 2 * unsigned(c.tableRank);
}

/// `, long long i0, ..., long long i<R-1>` (the index parameters of a reader).
std::string tableIndexParams(int rank);

/// `i0, ..., i<R-1>`.
std::string tableIndexArgs(int rank);

} // namespace tg::codegen

#endif // TG_CODEGEN_TABLECAPTURES_H
