/* ght.cl: the generalized Hough transform's vote stages (papers 001 and 002), operation for
 * operation lib/ght-ref.c, integer votes: every space equals the reference's exactly.
 *
 * Inputs are the sorted lists the host builds (lib/ght-ref.c): edges sorted by gradient bin
 * (int x, y, bin per point) with L + 1 offsets; pairings sorted by key (6 words: key, xi,
 * yi, xj, yj, d as float bits) with L * L + 1 offsets; task lists of (list index, first,
 * end) triples, one work-group per task, each task at most GHT_WG entries of one sub-list.
 *   ght_ospace_lb   Guil's O space, load balancing: the task's chunk of bin t and each chunk
 *                   of every partner bin in local memory, the na * nb comparisons dealt
 *                   evenly to the work-items
 *   ght_ospace_ssm  the same, save shared memory: one point of bin t per work-item in
 *                   registers, partners read from global memory
 *   ght_sspace      S for a bin shift b: one template pairing per work-item, every image
 *                   pairing of the agreeing key
 *   ght_dspace      D for a bin shift b +- tol, rotation and scale: the same walk
 *   ght_merge       sums GHT_G replicated global copies of a space
 *   ght_ballard     Ballard's 4-D accumulator: one (edge, rotation) per work-item, a group a
 *                   block of edges of one rotation
 * Votes of the first four go to GHT_M sub-histograms in local memory (work-item t votes into
 * copy t mod GHT_M), summed into global copy (group mod GHT_G), merged by ght_merge.
 * Required defines: GHT_WG, GHT_L, GHT_XI, GHT_EPS, GHT_M, GHT_G, GHT_S (scales).
 * Divisions and atan2 run in double (cl_khr_fp64): a float quotient rounded from the double
 * one is the correctly rounded float quotient the C reference computes. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define GHT_PI_180 (180.0 / 3.14159265358979323846)

/* votecl__ght_bin */
inline uint
ght_bin(int gx, int gy)
{
    double deg = atan2((double)gy, (double)gx) * GHT_PI_180;
    uint bin;

    if (deg < 0)
        deg += 360.0;
    bin = (uint)(deg * (double)GHT_L / 360.0);
    return bin >= GHT_L ? bin - GHT_L : bin;
}

/* partner_bin */
inline uint
ght_partner(uint t, uint k)
{
    return (uint)(((ulong)t + GHT_XI + (ulong)GHT_L * (GHT_EPS + 1) + k - GHT_EPS) % GHT_L);
}

inline void
ght_local_zero(LOCAL uint *hist, uint n)
{
    for (uint i = get_local_id(0); i < n; i += GHT_WG)
        hist[i] = 0;
    LOCAL_BARRIER();
}

/* Sums the GHT_M local copies of n bins into global copy (group mod GHT_G) at base. */
inline void
ght_local_flush(LOCAL const uint *hist, uint n, GLOBAL uint *copies, ulong cells, ulong base)
{
    GLOBAL uint *dst = copies + (get_group_id(0) % GHT_G) * cells + base;

    LOCAL_BARRIER();
    for (uint i = get_local_id(0); i < n; i += GHT_WG) {
        uint sum = 0;
        for (uint m = 0; m < GHT_M; m++)
            sum += hist[m * n + i];
        if (sum > 0)
            atomic_add(&dst[i], sum);
    }
}

/* make_pair's alpha for points a (bin t) and b, voted into the local copy mine. */
inline void
ght_pair_vote(LOCAL uint *mine, uint t, int ax, int ay, int bx, int by)
{
    int dx = bx - ax, dy = by - ay;

    if (dx == 0 && dy == 0)
        return;
    atomic_inc(&mine[(ght_bin(dx, dy) + GHT_L - t) % GHT_L]);
}

KERNEL void
ght_ospace_lb(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
              GLOBAL uint *copies)
{
    LOCAL uint hist[GHT_M * GHT_L];
    LOCAL int ax[GHT_WG], ay[GHT_WG], bx[GHT_WG], by[GHT_WG];
    uint lid = get_local_id(0), g = get_group_id(0);
    uint t = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    LOCAL uint *mine = hist + (lid % GHT_M) * GHT_L;

    if (lid < na) {
        ax[lid] = points[3 * (i0 + lid)];
        ay[lid] = points[3 * (i0 + lid) + 1];
    }
    ght_local_zero(hist, GHT_M * GHT_L);
    for (uint k = 0; k <= 2 * GHT_EPS; k++) {
        uint u = ght_partner(t, k), j0 = offsets[u], j1 = offsets[u + 1];
        for (uint jb = j0; jb < j1; jb += GHT_WG) {
            uint nb = min(j1 - jb, (uint)GHT_WG);
            LOCAL_BARRIER();
            if (lid < nb) {
                bx[lid] = points[3 * (jb + lid)];
                by[lid] = points[3 * (jb + lid) + 1];
            }
            LOCAL_BARRIER();
            for (uint c = lid; c < na * nb; c += GHT_WG) {
                uint i = c / nb, j = c - i * nb;
                ght_pair_vote(mine, t, ax[i], ay[i], bx[j], by[j]);
            }
        }
    }
    ght_local_flush(hist, GHT_L, copies, (ulong)GHT_L * GHT_L, (ulong)t * GHT_L);
}

KERNEL void
ght_ospace_ssm(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
               GLOBAL uint *copies)
{
    LOCAL uint hist[GHT_M * GHT_L];
    uint lid = get_local_id(0), g = get_group_id(0);
    uint t = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    LOCAL uint *mine = hist + (lid % GHT_M) * GHT_L;
    int ax = 0, ay = 0;

    if (lid < na) {
        ax = points[3 * (i0 + lid)];
        ay = points[3 * (i0 + lid) + 1];
    }
    ght_local_zero(hist, GHT_M * GHT_L);
    for (uint k = 0; k <= 2 * GHT_EPS && lid < na; k++) {
        uint u = ght_partner(t, k);
        for (uint j = offsets[u]; j < offsets[u + 1]; j++)
            ght_pair_vote(mine, t, ax, ay, points[3 * j], points[3 * j + 1]);
    }
    ght_local_flush(hist, GHT_L, copies, (ulong)GHT_L * GHT_L, (ulong)t * GHT_L);
}

/* The image key agreeing with template key under bin shift b. */
inline uint
ght_agree(uint key, uint b)
{
    return ((key / GHT_L + b) % GHT_L) * GHT_L + key % GHT_L;
}

KERNEL void
ght_sspace(GLOBAL const uint *tpairs, GLOBAL const uint *tasks, GLOBAL const uint *ioffsets,
           GLOBAL const uint *ipairs, uint b, float lo, float inv, GLOBAL uint *copies)
{
    LOCAL uint hist[GHT_M * GHT_S];
    uint lid = get_local_id(0), g = get_group_id(0);
    uint key = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    uint k2 = ght_agree(key, b);
    LOCAL uint *mine = hist + (lid % GHT_M) * GHT_S;

    ght_local_zero(hist, GHT_M * GHT_S);
    if (lid < na) {
        double td = (double)as_float(tpairs[6 * (i0 + lid) + 5]);
        for (uint j = ioffsets[k2]; j < ioffsets[k2 + 1]; j++) {
            float s = (float)((double)as_float(ipairs[6 * j + 5]) / td);
            float f = floor((s - lo) * inv + 0.5f);
            if (f >= 0.0f && f < (float)GHT_S)
                atomic_inc(&mine[(uint)f]);
        }
    }
    ght_local_flush(hist, GHT_S, copies, GHT_S, 0);
}

/* vote_position */
inline void
ght_vote_position(GLOBAL uint *space, uint gw, uint gh, float rs0, float rs1, float cx,
                  float cy, float inv, int px, int py, int tx, int ty)
{
    float rx = (float)tx - cx, ry = (float)ty - cy;
    float qx = rs0 * rx - rs1 * ry, qy = rs1 * rx + rs0 * ry;
    int x = (int)floor(((float)px - qx) * inv + 0.5f);
    int y = (int)floor(((float)py - qy) * inv + 0.5f);

    if (x >= 0 && y >= 0 && (uint)x < gw && (uint)y < gh)
        atomic_inc(&space[(ulong)y * gw + x]);
}

KERNEL void
ght_dspace(GLOBAL const uint *tpairs, GLOBAL const uint *tasks, GLOBAL const uint *ioffsets,
           GLOBAL const uint *ipairs, uint b, uint tol, float rs0, float rs1, float cx, float cy,
           float inv, uint gw, uint gh, GLOBAL uint *copies)
{
    uint lid = get_local_id(0), g = get_group_id(0);
    uint key = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    GLOBAL uint *space = copies + (g % GHT_G) * (ulong)gw * gh;
    GLOBAL const int *T = (GLOBAL const int *)(tpairs + 6 * (i0 + lid));

    if (lid >= na)
        return;
    for (uint k = 0; k <= 2 * tol; k++) {
        uint bk = (b + GHT_L * (tol + 1) + k - tol) % GHT_L, k2 = ght_agree(key, bk);
        for (uint j = ioffsets[k2]; j < ioffsets[k2 + 1]; j++) {
            GLOBAL const int *I = (GLOBAL const int *)(ipairs + 6 * j);
            ght_vote_position(space, gw, gh, rs0, rs1, cx, cy, inv, I[1], I[2], T[1], T[2]);
            ght_vote_position(space, gw, gh, rs0, rs1, cx, cy, inv, I[3], I[4], T[3], T[4]);
        }
    }
}

KERNEL void
ght_merge(GLOBAL const uint *copies, uint cells, GLOBAL uint *out)
{
    uint i = get_global_id(0), sum = 0;

    if (i >= cells)
        return;
    for (uint c = 0; c < GHT_G; c++)
        sum += copies[(ulong)c * cells + i];
    out[i] = sum;
}

/* votecl__ght_ref_ballard_vote: rot holds (cos, sin) per rotation, shift the R-table bin
 * shift per rotation, scales the scale per step. */
KERNEL void
ght_ballard(GLOBAL const int *points, uint n, GLOBAL const uint *roffsets,
            GLOBAL const float *rdx, GLOBAL const float *rdy, GLOBAL const float *rot,
            GLOBAL const uint *shift, GLOBAL const float *scales, uint rotations, float inv,
            uint gw, uint gh, GLOBAL uint *space)
{
    uint e = get_global_id(0), k = get_global_id(1);
    float c, s;
    int px, py;
    uint t;

    if (e >= n || k >= rotations)
        return;
    c = rot[2 * k];
    s = rot[2 * k + 1];
    px = points[3 * e];
    py = points[3 * e + 1];
    t = ((uint)points[3 * e + 2] + GHT_L - shift[k]) % GHT_L;
    for (uint r = roffsets[t]; r < roffsets[t + 1]; r++) {
        float qx = c * rdx[r] - s * rdy[r], qy = s * rdx[r] + c * rdy[r];
        for (uint si = 0; si < GHT_S; si++) {
            float sc = scales[si];
            int x = (int)floor(((float)px + sc * qx) * inv + 0.5f);
            int y = (int)floor(((float)py + sc * qy) * inv + 0.5f);
            if (x < 0 || y < 0 || (uint)x >= gw || (uint)y >= gh)
                continue;
            atomic_inc(&space[(((ulong)si * rotations + k) * gh + y) * gw + x]);
        }
    }
}
