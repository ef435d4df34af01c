/* edges.cl: the public edge step's Canny on the device (lib/edges-device.c), operation for
 * operation votecl__canny_opencv_ref (lib/edges-ref.c), cv2.Canny's rules: OpenCV's Sobel of
 * side ksize (3, 5 or 7) with the border replicated (sobel_replicated_u8 of cl/common.h; for
 * 7 scaled by 1/16, rounded half to even), the L1 or (l2) squared L2 magnitude, OpenCV's
 * non-maximum suppression with the magnitudes outside the image 0, and the integer
 * thresholds; the hysteresis is canny_hysteresis of cl/canny.cl over the state words.
 *
 * Composed after cl/canny.cl (GHT_TX, GHT_TY: its tile). Kernels, each 2-D with a work-item
 * per pixel (global the image rounded up to the tile):
 *   edges_gradient  gx, gy and the magnitude of each pixel (int: |gx|, |gy| <= 20400 after
 *                   the scaling of side 7, 24480 for side 5, so an L2 magnitude fits)
 *   edges_state     0, 1 (weak: a ridge above low) or 2 (strong: also above high)
 *   edges_output    255 where the state is strong, 0 elsewhere, into a u8 image
 * Required defines: GHT_TX, GHT_TY (the side and the norm are arguments: one program). */

/* s / 16 rounded half to even (sobel7_scaled of lib/edges-ref.c). */
INLINE int
edges_scaled(int s)
{
    int r = (s % 16 + 16) % 16, q = (s - r) / 16;

    return q + (r > 8 || (r == 8 && (q & 1) != 0) ? 1 : 0);
}

KERNEL void
edges_gradient(GLOBAL const uchar *img, uint w, uint h, uint ksize, uint l2, GLOBAL int *gx,
               GLOBAL int *gy, GLOBAL int *mag)
{
    int x = (int)get_global_id(0), y = (int)get_global_id(1), sx, sy;
    ulong i = (ulong)y * w + (ulong)x;

    if (x >= (int)w || y >= (int)h)
        return; /* no barrier in this kernel */
    sobel_replicated_u8(img, (int)w, (int)h, (int)ksize, x, y, &sx, &sy);
    if (ksize == 7) {
        sx = edges_scaled(sx);
        sy = edges_scaled(sy);
    }
    gx[i] = sx;
    gy[i] = sy;
    mag[i] = l2 ? sx * sx + sy * sy : (int)(abs(sx) + abs(sy));
}

/* A magnitude of the image, 0 outside it (mag_at of lib/edges-ref.c). */
INLINE int
edges_mag_at(GLOBAL const int *mag, int w, int h, int x, int y)
{
    return x < 0 || y < 0 || x >= w || y >= h ? 0 : mag[(ulong)y * (uint)w + (uint)x];
}

/* OpenCV's non-maximum suppression (opencv_ridge of lib/edges-ref.c): tan 22.5 degrees as
 * 13573 / 2^15, tan 67.5 as that + 2; strictly above the neighbour behind and at least the
 * one ahead, strictly above both across a diagonal. */
INLINE int
edges_ridge(GLOBAL const int *mag, int w, int h, int x, int y, int m, int gx, int gy)
{
    long ax = abs(gx), ay = (long)abs(gy) * 32768, tg22x = ax * 13573;
    int s = (gx < 0) != (gy < 0) ? -1 : 1;

    if (ay < tg22x)
        return m > edges_mag_at(mag, w, h, x - 1, y) && m >= edges_mag_at(mag, w, h, x + 1, y);
    if (ay > tg22x + ax * 65536)
        return m > edges_mag_at(mag, w, h, x, y - 1) && m >= edges_mag_at(mag, w, h, x, y + 1);
    return m > edges_mag_at(mag, w, h, x - s, y - 1) && m > edges_mag_at(mag, w, h, x + s, y + 1);
}

KERNEL void
edges_state(GLOBAL const int *gx, GLOBAL const int *gy, GLOBAL const int *mag, uint w, uint h,
            int low, int high, GLOBAL uint *state)
{
    int x = (int)get_global_id(0), y = (int)get_global_id(1);
    ulong i = (ulong)y * w + (ulong)x;
    int m;

    if (x >= (int)w || y >= (int)h)
        return;
    m = mag[i];
    state[i] = m > low && edges_ridge(mag, (int)w, (int)h, x, y, m, gx[i], gy[i])
                   ? (m > high ? 2u : 1u)
                   : 0u;
}

KERNEL void
edges_output(GLOBAL const uint *state, uint w, uint h, GLOBAL uchar *out)
{
    uint x = get_global_id(0), y = get_global_id(1);
    ulong i = (ulong)y * w + x;

    if (x < w && y < h)
        out[i] = (state[i] & 3u) == 2u ? 255 : 0;
}
