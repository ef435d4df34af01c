/* The sequential reference for the theta-rho Hough transform: the specification of the
 * device vote, the test oracle and the 'ref' backend. libc only. The bin arithmetic of
 * votecl__hough_bin() and of the OpenCL C text of votecl__hough_source() is the same
 * sequence of single-precision operations; this file is compiled with -ffp-contract=off and
 * the kernels with FP_CONTRACT OFF, so both round identically. */
#include "votecl-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hough-private.h"

uint32_t
votecl__hough_default_bins(uint32_t width, uint32_t height)
{
    double w = width, h = height;
    return (uint32_t)ceil(w + sqrt(w * w + h * h));
}

/* cos and sin of theta_g = g pi / G, in double, rounded to float: one table for both sides. */
static void
fill_table(float *table, unsigned angles)
{
    for (unsigned g = 0; g < angles; g++) {
        double theta = (double)g * M_PI / (double)angles;
        table[2 * g] = (float)cos(theta);
        table[2 * g + 1] = (float)sin(theta);
    }
}

uint32_t
votecl__hough_opencv_bins(uint32_t width, uint32_t height)
{
    double w = width, h = height;
    return width + (uint32_t)ceil(sqrt(w * w + h * h)) + 2;
}

/* OpenCV's createTrigTable (imgproc/src/hough.cpp) for rho step 1: the angle accumulated in
 * float, its cos and sin in double rounded to float, so the votes are cv2.HoughLines'. */
static void
fill_opencv_table(float *table, unsigned angles, float step)
{
    float ang = 0.0f;

    for (unsigned g = 0; g < angles; g++, ang += step) {
        table[2 * g] = (float)cos((double)ang);
        table[2 * g + 1] = (float)sin((double)ang);
    }
}

votecl_status
votecl__hough_desc_init(votecl__hough_desc *desc, uint32_t width, uint32_t height, unsigned angles,
                        uint32_t rho_bins, unsigned edge_threshold, int grid)
{
    double w = width, h = height;

    memset(desc, 0, sizeof *desc);
    desc->table = votecl__malloc(2 * (size_t)angles * sizeof *desc->table);
    if (desc->table == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    desc->opencv = grid == VOTECL_HOUGH_GRID_OPENCV;
    desc->theta_step = (float)(M_PI / angles);
    if (desc->opencv)
        fill_opencv_table(desc->table, angles, desc->theta_step);
    else
        fill_table(desc->table, angles);
    desc->offset = (int32_t)width;
    desc->width = width;
    desc->height = height;
    desc->angles = angles;
    desc->nbins = desc->opencv    ? votecl__hough_opencv_bins(width, height)
                  : rho_bins != 0 ? rho_bins
                                  : votecl__hough_default_bins(width, height);
    desc->edge_threshold = edge_threshold;
    desc->w = (float)w;
    desc->d = (float)sqrt(w * w + h * h);
    desc->scale = (float)((double)desc->nbins / ((double)desc->d + w));
    return VOTECL_OK;
}

void
votecl__hough_desc_release(votecl__hough_desc *desc)
{
    free(desc->table);
    desc->table = NULL;
}

/* OpenCV grid: OpenCV's float angle, (float)n * theta. */
double
votecl__hough_theta(const votecl__hough_desc *desc, unsigned g)
{
    if (desc->opencv)
        return (double)((float)g * desc->theta_step);
    return (double)g * M_PI / (double)desc->angles;
}

/* The centre of bin b: no half-bin bias whatever the parity of N; on the OpenCV grid an
 * integer. */
double
votecl__hough_rho(const votecl__hough_desc *desc, uint32_t b)
{
    if (desc->opencv)
        return (double)((int64_t)b - desc->offset);
    return ((double)b + 0.5) * ((double)desc->d + desc->w) / (double)desc->nbins - desc->w;
}

/* GPU-vote Eq. 1-2. rho >= -(W - 1) because sin(theta) >= 0 on [0, pi) and x <= W - 1, so
 * rho + W >= 1 and the conversion truncates a positive number (a floor). */
uint32_t
votecl__hough_bin(const votecl__hough_desc *desc, uint32_t x, uint32_t y, unsigned g)
{
    float rho = (float)x * desc->table[2 * g] + (float)y * desc->table[2 * g + 1];
    uint32_t bin;

    if (desc->opencv) { /* cvRound: to nearest, ties to even (the default rounding mode) */
        int64_t b = (int64_t)rintf(rho) + desc->offset;
        return b < 0 ? 0 : b >= desc->nbins ? desc->nbins - 1 : (uint32_t)b;
    }
    bin = (uint32_t)((rho + desc->w) * desc->scale);
    return bin < desc->nbins - 1 ? bin : desc->nbins - 1;
}

size_t
votecl__hough_ref(const votecl__hough_desc *desc, const uint8_t *data, size_t stride, uint32_t *acc)
{
    size_t edges = 0, n = desc->nbins;

    memset(acc, 0, (size_t)desc->angles * n * sizeof *acc);
    for (uint32_t y = 0; y < desc->height; y++) {
        const uint8_t *row = data + (size_t)y * stride;
        for (uint32_t x = 0; x < desc->width; x++) {
            if (row[x] < desc->edge_threshold)
                continue;
            edges++;
            for (unsigned g = 0; g < desc->angles; g++)
                acc[g * n + votecl__hough_bin(desc, x, y, g)]++;
        }
    }
    return edges;
}

/* What both grids' sources share: the edge test, and the pixel's rho that vote_index bins. */
#define VOTE_TEST_AND_RHO                                                                          \
    "\n"                                                                                           \
    "bool vote_test(uint x, uint y, uchar value)\n"                                                \
    "{\n"                                                                                          \
    "    return (uint)value >= HOUGH_EDGE;\n"                                                      \
    "}\n"                                                                                          \
    "\n"                                                                                           \
    "uint vote_index(uint space, uint index, uchar value, uint nbins)\n"                           \
    "{\n"                                                                                          \
    "    float rho = (float)vote_x(index) * vote_table[2 * space] +\n"                             \
    "                (float)vote_y(index) * vote_table[2 * space + 1];\n"

/* The device side of votecl__hough_bin(), for the generic engine: vote_table holds the
 * cos/sin pairs; W and the scale are exact float bit patterns. */
static const char source_format[] =
    "/* libvotecl's theta-rho Hough transform (GPU-vote Eq. 1-2); see lib/hough-ref.c. */\n"
    "#define HOUGH_W as_float(0x%08xu)     /* W = %u */\n"
    "#define HOUGH_SCALE as_float(0x%08xu) /* N / (D + W) = %.9g */\n"
    "#define HOUGH_EDGE %uu\n" VOTE_TEST_AND_RHO
    "    uint bin = (uint)((rho + HOUGH_W) * HOUGH_SCALE);\n"
    "    return min(bin, nbins - 1u);\n"
    "}\n";

/* The same on the OpenCV grid: rint rounds to nearest, ties to even, as cvRound and the
 * host's rintf. */
static const char opencv_format[] =
    "/* libvotecl's theta-rho Hough transform on OpenCV's grid; see lib/hough-ref.c. */\n"
    "#define HOUGH_OFFSET %d /* the bin of rho 0 */\n"
    "#define HOUGH_EDGE %uu\n" VOTE_TEST_AND_RHO "    int bin = (int)rint(rho) + HOUGH_OFFSET;\n"
    "    return bin < 0 ? 0u : min((uint)bin, nbins - 1u);\n"
    "}\n";

char *
votecl__hough_source(const votecl__hough_desc *desc)
{
    size_t size = sizeof source_format + 128;
    char *text = votecl__malloc(size);

    if (text != NULL && desc->opencv)
        snprintf(text, size, opencv_format, (int)desc->offset, desc->edge_threshold);
    else if (text != NULL)
        snprintf(text, size, source_format, votecl__float_bits(desc->w), desc->width,
                 votecl__float_bits(desc->scale), (double)desc->scale, desc->edge_threshold);
    return text;
}
