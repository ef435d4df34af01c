/* canny.cl: Canny's device steps shared by the detectors that find edges on the device,
 * operation for operation votecl__canny_ref (lib/edges-ref.c): the 3x3 Sobel of an interior
 * pixel, its L1 magnitude, the non-maximum suppression's step across the edge, a pixel's
 * state from them (canny_state), and the hysteresis over a state word per pixel whose low
 * two bits are 0, 1 (weak) or 2 (strong) (the bits above are the caller's: the GHT keeps its
 * bin there, cl/ght-edges.c).
 *
 * Composed before the caller's file (the GHT's edge program: cl/ght-common.cl, this file,
 * cl/ght-edges.cl; the circles': this file, cl/circles-edges.cl). Kernels:
 *   canny_hysteresis  2-D, local GHT_TX x GHT_TY, global the image rounded up: promotes weak
 *                     pixels 8-connected to strong ones, inside a tile of local memory (with a
 *                     one-pixel halo) until the tile is stable, and sets *changed when it
 *                     promoted any; the host repeats it until a pass changes nothing (the
 *                     fixpoint is the reference's reachability)
 * Required defines: GHT_TX, GHT_TY (the tile; the GHT's edge program sets them). */

#ifndef LOCAL_PTR
#define LOCAL_PTR LOCAL
#endif

/* The Sobel gradient of interior pixel (x, y) (SOBEL3_GX and SOBEL3_GY of cl/common.h). */
INLINE void
canny_sobel(GLOBAL const uchar *img, uint w, uint x, uint y, int *gx, int *gy)
{
    GLOBAL const uchar *r0 = img + (ulong)(y - 1) * w, *r1 = r0 + w, *r2 = r1 + w;

    *gx = SOBEL3_GX(r0, r1, r2, x);
    *gy = SOBEL3_GY(r0, r1, r2, x);
}

/* |gx| + |gy| of pixel (x, y); 0 on the border, where the reference never sets it. */
INLINE int
canny_magnitude(GLOBAL const uchar *img, uint w, uint h, int x, int y)
{
    int gx, gy;

    if (x < 1 || y < 1 || x + 1 >= (int)w || y + 1 >= (int)h)
        return 0;
    canny_sobel(img, w, (uint)x, (uint)y, &gx, &gy);
    return abs(gx) + abs(gy);
}

/* is_ridge (lib/edges-ref.c): the step (dx, dy) across the edge in one of four directions (tan 22.5 and
 * tan 67.5 as integer ratios). */
INLINE void
canny_ridge_step(int gx, int gy, int *dx, int *dy)
{
    long ax = gx < 0 ? -(long)gx : gx, ay = gy < 0 ? -(long)gy : gy;

    if (ay * 100000 <= ax * 41421) {
        *dx = 1;
        *dy = 0;
    } else if (ay * 100000 >= ax * 241421) {
        *dx = 0;
        *dy = 1;
    } else {
        *dx = (gx < 0) == (gy < 0) ? 1 : -1;
        *dy = 1;
    }
}

/* The state of pixel (x, y) (x < w, y < h): 0, 1 (weak) or 2 (strong; every survivor when
 * low >= high, the reference's single threshold); the border 0. *gx, *gy: its gradient
 * where the state is not 0. The 3x3 Sobel, L1 magnitude, then is_ridge: strictly above the
 * neighbour behind, at least the one ahead (the two magnitudes recomputed, so no magnitude
 * image). */
INLINE uint
canny_state(GLOBAL const uchar *img, uint w, uint h, uint x, uint y, uint low, uint high, int *gx,
            int *gy)
{
    int mag, dx, dy;

    if (x < 1 || y < 1 || x + 1 >= w || y + 1 >= h)
        return 0;
    canny_sobel(img, w, x, y, gx, gy);
    mag = abs(*gx) + abs(*gy);
    canny_ridge_step(*gx, *gy, &dx, &dy);
    if (mag > (int)low && mag > canny_magnitude(img, w, h, (int)x - dx, (int)y - dy) &&
        mag >= canny_magnitude(img, w, h, (int)x + dx, (int)y + dy))
        return mag > (int)high || low >= high ? 2u : 1u;
    return 0;
}

#define CANNY_HALO_W (GHT_TX + 2)
#define CANNY_HALO_N ((GHT_TX + 2) * (GHT_TY + 2))

/* A weak pixel of the tile with a strong 8-neighbour. */
INLINE int
canny_promotable(LOCAL_PTR const uint *tile, uint me)
{
    if (tile[me] != 1)
        return 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if (tile[(int)me + dy * CANNY_HALO_W + dx] == 2)
                return 1;
    return 0;
}

KERNEL void
canny_hysteresis(GLOBAL uint *state, uint w, uint h, GLOBAL uint *changed)
{
    LOCAL uint tile[CANNY_HALO_N];
    LOCAL uint flag;
    uint lx = get_local_id(0), ly = get_local_id(1), lid = ly * GHT_TX + lx;
    uint x = get_global_id(0), y = get_global_id(1), me = (ly + 1) * CANNY_HALO_W + lx + 1;
    int x0 = (int)(get_group_id(0) * GHT_TX) - 1, y0 = (int)(get_group_id(1) * GHT_TY) - 1;
    int inside = x < w && y < h, any = 0;

    for (uint i = lid; i < CANNY_HALO_N; i += GHT_TX * GHT_TY) {
        int tx = x0 + (int)(i % CANNY_HALO_W), ty = y0 + (int)(i / CANNY_HALO_W);
        int in = tx >= 0 && ty >= 0 && tx < (int)w && ty < (int)h;
        tile[i] = in ? state[(ulong)ty * w + tx] & 3u : 0u;
    }
    /* Gauss-Seidel inside the tile: a pass that changes nothing ends it (the flag is read by
     * all before it is cleared again, so the exit is uniform). */
    for (;;) {
        if (lid == 0)
            flag = 0;
        LOCAL_BARRIER();
        if (inside && canny_promotable(tile, me)) {
            tile[me] = 2;
            flag = 1;
        }
        LOCAL_BARRIER();
        uint again = flag;
        LOCAL_BARRIER();
        if (!again)
            break;
        any = 1;
    }
    if (inside && tile[me] == 2 && (state[(ulong)y * w + x] & 3u) == 1)
        state[(ulong)y * w + x] = (state[(ulong)y * w + x] & ~3u) | 2u;
    if (any && lid == 0)
        *changed = 1;
}

