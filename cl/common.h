/* common.h: device helpers shared by every kernel file.
 *
 * Atomics used: atomic_inc, atomic_add and atomic_cmpxchg on 32-bit local and global words
 * (core in OpenCL 1.1 and later). Float accumulation uses a compare-and-swap loop, since
 * OpenCL C 1.2 has no atomic float add. */

/* One compare-and-swap loop for either address space (SPACE: LOCAL_PTR or GLOBAL). */
#define ATOMIC_ADD_FLOAT(NAME, SPACE)                                                              \
    INLINE void NAME(volatile SPACE uint *p, float v)                                              \
    {                                                                                              \
        uint old = *p, assumed;                                                                    \
        do {                                                                                       \
            assumed = old;                                                                         \
            old = atomic_cmpxchg(p, assumed, as_uint(as_float(assumed) + v));                      \
        } while (old != assumed);                                                                  \
    }
ATOMIC_ADD_FLOAT(atomic_add_float_local, LOCAL_PTR)
ATOMIC_ADD_FLOAT(atomic_add_float_global, GLOBAL)
#undef ATOMIC_ADD_FLOAT

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

/* OpenCV's Sobel kernels of side 3, 5 and 7 (votecl__sobel_smooth and votecl__sobel_deriv
 * of lib/edges-ref.c; row side / 2 - 1, entry 3 the centre): a binomial smoothing across,
 * its derivative along. */
CONSTANT int sobel_smooth[3][7] = {
    {0, 0, 1, 2, 1, 0, 0}, {0, 1, 4, 6, 4, 1, 0}, {1, 6, 15, 20, 15, 6, 1}};
CONSTANT int sobel_deriv[3][7] = {
    {0, 0, -1, 0, 1, 0, 0}, {0, -1, -2, 0, 2, 1, 0}, {-1, -4, -5, 0, 5, 4, 1}};

/* NAME(p, w, h, ksize, x, y, &sx, &sy): cv2.Sobel's sums of side ksize (3, 5 or 7) in x and
 * in y at (x, y) of a w x h image of T, the border replicated (coordinates clamped), in ACC,
 * row by row and left to right as votecl__sobel_ref sums (so float sums equal the host's). */
#define SOBEL_REPLICATED(NAME, T, ACC)                                                             \
    INLINE void NAME(GLOBAL const T *restrict p, int w, int h, int ksize, int x, int y, ACC *gx,   \
                     ACC *gy)                                                                      \
    {                                                                                              \
        int r = ksize / 2, t = r - 1;                                                              \
        ACC sx = 0, sy = 0;                                                                        \
        for (int dy = -r; dy <= r; dy++) {                                                         \
            GLOBAL const T *row = p + (size_t)clamp(y + dy, 0, h - 1) * (size_t)w;                 \
            for (int dx = -r; dx <= r; dx++) {                                                     \
                ACC v = (ACC)row[clamp(x + dx, 0, w - 1)];                                         \
                sx += (ACC)(sobel_deriv[t][3 + dx] * sobel_smooth[t][3 + dy]) * v;                 \
                sy += (ACC)(sobel_smooth[t][3 + dx] * sobel_deriv[t][3 + dy]) * v;                 \
            }                                                                                      \
        }                                                                                          \
        *gx = sx;                                                                                  \
        *gy = sy;                                                                                  \
    }
SOBEL_REPLICATED(sobel_replicated_u8, uchar, int)
