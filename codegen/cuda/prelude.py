"""The CUDA C text every generated module starts with: float16 conversions, inf/NaN constants,
the reduction combiners and the warp-shuffle block reduction.

Defining ``MSJIT_HOST_EMULATION`` turns the same text into host C++ (tests compile generated
kernels with the host compiler and run them one thread per block, or every thread of a block as
a fiber for cooperative kernels, see tests/codegen): CUDA's qualifiers become no-ops, the index
variables are the harness's globals, a block reduction of one thread is that thread's value, and
``__syncthreads()`` calls the harness (a barrier: it switches to the block's next fiber).
Everything else - every kernel body, index decoding and accumulation - is the same text on both
sides.

Example:
    >>> "msjit_block_reduce" in PRELUDE
    True
"""
from __future__ import annotations

PRELUDE = r"""// ---- msjit CUDA prelude ----
#ifdef MSJIT_HOST_EMULATION
#include <math.h>
#include <string.h>
struct msjit_dim3 { unsigned x, y, z; };
extern msjit_dim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __shared__ static
/* the harness runs cooperative kernels' blocks thread by thread as fibers: a barrier switches
   to the next thread; one thread per block (the other kernels): nothing to wait for */
void msjit_host_syncthreads();
#define __syncthreads() msjit_host_syncthreads()
static inline float msjit_bits_f(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline double msjit_bits_d(unsigned long long u) { double d; memcpy(&d, &u, 8); return d; }
#define MSJIT_INF_F msjit_bits_f(0x7f800000u)
#define MSJIT_NAN_F msjit_bits_f(0x7fc00000u)
#define MSJIT_INF_D msjit_bits_d(0x7ff0000000000000ull)
#define MSJIT_NAN_D msjit_bits_d(0x7ff8000000000000ull)
static inline float msjit_h2f(unsigned short h) {
  unsigned sign = (unsigned)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0x1fu) bits = sign | 0x7f800000u | (man << 13);
  else if (exp != 0) bits = sign | ((exp + 112u) << 23) | (man << 13);
  else if (man == 0) bits = sign;
  else {  /* subnormal: normalise */
    int e = -1;
    do { man <<= 1; ++e; } while (!(man & 0x400u));
    bits = sign | ((unsigned)(112 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float f; memcpy(&f, &bits, 4); return f;
}
static inline unsigned short msjit_f2h(float f) {  /* round to nearest even, as cvt.rn.f16.f32 */
  unsigned x; memcpy(&x, &f, 4);
  unsigned sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (unsigned short)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0));
  if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  /* rounds to inf */
  if (ax < 0x38800000u) {  /* subnormal or zero in half */
    if (ax < 0x33000000u) return (unsigned short)sign;
    unsigned e = ax >> 23, man = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e;
    unsigned h = man >> shift, rem = man & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return (unsigned short)(sign | h);
  }
  unsigned h = ((ax - 0x38000000u) >> 13), rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (unsigned short)(sign | h);
}
static inline unsigned short msjit_d2h(double d) {  /* one rounding: round to odd into float first */
  float r = (float)d;
  if ((double)r != d && d == d) {
    unsigned u; memcpy(&u, &r, 4);
    if (fabs((double)r) > fabs(d)) --u;
    u |= 1u;
    memcpy(&r, &u, 4);
  }
  return msjit_f2h(r);
}
/* one thread per block: the block's value is that thread's */
template <typename T, typename Op> static inline T msjit_block_reduce(T v, T, Op, T*) { return v; }
#else
#define MSJIT_INF_F __int_as_float(0x7f800000)
#define MSJIT_NAN_F __int_as_float(0x7fc00000)
#define MSJIT_INF_D __longlong_as_double(0x7ff0000000000000LL)
#define MSJIT_NAN_D __longlong_as_double(0x7ff8000000000000LL)
__device__ __forceinline__ float msjit_h2f(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
__device__ __forceinline__ unsigned short msjit_f2h(float f) {
  unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
__device__ __forceinline__ unsigned short msjit_d2h(double d) {
  unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h;
}
/* shuffles move 32- and 64-bit values; narrower accumulators travel as int */
template <typename T> __device__ __forceinline__ T msjit_shfl_down(T v, int off) {
  return __shfl_down_sync(0xffffffffu, v, off);
}
template <> __device__ __forceinline__ bool msjit_shfl_down<bool>(bool v, int off) {
  return __shfl_down_sync(0xffffffffu, (int)v, off) != 0;
}
template <> __device__ __forceinline__ signed char msjit_shfl_down<signed char>(signed char v, int off) {
  return (signed char)__shfl_down_sync(0xffffffffu, (int)v, off);
}
template <> __device__ __forceinline__ unsigned char msjit_shfl_down<unsigned char>(unsigned char v, int off) {
  return (unsigned char)__shfl_down_sync(0xffffffffu, (int)v, off);
}
template <> __device__ __forceinline__ short msjit_shfl_down<short>(short v, int off) {
  return (short)__shfl_down_sync(0xffffffffu, (int)v, off);
}
/* The block's combined value, valid in thread 0. Every thread of the block must call it (no
   early exit), blockDim.x a multiple of 32; smem holds one value per warp. */
template <typename T, typename Op>
__device__ __forceinline__ T msjit_block_reduce(T v, T identity, Op op, T* smem) {
  for (int off = 16; off > 0; off >>= 1) v = op(v, msjit_shfl_down(v, off));
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < nwarps ? smem[lane] : identity;
    for (int off = 16; off > 0; off >>= 1) v = op(v, msjit_shfl_down(v, off));
  }
  __syncthreads();  /* smem is reused by the block's next output */
  return v;
}
#endif
/* integer x ** e as numpy: square-and-multiply, wrapping (in the unsigned type U, at least 32
   bits, so no signed overflow); a negative e gives what 1 / x**-e truncates to */
template <typename T, typename U> __device__ __forceinline__ T msjit_ipow(T x, T e) {
  if (e < (T)0) return x == (T)1 ? (T)1 : (x == (T)-1 ? ((e & (T)1) ? (T)-1 : (T)1) : (T)0);
  U acc = 1u, base = (U)x;
  while (e != (T)0) { if (e & (T)1) acc = acc * base; base = base * base; e = (T)(e >> 1); }
  return (T)acc;
}
struct MsjitAdd { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return (T)(a + b); } };
struct MsjitMul { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return (T)(a * b); } };
/* NaN wins, as numpy's maximum/minimum (fmaxf/fminf would drop it) */
struct MsjitMax { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return (a > b || a != a) ? a : b; } };
struct MsjitMin { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return (a < b || a != a) ? a : b; } };
// ---- end of prelude ----
"""

#: reduction kind -> combiner functor of the prelude
COMBINERS = {"add": "MsjitAdd", "mul": "MsjitMul", "max": "MsjitMax", "min": "MsjitMin"}
