// tensor: dtype names and sizes, shapes, and F16/BF16 conversion to F32.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

static const struct {
  tt_dtype dt;
  const char *name;
  size_t size;
} dtypes[] = {
    {TT_F32, "F32", 4},   {TT_F16, "F16", 2},         {TT_BF16, "BF16", 2},       {TT_I32, "I32", 4},
    {TT_I64, "I64", 8},   {TT_U8, "U8", 1},           {TT_F64, "F64", 8},         {TT_I8, "I8", 1},
    {TT_I16, "I16", 2},   {TT_U16, "U16", 2},         {TT_U32, "U32", 4},         {TT_U64, "U64", 8},
    {TT_BOOL, "BOOL", 1}, {TT_F8_E4M3, "F8_E4M3", 1}, {TT_F8_E5M2, "F8_E5M2", 1},
};

size_t tt_dtype_size(tt_dtype dt) {
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    if (dtypes[i].dt == dt) return dtypes[i].size;
  return 0;
}

const char *tt_dtype_name(tt_dtype dt) {
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    if (dtypes[i].dt == dt) return dtypes[i].name;
  return "?";
}

bool tt_dtype_parse(const char *name, tt_dtype *out) {
  for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
    if (strcmp(dtypes[i].name, name) == 0) {
      *out = dtypes[i].dt;
      return true;
    }
  return false;
}

int64_t tt_tensor_numel(const tt_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
  return n;
}

size_t tt_tensor_nbytes(const tt_tensor *t) {
  return (size_t)tt_tensor_numel(t) * tt_dtype_size(t->dtype);
}

const char *tt_shape_str(const int64_t *shape, int ndim, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "(");
  for (int i = 0; i < ndim && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, i ? ", %lld" : "%lld", (long long)shape[i]);
  if (used < len) snprintf(buf + used, len - used, ")");
  return buf;
}

static float bits_to_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t f32_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

float tt_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) {  // zero or subnormal: man * 2^-24
    float v = (float)man * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exp == 31) return bits_to_f32(sign | 0x7f800000u | (man << 13));  // inf or nan
  return bits_to_f32(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t tt_f32_to_f16(float f) {
  uint32_t u = f32_to_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | (abs > 0x7f800000u ? 0x7e00 : 0x7c00);  // nan, inf
  if (abs >= 0x477ff000u) return sign | 0x7c00;                                 // rounds to inf
  if (abs < 0x38800000u) {  // subnormal half: round abs/2^-24 to nearest even
    float v = bits_to_f32(abs) * 16777216.0f;
    return sign | (uint16_t)lrintf(v);
  }
  uint32_t mant = abs & 0x7fffff, exp = (abs >> 23) - 112;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
  return sign | (uint16_t)h;
}

float tt_bf16_to_f32(uint16_t b) {
  return bits_to_f32((uint32_t)b << 16);
}

void tt_convert_to_f32(float *dst, const void *src, tt_dtype dt, size_t n) {
  const unsigned char *p = src;
  switch (dt) {
  case TT_F32:
    memcpy(dst, src, n * sizeof(float));
    break;
  case TT_F16:
  case TT_BF16:
    for (size_t i = 0; i < n; i++) {
      uint16_t h;
      memcpy(&h, p + 2 * i, 2);
      dst[i] = dt == TT_F16 ? tt_f16_to_f32(h) : tt_bf16_to_f32(h);
    }
    break;
  default:
    memset(dst, 0, n * sizeof(float));
    break;
  }
}
