/* The segment checks the two line detectors share (tests/segments.h). */
#include "segments.h"

#include "truth-lines.h"

#include <string.h>

const double tu_segments_whole_want[4][4] = {
    {25, 25, 74, 74}, {25, 75, 74, 26}, {10, 5, 60, 5}, {95, 40, 95, 89}};

void
tu_segments_whole_draw(uint8_t *pixels)
{
    const size_t w = TU_SEGMENTS_SIDE;

    for (size_t i = 25; i < 75; i++)
        pixels[i * w + i] = pixels[(w - i) * w + i] = 255;
    for (size_t i = 10; i <= 60; i++)
        pixels[5 * w + i] = 255;
    for (size_t i = 40; i < 90; i++)
        pixels[i * w + 95] = 255;
}

/* One case of the table on view: its segments in segs and count; 0 when no plan was made. */
static int
check_dashed_case(const tu_segment_detector *d, votecl_context *context,
                  const truth_lines_dashed_case *c, const votecl_image *view,
                  votecl_segment segs[6], size_t *counts)
{
    const votecl_segment *found = NULL;
    size_t n = 0, count = 0;
    int has_segment[2] = {0, 0};
    void *plan = d->plan_new(context, c->max_gap, c->min_length, view->width, view->height);

    if (plan == NULL)
        return 0;
    /* none before the first run; NULL pointers refused */
    g_assert_cmpint(d->segments(plan, &found, &count), ==, VOTECL_OK);
    g_assert_true(found == NULL && count == 0);
    g_assert_cmpint(d->segments(plan, NULL, &count), ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpint(d->run(plan, view, &n, has_segment), ==, VOTECL_OK);
    g_assert_cmpuint(n, ==, 2);
    g_assert_cmpint(d->segments(plan, &found, &count), ==, VOTECL_OK);
    for (size_t i = 0; i < count; i++)
        g_test_message("max_gap %u min_length %u: line %zu (%.2f, %.2f)-(%.2f, %.2f) %u hits",
                       c->max_gap, c->min_length, found[i].line, found[i].x0, found[i].y0,
                       found[i].x1, found[i].y1, found[i].hits);
    g_assert_true(truth_lines_dashed_check(c, found, count, 0.5));
    for (size_t i = 0; i < count; i++)
        g_assert_true(has_segment[found[i].line]);
    g_assert_cmpuint(count, <=, 6);
    memcpy(segs, found, count * sizeof *found);
    *counts = count;
    d->free(plan);
    return 1;
}

void
tu_check_dashed(const tu_segment_detector *d, votecl_context *context, votecl_segment (*segs)[6],
                size_t *counts)
{
    uint8_t *pixels = g_malloc0((size_t)TRUTH_LINES_DASHED_W * TRUTH_LINES_DASHED_H);
    votecl_image view = tu_view_u8(pixels, TRUTH_LINES_DASHED_W, TRUTH_LINES_DASHED_H);

    truth_lines_dashed_draw(pixels);
    for (size_t k = 0; k < truth_lines_dashed_count; k++)
        if (!check_dashed_case(d, context, &truth_lines_dashed_cases[k], &view, segs[k],
                               &counts[k]))
            break;
    g_free(pixels);
}

void
tu_check_dashed_ref(const tu_segment_detector *d)
{
    votecl_segment segs[16][6];
    size_t counts[16];

    g_assert_cmpuint(truth_lines_dashed_count, <=, 16);
    tu_check_dashed(d, tu_ref_context, segs, counts);
}

void
tu_check_dashed_device(const tu_segment_detector *d, votecl_context *device)
{
    votecl_segment segs[16][6], want[16][6];
    size_t counts[16], want_counts[16];

    if (device == NULL)
        return;
    memset(segs, 0, sizeof segs);
    memset(want, 0, sizeof want);
    tu_check_dashed(d, device, segs, counts);
    tu_check_dashed(d, tu_ref_context, want, want_counts);
    for (size_t k = 0; k < truth_lines_dashed_count; k++) {
        g_assert_cmpuint(counts[k], ==, want_counts[k]);
        g_assert_true(truth_lines_segments_equal(segs[k], want[k], counts[k]));
    }
}
