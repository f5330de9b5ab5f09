// element: one element of a tensor of any safetensors dtype, read as a double. Every
// reader that shows or compares tensors whose dtype it does not control goes through here.
#include <math.h>
#include <string.h>

#include "core.h"

// An 8-bit float with `man` mantissa bits and exponent bias `bias`. E4M3 (OCP FN variant,
// as safetensors' F8_E4M3) has no infinities: only S.1111.111 is NaN. E5M2 is IEEE-like.
static double f8_to_double(uint8_t v, int man, int bias, bool ieee_special) {
  int exp_bits = 7 - man;
  int sign = v >> 7, e = (v >> man) & ((1 << exp_bits) - 1), m = v & ((1 << man) - 1);
  double s = sign ? -1.0 : 1.0;
  if (ieee_special && e == (1 << exp_bits) - 1) return m ? NAN : s * INFINITY;
  if (!ieee_special && e == (1 << exp_bits) - 1 && m == (1 << man) - 1) return NAN;
  if (e == 0) return s * ldexp((double)m, 1 - bias - man);
  return s * ldexp((double)((1 << man) | m), e - bias - man);
}

double tt_tensor_get(const tt_tensor *t, int64_t i) {
  const unsigned char *p = (const unsigned char *)t->data + (size_t)i * tt_dtype_size(t->dtype);
  union {
    float f;
    double d;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
  } u;
  memcpy(&u, p, tt_dtype_size(t->dtype));  // the data may be unaligned
  switch (t->dtype) {
  case TT_F32:
    return u.f;
  case TT_F64:
    return u.d;
  case TT_F16:
    return tt_f16_to_f32(u.u16);
  case TT_BF16:
    return tt_bf16_to_f32(u.u16);
  case TT_I8:
    return u.i8;
  case TT_I16:
    return u.i16;
  case TT_I32:
    return u.i32;
  case TT_I64:
    return (double)u.i64;
  case TT_U8:
    return u.u8;
  case TT_U16:
    return u.u16;
  case TT_U32:
    return u.u32;
  case TT_U64:
    return (double)u.u64;
  case TT_BOOL:
    return u.u8 ? 1.0 : 0.0;
  case TT_F8_E4M3:
    return f8_to_double(u.u8, 3, 7, false);
  case TT_F8_E5M2:
    return f8_to_double(u.u8, 2, 15, true);
  }
  return NAN;
}

bool tt_dtype_is_integer(tt_dtype dt) {
  switch (dt) {
  case TT_I8:
  case TT_I16:
  case TT_I32:
  case TT_I64:
  case TT_U8:
  case TT_U16:
  case TT_U32:
  case TT_U64:
  case TT_BOOL:
    return true;
  default:
    return false;
  }
}
