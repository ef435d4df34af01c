/* HOG with libvotecl: descriptors of windows, and the people detector on an image.
 *
 * A window's descriptor is the histograms of gradient orientation of its cells, normalised
 * over overlapping blocks (Dalal and Triggs, "Histograms of oriented gradients for human
 * detection"); the detector scores every window of an image pyramid with a linear SVM and
 * fuses the hits (on the GPU: Prisacariu and Reid, "fastHOG - a real-time GPU implementation
 * of HOG"). The people model is OpenCV's default detector, installed with the kernels; a
 * detector OpenCV saved (cv2.HOGDescriptor.save) loads with votecl_hog_model_load_opencv().
 *
 * Build: cc hog.c $(pkg-config --cflags --libs votecl) -lm
 * Run:   ./hog   (exit status 0: descriptors and detection ran; 77: no device) */
#include <votecl.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define WIDTH 160
#define HEIGHT 256

/* A figure-like picture: a dark upright body with a head on a light background. */
static void
make_picture(uint8_t *pixels)
{
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            int dx = x - 80, dy = y - 70;
            int head = dx * dx + dy * dy < 14 * 14;
            int body = abs(dx) < 22 && y > 84 && y < 190;
            int legs = (abs(dx - 10) < 7 || abs(dx + 10) < 7) && y >= 190 && y < 240;
            pixels[y * WIDTH + x] = (uint8_t)(head || body || legs ? 50 : 190 + (x + y) % 9);
        }
}

int
main(void)
{
    static uint8_t picture[WIDTH * HEIGHT];
    votecl_image image = {picture, WIDTH, HEIGHT, WIDTH, 1, VOTECL_DTYPE_U8};
    votecl_context *ctx = NULL;
    votecl_hog_params params;
    votecl_hog_model *people = NULL;
    votecl_hog *hog = NULL;
    votecl_hog_point at = {48, 64};
    votecl_hog_detection found[16];
    size_t length = 0, n = 0, unit = 0, empty = 0;
    float *descriptor;
    votecl_status status;
    int started;

    make_picture(picture);
    if ((started = example_context("hog", &ctx)) != 0)
        return started;
    votecl_hog_params_init(&params); /* 64 x 128 windows, 8 x 8 cells, 9 bins: OpenCV's */

    /* 1. One window's descriptor at a chosen position. */
    if ((status = votecl_hog_descriptor_length(&params, &length)) != VOTECL_OK)
        return example_fail("hog", ctx, "length", status);
    if ((descriptor = malloc(length * sizeof *descriptor)) == NULL)
        return 1;
    status = votecl_hog_compute_at(ctx, &params, &image, &at, 1, descriptor, length);
    if (status != VOTECL_OK)
        return example_fail("hog", ctx, "descriptor", status);
    /* L2-Hys leaves every block (2 x 2 cells of 9 bins) of unit length, or zero where the
     * picture is flat */
    for (size_t b = 0; b + 36 <= length; b += 36) {
        double norm = 0;
        for (size_t i = b; i < b + 36; i++)
            norm += (double)descriptor[i] * descriptor[i];
        unit += fabs(norm - 1) < 0.01;
        empty += norm < 1e-6;
    }
    printf("descriptor: %zu values, %zu blocks of unit length, %zu flat\n", length, unit, empty);
    free(descriptor);

    /* 2. The people detector over the image pyramid. */
    if ((status = votecl_hog_model_people(ctx, &people)) != VOTECL_OK)
        return example_fail("hog", ctx, "people model", status);
    if ((status = votecl_hog_new(ctx, &params, people, &hog)) != VOTECL_OK)
        return example_fail("hog", ctx, "detector", status);
    if ((status = votecl_hog_detect(hog, &image, NULL, 0, found, 16, &n)) != VOTECL_OK)
        return example_fail("hog", ctx, "detect", status);
    printf("%zu detection%s\n", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < 16; i++)
        printf("  box (%d, %d) %d x %d, score %.2f, scale %.2f\n", found[i].box.x, found[i].box.y,
               found[i].box.width, found[i].box.height, found[i].score, found[i].scale);
    votecl_hog_free(hog);
    votecl_hog_model_free(people);
    votecl_context_free(ctx);
    return length == 3780 && unit + empty == 105 && unit > 0 ? 0 : 1;
}
