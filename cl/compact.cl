/* compact.cl: stage 1 of the generic engine (GPU-vote section 3.1): the elements that pass
 * vote_test become arrays of locations and values, in input order, through a prefix sum.
 *
 * Kernels (local size SCAN_WG; CHUNK = SCAN_WG * SCAN_ITEMS elements per group):
 *   vote_count    global groups * SCAN_WG: counts[g] = elements of chunk g passing the test
 *   vote_scan     global SCAN_WG (one group): counts[] becomes its exclusive prefix sum,
 *                 total[0] the number kept
 *   vote_compact  global groups * SCAN_WG: writes chunk g's passing elements from counts[g]
 * Elements are VALUE_T at positions e < n; locations are packed x | y << 16 for images
 * (width > 0) or the position for 1-D arrays, where vote_test sees x = e, y = 0.
 * Required defines: SCAN_WG (power of two), SCAN_ITEMS, VALUE_T, VOTE_HAS_TEST.
 * Atomics: none. */

#ifdef VOTE_HAS_TEST
#define CHUNK (SCAN_WG * SCAN_ITEMS)

INLINE int
stage1_test(GLOBAL const VALUE_T *restrict data, uint e, uint n, uint width)
{
    if (e >= n)
        return 0;
    uint x = width != 0 ? e % width : e, y = width != 0 ? e / width : 0;
    return vote_test(x, y, data[e]) ? 1 : 0;
}

KERNEL __attribute__((reqd_work_group_size(SCAN_WG, 1, 1))) void
vote_count(GLOBAL const VALUE_T *restrict data, uint n, uint width, GLOBAL uint *restrict counts)
{
    LOCAL uint tmp[SCAN_WG];
    const uint lid = get_local_id(0), group = get_group_id(0);
    uint mine = 0;

    for (uint r = 0; r < SCAN_ITEMS; r++)
        mine += stage1_test(data, group * CHUNK + r * SCAN_WG + lid, n, width);
    uint total;
    group_scan(tmp, lid, SCAN_WG, mine, &total);
    if (lid == 0)
        counts[group] = total;
}

KERNEL __attribute__((reqd_work_group_size(SCAN_WG, 1, 1))) void
vote_scan(GLOBAL uint *restrict counts, uint groups, GLOBAL uint *restrict total)
{
    LOCAL uint tmp[SCAN_WG];
    const uint lid = get_local_id(0);
    uint carry = 0;

    for (uint base = 0; base < groups; base += SCAN_WG) {
        uint i = base + lid;
        uint value = i < groups ? counts[i] : 0;
        uint sum;
        uint inclusive = group_scan(tmp, lid, SCAN_WG, value, &sum);
        if (i < groups)
            counts[i] = carry + inclusive - value;
        carry += sum;
    }
    if (lid == 0)
        total[0] = carry;
}

KERNEL __attribute__((reqd_work_group_size(SCAN_WG, 1, 1))) void
vote_compact(GLOBAL const VALUE_T *restrict data, uint n, uint width,
             GLOBAL const uint *restrict offsets, GLOBAL uint *restrict locations,
             GLOBAL VALUE_T *restrict values)
{
    LOCAL uint tmp[SCAN_WG];
    const uint lid = get_local_id(0), group = get_group_id(0);
    uint out = offsets[group];

    for (uint r = 0; r < SCAN_ITEMS; r++) {
        uint e = group * CHUNK + r * SCAN_WG + lid;
        int keep = stage1_test(data, e, n, width);
        uint kept;
        uint inclusive = group_scan(tmp, lid, SCAN_WG, (uint)keep, &kept);
        if (keep) {
            uint at = out + inclusive - 1;
            locations[at] = vote_location(e, width);
            values[at] = data[e];
        }
        out += kept;
    }
}
#endif
