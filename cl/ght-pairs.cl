/* ght-pairs.cl: the generalized Hough transform's device front end, part two: Guil's list of
 * pairings sorted by key (theta L + alpha) with L * L + 1 offsets, the content of
 * votecl__ght_ref_pairs (lib/ght-pairs.c) key for key (the order inside a key is free: every
 * later space counts votes, so it does not depend on it).
 *
 * Composed after cl/ght-common.cl (ght_bin, ght_partner, ght_local_zero, ght_hash) into a
 * program of its own (defines GHT_L, GHT_WG, GHT_XI, GHT_EPS, GHT_M; lib/ght-pairs.c), the
 * scans of its counts run by cl/ght-edges.cl's kernels. Input: edges
 * sorted by bin (int x, y, bin), their L + 1 offsets, tasks (bin t, first, end) of at most
 * GHT_WG points of one bin, bins in ascending order, followed in the same buffer by
 * tfirst[t], the first task of bin t (L + 1 entries, tfirst[L] the number of tasks). One
 * work-group per task, local GHT_WG, in both mechanisms of paper 001, Sec. IV-B:
 *   ght_pairs_count_lb / _ssm  pass 1: the task's pairings counted per alpha in GHT_M local
 *                              copies (work-item i votes into copy i mod GHT_M), written to
 *                              counts[L tfirst[t] + alpha nt + (g - tfirst[t])] (nt: tasks of
 *                              bin t), so that an exclusive scan of counts (ght-edges.cl) gives
 *                              each (key, task) its first slot, keys in order, tasks in order
 *   ght_pairs_write_lb / _ssm  pass 2: the same comparisons; each pairing takes the next slot
 *                              of its alpha (a local cursor from the scanned counts) and is
 *                              written as 6 words (key, xi, yi, xj, yj, d as float bits)
 *   ght_pairs_offsets          L * L + 1 work-items: offsets[key] from the scanned counts
 *   ght_pairs_cap_count / _write  the cap per key (VOTECL__GHT_KEY_CAP, lib/ght-private.h):
 *                              one work-item per pairing; a key with more than cap pairings
 *                              keeps those whose ght_pair_hash is at most its threshold;
 *                              pass 1 counts the kept pairings per key (atomic_inc on global
 *                              words), pass 2 writes each at its key's next slot (a cursor
 *                              from the scanned counts)
 *   ght_sort_length            one work-item per pairing: each key's pairings ordered by
 *                              length d (ties by their place in the list), the image list's
 *                              order for the S and match stages' windows (cl/ght.cl, GPU shapes)
 * LB: the task's chunk of bin t and each GHT_WG chunk of every partner bin in local memory,
 * the na * nb comparisons dealt evenly to the work-items. SSM: one point of bin t per
 * work-item in registers, the partners read from global memory. Atomics: atomic_inc on local
 * words. d is sqrtf((float)(dx dx + dy dy)) exactly: the float rounded once more from the
 * double square root, which double's 53 bits make innocuous. */

#ifndef LOCAL_PTR
#define LOCAL_PTR LOCAL
#endif

/* make_pair for points a (bin t) and b: the next slot of its alpha in slots; written to
 * pairs unless NULL (pass 1 only counts). */
INLINE void
ght_pair_visit(GLOBAL const float *dirs, LOCAL_PTR uint *slots, GLOBAL uint *pairs, uint t, int ax,
               int ay, int bx, int by)
{
    int dx = bx - ax, dy = by - ay;
    uint alpha, at;
    GLOBAL uint *out;

    if (dx == 0 && dy == 0)
        return;
    alpha = (ght_bin(dirs, dx, dy) + GHT_L - t) % GHT_L;
    at = atomic_inc(&slots[alpha]);
    if (pairs == 0)
        return;
    out = pairs + 6 * (ulong)at;
    out[0] = t * GHT_L + alpha;
    out[1] = (uint)ax;
    out[2] = (uint)ay;
    out[3] = (uint)bx;
    out[4] = (uint)by;
    out[5] = as_uint((float)sqrt((double)(float)(dx * dx + dy * dy)));
}

/* The LB walk of task g (called by the whole group). */
INLINE void
ght_pairs_lb(GLOBAL const int *points, GLOBAL const uint *offsets, uint t, uint i0, uint na,
             GLOBAL const float *dirs, LOCAL_PTR uint *slots, GLOBAL uint *pairs, LOCAL_PTR int *ax,
             LOCAL_PTR int *ay, LOCAL_PTR int *bx, LOCAL_PTR int *by)
{
    uint lid = get_local_id(0);

    if (lid < na) {
        ax[lid] = points[3 * (i0 + lid)];
        ay[lid] = points[3 * (i0 + lid) + 1];
    }
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
                ght_pair_visit(dirs, slots, pairs, t, ax[i], ay[i], bx[j], by[j]);
            }
        }
    }
    LOCAL_BARRIER();
}

/* The SSM walk of task g (called by the whole group; no barrier inside). */
INLINE void
ght_pairs_ssm(GLOBAL const int *points, GLOBAL const uint *offsets, uint t, uint i0, uint na,
              GLOBAL const float *dirs, LOCAL_PTR uint *slots, GLOBAL uint *pairs)
{
    uint lid = get_local_id(0);

    if (lid >= na)
        return;
    int ax = points[3 * (i0 + lid)], ay = points[3 * (i0 + lid) + 1];
    for (uint k = 0; k <= 2 * GHT_EPS; k++) {
        uint u = ght_partner(t, k);
        for (uint j = offsets[u]; j < offsets[u + 1]; j++)
            ght_pair_visit(dirs, slots, pairs, t, ax, ay, points[3 * j], points[3 * j + 1]);
    }
}

/* Where task g's count of alpha a lies in counts (see the contract above). */
INLINE ulong
ght_count_at(GLOBAL const uint *tfirst, uint t, uint g, uint a)
{
    uint tf = tfirst[t], nt = tfirst[t + 1] - tf;
    return (ulong)GHT_L * tf + (ulong)a * nt + (g - tf);
}

/* Sums the GHT_M local copies into the task's counts. */
INLINE void
ght_pairs_flush(LOCAL_PTR const uint *hist, GLOBAL const uint *tfirst, uint t, GLOBAL uint *counts)
{
    uint g = get_group_id(0);

    LOCAL_BARRIER();
    for (uint a = get_local_id(0); a < GHT_L; a += GHT_WG) {
        uint sum = 0;
        for (uint m = 0; m < GHT_M; m++)
            sum += hist[m * GHT_L + a];
        counts[ght_count_at(tfirst, t, g, a)] = sum;
    }
}

/* The task's first slot of every alpha. */
INLINE void
ght_pairs_cursors(LOCAL_PTR uint *cursor, GLOBAL const uint *tfirst, uint t,
                  GLOBAL const uint *scanned)
{
    uint g = get_group_id(0);

    for (uint a = get_local_id(0); a < GHT_L; a += GHT_WG)
        cursor[a] = scanned[ght_count_at(tfirst, t, g, a)];
    LOCAL_BARRIER();
}

/* The group's task (bin t, na points from i0); tfirst follows the ntasks triples. */
#define GHT_TASK(tasks, ntasks)                                                                    \
    GLOBAL const uint *tfirst = tasks + 3 * (ulong)ntasks;                                         \
    uint t = tasks[3 * get_group_id(0)], i0 = tasks[3 * get_group_id(0) + 1],                      \
         na = tasks[3 * get_group_id(0) + 2] - i0

KERNEL void
ght_pairs_count_lb(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
                   uint ntasks, GLOBAL const float *dirs, GLOBAL uint *counts)
{
    LOCAL uint hist[GHT_M * GHT_L];
    LOCAL int ax[GHT_WG], ay[GHT_WG], bx[GHT_WG], by[GHT_WG];
    GHT_TASK(tasks, ntasks);

    ght_local_zero(hist, GHT_M * GHT_L);
    ght_pairs_lb(points, offsets, t, i0, na, dirs, hist + (get_local_id(0) % GHT_M) * GHT_L, 0, ax,
                 ay, bx, by);
    ght_pairs_flush(hist, tfirst, t, counts);
}

KERNEL void
ght_pairs_count_ssm(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
                    uint ntasks, GLOBAL const float *dirs, GLOBAL uint *counts)
{
    LOCAL uint hist[GHT_M * GHT_L];
    GHT_TASK(tasks, ntasks);

    ght_local_zero(hist, GHT_M * GHT_L);
    ght_pairs_ssm(points, offsets, t, i0, na, dirs, hist + (get_local_id(0) % GHT_M) * GHT_L, 0);
    ght_pairs_flush(hist, tfirst, t, counts);
}

KERNEL void
ght_pairs_write_lb(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
                   uint ntasks, GLOBAL const float *dirs, GLOBAL const uint *scanned,
                   GLOBAL uint *pairs)
{
    LOCAL uint cursor[GHT_L];
    LOCAL int ax[GHT_WG], ay[GHT_WG], bx[GHT_WG], by[GHT_WG];
    GHT_TASK(tasks, ntasks);

    ght_pairs_cursors(cursor, tfirst, t, scanned);
    ght_pairs_lb(points, offsets, t, i0, na, dirs, cursor, pairs, ax, ay, bx, by);
}

KERNEL void
ght_pairs_write_ssm(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
                    uint ntasks, GLOBAL const float *dirs, GLOBAL const uint *scanned,
                    GLOBAL uint *pairs)
{
    LOCAL uint cursor[GHT_L];
    GHT_TASK(tasks, ntasks);

    ght_pairs_cursors(cursor, tfirst, t, scanned);
    ght_pairs_ssm(points, offsets, t, i0, na, dirs, cursor, pairs);
}

/* offsets[t L + a] = the scanned count of (key, first task of bin t); a bin without tasks
 * (and the end, t = L) starts where the next bin's counts begin. */
KERNEL void
ght_pairs_offsets(GLOBAL const uint *scanned, GLOBAL const uint *tasks, uint ntasks,
                  GLOBAL uint *offsets)
{
    GLOBAL const uint *tfirst = tasks + 3 * (ulong)ntasks;
    uint k = get_global_id(0), t = k / GHT_L, a = k % GHT_L;

    if (k > GHT_L * GHT_L)
        return;
    if (t < GHT_L && tfirst[t + 1] > tfirst[t])
        offsets[k] = scanned[ght_count_at(tfirst, t, tfirst[t], a)];
    else
        offsets[k] = scanned[(ulong)GHT_L * tfirst[t]];
}

/* votecl__ght_pair_hash: key, xi, yi, xj, yj */
INLINE uint
ght_pair_hash(GLOBAL const uint *p)
{
    uint w[5] = {p[0], p[1], p[2], p[3], p[4]};

    return ght_hash(w, 5);
}

/* Pairing p (6 words) stays under the cap: votecl__ght_keep_threshold of its key's count
 * (offsets: the uncapped list's). */
INLINE int
ght_cap_keeps(GLOBAL const uint *p, GLOBAL const uint *offsets, uint cap)
{
    uint count = offsets[p[0] + 1] - offsets[p[0]];

    return count <= cap || ght_pair_hash(p) <= (uint)(((ulong)cap << 32) / count);
}

KERNEL void
ght_pairs_cap_count(GLOBAL const uint *pairs, uint n, GLOBAL const uint *offsets, uint cap,
                    GLOBAL uint *kept)
{
    uint i = get_global_id(0);

    if (i < n && ght_cap_keeps(pairs + 6 * (ulong)i, offsets, cap))
        atomic_inc(&kept[pairs[6 * (ulong)i]]);
}

KERNEL void
ght_pairs_cap_write(GLOBAL const uint *pairs, uint n, GLOBAL const uint *offsets, uint cap,
                    GLOBAL uint *cursor, GLOBAL uint *out)
{
    uint i = get_global_id(0), at;
    GLOBAL const uint *p = pairs + 6 * (ulong)i;

    if (i >= n || !ght_cap_keeps(p, offsets, cap))
        return;
    at = atomic_inc(&cursor[p[0]]);
    for (int k = 0; k < 6; k++)
        out[6 * (ulong)at + k] = p[k];
}

/* Pairing i to its key's first slot of out plus its rank there by length, ties by index
 * (a permutation of each key's pairings; the keys' lists are capped, so short). */
KERNEL void
ght_sort_length(GLOBAL const uint *pairs, uint n, GLOBAL const uint *offsets, GLOBAL uint *out)
{
    uint i = get_global_id(0), j0, j1, rank = 0;
    GLOBAL const uint *p = pairs + 6 * (ulong)i;
    float d;

    if (i >= n)
        return;
    d = as_float(p[5]);
    j0 = offsets[p[0]];
    j1 = offsets[p[0] + 1];
    for (uint j = j0; j < j1; j++) {
        float e = as_float(pairs[6 * (ulong)j + 5]);
        rank += e < d || (e == d && j < i);
    }
    for (int k = 0; k < 6; k++)
        out[6 * ((ulong)j0 + rank) + k] = p[k];
}
