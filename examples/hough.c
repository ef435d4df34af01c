/* Straight lines with the theta-rho Hough transform: edges from a gray picture, then votes.
 *
 * Every edge pixel votes for the G lines through it, x cos(theta) + y sin(theta) = rho
 * (van den Braak et al., "GPU-vote: a framework for accelerating voting algorithms on GPU",
 * section 2.2); the lines are the accumulator's peaks. The transform wants a binary edge
 * image: a gray picture is refused, so it goes through votecl_hough_edges() (Canny) first.
 *
 * Build: cc hough.c $(pkg-config --cflags --libs votecl) -lm
 * Run:   ./hough   (exit status 0: the rectangle's four sides were found; 77: no device) */
#include <votecl.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define WIDTH 320
#define HEIGHT 240

/* A bright rectangle, x in [80, 240) and y in [60, 180), over a shaded background. */
static void
make_picture(uint8_t *pixels)
{
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            int inside = x >= 80 && x < 240 && y >= 60 && y < 180;
            pixels[y * WIDTH + x] = (uint8_t)(inside ? 200 : 30 + x / 8 + y / 16);
        }
}

/* Whether a line is one of the sides: vertical at x = 79.5 or 239.5, horizontal at
 * y = 59.5 or 179.5 (the edges lie on either pixel of the step), within a pixel and a
 * degree. */
static int
is_side(const votecl_hough_line *line)
{
    double deg = line->theta * 180 / 3.14159265358979323846;

    if (fabs(deg) < 1.5 || fabs(deg - 180) < 1.5) {
        double x = fabs(line->rho);
        return fabs(x - 79.5) <= 1.5 || fabs(x - 239.5) <= 1.5;
    }
    return fabs(deg - 90) < 1.5 &&
           (fabs(line->rho - 59.5) <= 1.5 || fabs(line->rho - 179.5) <= 1.5);
}

int
main(void)
{
    static uint8_t picture[WIDTH * HEIGHT], edges[WIDTH * HEIGHT];
    votecl_image gray = {picture, WIDTH, HEIGHT, WIDTH, 1, VOTECL_DTYPE_U8};
    votecl_image edge_view = {edges, WIDTH, HEIGHT, WIDTH, 1, VOTECL_DTYPE_U8};
    votecl_context *ctx = NULL;
    votecl_hough_params params;
    votecl_hough_plan *plan = NULL;
    votecl_hough_line lines[8];
    size_t found = 0;
    votecl_status status;
    int started;
    int sides = 0;

    make_picture(picture);
    if ((started = example_context("hough", &ctx)) != 0)
        return started;
    votecl_hough_params_init(&params); /* 180 angles, one rho bin per pixel */
    params.max_lines = 4;
    status = votecl_hough_plan_new(ctx, &params, WIDTH, HEIGHT, &plan);

    /* The gray picture itself is no edge image: the library says so. */
    if (status == VOTECL_OK &&
        votecl_hough_run(plan, &gray, lines, 8, &found, NULL) == VOTECL_INVALID_ARGUMENT)
        printf("a gray picture is refused: %s\n", votecl_context_get_error(ctx));

    /* Canny's edges (hysteresis between 50 and 100), then the transform. */
    if (status == VOTECL_OK)
        status = votecl_hough_edges(ctx, &gray, 50, 100, edges, WIDTH);
    if (status == VOTECL_OK)
        status = votecl_hough_run(plan, &edge_view, lines, 8, &found, NULL);
    if (status != VOTECL_OK) {
        example_fail("hough", ctx, NULL, status);
        votecl_hough_plan_free(plan);
        votecl_context_free(ctx);
        return 1;
    }
    for (size_t i = 0; i < found && i < 8; i++) {
        printf("line %zu: theta %6.1f degrees, rho %6.1f pixels, %u votes\n", i,
               lines[i].theta * 180 / 3.14159265358979323846, lines[i].rho, lines[i].votes);
        sides += is_side(&lines[i]);
    }
    printf("%d of 4 sides found\n", sides);
    votecl_hough_plan_free(plan);
    votecl_context_free(ctx);
    return found == 4 && sides == 4 ? 0 : 1;
}
