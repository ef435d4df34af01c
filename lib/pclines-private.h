/* PClines' internal interface: the integer geometry shared by the plan (lib/pclines.c), the
 * sequential reference (lib/pclines-ref.c), the kernels' defines and the tests. Every
 * function here is the specification cl/pclines.cl follows operation for operation. */
#ifndef VOTECL_PCLINES_PRIVATE_H
#define VOTECL_PCLINES_PRIVATE_H

#include "votecl-private.h"
#include "segment-private.h"

typedef struct votecl__pclines_desc {
    uint32_t width, height;
    uint32_t d;         /* 2d columns */
    uint32_t rows;      /* V */
    uint32_t m;         /* M = max(W, H) - 1 */
    uint64_t k;         /* floor(2^32 V / ((2M + 1) d)) */
    unsigned half;      /* n / 2 */
    uint32_t threshold; /* resolved, >= 1 */
    unsigned radius;    /* resolved; 0: no orientation */
    unsigned kernel;    /* 3, 5 or 7: side of the Sobel operator giving the orientation */
    int64_t edge_t2;    /* edge_threshold^2 */
} votecl__pclines_desc;

/* Resolves params into desc (params already validated). */
void votecl__pclines_desc_init(votecl__pclines_desc *desc, const votecl_lines_params *params,
                               uint32_t width, uint32_t height);

/* The row of edge (px, py) in column c (0 <= c < 2d). */
uint32_t votecl__pclines_row(const votecl__pclines_desc *desc, uint32_t px, uint32_t py,
                             uint32_t c);

/* The orientation key of a gradient: Eq. 9's u plus d, modulo 2d. */
uint32_t votecl__pclines_key(const votecl__pclines_desc *desc, int32_t gx, int32_t gy);

/* The orientation radius of column c (0 <= c < 2d): desc->radius at the axes, half of it at
 * the diagonals (one angle), at least 1; desc->radius must be > 0. */
uint32_t votecl__pclines_radius_at(const votecl__pclines_desc *desc, uint32_t c);

/* Whether an edge of key votes in column c. */
int votecl__pclines_in_window(const votecl__pclines_desc *desc, uint32_t key, uint32_t c);

/* The Sobel gradient of interior pixel (x, y) of a packed image (u8, or f32 scaled by 255,
 * NaN taken as 0, clamped to +-2^20 and rounded to an integer). */
void votecl__pclines_sobel(const void *data, votecl_dtype dtype, uint32_t width, uint32_t x,
                           uint32_t y, int32_t *gx, int32_t *gy);

/* The gradient that gives the orientation key of interior pixel (x, y): the Sobel operator of
 * side desc->kernel (3: votecl__pclines_sobel), coordinates clamped to the image, summed row
 * by row and left to right (f32: in float, then scaled by 255 and rounded as the 3 x 3 one). */
void votecl__pclines_orientation(const votecl__pclines_desc *desc, const void *data,
                                 votecl_dtype dtype, uint32_t x, uint32_t y, int32_t *gx,
                                 int32_t *gy);

/* An edge point ready to vote: packed location x | y << 16 and key. */
typedef struct votecl__pclines_point {
    uint32_t location;
    uint32_t key;
} votecl__pclines_point;

/* The edges of a packed image, in raster order; returns how many (points: W * H entries). */
size_t votecl__pclines_ref_edges(const votecl__pclines_desc *desc, const void *data,
                                 votecl_dtype dtype, votecl__pclines_point *points);

/* Algorithm 1: every point votes into space (2d * V counts, overwritten). */
void votecl__pclines_ref_accumulate(const votecl__pclines_desc *desc,
                                    const votecl__pclines_point *points, size_t n, uint32_t *space);

/* A TS-space maximum: its cell and votes. */
typedef struct votecl__pclines_max {
    uint32_t cell;
    uint32_t votes;
} votecl__pclines_max;

/* Whether cell (c, r) of a complete space is a reported maximum (threshold included). */
int votecl__pclines_is_max(const votecl__pclines_desc *desc, const uint32_t *space, uint32_t c,
                           uint32_t r);

/* The maxima of a complete space, in cell order; returns how many (out: capacity entries). */
size_t votecl__pclines_ref_maxima(const votecl__pclines_desc *desc, const uint32_t *space,
                                  votecl__pclines_max *out, size_t capacity);

/* The most maxima a space can hold: one per block of (n + 1) / 2 squared cells. */
size_t votecl__pclines_max_bound(const votecl__pclines_desc *desc);

/* The gray level of a u8 colour pixel (R, G, B first): (299 R + 587 G + 114 B + 500) / 1000,
 * the rounding of `votecl`'s own conversion (tools/image-io.c), so that a colour frame gives
 * the lines of its gray image; cl/pclines.cl's pclines_gray_u8 computes the same. */
static inline uint8_t
votecl__pclines_gray_of(const uint8_t *p)
{
    return (uint8_t)((299u * p[0] + 587u * p[1] + 114u * p[2] + 500u) / 1000u);
}

/* The gray image of pixels u8 colour pixels of channels (3 or 4) elements each. */
void votecl__pclines_gray(const uint8_t *colour, unsigned channels, size_t pixels, uint8_t *gray);

/* What lines are refined from: a packed image (data), else n edges (borrowed), else nothing
 * (data and edges NULL). */
typedef struct votecl__pclines_source {
    const void *data;
    votecl_dtype dtype;
    const votecl_lines_edge *edges;
    size_t n;
} votecl__pclines_source;

/* Which pixels of a source are edges, for the fit and the segment walk: an image's 3 x 3 Sobel
 * edges (magnitude at least the edge threshold, interior pixels) are found a tile at a time
 * when a line first reaches the tile, so that a pixel's gradient is tested once a run rather
 * than once for each line and pass near it; an edge list's pixels are marked at once. Two
 * bitmaps, one a row at a time and one a column at a time, give the edges of a line's band
 * across a step of either axis in a word or two. Lines fitted on several threads share the
 * map: a tile's state says who fills it (once), and a tile's bits are read only once it is
 * filled. */
typedef struct votecl__pclines_edge_map {
    const votecl__pclines_desc *desc; /* borrowed */
    votecl__pclines_source source;    /* its pointers borrowed */
    votecl_lines_edge *sorted;        /* owned: an edge list sorted by location (x | y << 16) */
    uint32_t *ranks;   /* owned: a list without repeated pixels: the edges before each word of
                          rows, giving an edge's place in sorted (NULL: search sorted) */
    uint32_t *rows;    /* owned: bit x % 32 of word y * tiles_x + x / 32 set at an edge (x, y) */
    _Atomic uint32_t *columns; /* owned: bit y % 32 of word x * tiles_y + y / 32 the same;
                                  a word holds the bits of 32 / 8 tiles */
    int shared; /* threads fill tiles: their column bits are ORed into the words atomically */
    _Atomic uint8_t *filled; /* owned: per tile (32 x 8 pixels, row by row): empty, being
                                filled (by one thread) or filled */
    uint32_t tiles_x;  /* tiles across, words of a row */
    uint32_t tiles_y;  /* words of a column */
} votecl__pclines_edge_map;

/* Prepares map for source (borrowed, as desc, until votecl__pclines_edge_map_free()): an edge
 * list is sorted and marked; an image is read later, tile by tile. A source with neither has
 * no edges. Returns VOTECL_OUT_OF_HOST_MEMORY (map then needs no freeing) or VOTECL_OK. */
votecl_status votecl__pclines_edge_map_init(votecl__pclines_edge_map *map,
                                            const votecl__pclines_desc *desc,
                                            const votecl__pclines_source *source);

/* Frees what map owns. */
void votecl__pclines_edge_map_free(votecl__pclines_edge_map *map);

typedef struct votecl__pclines_fitter votecl__pclines_fitter; /* below */

/* Sorts maxima (most votes first, then lower cell) and converts them into lines, each refined
 * from map's source (votecl__pclines_refine()) where it has edges (map NULL: none refined),
 * leaving out a line whose extent in the image has both ends within merge px of a stronger
 * kept line (merge 0: none left out); *found is the number kept, at most max_lines (0: no
 * limit). fitter, when not NULL, refines them instead (map unused then). The lines are
 * refined on up to host_threads threads (votecl__team_open(); the
 * same lines for any figure), threads set to what they had. Returns
 * VOTECL_OUT_OF_HOST_MEMORY or VOTECL_OK. */
typedef struct votecl__pclines_threads {
    unsigned workers; /* the most a batch of fits had (1: the calling thread alone) */
    unsigned busy;    /* the most of them that fitted a line (the others found none left) */
} votecl__pclines_threads;
votecl_status votecl__pclines_lines(const votecl__pclines_desc *desc, votecl__pclines_max *maxima,
                                    size_t n, size_t max_lines, double merge,
                                    votecl__pclines_edge_map *map,
                                    const votecl__pclines_fitter *fitter, unsigned host_threads,
                                    votecl__pclines_threads *threads, votecl_lines_line *lines,
                                    size_t capacity, size_t *found);

/* The edge bits (votecl__pclines_sobel()'s test against t2, at most 2^22) of 32 interior
 * pixels of a u8 row from r1 (r0, r2: the rows above and below; each readable from index -1
 * to 32), pixel i at bit i: the vector form where the host has one (SSE2), and the scalar
 * form every host runs, which the tests hold it to. */
uint32_t votecl__pclines_edge_bits(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                                   int32_t t2);
uint32_t votecl__pclines_edge_bits_scalar(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                                          int32_t t2);

/* Moves line (a, b, c, theta, rho; the cell's fields stay) onto the weighted total
 * least-squares line of the edges near it (votecl_lines_params.refine; the integer rules of
 * votecl__pclines_fit_*() below); returns 1, or 0 leaving it alone when a pass finds fewer
 * than three or the fit turns too far, or -1 when out of memory. map: the source's edges
 * (tiles filled as the fit reaches them, by whichever thread first does); scratch: the
 * fit's, reused from line to line (one per thread). */
int votecl__pclines_refine(votecl__pclines_edge_map *map, votecl__segment_points *scratch,
                           votecl_lines_line *line);

/* --- the fit's integer rules (lib/pclines-fit.c), which cl/pclines.cl's pclines_fit_*
 * follow: the set of pixels and their sums are exact, so any order gives the same --- */

/* A line's words for a pass: 0-3 the gathering line (the cell's) as |q0 x + q1 y - q2| <= q3
 * in 2^20 fixed point (3 + 2 px), 4-5 its normal in 2^14 and 6 that normal's square norm,
 * 7-10 the pass's line within 3 px the same way, 11 whether the steps go along x, 12-13 the
 * first and last step, 14 whether the line is still fitted, 15 the last pixel across. */
#define VOTECL__PCLINES_FIT_WORDS 16
/* A pass's sums: pixels, weights, then w x, w y, w x x, w x y, w y y about the image's centre
 * pixel (width / 2, height / 2), two's complement modulo 2^64; word 7 unused. */
#define VOTECL__PCLINES_FIT_MOMENTS 8

/* The cell's line of l as a fit's first line, and its words for the first pass. */
void votecl__pclines_fit_first(const votecl__pclines_desc *desc, const votecl_lines_line *l,
                               votecl__segment_line *first, int64_t p[VOTECL__PCLINES_FIT_WORDS]);

/* Words 7-10 of p for a pass around line. */
void votecl__pclines_fit_pass(const votecl__segment_line *line,
                              int64_t p[VOTECL__PCLINES_FIT_WORDS]);

/* The pixels lo..hi across step a whose centres lie within the gathering line's reach,
 * clamped to the interior; 0 when none. */
int votecl__pclines_fit_span(const int64_t *p, int64_t a, int64_t *lo, int64_t *hi);

/* The weight of an edge of gradient (gx, gy) for p's first line: 0 unless the gradient lies
 * within about 26 degrees of its normal (100 (g.n)^2 >= 81 |g|^2 |n|^2 on the gradient
 * shifted below 2^14); an image pixel's weight is its Sobel magnitude's integer part (at
 * most 65535), a listed edge's 1 (also when its gradient is (0, 0): none given). */
uint32_t votecl__pclines_fit_weight(const int64_t *p, int32_t gx, int32_t gy, int list);

/* Adds pixel (x, y) of weight w to the pass's sums m when it lies within the pass's band
 * (inline: the host's passes add every gathered pixel). */
static inline void
votecl__pclines_fit_add(const votecl__pclines_desc *desc, const int64_t *p, int64_t x, int64_t y,
                        uint64_t w, uint64_t m[VOTECL__PCLINES_FIT_MOMENTS])
{
    int64_t d = p[7] * x + p[8] * y - p[9];
    uint64_t rx = (uint64_t)(x - desc->width / 2), ry = (uint64_t)(y - desc->height / 2);
    /* |d| <= band without a branch (the pixels' order makes it unpredictable): a pixel
     * outside adds 0 */
    uint64_t in = (uint64_t)(d + p[10]) <= (uint64_t)(2 * p[10]);

    w *= in;
    m[0] += in;
    m[1] += w;
    m[2] += w * rx;
    m[3] += w * ry;
    m[4] += w * rx * rx;
    m[5] += w * rx * ry;
    m[6] += w * ry * ry;
}

/* One pass's line from its sums: the weighted principal axis (line keeps its normal's side);
 * 0 when fewer than three pixels or no weight. */
int votecl__pclines_fit_solve(const votecl__pclines_desc *desc,
                              const uint64_t m[VOTECL__PCLINES_FIT_MOMENTS],
                              votecl__segment_line *line);

/* Writes the fitted line into l unless it turned too far from first (returns 0 then). */
int votecl__pclines_fit_finish(const votecl__segment_line *first, const votecl__segment_line *fit,
                               votecl_lines_line *l);

/* The passes of a fit. */
unsigned votecl__pclines_fit_passes(void);

/* floor(a / b) for b != 0, and floor(sqrt(m)): the fit's integer helpers (tested). */
int64_t votecl__pclines_fit_floor_div(int64_t a, int64_t b);
uint64_t votecl__pclines_fit_isqrt(uint64_t m);

/* A device's fit of lines[0, n) (set from their cells), each as votecl__pclines_refine()
 * would; VOTECL_OK or the failure (recorded in the context). */
struct votecl__pclines_fitter {
    votecl_status (*fit)(void *user, votecl_lines_line *lines, size_t n);
    void *user;
};

/* The threads the last run's fit had (votecl__pclines_lines()'s threads.workers; 0 without
 * refine or a run) and its segment walk (0: no walk): for the tests. */
void votecl__lines_plan_threads(const votecl_lines_plan *plan, unsigned *fit, unsigned *walk);

/* Whether the last run's lines were fitted on the device (the GPU shape's image runs). */
int votecl__lines_plan_fit_on_device(const votecl_lines_plan *plan);

/* The segments of lines[0, n) in map's image (its source's data, not NULL): each line's runs
 * of edge pixels within 2 px of it, gaps of at most max_gap steps. Sets each line's
 * has_segment and ends to its longest run (votecl-lines.h) and appends to list every run of
 * at least min_length px, line by line; the lines are walked on up to host_threads threads
 * (votecl__team_open(); the same runs for any figure), *workers set to how many. Returns
 * VOTECL_OUT_OF_HOST_MEMORY when list cannot grow, else VOTECL_OK. */
votecl_status votecl__pclines_segments(votecl__pclines_edge_map *map, uint32_t min_length,
                                       uint32_t max_gap, unsigned host_threads, unsigned *workers,
                                       votecl_lines_line *lines, size_t n,
                                       votecl__segment_list *list);

#endif
