/*===- comprehend.h - The installed C API of Comprehend -------------------===*
 *
 * Tensor Comprehensions compiled for and run on an OpenCL (or CUDA) device,
 * through opaque handles and status codes. This header and comprehend.hpp
 * (a header-only C++ wrapper over it) are all that `cmake --install` puts
 * under include/: a program that uses them needs no LLVM, isl or OpenCL
 * header, and libcomprehend.so keeps its C ABI while the compiler behind it
 * changes (docs/design.md, "The installed API").
 *
 *   comprehend_device_t device;
 *   comprehend_def_t def;
 *   comprehend_device_create(&device, "");          // the default device
 *   comprehend_def_create(&def, device, source, "mm", NULL);
 *   comprehend_tensor in[2] = {{a, COMPREHEND_F32, 2, a_shape}, ...};
 *   comprehend_tensor out[1] = {{c, COMPREHEND_F32, 2, c_shape}};
 *   if (comprehend_def_call(def, 2, in, 1, out) != COMPREHEND_SUCCESS)
 *     fprintf(stderr, "%s\n", comprehend_last_error());
 *
 * Tensors are dense, in C (row-major) order of their TC shape. A def is
 * compiled for the sizes its inputs' shapes bind, on first use of those
 * sizes, and kept for later calls at the same sizes. A def handle is used by
 * one thread at a time; separate handles may be used concurrently.
 *
 *===----------------------------------------------------------------------===*/
#ifndef COMPREHEND_COMPREHEND_H
#define COMPREHEND_COMPREHEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define COMPREHEND_EXPORT __attribute__((visibility("default")))
#else
#define COMPREHEND_EXPORT
#endif

typedef enum comprehend_status {
  COMPREHEND_SUCCESS = 0,
  /** A null handle or pointer, a negative extent, an index out of range. */
  COMPREHEND_INVALID_ARGUMENT = 1,
  /** The TC source or the tensors do not fit (a syntax error, an unknown
   *  def, a shape or dtype that disagrees with the def's signature). */
  COMPREHEND_INPUT_ERROR = 2,
  /** The device, its driver or the runtime failed. */
  COMPREHEND_DEVICE_ERROR = 3,
  /** Anything else (out of memory, an internal error). */
  COMPREHEND_INTERNAL_ERROR = 4
} comprehend_status;

/** The element types a def's tensors may have (TC float, double, int32,
 *  int64). */
typedef enum comprehend_dtype {
  COMPREHEND_F32 = 0,
  COMPREHEND_F64 = 1,
  COMPREHEND_I32 = 2,
  COMPREHEND_I64 = 3
} comprehend_dtype;

/** One tensor argument: `shape` has `rank` extents (TC order); `data` holds
 *  their product of elements in C order. */
typedef struct comprehend_tensor {
  void *data;
  comprehend_dtype dtype;
  int32_t rank;
  const int64_t *shape;
} comprehend_tensor;

typedef struct comprehend_device_impl *comprehend_device_t;
typedef struct comprehend_def_impl *comprehend_def_t;

/** The message of the last failed call on this thread ("" when none): for
 *  TC source errors the located diagnostics (`name:line:col: error: ...`,
 *  source line and caret). Valid until this thread's next failing call. */
COMPREHEND_EXPORT const char *comprehend_last_error(void);
/** "success", "invalid argument", "input error", ... */
COMPREHEND_EXPORT const char *comprehend_status_name(comprehend_status status);
/** Bytes of one element of `dtype` (0 for an unknown value). */
COMPREHEND_EXPORT size_t comprehend_dtype_size(comprehend_dtype dtype);

/** Opens the device `spec` selects: "" (or NULL) the COMPREHEND_DEVICE
 *  environment variable, else the first device that runs our kernels; a
 *  decimal index; a platform with an optional index ("cuda", "opencl:0");
 *  or a case-insensitive substring of "platform / device". */
COMPREHEND_EXPORT comprehend_status
comprehend_device_create(comprehend_device_t *device, const char *spec);
/** The device's name; valid while the device lives. */
COMPREHEND_EXPORT comprehend_status
comprehend_device_name(comprehend_device_t device, const char **name);
/** Releases the handle; defs created on it keep the device open. NULL is
 *  ignored. */
COMPREHEND_EXPORT void comprehend_device_release(comprehend_device_t device);

/** Parses and checks TC `source` (named `name` in messages; NULL:
 *  "<string>") and selects def `entry`. `cache_path` is the tuning cache
 *  that compilations read and comprehend_def_tune writes (NULL or "": the
 *  default cache of `comprehend tune`). */
COMPREHEND_EXPORT comprehend_status comprehend_def_create(
    comprehend_def_t *def, comprehend_device_t device, const char *source,
    const char *name, const char *entry, const char *cache_path);
COMPREHEND_EXPORT void comprehend_def_release(comprehend_def_t def);
/** Numbers of the def's inputs and outputs. */
COMPREHEND_EXPORT comprehend_status comprehend_def_arity(comprehend_def_t def,
                                                         size_t *num_inputs,
                                                         size_t *num_outputs);

/** The dtype, rank and shape of output `index` when the def is called with
 *  inputs of these dtypes and shapes (their `data` is not read; this
 *  compiles the def at those sizes). `shape` has room for `capacity`
 *  extents; with a null `shape` only the dtype and rank are returned.
 *  `dtype` and `rank` may be null. */
COMPREHEND_EXPORT comprehend_status comprehend_def_output(
    comprehend_def_t def, size_t num_inputs, const comprehend_tensor *inputs,
    size_t index, comprehend_dtype *dtype, int32_t *rank, int64_t *shape,
    int32_t capacity);

/** One call: reads the inputs, writes the outputs (whose dtypes and shapes
 *  must be those comprehend_def_output gives). An output that the def
 *  reads before writing it (`+=` without `!`) holds its incoming value on
 *  entry. Returns when the outputs are written. */
COMPREHEND_EXPORT comprehend_status comprehend_def_call(
    comprehend_def_t def, size_t num_inputs, const comprehend_tensor *inputs,
    size_t num_outputs, const comprehend_tensor *outputs);

/** Tunes the def at the sizes of these inputs for at most `budget_seconds`
 *  (<= 0: the default budget of `comprehend tune`), stores the best
 *  configuration in the def's tuning cache and uses it for later calls at
 *  those sizes. `best_ms` and `default_ms` (either may be NULL) receive the
 *  kernel times of the best and the default configuration. */
COMPREHEND_EXPORT comprehend_status comprehend_def_tune(
    comprehend_def_t def, size_t num_inputs, const comprehend_tensor *inputs,
    double budget_seconds, double *best_ms, double *default_ms);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* COMPREHEND_COMPREHEND_H */
