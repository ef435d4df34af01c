/* Line detection with PClines: the lines of a gray image through parallel coordinates.
 *
 * PClines (Havel, Dubska, Herout, Josth, "Real-time detection of lines using parallel
 * coordinates and CUDA") maps every line to a point of the TS space and every edge to two
 * segments; the lines are the space's maxima. The plan finds the edges itself (Sobel), and
 * each edge votes only near its own orientation.
 *
 * Build: cc lines.c $(pkg-config --cflags --libs votecl) -lm
 * Run:   ./lines   (exit status 0: both drawn lines were found; 77: no device) */
#include <votecl.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define WIDTH 320
#define HEIGHT 240
#define PI 3.14159265358979323846

/* Two lines, x cos(theta) + y sin(theta) = rho, drawn as steps of brightness: one side of
 * each line is brighter than the other, so its edge is the line itself. */
static const double truth[2][2] = {{30 * PI / 180, 150}, {120 * PI / 180, 20}};

static void
make_picture(uint8_t *pixels)
{
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            int v = 20;
            for (int k = 0; k < 2; k++)
                if (x * cos(truth[k][0]) + y * sin(truth[k][0]) > truth[k][1])
                    v += 100;
            pixels[y * WIDTH + x] = (uint8_t)v;
        }
}

/* The drawn line a detection is, or -1: theta within 2 degrees, rho within 3 pixels. */
static int
which(const votecl_lines_line *line)
{
    for (int k = 0; k < 2; k++)
        if (fabs(line->theta - truth[k][0]) < 2 * PI / 180 && fabs(line->rho - truth[k][1]) < 3)
            return k;
    return -1;
}

int
main(void)
{
    static uint8_t picture[WIDTH * HEIGHT];
    votecl_image image = {picture, WIDTH, HEIGHT, WIDTH, 1, VOTECL_DTYPE_U8};
    votecl_context *ctx = NULL;
    votecl_lines_params params;
    votecl_lines_plan *plan = NULL;
    votecl_lines_line lines[8];
    size_t found = 0;
    votecl_status status;
    int started;
    int seen[2] = {0, 0};

    make_picture(picture);
    if ((started = example_context("lines", &ctx)) != 0)
        return started;
    votecl_lines_params_init(&params); /* the TS space's size and thresholds from the image */
    params.max_lines = 2;
    status = votecl_lines_plan_new(ctx, &params, WIDTH, HEIGHT, &plan);
    if (status == VOTECL_OK)
        status = votecl_lines_run(plan, &image, lines, 8, &found);
    if (status != VOTECL_OK) {
        example_fail("lines", ctx, NULL, status);
        votecl_lines_plan_free(plan);
        votecl_context_free(ctx);
        return 1;
    }
    for (size_t i = 0; i < found && i < 8; i++) {
        int k = which(&lines[i]);
        printf("line %zu: theta %6.1f degrees, rho %6.1f pixels, %u votes%s\n", i,
               lines[i].theta * 180 / PI, lines[i].rho, lines[i].votes, k >= 0 ? " (drawn)" : "");
        if (k >= 0)
            seen[k] = 1;
    }
    votecl_lines_plan_free(plan);
    votecl_context_free(ctx);
    return seen[0] && seen[1] ? 0 : 1;
}
