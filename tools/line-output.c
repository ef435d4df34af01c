/* What votecl hough and votecl lines share in their output: a line's members in JSON and text,
 * and the annotated image and vote space they write (tool.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "plot.h"
#include "tool.h"

void *
tool_line_result_alloc(size_t max_lines, size_t line_size, size_t cells, uint32_t **space,
                       size_t *shown)
{
    void *lines;
    *shown = max_lines ? max_lines : TOOL_HOUGH_MAX_SHOWN;
    lines = calloc(*shown, line_size);
    *space = malloc(cells * sizeof **space);
    if (lines == NULL || *space == NULL) {
        free(lines);
        free(*space);
        *space = NULL;
        return NULL;
    }
    return lines;
}

void
tool_line_result_free(void *lines, uint32_t *space, tool_segments *segments)
{
    free(lines);
    free(space);
    tool_segments_free(segments);
}

void
tool_json_line(tool_json *j, double theta, double rho, unsigned votes)
{
    tool_json_kv_double(j, "theta", theta);
    tool_json_kv_double(j, "theta_degrees", theta * 180.0 / M_PI);
    tool_json_kv_double(j, "rho", rho);
    tool_json_kv_uint(j, "votes", votes);
}

void
tool_json_hough_lines(tool_json *j, const votecl_hough_line *lines, size_t found, size_t shown)
{
    tool_json_kv_uint(j, "found", found);
    tool_json_key(j, "lines");
    tool_json_begin_array(j);
    for (size_t i = 0; i < shown; i++) {
        const votecl_hough_line *l = &lines[i];
        tool_json_begin_object(j);
        tool_json_line(j, l->theta, l->rho, l->votes);
        tool_json_kv_uint(j, "angle", l->angle);
        tool_json_kv_uint(j, "bin", l->bin);
        if (l->has_segment)
            tool_json_kv_segment(j, "segment", l->x0, l->y0, l->x1, l->y1);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
}

void
tool_lines_json(tool_json *j, const tool_lines_result *r, int seconds)
{
    tool_json_parameters(j);
    tool_json_kv_uint(j, "columns", r->columns);
    tool_json_kv_uint(j, "rows", r->rows);
    tool_json_kv_uint(j, "distance", r->params.distance);
    tool_json_kv_uint(j, "radius", r->params.radius);
    tool_json_kv_uint(j, "orientation_kernel", r->params.orientation_kernel);
    tool_json_kv_uint(j, "neighbourhood", r->params.neighbourhood);
    tool_json_kv_uint(j, "threshold", r->params.threshold);
    tool_json_results(j);
    tool_json_kv_uint(j, "edges", r->stats.edges);
    if (seconds)
        tool_json_kv_double(j, "seconds", r->seconds);
    tool_json_kv_uint(j, "found", r->found);
    tool_json_key(j, "lines");
    tool_json_begin_array(j);
    for (size_t i = 0; i < r->shown; i++) {
        const votecl_lines_line *l = &r->lines[i];
        tool_json_begin_object(j);
        tool_json_kv_double(j, "a", l->a);
        tool_json_kv_double(j, "b", l->b);
        tool_json_kv_double(j, "c", l->c);
        tool_json_line(j, l->theta, l->rho, l->votes);
        tool_json_kv_int(j, "u", l->u);
        tool_json_kv_double(j, "v", l->v);
        if (l->has_segment)
            tool_json_kv_segment(j, "segment", l->x0, l->y0, l->x1, l->y1);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
    if (r->params.segments)
        tool_json_segments(j, &r->segments);
}

void
tool_print_segment(int has_segment, double x0, double y0, double x1, double y1)
{
    if (has_segment)
        printf(" segment %.1f %.1f %.1f %.1f", x0, y0, x1, y1);
    printf("\n");
}

votecl_status
tool_segments_keep(tool_segments *s, const votecl_segment *from, size_t n)
{
    tool_segments_free(s);
    if (n == 0)
        return VOTECL_OK;
    if ((s->items = malloc(n * sizeof *s->items)) == NULL)
        return VOTECL_OUT_OF_HOST_MEMORY;
    memcpy(s->items, from, n * sizeof *s->items);
    s->n = n;
    return VOTECL_OK;
}

void
tool_segments_free(tool_segments *s)
{
    free(s->items);
    s->items = NULL;
    s->n = 0;
}

void
tool_print_segments(const tool_segments *s)
{
    printf("# %zu segment(s): x0 y0 x1 y1 line hits (line: 0 is the first line above)\n", s->n);
    for (size_t i = 0; i < s->n; i++) {
        const votecl_segment *g = &s->items[i];
        printf("%.1f %.1f %.1f %.1f %zu %u\n", g->x0, g->y0, g->x1, g->y1, g->line, g->hits);
    }
}

void
tool_json_segments(tool_json *j, const tool_segments *s)
{
    tool_json_key(j, "segments");
    tool_json_begin_array(j);
    for (size_t i = 0; i < s->n; i++) {
        const votecl_segment *g = &s->items[i];
        tool_json_begin_object(j);
        tool_json_kv_double(j, "x0", g->x0);
        tool_json_kv_double(j, "y0", g->y0);
        tool_json_kv_double(j, "x1", g->x1);
        tool_json_kv_double(j, "y1", g->y1);
        tool_json_kv_uint(j, "line", g->line);
        tool_json_kv_uint(j, "hits", g->hits);
        tool_json_end_object(j);
    }
    tool_json_end_array(j);
}

/* The vote space with the shown lines ringed. */
static int
write_space(const tool_line_output *o)
{
    char error[600];
    long(*marks)[2] = calloc(o->shown + 1, sizeof *marks);
    int rc = TOOL_EXIT_OK;

    for (size_t k = 0; marks != NULL && k < o->shown; k++) {
        marks[k][0] = o->hough ? (long)o->hough[k].bin : (long)o->pclines[k].column;
        marks[k][1] = o->hough ? (long)o->hough[k].angle : (long)o->pclines[k].row;
    }
    if (marks == NULL ||
        tool_plot_space_write(o->space_path, o->space, o->columns, o->rows, o->column_major,
                              (const long(*)[2])marks, o->shown, error, sizeof error) < 0) {
        fprintf(stderr, "votecl %s: %s: %s\n", o->command, o->space_name,
                marks ? error : "out of memory");
        rc = TOOL_EXIT_FAILURE;
    }
    free(marks);
    return rc;
}

static int
write_annotated(const tool_line_output *o, const tool_image *image)
{
    tool_image out = {0};
    char error[600];
    int rc = TOOL_EXIT_OK;
    int drawn = o->hough ? tool_hough_annotate_segments(image, o->hough, o->shown, o->segments,
                                                        &out, error, sizeof error)
                         : tool_lines_annotate(image, o->pclines, o->shown, o->segments, &out,
                                               error, sizeof error);
    if (drawn < 0 || tool_image_write(o->out_path, &out, error, sizeof error) < 0) {
        fprintf(stderr, "votecl %s: %s\n", o->command, error);
        rc = TOOL_EXIT_FAILURE;
    }
    tool_image_free(&out);
    return rc;
}

int
tool_line_output_write(const tool_line_output *o, const tool_image *image)
{
    int rc = TOOL_EXIT_OK;
    if (o->out_path && write_annotated(o, image) != TOOL_EXIT_OK)
        rc = TOOL_EXIT_FAILURE;
    if (o->space_path && write_space(o) != TOOL_EXIT_OK)
        rc = TOOL_EXIT_FAILURE;
    return rc;
}
