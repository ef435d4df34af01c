/* prelude.h: the portable dialect of libvotecl's kernels.
 *
 * Every program is composed as: sorted defines, this file, common.h, the algorithm files.
 * Kernels are written in OpenCL C 1.2 using only what this file and common.h provide beyond
 * the core language, so that the CUDA mapping below runs the same sources through NVRTC
 * (as CLBlast does). The portable subset:
 *  - KERNEL, GLOBAL, CONSTANT (file-scope tables); LOCAL declares a local array, LOCAL_PTR
 *    qualifies a pointer into one (CUDA has no address-space qualifier on pointers);
 *  - LOCAL_BARRIER() or barrier(CLK_LOCAL_MEM_FENCE), reqd_work_group_size;
 *  - get_{global,local,group}_id, get_{local,global}_size, get_num_groups;
 *  - 32-bit atomic_{inc,dec,add,sub,xchg,cmpxchg,min,max,and,or,xor};
 *  - as_{float,uint,int}, convert_uint_sat, mul_hi, mad, clz, popcount, clamp, select,
 *    min, max and the usual math functions of float and double;
 *  - the scalar typedefs and the 2- and 4-vectors of uchar, ushort, int, uint and float,
 *    whose components are read as .x .y .z .w (not .s0), never built from vector literals
 *    such as (uint4)(a, b, c, d) and never used in vector arithmetic.
 *  - helper functions are declared INLINE (below), never plain inline: OpenCL C's inline is
 *    C99's, which emits no definition, so a call the compiler does not inline is left
 *    unresolved (tools/offline-compile.py fails on them);
 *
 * Floating point: no contraction of a*b+c into fma, so that bin boundaries computed here
 * agree bit for bit with the C reference built with -ffp-contract=off (NVRTC: --fmad=false,
 * set by the CUDA backend). */
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong; /* 64 bits on the LP64 hosts CUDA runs on, as in OpenCL C */
static_assert(sizeof(ulong) == 8 && sizeof(long) == 8, "OpenCL C's long is 64 bits");

/* Only the double-underscore spellings: CUDA's own __global__ and __constant__ expand to
 * attributes named global and constant. */
#define restrict __restrict__
#define __kernel extern "C" __global__
#define __global
#define __constant __constant__
/* Only for local arrays: a __local pointer must be written LOCAL_PTR (an error otherwise,
 * never a silently private array). */
#define __local __shared__
#define KERNEL __kernel
/* Helper functions: defined in each program and always inlined (see the OpenCL side). */
#define INLINE static __forceinline__
#define GLOBAL
#define LOCAL __shared__
#define LOCAL_PTR
#define CONSTANT __constant__
/* __attribute__((reqd_work_group_size(X, Y, Z))) becomes CUDA's __launch_bounds__. */
#define reqd_work_group_size(x, y, z) launch_bounds((x) * (y) * (z))

#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()
#define LOCAL_BARRIER() __syncthreads()
#define mem_fence(flags) (((flags) & CLK_GLOBAL_MEM_FENCE) ? __threadfence() : __threadfence_block())
#define read_mem_fence(flags) mem_fence(flags)
#define write_mem_fence(flags) mem_fence(flags)

/* OpenCL's work-item functions of one dimension d read from CUDA's dim3 built-in v; a d past
 * 2 gives outside, as OpenCL defines (0 for ids, 1 for sizes). */
#define VOTECL_DIM_FUNCTION(NAME, v, outside)                                                  \
    __device__ inline size_t NAME(uint d)                                                      \
    {                                                                                          \
        return d == 0 ? v.x : d == 1 ? v.y : d == 2 ? v.z : outside;                           \
    }
VOTECL_DIM_FUNCTION(get_local_id, threadIdx, 0)
VOTECL_DIM_FUNCTION(get_group_id, blockIdx, 0)
VOTECL_DIM_FUNCTION(get_local_size, blockDim, 1)
VOTECL_DIM_FUNCTION(get_num_groups, gridDim, 1)
#undef VOTECL_DIM_FUNCTION

__device__ inline size_t
get_global_id(uint d)
{
    return get_group_id(d) * get_local_size(d) + get_local_id(d);
}

__device__ inline size_t
get_global_size(uint d)
{
    return get_num_groups(d) * get_local_size(d);
}

__device__ inline uint
get_work_dim(void)
{
    return gridDim.z * blockDim.z > 1 ? 3 : gridDim.y * blockDim.y > 1 ? 2 : 1;
}

/* 32-bit atomics on local (shared) and global words alike; OpenCL's return the old value. */
#define VOTECL_ATOMIC2(NAME, T, CALL)                                                          \
    __device__ inline T NAME(volatile T *p, T v)                                               \
    {                                                                                          \
        return CALL((T *)p, v);                                                                \
    }
VOTECL_ATOMIC2(atomic_add, uint, atomicAdd)
VOTECL_ATOMIC2(atomic_add, int, atomicAdd)
VOTECL_ATOMIC2(atomic_sub, uint, atomicSub)
VOTECL_ATOMIC2(atomic_sub, int, atomicSub)
VOTECL_ATOMIC2(atomic_xchg, uint, atomicExch)
VOTECL_ATOMIC2(atomic_xchg, int, atomicExch)
VOTECL_ATOMIC2(atomic_xchg, float, atomicExch)
VOTECL_ATOMIC2(atomic_min, uint, atomicMin)
VOTECL_ATOMIC2(atomic_min, int, atomicMin)
VOTECL_ATOMIC2(atomic_max, uint, atomicMax)
VOTECL_ATOMIC2(atomic_max, int, atomicMax)
VOTECL_ATOMIC2(atomic_and, uint, atomicAnd)
VOTECL_ATOMIC2(atomic_and, int, atomicAnd)
VOTECL_ATOMIC2(atomic_or, uint, atomicOr)
VOTECL_ATOMIC2(atomic_or, int, atomicOr)
VOTECL_ATOMIC2(atomic_xor, uint, atomicXor)
VOTECL_ATOMIC2(atomic_xor, int, atomicXor)
#undef VOTECL_ATOMIC2

/* atomic_inc and atomic_dec always step (CUDA's atomicInc wraps at a limit). */
#define VOTECL_ATOMIC_STEP(NAME, T, CALL, ONE)                                                 \
    __device__ inline T NAME(volatile T *p)                                                    \
    {                                                                                          \
        return CALL((T *)p, ONE);                                                              \
    }
VOTECL_ATOMIC_STEP(atomic_inc, uint, atomicAdd, 1u)
VOTECL_ATOMIC_STEP(atomic_inc, int, atomicAdd, 1)
VOTECL_ATOMIC_STEP(atomic_dec, uint, atomicSub, 1u)
VOTECL_ATOMIC_STEP(atomic_dec, int, atomicSub, 1)
#undef VOTECL_ATOMIC_STEP

__device__ inline uint
atomic_cmpxchg(volatile uint *p, uint cmp, uint val)
{
    return atomicCAS((uint *)p, cmp, val);
}

__device__ inline int
atomic_cmpxchg(volatile int *p, int cmp, int val)
{
    return atomicCAS((int *)p, cmp, val);
}

/* Reinterpretation and conversion: as_TO(x) for each 32-bit type TO and FROM of x (CUDA's
 * intrinsics where the bits change type). */
#define VOTECL_AS(TO, FROM, expr)                                                              \
    __device__ inline TO as_##TO(FROM x)                                                       \
    {                                                                                          \
        return expr;                                                                           \
    }
VOTECL_AS(float, uint, __uint_as_float(x))
VOTECL_AS(float, int, __int_as_float(x))
VOTECL_AS(float, float, x)
VOTECL_AS(uint, float, __float_as_uint(x))
VOTECL_AS(uint, uint, x)
VOTECL_AS(uint, int, (uint)x)
VOTECL_AS(int, float, __float_as_int(x))
VOTECL_AS(int, uint, (int)x)
VOTECL_AS(int, int, x)
#undef VOTECL_AS

/* convert_uint_sat: negative values and NaN become 0, large values 0xffffffff, floats
 * round toward zero. */
__device__ inline uint
convert_uint_sat(uint x)
{
    return x;
}

__device__ inline uint
convert_uint_sat(int x)
{
    return x < 0 ? 0u : (uint)x;
}

__device__ inline uint
convert_uint_sat(long x)
{
    return x < 0 ? 0u : x > 0xffffffffL ? 0xffffffffu : (uint)x;
}

__device__ inline uint
convert_uint_sat(ulong x)
{
    return x > 0xffffffffUL ? 0xffffffffu : (uint)x;
}

__device__ inline uint
convert_uint_sat(float x)
{
    return !(x > 0.0f) ? 0u : x >= 4294967296.0f ? 0xffffffffu : (uint)x;
}

__device__ inline uint
convert_uint_sat(double x)
{
    return !(x > 0.0) ? 0u : x >= 4294967296.0 ? 0xffffffffu : (uint)x;
}

/* Smaller integers promote to int. */
__device__ inline uint
convert_uint_sat(uchar x)
{
    return x;
}

__device__ inline uint
convert_uint_sat(ushort x)
{
    return x;
}

__device__ inline uint
convert_uint_sat(short x)
{
    return convert_uint_sat((int)x);
}

__device__ inline uint
convert_uint_sat(signed char x)
{
    return convert_uint_sat((int)x);
}

/* Integer and float built-ins. */
__device__ inline uint
mul_hi(uint a, uint b)
{
    return __umulhi(a, b);
}

__device__ inline int
mul_hi(int a, int b)
{
    return __mulhi(a, b);
}

__device__ inline ulong
mul_hi(ulong a, ulong b)
{
    return __umul64hi(a, b);
}

__device__ inline uint
clz(uint x)
{
    return (uint)__clz((int)x);
}

__device__ inline int
clz(int x)
{
    return __clz(x);
}

__device__ inline uint
popcount(uint x)
{
    return (uint)__popc(x);
}

__device__ inline int
popcount(int x)
{
    return __popc((uint)x);
}

#define VOTECL_CLAMP_SELECT(T)                                                                 \
    __device__ inline T clamp(T x, T lo, T hi)                                                 \
    {                                                                                          \
        return min(max(x, lo), hi);                                                            \
    }                                                                                          \
    __device__ inline T select(T a, T b, int c)                                                \
    {                                                                                          \
        return c ? b : a;                                                                      \
    }
VOTECL_CLAMP_SELECT(uint)
VOTECL_CLAMP_SELECT(int)
VOTECL_CLAMP_SELECT(float)
#undef VOTECL_CLAMP_SELECT

/* mad may round twice in OpenCL; here it always does (no contraction). */
#define mad(a, b, c) ((a) * (b) + (c))
#define native_recip(x) (1.0f / (x))
#define native_divide(x, y) __fdividef((x), (y))
#define native_sqrt(x) sqrtf(x)
#define native_rsqrt(x) rsqrtf(x)
#define native_exp(x) __expf(x)
#define native_log(x) __logf(x)
#define native_sin(x) __sinf(x)
#define native_cos(x) __cosf(x)

/* Warp-level helpers (NVIDIA, warps of 32; match needs sm_70, which the host's
 * VOTECL_FEATURE_WARP_MATCH says): the lanes of the calling warp, among those active, holding
 * the same value v; and this lane's index. */
#ifdef VOTECL_FEATURE_WARP_MATCH
#define VOTECL_HAS_WARP_MATCH 1
__device__ inline uint
warp_match_any(uint v)
{
    return __match_any_sync(__activemask(), v);
}
#endif

__device__ inline uint
warp_lane(void)
{
    return threadIdx.x & 31u;
}

/* Orders this thread's global writes before its later ones for every thread of the device
 * (one group publishing results to another). */
#define device_fence() __threadfence()

#else /* OpenCL C */

#pragma OPENCL FP_CONTRACT OFF

#define KERNEL __kernel
/* Helper functions: static, since OpenCL C's inline is C99's and emits no definition (a call
 * left out of line is unresolved: clang's NVPTX and AMDGPU targets leave some at -O3); always
 * inlined, since with vote.cl's local_vote_vec static but not forced inline PoCL 3.1 left
 * the local strategy's counts at 0 (tests/test-uservote's /local cases). */
#define INLINE static inline __attribute__((always_inline))
#define GLOBAL __global
#define LOCAL __local
#define LOCAL_PTR __local
#define CONSTANT __constant
#define LOCAL_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)

#if defined(VOTECL_VENDOR_NVIDIA) && defined(VOTECL_FEATURE_WARP_MATCH)
/* NVIDIA's OpenCL compiler takes inline PTX: the same warp helpers as the CUDA mapping
 * (match.any.sync needs sm_70; the plan asks for them only on such devices, and profiles
 * without the feature leave them out). Spelt __asm__: asm is no keyword of OpenCL C, and
 * clang, whose NVPTX target builds these kernels offline (tools/offline-compile.py), rejects
 * it; __asm__ is the GNU spelling reserved in every language mode. */
#define VOTECL_HAS_WARP_MATCH 1
inline uint
warp_match_any(uint v)
{
    uint mask, peers;
    __asm__ volatile("activemask.b32 %0;" : "=r"(mask));
    __asm__ volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(peers) : "r"(v), "r"(mask));
    return peers;
}

inline uint
warp_lane(void)
{
    uint lane;
    __asm__ volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
#endif

#ifdef VOTECL_VENDOR_NVIDIA
/* OpenCL 1.2's mem_fence may order only within the work-group here: a device-wide fence. */
#define device_fence() __asm__ volatile("membar.gl;" ::: "memory")
#else
#define device_fence() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

#endif

#define VOTE_SKIP 0xffffffffu
