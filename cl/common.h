/* common.h: device helpers shared by every kernel file.
 *
 * Atomics used: atomic_inc, atomic_add and atomic_cmpxchg on 32-bit local and global words
 * (core in OpenCL 1.1 and later). Float accumulation uses a compare-and-swap loop, since
 * OpenCL C 1.2 has no atomic float add. */

inline void
atomic_add_float_local(volatile __local uint *p, float v)
{
    uint old = *p, assumed;
    do {
        assumed = old;
        old = atomic_cmpxchg(p, assumed, as_uint(as_float(assumed) + v));
    } while (old != assumed);
}

inline void
atomic_add_float_global(volatile __global uint *p, float v)
{
    uint old = *p, assumed;
    do {
        assumed = old;
        old = atomic_cmpxchg(p, assumed, as_uint(as_float(assumed) + v));
    } while (old != assumed);
}
