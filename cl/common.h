/* common.h: device helpers shared by every kernel file.
 *
 * Atomics used: atomic_inc, atomic_add and atomic_cmpxchg on 32-bit local and global words
 * (core in OpenCL 1.1 and later). Float accumulation uses a compare-and-swap loop, since
 * OpenCL C 1.2 has no atomic float add. */

INLINE void
atomic_add_float_local(volatile LOCAL_PTR uint *p, float v)
{
    uint old = *p, assumed;
    do {
        assumed = old;
        old = atomic_cmpxchg(p, assumed, as_uint(as_float(assumed) + v));
    } while (old != assumed);
}

INLINE void
atomic_add_float_global(volatile GLOBAL uint *p, float v)
{
    uint old = *p, assumed;
    do {
        assumed = old;
        old = atomic_cmpxchg(p, assumed, as_uint(as_float(assumed) + v));
    } while (old != assumed);
}

/* The vote type of the engine (VOTE_KIND: 0 unity, 1 u32 number votes, 2 f32 number votes)
 * and its bits in a 32-bit bin word. */
#ifdef VOTE_KIND
#if VOTE_KIND == 2
#define VOTE_T float
#define VOTE_ONE 1.0f
#define VOTE_WORD(v) as_uint(v)
#else
#define VOTE_T uint
#define VOTE_ONE 1u
#define VOTE_WORD(v) (v)
#endif
#endif

/* Packed image locations of the generic engine: x | y << 16. */
INLINE uint
vote_x(uint index)
{
    return index & 0xffffu;
}

INLINE uint
vote_y(uint index)
{
    return index >> 16;
}

/* Inclusive prefix sum of one value per work-item over a group of wg items (Hillis-Steele;
 * wg the work-group size); returns the item's sum, *total the group's.
 * tmp holds wg words; every work-item must call it (barriers inside). */
INLINE uint
group_scan(LOCAL_PTR uint *tmp, uint lid, uint wg, uint value, uint *total)
{
    tmp[lid] = value;
    LOCAL_BARRIER();
    for (uint offset = 1; offset < wg; offset <<= 1) {
        uint add = lid >= offset ? tmp[lid - offset] : 0;
        LOCAL_BARRIER();
        tmp[lid] += add;
        LOCAL_BARRIER();
    }
    uint result = tmp[lid];
    *total = tmp[wg - 1];
    LOCAL_BARRIER();
    return result;
}

/* The 3x3 Sobel, the one every kernel uses (votecl__sobel3 of lib/edges-private.h):
 * gx = [-1 0 1; -2 0 2; -1 0 1], gy its transpose, y down, at column x of the rows r0 (above),
 * r1 and r2 (below), of any element type and address space. Expressions, so a u8 row is
 * summed in int and a float row in float, always in this order (float sums equal bit for
 * bit wherever they are written), and so row pointers kept across a loop vectorise. */
#define SOBEL3_GX(r0, r1, r2, x)                                                                   \
    ((r0)[(x) + 1] + 2 * (r1)[(x) + 1] + (r2)[(x) + 1] - (r0)[(x)-1] - 2 * (r1)[(x)-1] -           \
     (r2)[(x)-1])
#define SOBEL3_GY(r0, r1, r2, x)                                                                   \
    ((r2)[(x)-1] + 2 * (r2)[x] + (r2)[(x) + 1] - (r0)[(x)-1] - 2 * (r0)[x] - (r0)[(x) + 1])
