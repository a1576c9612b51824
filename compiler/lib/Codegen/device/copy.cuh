// tgc device library: global -> shared tile copies with cp.async (sm_80+).
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// Byte offset of element (row, col) in a shared tile of kRows rows: rows of
/// kPitch elements, or (kPitch == 0) the 128-byte-swizzled K-major layout
/// that wgmma reads: 64-column blocks of kRows rows x 128 bytes, 16-byte
/// chunk c of row r stored at chunk c ^ (r % 8) (tiles 1024-byte aligned).
template <int kRows, int kPitch>
__device__ __forceinline__ unsigned tile_offset(int row, int col) {
  if constexpr (kPitch > 0) {
    return (row * kPitch + col) * 2;
  } else {
    const int chunk = col / 8;
    return (chunk / 8) * (kRows * 128) + row * 128 + (((chunk % 8) ^ (row % 8)) * 16) + (col % 8) * 2;
  }
}

/// Issues the copies of rows [0, kRows) x columns [0, kCols) of a global
/// tile (rows `row_stride` elements apart, columns contiguous) into a shared
/// tile at `smem` laid out as tile_offset<kRows, kPitch>. With kCheckRows,
/// rows >= valid_rows are zero-filled without reading global memory (the
/// end of a sequence). Columns [kCols, kPitch) are not written.
template <int kRows, int kCols, int kPitch, int kThreads, bool kCheckRows = true, bool kPrefetchL2 = false>
__device__ __forceinline__ void load_rows_async(unsigned smem, const u16 *gmem,
                                                long long row_stride, int valid_rows,
                                                int tid) {
  static_assert(kCols % 8 == 0, "rows are copied in 16-byte chunks");
  constexpr int kChunksPerRow = kCols / 8;
  constexpr int kChunks = kRows * kChunksPerRow;
  // Opaque to the optimiser: otherwise the per-chunk 64-bit offsets are
  // hoisted out of the caller's loop and pinned in registers.
  opaque(row_stride);
  opaque(gmem);
#pragma unroll
  for (int i = 0; i < (kChunks + kThreads - 1) / kThreads; ++i) {
    const int chunk = tid + i * kThreads;
    if (kChunks % kThreads == 0 || chunk < kChunks) {
      const int row = chunk / kChunksPerRow;
      const int col = (chunk % kChunksPerRow) * 8;
      const bool valid = !kCheckRows || row < valid_rows;
      const u16 *src = valid ? gmem + row * row_stride + col : gmem;
      cp_async_16<kPrefetchL2>(smem + tile_offset<kRows, kPitch>(row, col), src, valid);
    }
  }
}

/// As load_rows_async into the swizzled layout (pitch 0) with few
/// registers, for a thread that does nothing else (the warp-specialised
/// kernel's producer): in each 64-column block, each thread copies one
/// 16-byte chunk of every (kThreads / 8)-th row, walking a single pointer
/// (the chunk's swizzled position is the same in all of those rows).
template <int kRows, int kCols, int kThreads>
__device__ __forceinline__ void load_swizzled_rows_async(unsigned smem, const u16 *gmem, long long row_stride,
                                                         int valid_rows, int tid) {
  constexpr int kRowStep = kThreads / 8;
  static_assert(kCols % 64 == 0 && kRowStep % 8 == 0 && kRows % kRowStep == 0,
                "64-column blocks; passes of whole rows, a multiple of 8 apart");
  const int chunk = tid % 8, first_row = tid / 8;
  const long long step = kRowStep * row_stride;
  // (head dims of 192 and 256: one block at a time, or the 24 registers do not do)
#pragma unroll(kCols <= 128 ? kCols / 64 : 1)
  for (int block = 0; block < kCols / 64; ++block) {
    const u16 *src = gmem + first_row * row_stride + block * 64 + chunk * 8;
    const unsigned column = smem + block * (kRows * 128) + ((chunk ^ (first_row % 8)) * 16);
#pragma unroll
    for (int i = 0; i < kRows / kRowStep; ++i) {
      const int row = first_row + i * kRowStep;
      opaque(src);  // one pointer walks the rows (not every row's address held at once)
      const bool valid = row < valid_rows;
      cp_async_16(column + row * 128, valid ? src : gmem, valid);
      src += step;
    }
  }
}

/// As load_rows_async, checking rows only when fewer than kRows are valid.
template <int kRows, int kCols, int kPitch, int kThreads, bool kPrefetchL2 = false>
__device__ __forceinline__ void load_valid_rows_async(unsigned smem, const u16 *src, long long row_stride,
                                                      int valid_rows, int tid) {
  if (valid_rows >= kRows)
    load_rows_async<kRows, kCols, kPitch, kThreads, false, kPrefetchL2>(smem, src, row_stride, valid_rows, tid);
  else
    load_rows_async<kRows, kCols, kPitch, kThreads, true, kPrefetchL2>(smem, src, row_stride, valid_rows, tid);
}

/// As load_rows_async for rows [row0, row0 + kRows) of a sequence of
/// `len` rows, checking rows only when the tile runs past the end.
template <int kRows, int kCols, int kPitch, int kThreads, bool kPrefetchL2 = false>
__device__ __forceinline__ void load_sequence_rows_async(unsigned smem, const u16 *sequence,
                                                         long long row_stride, int row0, int len,
                                                         int tid) {
  load_valid_rows_async<kRows, kCols, kPitch, kThreads, kPrefetchL2>(smem, sequence + row0 * row_stride,
                                                                     row_stride, len - row0, tid);
}

/// As load_rows_async for rows at arbitrary addresses: row r < valid_rows
/// is copied from row_address(r); the others are zero-filled.
template <int kRows, int kCols, int kPitch, int kThreads, class RowAddress>
__device__ __forceinline__ void load_rows_gather_async(unsigned smem, RowAddress row_address, int valid_rows,
                                                       int tid) {
  static_assert(kCols % 8 == 0, "rows are copied in 16-byte chunks");
  constexpr int kChunksPerRow = kCols / 8;
  constexpr int kChunks = kRows * kChunksPerRow;
#pragma unroll
  for (int i = 0; i < (kChunks + kThreads - 1) / kThreads; ++i) {
    const int chunk = tid + i * kThreads;
    if (kChunks % kThreads == 0 || chunk < kChunks) {
      const int row = chunk / kChunksPerRow;
      const int col = (chunk % kChunksPerRow) * 8;
      const bool valid = row < valid_rows;
      const u16 *src = valid ? row_address(row) + col : row_address(0);
      cp_async_16(smem + tile_offset<kRows, kPitch>(row, col), src, valid);
    }
  }
}

/// The first element of page page_row[index] of a paged K/V cache (the
/// index clamped into [0, num_pages): a bad table entry never reads outside
/// the cache).
__device__ __forceinline__ const u16 *page_base(const u16 *head, const int *page_row, int index,
                                                long long num_pages, long long page_stride) {
  long long page = page_row[index];
  page = page < 0 ? 0 : (page >= num_pages ? num_pages - 1 : page);
  return head + page * page_stride;
}

/// As load_sequence_rows_async for keys [row0, row0 + kRows) of a paged K/V
/// cache: key j is row j % kPageSize of page page_row[j / kPageSize] (page
/// indices clamped into [0, num_pages)), pages `page_stride` elements apart,
/// rows within a page `row_stride` apart; keys >= len are zero-filled.
/// row0 is a multiple of kRows. A tile within one page, or made of whole
/// pages (row-pitched tiles), reads each page index once; other page sizes
/// look the page up per row.
template <int kRows, int kCols, int kPitch, int kThreads, int kPageSize, bool kPrefetchL2 = false>
__device__ __forceinline__ void load_paged_rows_async(unsigned smem, const u16 *head, const int *page_row,
                                                      long long num_pages, long long page_stride,
                                                      long long row_stride, int row0, int len, int tid) {
  static_assert(kCols % 8 == 0, "rows are copied in 16-byte chunks");
  if constexpr (kPageSize % kRows == 0) {
    if (row0 >= len) {  // past the sequence: zero-filled, no table read
      load_rows_async<kRows, kCols, kPitch, kThreads, true, kPrefetchL2>(smem, head, row_stride, 0, tid);
      return;
    }
    const int index = row0 / kPageSize;
    const u16 *rows = page_base(head, page_row, index, num_pages, page_stride) +
                      static_cast<long long>(row0 - index * kPageSize) * row_stride;
    load_valid_rows_async<kRows, kCols, kPitch, kThreads, kPrefetchL2>(smem, rows, row_stride, len - row0, tid);
    return;
  } else if constexpr (kPitch > 0 && kRows % kPageSize == 0 && kPageSize * kCols / 8 >= kThreads) {
#pragma unroll
    for (int page = 0; page < kRows / kPageSize; ++page) {
      // (one checked copy: two variants per page cost registers)
      const int first = row0 + page * kPageSize;
      const u16 *rows = first < len ? page_base(head, page_row, first / kPageSize, num_pages, page_stride)
                                    : head;  // past the sequence: zero-filled, no table read
      load_rows_async<kPageSize, kCols, kPitch, kThreads, true, kPrefetchL2>(smem + page * kPageSize * kPitch * 2, rows,
                                                                row_stride, len - first, tid);
    }
    return;
  }
  constexpr int kChunksPerRow = kCols / 8;
  constexpr int kChunks = kRows * kChunksPerRow;
  opaque(row_stride);
  opaque(head);
#pragma unroll
  for (int i = 0; i < (kChunks + kThreads - 1) / kThreads; ++i) {
    const int chunk = tid + i * kThreads;
    if (kChunks % kThreads == 0 || chunk < kChunks) {
      const int row = chunk / kChunksPerRow;
      const int col = (chunk % kChunksPerRow) * 8;
      const int key = row0 + row;
      const bool valid = key < len;
      const u16 *src = head;
      if (valid)
        src = page_base(head, page_row, key / kPageSize, num_pages, page_stride) +
              (key % kPageSize) * row_stride + col;
      cp_async_16<kPrefetchL2>(smem + tile_offset<kRows, kPitch>(row, col), src, valid);
    }
  }
}

/// Issues 4-byte copies of kCount floats from global
/// memory into shared memory; entries >= valid are zero-filled.
template <int kCount, int kThreads>
__device__ __forceinline__ void load_floats_async(unsigned smem, const float *gmem, int valid,
                                                  int tid) {
  for (int i = tid; i < kCount; i += kThreads) {
    const bool ok = i < valid;
    cp_async_4(smem + i * 4, ok ? gmem + i : gmem, ok);
  }
}

/// Zeroes columns [kFrom, kTo) of rows [0, kRows) of a shared tile (the pad
/// columns that mma k-steps read but no copy writes).
template <int kRows, int kPitch, int kFrom, int kTo, int kThreads>
__device__ __forceinline__ void zero_columns(u16 *tile, int tid) {
  constexpr int kWidth = kTo - kFrom;
  if constexpr (kWidth > 0) {
    for (int i = tid; i < kRows * kWidth; i += kThreads)
      tile[(i / kWidth) * kPitch + kFrom + i % kWidth] = 0;
  }
}

} // namespace tg::device
