/* Bar charts and heat maps rasterised into RGB images, with a built-in 5x7 font. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

/* --- the font: 5x7 glyphs, one byte per row, bit 4 the leftmost pixel --- */

typedef struct glyph {
    char c;
    unsigned char rows[7];
} glyph;

static const glyph font[] = {
    {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {'!', {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04}},
    {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}},
    {'"', {0x0a, 0x0a, 0x0a, 0x00, 0x00, 0x00, 0x00}},
    {'#', {0x0a, 0x0a, 0x1f, 0x0a, 0x1f, 0x0a, 0x0a}},
    {'\'', {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00}},
    {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}},
    {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
    {'*', {0x00, 0x04, 0x15, 0x0e, 0x15, 0x04, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00}},
    {',', {0x00, 0x00, 0x00, 0x00, 0x0c, 0x04, 0x08}},
    {'-', {0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c}},
    {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}},
    {'0', {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e}},
    {'1', {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e}},
    {'2', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f}},
    {'3', {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e}},
    {'4', {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02}},
    {'5', {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e}},
    {'6', {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e}},
    {'7', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e}},
    {'9', {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c}},
    {':', {0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00}},
    {';', {0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x04, 0x08}},
    {'<', {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}},
    {'=', {0x00, 0x00, 0x1f, 0x00, 0x1f, 0x00, 0x00}},
    {'>', {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}},
    {'?', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}},
    {'A', {0x0e, 0x11, 0x11, 0x11, 0x1f, 0x11, 0x11}},
    {'B', {0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e}},
    {'C', {0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e}},
    {'D', {0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c}},
    {'E', {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f}},
    {'F', {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10}},
    {'G', {0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f}},
    {'H', {0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11}},
    {'I', {0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}},
    {'J', {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c}},
    {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}},
    {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f}},
    {'M', {0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11}},
    {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}},
    {'O', {0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}},
    {'P', {0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10}},
    {'Q', {0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d}},
    {'R', {0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11}},
    {'S', {0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e}},
    {'T', {0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
    {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}},
    {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04}},
    {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a}},
    {'X', {0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11}},
    {'Y', {0x11, 0x11, 0x11, 0x0a, 0x04, 0x04, 0x04}},
    {'Z', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f}},
    {'[', {0x0e, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0e}},
    {']', {0x0e, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0e}},
    {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f}},
};

#define FONT_ADVANCE 6
#define FONT_HEIGHT 7

static const unsigned char black[3] = {0, 0, 0};
static const unsigned char grid_gray[3] = {225, 225, 225};

/* Lower case prints as upper case; characters without a glyph print as '*'. */
static const glyph *
find_glyph(char c)
{
    char u = (char)toupper((unsigned char)c);
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].c == u)
            return &font[i];
    return find_glyph('*');
}

static void
put_pixel(tool_image *image, long x, long y, const unsigned char rgb[3], double alpha)
{
    if (x < 0 || y < 0 || (size_t)x >= image->width || (size_t)y >= image->height)
        return;
    unsigned char *p = image->data + (size_t)y * image->stride + (size_t)x * 3;
    for (int k = 0; k < 3; k++)
        p[k] = (unsigned char)lround(p[k] * (1.0 - alpha) + rgb[k] * alpha);
}

static void
fill_rect(tool_image *image, long x0, long y0, long x1, long y1, const unsigned char rgb[3],
          double alpha)
{
    for (long y = y0; y < y1; y++)
        for (long x = x0; x < x1; x++)
            put_pixel(image, x, y, rgb, alpha);
}

void
tool_plot_text(tool_image *image, long x, long y, const char *text, int scale,
               const unsigned char rgb[3])
{
    for (; *text; text++, x += FONT_ADVANCE * scale) {
        const glyph *g = find_glyph(*text);
        for (int row = 0; row < FONT_HEIGHT; row++)
            for (int col = 0; col < 5; col++)
                if (g->rows[row] & (0x10 >> col))
                    fill_rect(image, x + col * scale, y + row * scale, x + (col + 1) * scale,
                              y + (row + 1) * scale, rgb, 1.0);
    }
}

static long
text_width(const char *text, int scale)
{
    return (long)strlen(text) * FONT_ADVANCE * scale;
}

static int
new_canvas(tool_image *out, size_t width, size_t height, char *error, size_t error_size)
{
    if (tool_image_alloc(out, width, height, 3, VOTECL_DTYPE_U8, error, error_size) < 0)
        return -1;
    memset(out->data, 255, out->stride * out->height);
    return 0;
}

/* A tick step of 1, 2 or 5 times a power of ten, at least raw. */
static double
nice_step(double raw)
{
    if (!(raw > 0))
        return 1;
    double magnitude = pow(10, floor(log10(raw)));
    static const double factors[] = {1, 2, 5, 10};
    for (size_t i = 0; i < 4; i++)
        if (factors[i] * magnitude >= raw)
            return factors[i] * magnitude;
    return 10 * magnitude;
}

static void
format_tick(char *buffer, size_t size, double value)
{
    snprintf(buffer, size, "%.6g", fabs(value) < 1e-12 ? 0.0 : value);
}

/* The plotting area of a chart, in pixels of the canvas. */
typedef struct plot_area {
    long left, top, width, height;
} plot_area;

/* Lines of a note: '|' separates them. */
static long
note_lines(const char *note)
{
    long n = note ? 1 : 0;
    for (const char *p = note; p && *p; p++)
        n += *p == '|';
    return n;
}

/* The top margin that leaves room for the title and the note. */
static long
titles_height(const char *note)
{
    return 34 + 10 * note_lines(note) + 6;
}

static void
draw_titles(tool_image *image, const char *title, const char *note)
{
    char line[256];
    long y = 24;
    if (title)
        tool_plot_text(image, 10, 6, title, 2, black);
    while (note && *note) {
        size_t n = strcspn(note, "|");
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1),
                 note);
        tool_plot_text(image, 10, y, line + strspn(line, " "), 1, black);
        y += 10;
        note += n + (note[n] == '|');
    }
}

static void
draw_x_axis(tool_image *image, const plot_area *a, double xmin, double xmax)
{
    double step = nice_step((xmax - xmin) / 8);
    long base = a->top + a->height;
    fill_rect(image, a->left, base, a->left + a->width, base + 1, black, 1.0);
    for (double v = ceil(xmin / step) * step; v <= xmax + step * 1e-9; v += step) {
        long x = a->left + lround((v - xmin) / (xmax - xmin) * (a->width - 1));
        char label[32];
        format_tick(label, sizeof label, v);
        fill_rect(image, x, base, x + 1, base + 5, black, 1.0);
        tool_plot_text(image, x - text_width(label, 1) / 2, base + 8, label, 1, black);
    }
}

/* Horizontal grid lines and labels for counts 0..ytop every step. */
static void
draw_y_axis(tool_image *image, const plot_area *a, double ytop, double step)
{
    fill_rect(image, a->left - 1, a->top, a->left, a->top + a->height + 1, black, 1.0);
    for (double v = 0; v <= ytop + step * 1e-9; v += step) {
        long y = a->top + a->height - lround(v / ytop * a->height);
        char label[32];
        format_tick(label, sizeof label, v);
        if (v > 0)
            fill_rect(image, a->left, y, a->left + a->width, y + 1, grid_gray, 1.0);
        fill_rect(image, a->left - 5, y, a->left - 1, y + 1, black, 1.0);
        tool_plot_text(image, a->left - 8 - text_width(label, 1), y - 3, label, 1, black);
    }
}

static uint32_t
series_max(const tool_plot_bars *plot)
{
    uint32_t m = 0;
    for (size_t s = 0; s < plot->nseries; s++)
        for (size_t b = 0; b < plot->nbins; b++)
            if (plot->series[s].counts[b] > m)
                m = plot->series[s].counts[b];
    return m;
}

/* The largest count among the bins that fall on pixel column px. */
static uint32_t
column_value(const tool_plot_series *series, size_t nbins, long px, long width)
{
    size_t b0 = (size_t)px * nbins / (size_t)width;
    size_t b1 = (size_t)(px + 1) * nbins / (size_t)width;
    uint32_t m = 0;
    if (b1 <= b0)
        b1 = b0 + 1;
    for (size_t b = b0; b < b1 && b < nbins; b++)
        if (series->counts[b] > m)
            m = series->counts[b];
    return m;
}

static void
draw_bars(tool_image *image, const plot_area *a, const tool_plot_bars *plot, double ytop)
{
    double alpha = plot->nseries > 1 ? 0.55 : 1.0;
    for (size_t s = 0; s < plot->nseries; s++) {
        for (long px = 0; px < a->width; px++) {
            uint32_t v = column_value(&plot->series[s], plot->nbins, px, a->width);
            long h = lround(v / ytop * a->height);
            long x = a->left + px;
            fill_rect(image, x, a->top + a->height - h, x + 1, a->top + a->height,
                      plot->series[s].rgb, alpha);
        }
    }
}

static void
draw_legend(tool_image *image, const plot_area *a, const tool_plot_bars *plot)
{
    long y = a->top + 6;
    for (size_t s = 0; s < plot->nseries; s++) {
        const char *label = plot->series[s].label;
        if (!label)
            continue;
        long x = a->left + a->width - 12 - text_width(label, 1) - 16;
        fill_rect(image, x, y, x + 10, y + 8, plot->series[s].rgb, 1.0);
        tool_plot_text(image, x + 16, y, label, 1, black);
        y += 14;
    }
}

int
tool_plot_bars_render(const tool_plot_bars *plot, tool_image *out, char *error,
                      size_t error_size)
{
    plot_area a = {80, titles_height(plot->note), 700, 330};
    uint32_t ymax;
    double step, ytop;
    if (plot->nbins == 0 || !(plot->xmax > plot->xmin)) {
        snprintf(error, error_size, "empty plot");
        return -1;
    }
    if (new_canvas(out, (size_t)(a.left + a.width + 20), (size_t)(a.top + a.height + 34), error,
                   error_size) < 0)
        return -1;
    ymax = series_max(plot);
    step = nice_step((ymax ? ymax : 1) / 5.0);
    ytop = ceil((ymax ? ymax : 1) / step) * step;
    draw_titles(out, plot->title, plot->note);
    draw_y_axis(out, &a, ytop, step);
    draw_bars(out, &a, plot, ytop);
    draw_x_axis(out, &a, plot->xmin, plot->xmax);
    draw_legend(out, &a, plot);
    return 0;
}

/* --- heat maps --- */

/* Viridis at five control points, linearly interpolated; t in [0, 1]. */
static void
colormap(double t, unsigned char rgb[3])
{
    static const unsigned char stops[5][3] = {
        {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    double pos = fmin(fmax(t, 0.0), 1.0) * 4;
    int i = pos >= 4 ? 3 : (int)pos;
    double f = pos - i;
    for (int k = 0; k < 3; k++)
        rgb[k] = (unsigned char)lround(stops[i][k] * (1 - f) + stops[i + 1][k] * f);
}

/* Log scale so that faint clusters stay visible next to the mode; 0 votes are light gray. */
static void
count_colour(uint32_t count, uint32_t max, unsigned char rgb[3])
{
    if (count == 0) {
        memset(rgb, 242, 3);
        return;
    }
    colormap(max > 1 ? log((double)count) / log((double)max) : 1.0, rgb);
}

static uint32_t
counts_max(const uint32_t *counts, size_t n)
{
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (counts[i] > m)
            m = counts[i];
    return m;
}

static void
draw_cells(tool_image *image, const plot_area *a, const tool_plot_heat *plot, long cell)
{
    uint32_t max = counts_max(plot->counts, plot->nx * plot->ny);
    for (size_t bx = 0; bx < plot->nx; bx++) {
        for (size_t by = 0; by < plot->ny; by++) {
            unsigned char rgb[3];
            long x = a->left + (long)bx * cell;
            long y = a->top + a->height - (long)(by + 1) * cell;
            count_colour(plot->counts[bx * plot->ny + by], max, rgb);
            fill_rect(image, x, y, x + cell, y + cell, rgb, 1.0);
        }
    }
}

static void
draw_y_ticks(tool_image *image, const plot_area *a, double ymin, double ymax)
{
    double step = nice_step((ymax - ymin) / 8);
    fill_rect(image, a->left - 1, a->top, a->left, a->top + a->height + 1, black, 1.0);
    for (double v = ceil(ymin / step) * step; v <= ymax + step * 1e-9; v += step) {
        long y = a->top + a->height - 1 - lround((v - ymin) / (ymax - ymin) * (a->height - 1));
        char label[32];
        format_tick(label, sizeof label, v);
        fill_rect(image, a->left - 5, y, a->left - 1, y + 1, black, 1.0);
        tool_plot_text(image, a->left - 8 - text_width(label, 1), y - 3, label, 1, black);
    }
}

static void
draw_colour_bar(tool_image *image, const plot_area *a, uint32_t max)
{
    long x = a->left + a->width + 20;
    char label[32];
    for (long y = 0; y < a->height; y++) {
        unsigned char rgb[3];
        colormap(1.0 - (double)y / (a->height - 1), rgb);
        fill_rect(image, x, a->top + y, x + 14, a->top + y + 1, rgb, 1.0);
    }
    snprintf(label, sizeof label, "%lu", (unsigned long)max);
    tool_plot_text(image, x + 18, a->top, label, 1, black);
    tool_plot_text(image, x + 18, a->top + a->height - 7, "1", 1, black);
    tool_plot_text(image, x, a->top + a->height + 8, "LOG", 1, black);
}

int
tool_plot_heat_render(const tool_plot_heat *plot, tool_image *out, char *error,
                      size_t error_size)
{
    long cell;
    plot_area a;
    if (plot->nx == 0 || plot->ny == 0 || !(plot->xmax > plot->xmin) ||
        !(plot->ymax > plot->ymin)) {
        snprintf(error, error_size, "empty heat map");
        return -1;
    }
    cell = 420 / (long)(plot->nx > plot->ny ? plot->nx : plot->ny);
    if (cell < 1)
        cell = 1;
    a = (plot_area){70, titles_height(plot->note) + 14, cell * (long)plot->nx,
                    cell * (long)plot->ny};
    if (new_canvas(out, (size_t)(a.left + a.width + 110), (size_t)(a.top + a.height + 44),
                   error, error_size) < 0)
        return -1;
    draw_titles(out, plot->title, plot->note);
    draw_cells(out, &a, plot, cell);
    draw_x_axis(out, &a, plot->xmin, plot->xmax);
    draw_y_ticks(out, &a, plot->ymin, plot->ymax);
    if (plot->xlabel)
        tool_plot_text(out, a.left + a.width - text_width(plot->xlabel, 1), a.top + a.height + 24,
                       plot->xlabel, 1, black);
    if (plot->ylabel)
        tool_plot_text(out, a.left - 20, a.top - 14, plot->ylabel, 1, black);
    draw_colour_bar(out, &a, counts_max(plot->counts, plot->nx * plot->ny));
    return 0;
}

int
tool_plot_space(const uint32_t *counts, size_t width, size_t height, int column_major,
                const long (*marks)[2], size_t nmarks, tool_image *out, char *error,
                size_t error_size)
{
    static const unsigned char red[3] = {255, 40, 40};
    uint32_t max = 1;
    size_t cells = width * height;

    if (tool_image_alloc(out, width, height, 3, VOTECL_DTYPE_U8, error, error_size) < 0)
        return -1;
    for (size_t i = 0; i < cells; i++)
        max = counts[i] > max ? counts[i] : max;
    for (size_t i = 0; i < cells; i++) {
        size_t x = column_major ? i / height : i % width;
        size_t y = column_major ? i % height : i / width;
        memset(out->data + y * out->stride + x * 3,
               (int)lround(255.0 * sqrt((double)counts[i] / max)), 3);
    }
    for (size_t k = 0; k < nmarks; k++)
        for (long d = -3; d <= 3; d++)
            for (long e = -3; e <= 3; e++) {
                long x = marks[k][0] + d, y = marks[k][1] + e;
                if ((labs(d) == 3 || labs(e) == 3) && x >= 0 && y >= 0 &&
                    (size_t)x < out->width && (size_t)y < out->height)
                    memcpy(out->data + (size_t)y * out->stride + (size_t)x * 3, red, 3);
            }
    return 0;
}

int
tool_plot_space_write(const char *path, const uint32_t *counts, size_t width, size_t height,
                      int column_major, const long (*marks)[2], size_t nmarks, char *error,
                      size_t error_size)
{
    tool_image out = {0};
    int rc = tool_plot_space(counts, width, height, column_major, marks, nmarks, &out, error,
                             error_size);
    if (rc == 0)
        rc = tool_image_write(path, &out, error, error_size);
    tool_image_free(&out);
    return rc;
}
