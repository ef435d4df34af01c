/* The edge step's reference, the specification (lib/edges-private.h): Canny's edges as the
 * detectors use them (3x3 Sobel, L1 magnitude, the one-pixel border left out) and OpenCV's
 * Sobel and Canny of the public step (include/votecl/votecl-edges.h). libc only. */
#include "votecl-private.h"

#include <stdlib.h>
#include <string.h>

#include "edges-private.h"

const int32_t votecl__sobel_smooth[3][7] = {
    {0, 0, 1, 2, 1, 0, 0}, {0, 1, 4, 6, 4, 1, 0}, {1, 6, 15, 20, 15, 6, 1}};
const int32_t votecl__sobel_deriv[3][7] = {
    {0, 0, -1, 0, 1, 0, 0}, {0, -1, -2, 0, 2, 1, 0}, {-1, -4, -5, 0, 5, 4, 1}};

/* --- the reference --- */

/* Non-maximum suppression in one of four directions (tan 22.5 and tan 67.5 as integer
 * ratios): strictly above the neighbour behind, at least the one ahead. */
static int
is_ridge(const int32_t *mag, uint32_t w, size_t i, int32_t gx, int32_t gy)
{
    int64_t ax = gx < 0 ? -(int64_t)gx : gx, ay = gy < 0 ? -(int64_t)gy : gy;
    ptrdiff_t step;

    if (ay * 100000 <= ax * 41421)
        step = 1;
    else if (ay * 100000 >= ax * 241421)
        step = (ptrdiff_t)w;
    else
        step = ((gx < 0) == (gy < 0)) ? (ptrdiff_t)w + 1 : (ptrdiff_t)w - 1;
    return mag[i] > mag[i - step] && mag[i] >= mag[i + step];
}

/* Hysteresis: state 2 (strong) spreads to 8-connected state 1 (weak). */
static int
ref_hysteresis(uint8_t *state, uint32_t w, uint32_t h)
{
    size_t n = (size_t)w * h, top = 0;
    uint32_t *stack = votecl__malloc((n > 0 ? n : 1) * sizeof *stack);

    if (stack == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (state[i] == 2)
            stack[top++] = (uint32_t)i;
    while (top > 0) {
        size_t i = stack[--top];
        uint32_t x = (uint32_t)(i % w), y = (uint32_t)(i / w);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                size_t j;
                if ((dx == 0 && dy == 0) || x + dx >= w || y + dy >= h)
                    continue;
                j = (size_t)(y + dy) * w + (x + dx);
                if (state[j] == 1) {
                    state[j] = 2;
                    stack[top++] = (uint32_t)j;
                }
            }
    }
    free(stack);
    return 0;
}

size_t
votecl__canny_ref(const uint8_t *data, uint32_t width, uint32_t height, unsigned low, unsigned high,
                  votecl__edge *out)
{
    size_t n = (size_t)width * height, count = 0;
    int32_t *mag = votecl__calloc(n > 0 ? n : 1, sizeof *mag),
            *g = votecl__malloc((n > 0 ? n : 1) * 8);
    uint8_t *state = votecl__calloc(n > 0 ? n : 1, 1);

    if (mag == NULL || g == NULL || state == NULL) {
        count = (size_t)-1;
        goto out;
    }
    for (uint32_t y = 1; y + 1 < height; y++)
        for (uint32_t x = 1; x + 1 < width; x++) {
            size_t i = (size_t)y * width + x;
            votecl__sobel3(data + i, width, &g[2 * i], &g[2 * i + 1]);
            mag[i] = abs(g[2 * i]) + abs(g[2 * i + 1]);
        }
    for (uint32_t y = 1; y + 1 < height; y++)
        for (uint32_t x = 1; x + 1 < width; x++) {
            size_t i = (size_t)y * width + x;
            if (mag[i] > (int32_t)low && is_ridge(mag, width, i, g[2 * i], g[2 * i + 1]))
                state[i] = mag[i] > (int32_t)high ? 2 : 1;
        }
    if (low < high && ref_hysteresis(state, width, height) != 0) {
        count = (size_t)-1;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (state[i] == 2 || (low >= high && state[i] == 1)) {
            out[count].x = (int32_t)(i % width);
            out[count].y = (int32_t)(i / width);
            out[count].gx = g[2 * i];
            out[count++].gy = g[2 * i + 1];
        }
out:
    free(mag);
    free(g);
    free(state);
    return count;
}

/* --- the public step's reference: OpenCV's Sobel and Canny --- */

static uint32_t
clamp_coord(int64_t v, uint32_t n)
{
    return v < 0 ? 0 : v >= n ? n - 1 : (uint32_t)v;
}

void
votecl__sobel_ref(const uint8_t *data, uint32_t width, uint32_t height, unsigned dx, unsigned dy,
                  unsigned ksize, int32_t *out)
{
    int k = (int)ksize / 2 - 1, r = (int)ksize / 2;
    const int32_t *kx = dx ? votecl__sobel_deriv[k] : votecl__sobel_smooth[k];
    const int32_t *ky = dy ? votecl__sobel_deriv[k] : votecl__sobel_smooth[k];

    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            int32_t sum = 0;
            for (int j = -r; j <= r; j++) {
                const uint8_t *row = data + (size_t)clamp_coord((int64_t)y + j, height) * width;
                for (int i = -r; i <= r; i++)
                    sum += ky[3 + j] * kx[3 + i] * row[clamp_coord((int64_t)x + i, width)];
            }
            out[(size_t)y * width + x] = sum;
        }
}

/* A magnitude of the image, 0 outside it (OpenCV pads its magnitude rows with zeros). */
static int64_t
mag_at(const int64_t *mag, uint32_t w, uint32_t h, int64_t x, int64_t y)
{
    return x < 0 || y < 0 || x >= w || y >= h ? 0 : mag[(size_t)y * w + (size_t)x];
}

/* OpenCV's non-maximum suppression: tan 22.5 degrees as 13573 / 2^15 (TG22), tan 67.5 as
 * TG22 + 2; strictly above the neighbour behind and at least the one ahead, strictly above
 * both across a diagonal. */
static int
opencv_ridge(const int64_t *mag, uint32_t w, uint32_t h, uint32_t x, uint32_t y, int32_t gx,
             int32_t gy)
{
    int64_t m = mag[(size_t)y * w + x], ax = gx < 0 ? -(int64_t)gx : gx;
    int64_t ay = (gy < 0 ? -(int64_t)gy : gy) * 32768, tg22x = ax * 13573;
    int64_t s;

    if (ay < tg22x)
        return m > mag_at(mag, w, h, (int64_t)x - 1, y) &&
               m >= mag_at(mag, w, h, (int64_t)x + 1, y);
    if (ay > tg22x + ax * 65536)
        return m > mag_at(mag, w, h, x, (int64_t)y - 1) &&
               m >= mag_at(mag, w, h, x, (int64_t)y + 1);
    s = (gx < 0) != (gy < 0) ? -1 : 1;
    return m > mag_at(mag, w, h, (int64_t)x - s, (int64_t)y - 1) &&
           m > mag_at(mag, w, h, (int64_t)x + s, (int64_t)y + 1);
}

/* cv2.Canny's 7x7 derivative: the Sobel sum scaled by 1/16 into a short, as OpenCV asks its
 * Sobel for (the unscaled sums reach 326400), rounded half to even by its float-to-short
 * conversion. */
static int32_t
sobel7_scaled(int32_t s)
{
    int32_t r = (s % 16 + 16) % 16, q = (s - r) / 16;

    return q + (r > 8 || (r == 8 && (q & 1) != 0));
}

int
votecl__canny_opencv_ref(const uint8_t *data, uint32_t width, uint32_t height, int64_t low,
                         int64_t high, unsigned ksize, int l2, uint8_t *edges)
{
    size_t n = (size_t)width * height;
    int32_t *gx = votecl__malloc((n > 0 ? n : 1) * sizeof *gx),
            *gy = votecl__malloc((n > 0 ? n : 1) * sizeof *gy);
    int64_t *mag = votecl__malloc((n > 0 ? n : 1) * sizeof *mag);
    int rc = -1;

    if (gx == NULL || gy == NULL || mag == NULL)
        goto out;
    votecl__sobel_ref(data, width, height, 1, 0, ksize, gx);
    votecl__sobel_ref(data, width, height, 0, 1, ksize, gy);
    for (size_t i = 0; ksize == 7 && i < n; i++) {
        gx[i] = sobel7_scaled(gx[i]);
        gy[i] = sobel7_scaled(gy[i]);
    }
    for (size_t i = 0; i < n; i++)
        mag[i] =
            l2 ? (int64_t)gx[i] * gx[i] + (int64_t)gy[i] * gy[i] : (int64_t)abs(gx[i]) + abs(gy[i]);
    memset(edges, 0, n);
    for (uint32_t y = 0; y < height; y++)
        for (uint32_t x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            if (mag[i] > low && opencv_ridge(mag, width, height, x, y, gx[i], gy[i]))
                edges[i] = mag[i] > high ? 2 : 1;
        }
    if (ref_hysteresis(edges, width, height) != 0)
        goto out;
    for (size_t i = 0; i < n; i++)
        edges[i] = edges[i] == 2 ? 255 : 0;
    rc = 0;
out:
    free(gx);
    free(gy);
    free(mag);
    return rc;
}
