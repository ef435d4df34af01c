/* fuzz-params: the edge steps, Canny's and Sobel's (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>

/* The documented refusals of an edge step's image and output (votecl-edges.h). */
static int
must_refuse(const votecl_image *v, const void *out, size_t out_stride)
{
    if (classify(v) == VIEW_BAD || v->dtype != VOTECL_DTYPE_U8 || v->channels != 1)
        return 1;
    if (v->width > VOTECL_EDGES_MAX_SIDE || v->height > VOTECL_EDGES_MAX_SIDE)
        return 1;
    return pixels_of(v) > 0 && (out == NULL || (v->height > 1 && out_stride < v->width));
}

void
fuzz_canny(reader *r)
{
    votecl_canny_params p;
    size_t w = 1 + take8(r) % 64, h = 1 + take8(r) % 64, stride, bytes;
    unsigned dx = take8(r) % 3, dy = take8(r) % 3, ksize = take8(r) % 9;
    int sobel = take8(r) & 1;
    size_t size = sobel ? sizeof(int32_t) : 1;
    votecl_status status;

    votecl_canny_params_init(&p);
    mutate(r, &p, &canny_fields);
    votecl_image v = take_view(r, VOTECL_DTYPE_U8, 1, w, h);
    view_kind k = classify(&v);
    if (k == VIEW_TOO_BIG || (k == VIEW_FITS && pixels_of(&v) > WORK))
        return;
    stride = take8(r) < 200 ? v.width + take(r, 1) % 3 : take_size(r);
    /* the output as the step is told: stride elements a row, exactly that much memory (none
     * when that overflows) */
    if ((v.height > 1 && __builtin_mul_overflow(stride, v.height - 1, &bytes)) ||
        __builtin_add_overflow(v.height > 1 ? bytes : 0, v.width, &bytes))
        bytes = 0;
    void *out = take_output(r, bytes, size);
    if (sobel) {
        status = votecl_edges_sobel(ctx, &v, dx, dy, ksize, out, stride);
        check_status(status);
        if (dx > 1 || dy > 1 || dx + dy == 0 || (ksize != 3 && ksize != 5 && ksize != 7))
            FUZZ_CHECK(status != VOTECL_OK);
    } else {
        status = votecl_edges_canny(ctx, &v, &p, out, stride);
        check_status(status);
        if (p.aperture_size != 3 && p.aperture_size != 5 && p.aperture_size != 7)
            FUZZ_CHECK(status != VOTECL_OK);
        if (isnan(p.threshold1) || isnan(p.threshold2))
            FUZZ_CHECK(status != VOTECL_OK);
    }
    if (must_refuse(&v, out, stride))
        FUZZ_CHECK(status != VOTECL_OK);
    free(out);
}
