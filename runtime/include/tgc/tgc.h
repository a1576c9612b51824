/* The tgc C API (docs/api.md): load a compiled plan, run it on a CUDA
 * stream, get errors as status codes plus a thread-local message. For FFI
 * from Python and other languages.
 *
 * Libraries:
 *   libtgc_runtime  everything here except tgc_compile_file/_string (no MLIR)
 *   libtgc          the full library (runtime + the MLIR compiler), which
 *                   also implements tgc_compile_file and tgc_compile_string
 *
 * Thread safety: every function may be called from any thread; one
 * executable may run on several threads/streams at once. An executable must
 * not be destroyed while another thread uses it. */
#ifndef TGC_TGC_H
#define TGC_TGC_H

#include "tgc/Version.h"

#include <stddef.h>
#include <stdint.h>

/* The API is exported; the rest of the library is built with hidden
 * visibility (cmake/TgcSharedLibrary.cmake). */
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/* Values match tgc::StatusCode and never change. */
typedef enum tgc_status {
  TGC_SUCCESS = 0,
  TGC_ERROR_INVALID_ARGUMENT = 1, /* null pointer or bad value passed in */
  TGC_ERROR_INVALID_PLAN = 2,     /* plan file corrupt, unknown version, ... */
  TGC_ERROR_IO = 3,               /* a file could not be read or written */
  TGC_ERROR_COMPILE = 4,          /* NVRTC (or the graph compiler) failed */
  TGC_ERROR_NO_DRIVER = 5,        /* no libcuda.so.1 or no usable device */
  TGC_ERROR_CUDA = 6,             /* a CUDA driver call failed */
  TGC_ERROR_UNSUPPORTED = 7,      /* e.g. no kernel variant for this GPU */
  TGC_ERROR_BINDING = 8,          /* unknown/missing/duplicate/mismatched */
  TGC_ERROR_MISALIGNED = 9,       /* pointer lacks the required alignment */
  TGC_ERROR_WORKSPACE_TOO_SMALL = 10,
  TGC_ERROR_OUT_OF_MEMORY = 11,
  TGC_ERROR_INTERNAL = 12
} tgc_status_t;

/* Values match tgc::DType. */
typedef enum tgc_dtype {
  TGC_DTYPE_UNSPECIFIED = 0, /* in a binding: do not check */
  TGC_DTYPE_BF16 = 1,
  TGC_DTYPE_F16 = 2,
  TGC_DTYPE_F32 = 3,
  TGC_DTYPE_F8E4M3FN = 4,
  TGC_DTYPE_F8E5M2 = 5,
  TGC_DTYPE_I8 = 6,
  TGC_DTYPE_I32 = 7,
  TGC_DTYPE_I64 = 8,
  TGC_DTYPE_I1 = 9, /* one byte per element */
  TGC_DTYPE_I4 = 10 /* two per byte, element i in byte i / 2, low nibble first */
} tgc_dtype_t;

typedef enum tgc_buffer_role {
  TGC_BUFFER_INPUT = 0,
  TGC_BUFFER_OUTPUT = 1,
  TGC_BUFFER_INTERMEDIATE = 2
} tgc_buffer_role_t;

/* A CUstream or cudaStream_t; NULL is the legacy default stream of the
 * current context (with no current context: of the primary context of the
 * device that holds the bound buffers; docs/api.md, Contexts). */
typedef struct CUstream_st *tgc_stream_t;

typedef struct tgc_executable tgc_executable_t;

/* One graph input or output bound to device memory. Zero-initialise and set
 * name and data; the other fields are optional checks. */
typedef struct tgc_binding {
  const char *name;
  void *data;              /* device pointer */
  tgc_dtype_t dtype;       /* TGC_DTYPE_UNSPECIFIED: not checked */
  int32_t rank;            /* used only when shape is not NULL */
  const int64_t *shape;    /* NULL: shape not checked */
  const int64_t *strides;  /* NULL: not checked; else rank entries (elements) */
} tgc_binding_t;

/* A buffer of a loaded plan; pointers stay valid while the executable lives. */
typedef struct tgc_buffer_info {
  const char *name;
  tgc_buffer_role_t role;
  tgc_dtype_t dtype;
  int32_t rank;
  const int64_t *shape;
  const int64_t *strides;  /* elements */
  uint64_t bytes;          /* span the allocation must cover */
  uint32_t alignment;      /* bytes the pointer must be aligned to */
} tgc_buffer_info_t;

typedef struct tgc_cache_stats {
  uint64_t memory_hits;
  uint64_t disk_hits;
  uint64_t compiles;
  uint64_t corrupt_entries;     /* disk entries rejected and rebuilt */
  uint64_t disk_write_failures;
  double compile_seconds;       /* total NVRTC time (cold) */
  double disk_load_seconds;     /* total disk-cache load time (warm) */
} tgc_cache_stats_t;

/* The version of the loaded library: "MAJOR.MINOR.PATCH+COMMIT", e.g.
 * "0.1.0+51ca718e0c2b" ("+unknown" when built without git information). The
 * headers' own version is TGC_VERSION_STRING (tgc/Version.h). Static
 * storage; does not change tgc_last_error(). */
const char *tgc_version(void);

/* The message of the last tgc_* call on this thread: "" after a success.
 * Valid until the next tgc_* call on this thread. */
const char *tgc_last_error(void);
/* A short name for a status, e.g. "binding error". */
const char *tgc_status_name(tgc_status_t status);

/* Loads and validates a plan file (tg-compile -o x.plan). Needs no GPU. */
tgc_status_t tgc_executable_load_plan(const char *path, tgc_executable_t **out);
/* Same, from plan text in memory. */
tgc_status_t tgc_executable_load_plan_string(const char *text, size_t size,
                                             tgc_executable_t **out);
/* NULL is allowed. */
void tgc_executable_destroy(tgc_executable_t *exe);

tgc_status_t tgc_executable_workspace_size(const tgc_executable_t *exe,
                                           uint64_t *bytes);
tgc_status_t tgc_executable_num_buffers(const tgc_executable_t *exe,
                                        size_t *count);
tgc_status_t tgc_executable_buffer_info(const tgc_executable_t *exe,
                                        size_t index, tgc_buffer_info_t *info);

/* Compiles and loads the kernels for the stream's context now instead of on
 * the first run. */
tgc_status_t tgc_executable_prepare(tgc_executable_t *exe, tgc_stream_t stream);

/* What runs each step in the stream's context, preparing it there first:
 * one line per step, e.g. "step 0: cudnn: graph 'g' engine 7 (...)" or
 * "step 1: nvrtc: kernel 'k' (sm_90), fallback: <why not cuDNN>". *text
 * stays valid until the next tgc_* call on this thread. */
tgc_status_t tgc_executable_describe(tgc_executable_t *exe, tgc_stream_t stream,
                                     const char **text);

/* Enqueues the plan on `stream`; returns without synchronising. Uses a
 * workspace the executable allocates once per context. */
tgc_status_t tgc_run(tgc_executable_t *exe, const tgc_binding_t *bindings,
                     size_t num_bindings, tgc_stream_t stream);
/* Same with a caller-supplied workspace of at least
 * tgc_executable_workspace_size() bytes (NULL/0 when that is 0). */
tgc_status_t tgc_run_with_workspace(tgc_executable_t *exe,
                                    const tgc_binding_t *bindings,
                                    size_t num_bindings, void *workspace,
                                    uint64_t workspace_bytes,
                                    tgc_stream_t stream);

/* Process-wide kernel cache statistics. */
tgc_status_t tgc_cache_stats(tgc_cache_stats_t *stats);

/* Compile a tg graph (.mlir) into an executable. Implemented in libtgc (the
 * full library with the MLIR compiler), not in libtgc_runtime. `options` is
 * a tg-compile style option string (e.g. "--arch=sm_90a") or NULL. */
tgc_status_t tgc_compile_file(const char *path, const char *options,
                              tgc_executable_t **out);
tgc_status_t tgc_compile_string(const char *source, size_t size,
                                const char *options, tgc_executable_t **out);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* TGC_TGC_H */
