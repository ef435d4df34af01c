/* Plots for the votecl tool: bar charts of histograms and heat maps of 2-D histograms,
 * rasterised into an 8-bit RGB tool_image with a white background, axis ticks and labels
 * in a built-in 5x7 font. */
#ifndef VOTECL_TOOL_PLOT_H
#define VOTECL_TOOL_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "image-io.h"

typedef struct tool_plot_series {
    const uint32_t *counts; /* borrowed, nbins entries */
    unsigned char rgb[3];
    const char *label;      /* borrowed; shown in the legend, may be NULL */
} tool_plot_series;

typedef struct tool_plot_bars {
    const tool_plot_series *series; /* borrowed */
    size_t nseries;
    size_t nbins;
    double xmin, xmax;              /* value range of the bins, for the x axis */
    const char *title;              /* borrowed, may be NULL */
    const char *note;               /* borrowed, a second line under the title, may be NULL */
} tool_plot_bars;

typedef struct tool_plot_heat {
    const uint32_t *counts;         /* borrowed, nx * ny, row-major: bin = bx * ny + by */
    size_t nx, ny;
    double xmin, xmax, ymin, ymax;
    const char *xlabel, *ylabel;    /* borrowed, may be NULL */
    const char *title;
    const char *note;
} tool_plot_heat;

/* Renders a bar chart (several series overlay with transparency).
 * out: caller-owned output (free with tool_image_free()). Returns 0, or -1 with a message. */
int tool_plot_bars_render(const tool_plot_bars *plot, tool_image *out, char *error,
                          size_t error_size);

/* A vote space as a gray image, brightness the square root of the count: width x height
 * counts, row-major (counts[y * width + x]) or, with column_major, counts[x * height + y];
 * the cells (x, y) of marks (nmarks pairs) ringed in red. out: caller-owned output.
 * Returns 0, or -1 with a message in error. */
int tool_plot_space(const uint32_t *counts, size_t width, size_t height, int column_major,
                    const long (*marks)[2], size_t nmarks, tool_image *out, char *error,
                    size_t error_size);

/* tool_plot_space() written to path (PNG, PGM or PPM by its extension). Returns 0, or -1 with
 * a message in error. */
int tool_plot_space_write(const char *path, const uint32_t *counts, size_t width, size_t height,
                          int column_major, const long (*marks)[2], size_t nmarks, char *error,
                          size_t error_size);

/* Renders a heat map, colour on a logarithmic scale. out: caller-owned output. */
int tool_plot_heat_render(const tool_plot_heat *plot, tool_image *out, char *error,
                          size_t error_size);

/* Draws text (5x7 font, scale 1 or more) with its top-left corner at (x, y). */
void tool_plot_text(tool_image *image, long x, long y, const char *text, int scale,
                    const unsigned char rgb[3]);

#endif
