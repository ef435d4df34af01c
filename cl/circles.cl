/* circles.cl: the circle Hough transform's votes and centre candidates (lib/circles.c; the
 * specification is lib/circles-ref.c). Integers only: the rays' float arithmetic (OpenCV's)
 * runs on the host, so every device adds exactly the reference's votes. Kernels:
 *   circles_gradient_vote  1-D, one work-item per (ray, side): global size >= 2 n, any local
 *                          size. Ray i (rays[4i .. 4i+3] = x0, y0, sx, sy, 1/1024 cells) steps
 *                          from min_radius to max_radius on its side (side = item & 1 negates
 *                          the step) and adds 1 to acc[cy * cols + cx] for each cell
 *                          (x >> 10, y >> 10) until the ray leaves the cols x rows
 *                          accumulator (votecl__circles_ref_gradient_vote). A position below
 *                          0 stops the ray before the shift, so no signed shift of a negative
 *                          number is needed. Global atomic_inc.
 *   circles_centres        1-D over the cols x rows cells: a cell (x, y), x, y >= 1, with more
 *                          than `votes` votes, more than its left and upper neighbours and at
 *                          least its right and lower ones (0 past the edges) is appended as
 *                          (cell, votes) to out[1 + 2k] (out[0]: the count, zeroed by the host,
 *                          which may exceed cap; only the first cap pairs are written). Their
 *                          order is the atomics'; the host sorts them. Global atomic_inc.
 *   circles_radii_vote     2-D: dimension 0 over the n edge points (x | y << 16), dimension 1
 *                          over the radii; global sizes >= (n, spaces), any local size. Point
 *                          i adds 1 to acc[s cols rows + y cols + x] for each offset (dx, dy)
 *                          of circle s (offsets[2k], offsets[2k + 1] for k in
 *                          [starts[s], starts[s + 1])) landing inside the image
 *                          (votecl__circles_ref_radii_vote). Global atomic_inc.
 *   circles_radii_max      2-D: dimension 0 over a radius's cells, dimension 1 over the radii;
 *                          local size (256, 1) (RADII_WG), global (cells rounded up, spaces):
 *                          maxes[s] (zeroed by the host) becomes the largest count of radius
 *                          s, one atomic_max per work-group after a reduction in local memory.
 *   circles_radii_candidates  2-D as circles_radii_max, any local size: a cell of radius s
 *                          with at least least[s] votes (the host's threshold as a count,
 *                          votecl__circles_radii_least) and no cell of its (2 my + 1) x
 *                          (2 mx + 1) window with more is appended as (s, cell, votes) to
 *                          out[1 + 3k] (out[0]: the count, zeroed by the host, which may
 *                          exceed cap; only the first cap are written). Global atomic_inc.
 * No -D defines; circles_radii_max's local array has the fixed RADII_WG entries. The radius
 * histograms are cl/circles-radius.cl's. */

KERNEL void
circles_gradient_vote(GLOBAL const int *rays, uint n, int min_radius, int max_radius, uint cols,
                      uint rows, GLOBAL uint *acc)
{
    uint item = (uint)get_global_id(0), i = item >> 1;
    int sx, sy, x1, y1;

    if (i >= n)
        return;
    sx = rays[4 * i + 2];
    sy = rays[4 * i + 3];
    if (item & 1u) {
        sx = -sx;
        sy = -sy;
    }
    x1 = rays[4 * i] + min_radius * sx;
    y1 = rays[4 * i + 1] + min_radius * sy;
    for (int r = min_radius; r <= max_radius; r++, x1 += sx, y1 += sy) {
        uint cx, cy;
        if (x1 < 0 || y1 < 0)
            break;
        cx = (uint)(x1 >> 10);
        cy = (uint)(y1 >> 10);
        if (cx >= cols || cy >= rows)
            break;
        atomic_inc((volatile GLOBAL uint *)&acc[(ulong)cy * cols + cx]);
    }
}

KERNEL void
circles_centres(GLOBAL const uint *acc, uint cols, uint rows, uint votes, uint cap,
                GLOBAL uint *out)
{
    ulong cell = get_global_id(0);
    uint x, y, v, right, down;

    if (cell >= (ulong)cols * rows)
        return;
    x = (uint)(cell % cols);
    y = (uint)(cell / cols);
    if (x == 0 || y == 0)
        return;
    v = acc[cell];
    right = x + 1 < cols ? acc[cell + 1] : 0u;
    down = y + 1 < rows ? acc[cell + cols] : 0u;
    if (v > votes && v > acc[cell - 1] && v >= right && v > acc[cell - cols] && v >= down) {
        uint k = atomic_inc((volatile GLOBAL uint *)out);
        if (k < cap) {
            out[1 + 2 * k] = (uint)cell;
            out[2 + 2 * k] = v;
        }
    }
}

KERNEL void
circles_radii_vote(GLOBAL const uint *points, uint n, GLOBAL const int *offsets,
                   GLOBAL const uint *starts, uint spaces, uint cols, uint rows, GLOBAL uint *acc)
{
    uint i = (uint)get_global_id(0), s = (uint)get_global_id(1);
    int px, py;
    GLOBAL uint *space;

    if (i >= n || s >= spaces)
        return;
    px = (int)(points[i] & 0xffffu);
    py = (int)(points[i] >> 16);
    space = acc + (ulong)s * cols * rows;
    for (uint k = starts[s]; k < starts[s + 1]; k++) {
        int x = px + offsets[2 * k], y = py + offsets[2 * k + 1];
        if (x >= 0 && y >= 0 && x < (int)cols && y < (int)rows)
            atomic_inc((volatile GLOBAL uint *)&space[(ulong)y * cols + (uint)x]);
    }
}

#define RADII_WG 256

KERNEL __attribute__((reqd_work_group_size(RADII_WG, 1, 1))) void
circles_radii_max(GLOBAL const uint *acc, uint cells, GLOBAL uint *maxes)
{
    LOCAL uint part[RADII_WG];
    uint i = (uint)get_global_id(0), s = (uint)get_global_id(1), t = (uint)get_local_id(0);

    part[t] = i < cells ? acc[(ulong)s * cells + i] : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = RADII_WG / 2; step > 0; step /= 2) {
        if (t < step)
            part[t] = max(part[t], part[t + step]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0 && part[0] > 0)
        atomic_max((volatile GLOBAL uint *)&maxes[s], part[0]);
}

KERNEL void
circles_radii_candidates(GLOBAL const uint *acc, uint cols, uint rows, GLOBAL const uint *least,
                         int mx, int my, uint cap, GLOBAL uint *out)
{
    uint i = (uint)get_global_id(0), s = (uint)get_global_id(1), v;
    uint cells = cols * rows;
    GLOBAL const uint *space = acc + (ulong)s * cells;
    int x, y;

    if (i >= cells)
        return;
    v = space[i];
    if (v < least[s])
        return;
    x = (int)(i % cols);
    y = (int)(i / cols);
    for (int yy = max(y - my, 0); yy <= y + my && yy < (int)rows; yy++)
        for (int xx = max(x - mx, 0); xx <= x + mx && xx < (int)cols; xx++)
            if (space[(uint)yy * cols + (uint)xx] > v)
                return;
    {
        uint k = atomic_inc((volatile GLOBAL uint *)out);
        if (k < cap) {
            out[1 + 3 * k] = s;
            out[2 + 3 * k] = i;
            out[3 + 3 * k] = v;
        }
    }
}
