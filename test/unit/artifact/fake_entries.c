/* A stand-in for compiled native code, for the runtime's tests: entries
 * written by hand against the calling convention of docs/abi.md, for the
 * manifest built in ArtifactTestUtil.cpp (generics K = 4; parameter `bias`
 * f32[4]; state `acc` f32[4]). Each entry reads its slots in ABI order:
 * results block, dims, parameters, state, arguments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { void *allocated; void *aligned; int64_t offset; } Desc0;
typedef struct { void *allocated; void *aligned; int64_t offset; int64_t sizes[1]; int64_t strides[1]; } Desc1;
typedef struct { void *allocated; void *aligned; int64_t offset; int64_t sizes[2]; int64_t strides[2]; } Desc2;

#define EXPORT __attribute__((visibility("default")))

/* add<N>(x f32[N, K]) -> f32[N, K]: x + bias per row. The result is stored
 * transposed (strides {1, N}) at offset 1 from an aligned pointer that is
 * not the allocated one, so the runtime must read through the strides and
 * free `allocated`. */
EXPORT void linnet_entry_add(void **slots) {
  Desc2 *result = (Desc2 *)slots[0];
  int64_t n = *(int64_t *)slots[1];
  Desc1 *bias = (Desc1 *)slots[2];
  Desc2 *x = (Desc2 *)slots[4];
  const int64_t k = 4;
  char *block = malloc((size_t)(n * k + 1) * sizeof(float) + 16);
  float *data = (float *)(block + 16);
  const float *b = (const float *)bias->aligned;
  const float *xs = (const float *)x->aligned;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j)
      data[1 + j * n + i] = xs[x->offset + i * x->strides[0] + j * x->strides[1]] + b[j];
  result->allocated = block;
  result->aligned = data;
  result->offset = 1;
  result->sizes[0] = n;
  result->sizes[1] = k;
  result->strides[0] = 1;
  result->strides[1] = n;
}

/* accumulate(v f32[K]) -> (f32[K], i64[]): acc += v (state "write");
 * returns acc and the truncated sum of acc. */
EXPORT void linnet_entry_accumulate(void **slots) {
  Desc1 *results = (Desc1 *)slots[0];
  Desc0 *total = (Desc0 *)((int64_t *)slots[0] + 5);
  Desc1 *acc = (Desc1 *)slots[2];
  Desc1 *v = (Desc1 *)slots[3];
  float *a = (float *)acc->aligned;
  const float *vs = (const float *)v->aligned;
  float *copy = malloc(4 * sizeof(float));
  double sum = 0;
  for (int j = 0; j < 4; ++j) {
    a[j] += vs[j];
    copy[j] = a[j];
    sum += a[j];
  }
  results->allocated = results->aligned = copy;
  results->offset = 0;
  results->sizes[0] = 4;
  results->strides[0] = 1;
  int64_t *t = malloc(sizeof(int64_t));
  *t = (int64_t)sum;
  total->allocated = total->aligned = t;
  total->offset = 0;
}

/* pick<B, S>(tokens i32[B, S], pos i64[]) -> i32[B]: tokens[b][S-1] + pos. */
EXPORT void linnet_entry_pick(void **slots) {
  Desc1 *result = (Desc1 *)slots[0];
  int64_t b = *(int64_t *)slots[1];
  int64_t s = *(int64_t *)slots[2];
  Desc2 *tokens = (Desc2 *)slots[5];
  Desc0 *pos = (Desc0 *)slots[6];
  int32_t *out = malloc((size_t)(b ? b : 1) * sizeof(int32_t));
  const int32_t *t = (const int32_t *)tokens->aligned;
  int64_t p = *(const int64_t *)pos->aligned;
  for (int64_t i = 0; i < b; ++i)
    out[i] = t[i * s + s - 1] + (int32_t)p;
  result->allocated = result->aligned = out;
  result->offset = 0;
  result->sizes[0] = b;
  result->strides[0] = 1;
}

/* iota<Steps>(start f32[]) -> f32[Steps * 2]: start, start + 1, ... */
EXPORT void linnet_entry_iota(void **slots) {
  Desc1 *result = (Desc1 *)slots[0];
  int64_t steps = *(int64_t *)slots[1];
  Desc0 *start = (Desc0 *)slots[4];
  float s = *(const float *)start->aligned;
  float *out = malloc((size_t)(steps * 2 + 1) * sizeof(float));
  for (int64_t i = 0; i < steps * 2; ++i)
    out[i] = s + (float)i;
  result->allocated = result->aligned = out;
  result->offset = 0;
  result->sizes[0] = steps * 2;
  result->strides[0] = 1;
}

/* poke() -> nothing: acc[0] = 42 (no results, no arguments). */
EXPORT void linnet_entry_poke(void **slots) {
  Desc1 *acc = (Desc1 *)slots[1];
  ((float *)acc->aligned)[0] = 42.0f;
}

/* wrong_shape() -> f32[2] but returns 3 elements: the runtime must reject
 * the result and still free it. */
EXPORT void linnet_entry_wrong_shape(void **slots) {
  Desc1 *result = (Desc1 *)slots[0];
  float *out = calloc(3, sizeof(float));
  result->allocated = result->aligned = out;
  result->offset = 0;
  result->sizes[0] = 3;
  result->strides[0] = 1;
}
