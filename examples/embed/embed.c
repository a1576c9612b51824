/* Embedding tgc through its C API: load a compiled plan, bind device
 * buffers by name, run on a CUDA stream, check the result.
 *
 *   build/bin/tgc-embed-example [plan]
 *
 * Without an argument it runs the bundled square.plan, which computes
 * y = (2x - 1)^2 for 4096 floats, and checks y on the host. With another
 * plan it fills every input with small values and prints each output's
 * first elements.
 *
 * Loading and checking the plan needs no GPU. Without one (no driver, or no
 * device) it says so and exits with 77, the conventional "skipped" status,
 * instead of failing in its first CUDA call. */
#include "tgc/tgc.h"

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BUFFERS 64
#define EXIT_SKIPPED 77

static int fail(const char *what) {
  fprintf(stderr, "embed: %s: %s\n", what, tgc_last_error());
  return 1;
}

static int cudaFail(const char *what, cudaError_t error) {
  fprintf(stderr, "embed: %s: %s\n", what, cudaGetErrorString(error));
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : TGC_EXAMPLE_PLAN;
  int bundled = argc <= 1;

  printf("tgc %s (headers %s)\n", tgc_version(), TGC_VERSION_STRING);
  tgc_executable_t *exe = NULL;
  if (tgc_executable_load_plan(path, &exe) != TGC_SUCCESS)
    return fail("loading the plan");

  size_t count = 0;
  tgc_executable_num_buffers(exe, &count);
  printf("loaded %s: %zu buffers\n", path, count);
  if (count > MAX_BUFFERS)
    count = MAX_BUFFERS;

  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    printf("embed: no GPU here (%s): the plan is loaded and checked; running "
           "it needs a CUDA device. Skipped.\n",
           err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device");
    tgc_executable_destroy(exe);
    return EXIT_SKIPPED;
  }

  /* One device allocation per input/output, inputs filled from the host. */
  tgc_binding_t bindings[MAX_BUFFERS];
  void *host[MAX_BUFFERS];
  tgc_buffer_info_t infos[MAX_BUFFERS];
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    tgc_buffer_info_t info;
    tgc_executable_buffer_info(exe, i, &info);
    if (info.role == TGC_BUFFER_INTERMEDIATE)
      continue;
    void *device = NULL;
    size_t bytes = info.bytes ? info.bytes : 1;
    if ((err = cudaMalloc(&device, bytes)) != cudaSuccess)
      return cudaFail("cudaMalloc", err);
    host[n] = calloc(1, bytes);
    if (info.role == TGC_BUFFER_INPUT) {
      if (info.dtype == TGC_DTYPE_F32)
        for (size_t e = 0; e < bytes / 4; ++e)
          ((float *)host[n])[e] = (float)(e % 17) * 0.25f;
      if ((err = cudaMemcpy(device, host[n], bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
        return cudaFail("cudaMemcpy", err);
    }
    memset(&bindings[n], 0, sizeof(bindings[n]));
    bindings[n].name = info.name;
    bindings[n].data = device;
    bindings[n].dtype = info.dtype; /* optional checks */
    bindings[n].rank = info.rank;
    bindings[n].shape = info.shape;
    infos[n] = info;
    ++n;
  }

  cudaStream_t stream;
  if ((err = cudaStreamCreate(&stream)) != cudaSuccess)
    return cudaFail("cudaStreamCreate", err);
  /* cudaStream_t and tgc_stream_t are the same type. */
  if (tgc_run(exe, bindings, n, stream) != TGC_SUCCESS)
    return fail("running the plan");
  if ((err = cudaStreamSynchronize(stream)) != cudaSuccess)
    return cudaFail("cudaStreamSynchronize", err);

  int wrong = 0;
  for (size_t b = 0; b < n; ++b) {
    if (infos[b].role != TGC_BUFFER_OUTPUT)
      continue;
    cudaMemcpy(host[b], bindings[b].data, infos[b].bytes, cudaMemcpyDeviceToHost);
    printf("%s:", infos[b].name);
    for (size_t e = 0; e < 4 && infos[b].dtype == TGC_DTYPE_F32 && e < infos[b].bytes / 4; ++e)
      printf(" %g", ((float *)host[b])[e]);
    printf(" ...\n");
  }
  if (bundled) {
    /* square.plan: inputs x, output y = (2x - 1)^2. */
    const float *x = (const float *)host[0], *y = (const float *)host[1];
    for (size_t e = 0; e < infos[0].bytes / 4; ++e) {
      float t = 2.0f * x[e] - 1.0f;
      wrong += y[e] != t * t;
    }
    printf("%s: %d wrong elements\n", wrong ? "FAILED" : "OK", wrong);
  }

  tgc_cache_stats_t stats;
  tgc_cache_stats(&stats);
  printf("kernel cache: %llu compiled (%.1f ms), %llu from disk (%.2f ms)\n",
         (unsigned long long)stats.compiles, stats.compile_seconds * 1e3,
         (unsigned long long)stats.disk_hits, stats.disk_load_seconds * 1e3);

  for (size_t b = 0; b < n; ++b) {
    cudaFree(bindings[b].data);
    free(host[b]);
  }
  cudaStreamDestroy(stream);
  tgc_executable_destroy(exe);
  return wrong ? 1 : 0;
}
