/* ght.cl: the generalized Hough transform's vote stages (papers 001 and 002), operation for
 * operation lib/ght-spaces.c, integer votes: every space equals the reference's exactly.
 *
 * Inputs are the sorted lists of the edge and pairing stages (lib/ght-edges.c, ght-pairs.c):
 * edges sorted by gradient bin (int x, y, bin per point) with L + 1 offsets; pairings sorted
 * by key (6 words: key, xi, yi, xj, yj, d as float bits) with L * L + 1 offsets; task lists
 * of (list index, first, end) triples, one work-group per task, each task at most GHT_WG
 * entries of one sub-list.
 *   ght_ospace_lb   Guil's O space, load balancing: the task's chunk of bin t and each chunk
 *                   of every partner bin in local memory, the na * nb comparisons dealt
 *                   evenly to the work-items
 *   ght_ospace_ssm  the same, save shared memory: one point of bin t per work-item in
 *                   registers, partners read from global memory
 *   ght_sspace      S for a bin shift b: one template pairing per work-item, the image
 *                   pairings of the agreeing key (with GHT_WINDOW only those whose length
 *                   ratio is in the search: the image's pairings of a key are then sorted
 *                   by length, a binary search finds them)
 *   ght_dspace      D for a bin shift b +- tol, rotation and scale: the same walk
 *   ght_merge       sums GHT_G replicated global copies of a space
 *   ght_space_max, ght_space_peaks   D's maximum, then its 3x3 maxima above the threshold
 *   ght_peaks_pack  the candidates' heads, then their maxima one after another (one read)
 *   ght_labels      the cells near each ranked maximum
 *   ght_matches     the pairings of ght_dspace's walk that voted next to one maximum,
 *                   (with GHT_WINDOW among those whose length can fit, a window as S's)
 *   ght_ballard     Ballard's 4-D accumulator: one (edge, rotation) per work-item, a group a
 *                   block of edges of one rotation
 * Votes of the first four go to GHT_M sub-histograms in local memory (work-item t votes into
 * copy t mod GHT_M), summed into global copy (group mod GHT_G), merged by ght_merge.
 * Composed after cl/ght-common.cl (ght_bin, ght_partner, ght_local_zero, ght_hash) into a
 * program of its own. Required defines: GHT_WG, GHT_L, GHT_XI, GHT_EPS, GHT_M, GHT_G, GHT_S
 * (scales); GHT_WINDOW (optional: S and the matches visit only their windows of lengths).
 *
 * Exact on any conforming device: no transcendental function runs here. Angle bins are
 * cross-product signs against the host's boundary directions dirs (2 L floats), scale bins
 * comparisons against the host's boundaries bounds (GHT_S + 1 floats); each product is of a
 * float and an integer or two floats, exact in double (cl_khr_fp64), so contraction cannot
 * change it; grid cells are a double difference of exact products, one correctly rounded
 * division (for a power-of-two cell size the product by its exact reciprocal, the same
 * double) and one addition, as lib/ght-spaces.c computes them. */
#define GHT_HEAD 4 /* words before the matches in ght_matches' output */
#define GHT_CAND 3 /* words per candidate: bin shift, rs0 and rs1 as float bits */

/* di / dt at or above scale boundary k */
INLINE int
ght_above(GLOBAL const float *bounds, uint k, float di, float dt)
{
    return (double)di >= (double)bounds[k] * (double)dt;
}

/* scale_bin: the bin of di / dt, or -1: the bin k with boundaries k and k + 1 around the
 * ratio, found from the ratio's estimate on the (near) even boundaries inv (S over their
 * span) and the exact tests of its neighbours, so usually after two of them */
INLINE int
ght_scale_bin(GLOBAL const float *bounds, float inv, float di, float dt)
{
    float est = (di / dt - bounds[0]) * inv;
    uint k = est >= 0 && est < (float)GHT_S ? (uint)est : 0;

    if (!ght_above(bounds, 0, di, dt) || ght_above(bounds, GHT_S, di, dt))
        return -1;
    while (k + 1 < GHT_S && ght_above(bounds, k + 1, di, dt))
        k++;
    while (k > 0 && !ght_above(bounds, k, di, dt))
        k--;
    return (int)k;
}

/* Sums the GHT_M local copies of n bins into global copy (group mod GHT_G) at base. */
INLINE void
ght_local_flush(LOCAL_PTR const uint *hist, uint n, GLOBAL uint *copies, ulong cells, ulong base)
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
INLINE void
ght_pair_vote(GLOBAL const float *dirs, LOCAL_PTR uint *mine, uint t, int ax, int ay, int bx,
              int by)
{
    int dx = bx - ax, dy = by - ay;

    if (dx == 0 && dy == 0)
        return;
    atomic_inc(&mine[(ght_bin(dirs, dx, dy) + GHT_L - t) % GHT_L]);
}

KERNEL void
ght_ospace_lb(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
              GLOBAL const float *dirs, GLOBAL uint *copies)
{
    LOCAL uint hist[GHT_M * GHT_L];
    LOCAL int ax[GHT_WG], ay[GHT_WG], bx[GHT_WG], by[GHT_WG];
    uint lid = get_local_id(0), g = get_group_id(0);
    uint t = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    LOCAL_PTR uint *mine = hist + (lid % GHT_M) * GHT_L;

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
                ght_pair_vote(dirs, mine, t, ax[i], ay[i], bx[j], by[j]);
            }
        }
    }
    ght_local_flush(hist, GHT_L, copies, (ulong)GHT_L * GHT_L, (ulong)t * GHT_L);
}

KERNEL void
ght_ospace_ssm(GLOBAL const int *points, GLOBAL const uint *offsets, GLOBAL const uint *tasks,
               GLOBAL const float *dirs, GLOBAL uint *copies)
{
    LOCAL uint hist[GHT_M * GHT_L];
    uint lid = get_local_id(0), g = get_group_id(0);
    uint t = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    LOCAL_PTR uint *mine = hist + (lid % GHT_M) * GHT_L;
    int ax = 0, ay = 0;

    if (lid < na) {
        ax = points[3 * (i0 + lid)];
        ay = points[3 * (i0 + lid) + 1];
    }
    ght_local_zero(hist, GHT_M * GHT_L);
    for (uint k = 0; k <= 2 * GHT_EPS && lid < na; k++) {
        uint u = ght_partner(t, k);
        for (uint j = offsets[u]; j < offsets[u + 1]; j++)
            ght_pair_vote(dirs, mine, t, ax, ay, points[3 * j], points[3 * j + 1]);
    }
    ght_local_flush(hist, GHT_L, copies, (ulong)GHT_L * GHT_L, (ulong)t * GHT_L);
}

/* The image key agreeing with template key under bin shift b. */
INLINE uint
ght_agree(uint key, uint b)
{
    return ((key / GHT_L + b) % GHT_L) * GHT_L + key % GHT_L;
}

/* The first j in [j0, j1) whose pairing's length is at least x (above: more than x), j1
 * when none: the image's pairings of a key are sorted by length (ght_sort_length), so a test
 * monotone in the length holds from there on (lib/ght-spaces.c's first_length). */
INLINE uint
ght_first_length(GLOBAL const uint *ipairs, uint j0, uint j1, double x, int above)
{
    while (j0 < j1) {
        uint mid = j0 + (j1 - j0) / 2;
        double d = (double)as_float(ipairs[6 * mid + 5]);
        if (above ? d > x : d >= x)
            j1 = mid;
        else
            j0 = mid + 1;
    }
    return j0;
}

KERNEL void
ght_sspace(GLOBAL const uint *tpairs, GLOBAL const uint *tasks, GLOBAL const uint *ioffsets,
           GLOBAL const uint *ipairs, GLOBAL const uint *cands, GLOBAL const float *bounds,
           GLOBAL uint *copies)
{
    LOCAL uint hist[GHT_M * GHT_S];
    uint lid = get_local_id(0), g = get_group_id(0), c = get_group_id(1);
    uint key = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    uint k2 = ght_agree(key, cands[GHT_CAND * c]);
    LOCAL_PTR uint *mine = hist + (lid % GHT_M) * GHT_S;

    ght_local_zero(hist, GHT_M * GHT_S);
    if (lid < na) {
        float td = as_float(tpairs[6 * (i0 + lid) + 5]);
        float inv = (float)GHT_S / (bounds[GHT_S] - bounds[0]);
#ifdef GHT_WINDOW
        /* ratio_window: only ratios in [bounds[0], bounds[GHT_S]) find a bin */
        uint j0 = ght_first_length(ipairs, ioffsets[k2], ioffsets[k2 + 1],
                                   (double)bounds[0] * (double)td, 0);
        uint j1 = ght_first_length(ipairs, j0, ioffsets[k2 + 1],
                                   (double)bounds[GHT_S] * (double)td, 0);
#else
        uint j0 = ioffsets[k2], j1 = ioffsets[k2 + 1];
#endif
        for (uint j = j0; j < j1; j++) {
            int f = ght_scale_bin(bounds, inv, as_float(ipairs[6 * j + 5]), td);
            if (f >= 0)
                atomic_inc(&mine[f]);
        }
    }
    ght_local_flush(hist, GHT_S, copies, (ulong)get_num_groups(1) * GHT_S, (ulong)c * GHT_S);
}

/* position_cell's turned and scaled offset of template point (tx, ty) from the centre:
 * q[0], q[1] (the same for every image pairing a work-item's template pairing meets) */
INLINE void
ght_offset(float rs0, float rs1, float cx, float cy, int tx, int ty, double *q)
{
    double rx = (double)tx - (double)cx, ry = (double)ty - (double)cy;

    q[0] = (double)rs0 * rx - (double)rs1 * ry;
    q[1] = (double)rs1 * rx + (double)rs0 * ry;
}

/* grid_cell of c, by the reciprocal inv of dp where that is exact (dp a power of two: the
 * product is the quotient), else by the division (inv 0) */
INLINE int
ght_cell_by(double c, double inv, uint dp)
{
    return (int)floor((inv > 0 ? c * inv : c / (double)dp) + 0.5);
}

/* The reciprocal of dp for ght_cell_by: exact for a power of two, else 0 (divide). */
INLINE double
ght_inverse(uint dp)
{
    return (dp & (dp - 1)) == 0 ? 1.0 / (double)dp : 0.0;
}

/* position_cell: the cell point (px, py) votes for given a template point of offset q
 * (ght_offset), or -1 */
INLINE long
ght_position_cell(uint gw, uint gh, double inv, uint dp, int px, int py, const double *q)
{
    int x = ght_cell_by((double)px - q[0], inv, dp);
    int y = ght_cell_by((double)py - q[1], inv, dp);

    if (x >= 0 && y >= 0 && (uint)x < gw && (uint)y < gh)
        return (long)y * gw + x;
    return -1;
}

/* vote_position */
INLINE void
ght_vote_position(GLOBAL uint *space, uint gw, uint gh, double inv, uint dp, int px, int py,
                  const double *q)
{
    long cell = ght_position_cell(gw, gh, inv, dp, px, py, q);

    if (cell >= 0)
        atomic_inc(&space[cell]);
}

/* The offsets (ght_offset) of a template pairing T's two points: q[0..1], q[2..3]. */
INLINE void
ght_offsets(float rs0, float rs1, float cx, float cy, GLOBAL const int *T, double *q)
{
    ght_offset(rs0, rs1, cx, cy, T[1], T[2], q);
    ght_offset(rs0, rs1, cx, cy, T[3], T[4], q + 2);
}

/* D of candidate get_group_id(1): cands holds GHT_CAND words per candidate (bin shift, then
 * the factors rs as float bits), copies GHT_G copies of all candidates' spaces. */
KERNEL void
ght_dspace(GLOBAL const uint *tpairs, GLOBAL const uint *tasks, GLOBAL const uint *ioffsets,
           GLOBAL const uint *ipairs, GLOBAL const uint *cands, uint tol, float cx, float cy,
           uint dp, uint gw, uint gh, GLOBAL uint *copies)
{
    uint lid = get_local_id(0), g = get_group_id(0), c = get_group_id(1);
    uint key = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    uint b = cands[GHT_CAND * c];
    float rs0 = as_float(cands[GHT_CAND * c + 1]), rs1 = as_float(cands[GHT_CAND * c + 2]);
    ulong cells = (ulong)gw * gh;
    GLOBAL uint *space = copies + ((g % GHT_G) * get_num_groups(1) + c) * cells;
    GLOBAL const int *T = (GLOBAL const int *)(tpairs + 6 * (i0 + lid));
    double q[4], inv = ght_inverse(dp);

    if (lid >= na)
        return;
    ght_offsets(rs0, rs1, cx, cy, T, q);
    for (uint k = 0; k <= 2 * tol; k++) {
        uint bk = (b + GHT_L * (tol + 1) + k - tol) % GHT_L, k2 = ght_agree(key, bk);
        for (uint j = ioffsets[k2]; j < ioffsets[k2 + 1]; j++) {
            GLOBAL const int *I = (GLOBAL const int *)(ipairs + 6 * j);
            ght_vote_position(space, gw, gh, inv, dp, I[1], I[2], q);
            ght_vote_position(space, gw, gh, inv, dp, I[3], I[4], q + 2);
        }
    }
}

/* vector_fits (lib/ght-spaces.c): image pairing I's vector within span of the template
 * pairing's turned and scaled one v on both axes */
INLINE int
ght_vector_fits(float span, const double *v, GLOBAL const int *I)
{
    return fabs((double)(I[1] - I[3]) - v[0]) <= (double)span &&
           fabs((double)(I[2] - I[4]) - v[1]) <= (double)span;
}

/* votecl__ght_match_hash of a match: the image pairing's key, template, image points */
INLINE uint
ght_match_hash(uint key, GLOBAL const int *T, GLOBAL const int *I)
{
    uint w[9] = {key,        (uint)T[1], (uint)T[2], (uint)T[3], (uint)T[4],
                 (uint)I[1], (uint)I[2], (uint)I[3], (uint)I[4]};

    return ght_hash(w, 9);
}

/* votecl__ght_ref_matches then votecl__ght_matches_sample: the pairings of ght_dspace's walk
 * for candidate get_group_id(1) whose two votes fall on cells of one selected maximum k in
 * the candidate's label map (nsel - k, 0 for none), only those whose vector fits within span
 * (votecl__ght_match_span: no other can be one) examined. Pass 0 counts them per maximum into
 * counts[k]; pass 1 appends those whose hash is at most thr[k] to out after its
 * GHT_HEAD-word head (10 words each: k, the image pairing's key, template xi yi xj yj,
 * image xi yi xj yj; counted by word 0, at most cap written). */
KERNEL void
ght_matches(GLOBAL const uint *tpairs, GLOBAL const uint *tasks, GLOBAL const uint *ioffsets,
            GLOBAL const uint *ipairs, GLOBAL const uint *cands, uint tol, float cx, float cy,
            uint dp, uint gw, uint gh, GLOBAL const uint *labels, uint nsel, uint pass,
            GLOBAL uint *counts, GLOBAL const uint *thr, uint cap, GLOBAL int *out, float span)
{
    uint lid = get_local_id(0), g = get_group_id(0), c = get_group_id(1);
    uint key = tasks[3 * g], i0 = tasks[3 * g + 1], na = tasks[3 * g + 2] - i0;
    uint b = cands[GHT_CAND * c];
    float rs0 = as_float(cands[GHT_CAND * c + 1]), rs1 = as_float(cands[GHT_CAND * c + 2]);
    GLOBAL const uint *map = labels + (ulong)c * gw * gh;
    GLOBAL const int *T = (GLOBAL const int *)(tpairs + 6 * (i0 + lid));
    GLOBAL int *matches = out + GHT_HEAD;
    double q[4], v[2], inv = ght_inverse(dp);
#ifdef GHT_WINDOW
    double len, r = 1.5 * (double)span;
#endif

    if (lid >= na)
        return;
    ght_offsets(rs0, rs1, cx, cy, T, q);
    v[0] = q[0] - q[2];
    v[1] = q[1] - q[3];
#ifdef GHT_WINDOW
    len = sqrt(v[0] * v[0] + v[1] * v[1]);
#endif
    for (uint k = 0; k <= 2 * tol; k++) {
        uint bk = (b + GHT_L * (tol + 1) + k - tol) % GHT_L, k2 = ght_agree(key, bk);
#ifdef GHT_WINDOW
        /* length_window (lib/ght-spaces.c): no pairing outside it fits */
        uint j0 = ght_first_length(ipairs, ioffsets[k2], ioffsets[k2 + 1], (len - r) * (1 - 1e-6),
                                   0);
        uint j1 = ght_first_length(ipairs, j0, ioffsets[k2 + 1], (len + r) * (1 + 1e-6), 1);
#else
        uint j0 = ioffsets[k2], j1 = ioffsets[k2 + 1];
#endif
        for (uint j = j0; j < j1; j++) {
            GLOBAL const int *I = (GLOBAL const int *)(ipairs + 6 * j);
            long ci, cj;
            uint li, at, m;
            if (!ght_vector_fits(span, v, I))
                continue;
            ci = ght_position_cell(gw, gh, inv, dp, I[1], I[2], q);
            cj = ght_position_cell(gw, gh, inv, dp, I[3], I[4], q + 2);
            if (ci < 0 || cj < 0)
                continue;
            li = map[ci];
            if (li == 0 || li != map[cj])
                continue;
            m = nsel - li;
            if (pass == 0) {
                atomic_inc(&counts[m]);
                continue;
            }
            if (ght_match_hash((uint)I[0], T, I) > thr[m])
                continue;
            at = atomic_inc((GLOBAL uint *)out);
            if (at >= cap)
                continue;
            matches[10 * (ulong)at] = (int)m;
            matches[10 * (ulong)at + 1] = I[0];
            for (uint w = 0; w < 4; w++) {
                matches[10 * (ulong)at + 2 + w] = T[1 + w];
                matches[10 * (ulong)at + 6 + w] = I[1 + w];
            }
        }
    }
}

/* The largest count of candidate get_group_id(1)'s space into word 1 of its head in out
 * (regions of region ulongs; heads zeroed beforehand). */
KERNEL void
ght_space_max(GLOBAL const uint *spaces, uint cells, ulong region, GLOBAL ulong *out)
{
    LOCAL uint m[GHT_WG];
    uint lid = get_local_id(0), c = get_group_id(1), v = 0;
    GLOBAL const uint *space = spaces + (ulong)c * cells;

    for (uint i = get_global_id(0); i < cells; i += get_global_size(0))
        v = max(v, space[i]);
    m[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = GHT_WG / 2; s > 0; s /= 2) {
        if (lid < s)
            m[lid] = max(m[lid], m[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        atomic_max((GLOBAL uint *)(out + c * region) + 1, m[0]);
}

/* votecl__ght_space_peaks before ranking, for candidate get_global_id(1): every 3x3 maximum
 * (ties to the lower index) at or above thr (0: an eighth of the head's word 1, at least 1,
 * as votecl__ght_peak_threshold) with
 * its neighbourhood sums, appended after the candidate's 4-ulong head in its region of out
 * (4 ulongs each: cell | votes << 32, sw, sx, sy), counted by the head's word 0 (at most cap
 * written; region = 4 + 4 cap). */
KERNEL void
ght_space_peaks(GLOBAL const uint *spaces, uint gw, uint gh, uint thr, uint cap, GLOBAL ulong *out)
{
    uint i = get_global_id(0), c = get_global_id(1), x, y, v, at;
    GLOBAL const uint *space = spaces + (ulong)c * gw * gh;
    GLOBAL ulong *head = out + (ulong)c * (4 + 4 * (ulong)cap);
    GLOBAL uint *counts = (GLOBAL uint *)head;
    GLOBAL ulong *peaks = head + 4;
    ulong sw = 0;
    long sx = 0, sy = 0;

    if (i >= gw * gh)
        return;
    x = i % gw;
    y = i / gw;
    v = space[i];
    if (thr == 0)
        thr = max(counts[1] / 8, 1u);
    if (v < thr)
        return;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            uint nx = x + dx, ny = y + dy, w;
            if (nx >= gw || ny >= gh)
                continue;
            w = space[ny * gw + nx];
            if ((dx != 0 || dy != 0) && (w > v || (w == v && (dy < 0 || (dy == 0 && dx < 0)))))
                return;
            sw += w;
            sx += (long)w * dx;
            sy += (long)w * dy;
        }
    at = atomic_inc(&counts[0]);
    if (at >= cap)
        return;
    peaks[4 * (ulong)at] = (ulong)i | ((ulong)v << 32);
    peaks[4 * (ulong)at + 1] = sw;
    peaks[4 * (ulong)at + 2] = (ulong)sx;
    peaks[4 * (ulong)at + 3] = (ulong)sy;
}

/* ght_space_peaks' n regions (room for cap maxima each) packed into out: the n 4-ulong
 * heads, then candidate c's min(count, cap) maxima after those of the candidates before it,
 * so that one read of the used part takes them all. Work-item (i, c): maximum i of c. */
KERNEL void
ght_peaks_pack(GLOBAL const ulong *in, uint cap, uint n, GLOBAL ulong *out)
{
    uint i = get_global_id(0), c = get_global_id(1);
    ulong region = 4 + 4 * (ulong)cap, at = 4 * (ulong)n;
    GLOBAL const ulong *head = in + c * region;

    if (i < 4)
        out[4 * (ulong)c + i] = head[i];
    if (i >= min(*(GLOBAL const uint *)head, cap))
        return;
    for (uint k = 0; k < c; k++)
        at += 4 * (ulong)min(*(GLOBAL const uint *)(in + k * region), cap);
    for (uint k = 0; k < 4; k++)
        out[at + 4 * (ulong)i + k] = head[4 + 4 * (ulong)i + k];
}

/* The label maps (votecl__ght_label_maps, zeroed before; label nsel - k for maximum k) of
 * the selected maxima sel[0..nsel) (candidate, cell pairs): the largest label wins. */
KERNEL void
ght_labels(GLOBAL const uint *sel, uint nsel, uint radius, uint gw, uint gh, GLOBAL uint *labels)
{
    uint side = 2 * radius + 1, i = get_global_id(0), k = i / (side * side), o = i % (side * side);
    uint cell;
    int x, y;

    if (k >= nsel)
        return;
    cell = sel[2 * k + 1];
    x = (int)(cell % gw) + (int)(o % side) - (int)radius;
    y = (int)(cell / gw) + (int)(o / side) - (int)radius;
    if (x >= 0 && y >= 0 && (uint)x < gw && (uint)y < gh)
        atomic_max(&labels[((ulong)sel[2 * k] * gh + y) * gw + x], nsel - k);
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

/* votecl__ght_ref_ballard_vote (ght_ballard_edge of cl/ght-common.cl per work-item). */
KERNEL void
ght_ballard(GLOBAL const int *points, uint n, GLOBAL const uint *roffsets, GLOBAL const float *rdx,
            GLOBAL const float *rdy, GLOBAL const float *rs, GLOBAL const uint *shift,
            uint rotations, uint dp, uint gw, uint gh, GLOBAL uint *space)
{
    uint e = get_global_id(0), k = get_global_id(1);

    if (e >= n || k >= rotations)
        return;
    ght_ballard_edge(points[3 * e], points[3 * e + 1], (uint)points[3 * e + 2], k, roffsets, rdx,
                     rdy, rs, shift, rotations, dp, gw, gh, space);
}
