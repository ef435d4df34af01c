/* A new voting algorithm in a few lines of OpenCL C: libvotecl's generic engine.
 *
 * The vote: the pixels brighter than a threshold are projected onto the two image axes.
 * Vote space 0 counts them per band of 16 columns, vote space 1 per band of 16 rows; the
 * first and last non-empty bands bound the bright object. That is a location-based vote
 * (GPU-vote section 3.1): vote_test keeps the bright pixels (stage 1 compacts them on the
 * device), and vote_index turns a pixel's location into a bin, once per space.
 *
 * Everything else (strategy, bin stretching, passes, merging, caching the compiled program)
 * is the engine's job. Build: `make` builds this file as examples/user-vote; outside the
 * source tree, cc user-vote.c $(pkg-config --cflags --libs votecl).
 * Run: VOTECL_KERNEL_PATH=cl examples/user-vote (the path only before `make install`); exit
 * status 0 when the disc's extent is right, 77 without a device. */
#include <stdio.h>
#include <stdlib.h>
#include <votecl.h>

#define WIDTH 640
#define HEIGHT 480
#define BAND 16
#define NBINS (WIDTH / BAND) /* the longer axis decides; rows use the first HEIGHT / BAND */

/* The algorithm. vote_table[] is a constant table the host passes: the threshold and the
 * band width. (The table is compiled into the program: a new table is a new build, cached
 * like every other.) */
static const char vote_source[] =
    "bool vote_test(uint x, uint y, VALUE_T value)\n"
    "{\n"
    "    return value > vote_table[0];\n"
    "}\n"
    "\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{\n"
    "    uint band = (uint)vote_table[1];\n"
    "    return (space == 0 ? vote_x(index) : vote_y(index)) / band;\n"
    "}\n";

/* A dark image with a bright disc of radius 50 centred at (420, 150). */
static unsigned char *
make_image(void)
{
    unsigned char *pixels = malloc(WIDTH * HEIGHT);
    if (pixels == NULL)
        return NULL;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            int dx = x - 420, dy = y - 150;
            pixels[y * WIDTH + x] = dx * dx + dy * dy <= 50 * 50 ? 230 : (x + y) % 40;
        }
    return pixels;
}

/* The first and last non-empty bin of a space, as pixel coordinates; returns whether they
 * are the bands [lo, hi] that hold the disc. */
static int
print_extent(const char *axis, const uint32_t *bins, unsigned n, int lo, int hi)
{
    int first = -1, last = -1;
    for (unsigned b = 0; b < n; b++)
        if (bins[b] > 0) {
            if (first < 0)
                first = (int)b;
            last = (int)b;
        }
    if (first < 0)
        printf("%s: no bright pixels\n", axis);
    else
        printf("%s: bright pixels between %d and %d\n", axis, first * BAND, (last + 1) * BAND - 1);
    return first * BAND == lo && (last + 1) * BAND - 1 == hi;
}

static votecl_status
run(votecl_context *ctx, const unsigned char *pixels, uint32_t *bins, votecl_vote_stats *stats)
{
    static const float table[] = {128.0f, BAND};
    votecl_image image = {pixels, WIDTH, HEIGHT, WIDTH, 1, VOTECL_DTYPE_U8};
    votecl_vote_spec spec;
    votecl_vote_plan *plan = NULL;
    votecl_status status;

    votecl_vote_spec_init(&spec); /* u8 pixels, one channel, unity votes (counts) */
    spec.spaces = 2;              /* space 0: columns, space 1: rows */
    spec.nbins = NBINS;
    spec.source = vote_source;
    spec.table = table;
    spec.table_size = 2;
    status = votecl_vote_plan_new(ctx, &spec, &plan); /* compiles once, then cached */
    if (status == VOTECL_BUILD_FAILED)
        fprintf(stderr, "%s\n", votecl_context_get_build_log(ctx));
    if (status == VOTECL_OK)
        status = votecl_vote_run_image(plan, &image, bins, stats);
    votecl_vote_plan_free(plan);
    return status;
}

int
main(void)
{
    char error[1024] = "";
    votecl_context *ctx = NULL;
    uint32_t bins[2 * NBINS];
    votecl_vote_stats stats;
    unsigned char *pixels = make_image();
    votecl_status status;

    if (pixels == NULL)
        return 1;
    status = votecl_context_new_with_error(NULL, &ctx, error, sizeof error);
    if (status == VOTECL_NO_DEVICE || status == VOTECL_BACKEND_UNAVAILABLE) {
        printf("user-vote: no device (%s)\n", error);
        free(pixels);
        return 77;
    }
    if (status == VOTECL_OK)
        status = run(ctx, pixels, bins, &stats);
    if (status != VOTECL_OK) {
        fprintf(stderr, "user-vote: %s: %s\n", votecl_status_string(status),
                ctx ? votecl_context_get_error(ctx) : error);
        votecl_context_free(ctx);
        free(pixels);
        return 1;
    }
    printf("%zu of %zu pixels are bright (eta %.4f)\n", stats.kept, stats.elements, stats.eta);
    /* the disc spans x 370-470 and y 100-200: the bands 368-479 and 96-207 */
    int right = print_extent("x", bins, NBINS, 368, 479);
    right &= print_extent("y", bins + NBINS, HEIGHT / BAND, 96, 207);
    votecl_context_free(ctx);
    free(pixels);
    return right ? 0 : 1;
}
