/* ght-common.cl: what the generalized Hough transform's stage programs share, composed first
 * into each of them (lib/ght-device.c builds the programs): the gradient bin of a direction
 * (votecl__ght_bin) by exact cross-product signs against the host's boundary directions,
 * Guil's partner bins (only where GHT_XI is defined: the programs that pair points), a
 * local histogram's zeroing, the content hash of lib/ght-pose.c, a grid cell, and Ballard's
 * vote of one edge (only where GHT_S is defined: cl/ght.cl and cl/ght-ballard.cl).
 * Required defines: GHT_WG, GHT_L; GHT_XI and GHT_EPS for ght_partner; GHT_S for
 * ght_ballard_edge. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* past_boundary */
INLINE int
ght_past(GLOBAL const float *dirs, uint b, int upper, int gx, int gy)
{
    int b_upper = 2 * b + 1 < GHT_L;

    if (b_upper != upper)
        return b_upper;
    return (double)dirs[2 * b] * (double)gy >= (double)dirs[2 * b + 1] * (double)gx;
}

/* votecl__ght_bin */
INLINE uint
ght_bin(GLOBAL const float *dirs, int gx, int gy)
{
    uint lo = 0, hi = GHT_L;
    int upper = gy > 0 || (gy == 0 && gx > 0);

    if (!ght_past(dirs, 0, upper, gx, gy))
        return 0;
    while (hi - lo > 1) {
        uint mid = lo + (hi - lo) / 2;
        if (ght_past(dirs, mid, upper, gx, gy))
            lo = mid;
        else
            hi = mid;
    }
    return (lo + 1) % GHT_L;
}

#ifdef GHT_XI
/* partner_bin */
INLINE uint
ght_partner(uint t, uint k)
{
    return (uint)(((ulong)t + GHT_XI + (ulong)GHT_L * (GHT_EPS + 1) + k - GHT_EPS) % GHT_L);
}
#endif

INLINE void
ght_local_zero(LOCAL_PTR uint *hist, uint n)
{
    for (uint i = get_local_id(0); i < n; i += GHT_WG)
        hist[i] = 0;
    LOCAL_BARRIER();
}

/* votecl__ght_hash of n words */
INLINE uint
ght_hash(const uint *w, int n)
{
    ulong h = 0x9e3779b97f4a7c15UL;

    for (int k = 0; k < n; k++) {
        h = (h ^ w[k]) * 0xff51afd7ed558ccdUL;
        h ^= h >> 32;
    }
    return (uint)h;
}

/* grid_cell */
INLINE int
ght_cell(double c, uint dp)
{
    return (int)floor(c / (double)dp + 0.5);
}

#ifdef GHT_S
/* votecl__ght_ref_ballard_vote's votes of the edge (px, py, bin) at rotation k into space:
 * rs holds the factors (scale cos, scale sin) per rotation and scale (votecl__ght_rs, index
 * k GHT_S + si), shift the R-table bin shift per rotation. Returns the largest count it left
 * in a cell (0: none voted). */
INLINE uint
ght_ballard_edge(int px, int py, uint bin, uint k, GLOBAL const uint *roffsets,
                 GLOBAL const float *rdx, GLOBAL const float *rdy, GLOBAL const float *rs,
                 GLOBAL const uint *shift, uint rotations, uint dp, uint gw, uint gh,
                 GLOBAL uint *space)
{
    uint t = (bin + GHT_L - shift[k]) % GHT_L, most = 0;

    for (uint r = roffsets[t]; r < roffsets[t + 1]; r++) {
        double dx = (double)rdx[r], dy = (double)rdy[r];
        for (uint si = 0; si < GHT_S; si++) {
            double c = (double)rs[2 * (k * GHT_S + si)], s = (double)rs[2 * (k * GHT_S + si) + 1];
            int x = ght_cell((double)px + (c * dx - s * dy), dp);
            int y = ght_cell((double)py + (s * dx + c * dy), dp);
            if (x < 0 || y < 0 || (uint)x >= gw || (uint)y >= gh)
                continue;
            most = max(most, atomic_inc(&space[(((ulong)si * rotations + k) * gh + y) * gw + x]) +
                                 1u);
        }
    }
    return most;
}
#endif
