/* The fields of each params struct that fuzz-params mutates (tests/fuzz/params.h): one
 * table per struct, all of them in one place, read by mutate() in tests/fuzz/fuzz-params.c.
 * A listed field gets decoded values of its type; the others keep the _init defaults or
 * what the algorithm's target (tests/fuzz/params-<algo>.c) sets. The committed corpus
 * decodes through these tables: append to one rather than reorder it. */
#include "params.h"

#define TABLE(list)                                                                                \
    {                                                                                              \
        list, sizeof list / sizeof list[0]                                                         \
    }

static const field hist[] = {
    FIELD(votecl_hist_params, dtype, F_INT),
    FIELD(votecl_hist_params, channels, F_UINT),
    FIELD(votecl_hist_params, dims, F_UINT),
    FIELD(votecl_hist_params, channel[0], F_UINT),
    FIELD(votecl_hist_params, channel[1], F_UINT),
    FIELD(votecl_hist_params, channel[2], F_UINT),
    FIELD(votecl_hist_params, channel[7], F_UINT),
    FIELD(votecl_hist_params, two_arrays, F_INT),
    FIELD(votecl_hist_params, nbins[0], F_U32),
    FIELD(votecl_hist_params, nbins[1], F_U32),
    FIELD(votecl_hist_params, nbins[2], F_U32),
    FIELD(votecl_hist_params, nbins[7], F_U32),
    FIELD(votecl_hist_params, min[0], F_DOUBLE),
    FIELD(votecl_hist_params, min[1], F_DOUBLE),
    FIELD(votecl_hist_params, max[0], F_DOUBLE),
    FIELD(votecl_hist_params, max[1], F_DOUBLE),
    FIELD(votecl_hist_params, min[2], F_DOUBLE),
    FIELD(votecl_hist_params, max[2], F_DOUBLE),
    FIELD(votecl_hist_params, weighted, F_INT),
    FIELD(votecl_hist_params, variant, F_INT),
    FIELD(votecl_hist_params, stretch, F_UINT),
    FIELD(votecl_hist_params, work_group_size, F_UINT),
    FIELD(votecl_hist_params, masked, F_INT),
    FIELD(votecl_hist_params, per_channel, F_INT),
};
const fields hist_fields = TABLE(hist);

static const field hough[] = {
    FIELD(votecl_hough_params, angles, F_UINT),
    FIELD(votecl_hough_params, rho_bins, F_U32),
    FIELD(votecl_hough_params, edge_threshold, F_UINT),
    FIELD(votecl_hough_params, peak_window, F_UINT),
    FIELD(votecl_hough_params, peak_threshold, F_U32),
    FIELD(votecl_hough_params, max_lines, F_SIZE),
    FIELD(votecl_hough_params, variant, F_INT),
    FIELD(votecl_hough_params, stretch, F_UINT),
    FIELD(votecl_hough_params, work_group_size, F_UINT),
    FIELD(votecl_hough_params, segments, F_INT),
    FIELD(votecl_hough_params, min_length, F_U32),
    FIELD(votecl_hough_params, max_gap, F_U32),
    FIELD(votecl_hough_params, merge_distance, F_DOUBLE),
    FIELD(votecl_hough_params, rho_grid, F_INT),
    FIELD(votecl_hough_params, peak_rule, F_INT),
};
const fields hough_fields = TABLE(hough);

static const field lines[] = {
    FIELD(votecl_lines_params, distance, F_U32),
    FIELD(votecl_lines_params, rows, F_U32),
    FIELD(votecl_lines_params, neighbourhood, F_UINT),
    FIELD(votecl_lines_params, threshold, F_U32),
    FIELD(votecl_lines_params, radius, F_UINT),
    FIELD(votecl_lines_params, edge_threshold, F_UINT),
    FIELD(votecl_lines_params, max_lines, F_SIZE),
    FIELD(votecl_lines_params, work_group_size, F_UINT),
    FIELD(votecl_lines_params, orientation_kernel, F_UINT),
    FIELD(votecl_lines_params, min_length, F_U32),
    FIELD(votecl_lines_params, max_gap, F_U32),
    FIELD(votecl_lines_params, segments, F_INT),
    FIELD(votecl_lines_params, merge_distance, F_DOUBLE),
    FIELD(votecl_lines_params, refine, F_INT),
};
const fields lines_fields = TABLE(lines);

static const field hog[] = {
    FIELD(votecl_hog_params, window_width, F_UINT),
    FIELD(votecl_hog_params, window_height, F_UINT),
    FIELD(votecl_hog_params, block_width, F_UINT),
    FIELD(votecl_hog_params, block_height, F_UINT),
    FIELD(votecl_hog_params, block_stride_x, F_UINT),
    FIELD(votecl_hog_params, block_stride_y, F_UINT),
    FIELD(votecl_hog_params, cell_width, F_UINT),
    FIELD(votecl_hog_params, cell_height, F_UINT),
    FIELD(votecl_hog_params, nbins, F_UINT),
    FIELD(votecl_hog_params, window_stride_x, F_UINT),
    FIELD(votecl_hog_params, window_stride_y, F_UINT),
    FIELD(votecl_hog_params, padding_x, F_UINT),
    FIELD(votecl_hog_params, padding_y, F_UINT),
    FIELD(votecl_hog_params, gamma, F_INT),
    FIELD(votecl_hog_params, colour, F_INT),
    FIELD(votecl_hog_params, l2hys_threshold, F_FLOAT),
    FIELD(votecl_hog_params, scale, F_DOUBLE),
    FIELD(votecl_hog_params, min_scale, F_DOUBLE),
    FIELD(votecl_hog_params, max_scale, F_DOUBLE),
    FIELD(votecl_hog_params, max_levels, F_UINT),
    FIELD(votecl_hog_params, hit_threshold, F_DOUBLE),
    FIELD(votecl_hog_params, fusion, F_INT),
    FIELD(votecl_hog_params, group_threshold, F_UINT),
    FIELD(votecl_hog_params, meanshift_sigma_x, F_DOUBLE),
    FIELD(votecl_hog_params, meanshift_sigma_y, F_DOUBLE),
    FIELD(votecl_hog_params, meanshift_sigma_scale, F_DOUBLE),
    FIELD(votecl_hog_params, block_norm, F_INT),
    FIELD(votecl_hog_params, binning, F_INT),
};
const fields hog_fields = TABLE(hog);

static const field ght[] = {
    FIELD(votecl_ght_params, method, F_INT),
    FIELD(votecl_ght_params, levels, F_UINT),
    FIELD(votecl_ght_params, canny_low, F_UINT),
    FIELD(votecl_ght_params, canny_high, F_UINT),
    FIELD(votecl_ght_params, min_angle, F_DOUBLE),
    FIELD(votecl_ght_params, max_angle, F_DOUBLE),
    FIELD(votecl_ght_params, angle_step, F_DOUBLE),
    FIELD(votecl_ght_params, min_scale, F_DOUBLE),
    FIELD(votecl_ght_params, max_scale, F_DOUBLE),
    FIELD(votecl_ght_params, scale_step, F_DOUBLE),
    FIELD(votecl_ght_params, dp, F_UINT),
    FIELD(votecl_ght_params, min_dist, F_DOUBLE),
    FIELD(votecl_ght_params, max_detections, F_SIZE),
    FIELD(votecl_ght_params, min_confidence, F_DOUBLE),
    FIELD(votecl_ght_params, angle_share, F_DOUBLE),
    FIELD(votecl_ght_params, xi, F_DOUBLE),
    FIELD(votecl_ght_params, angle_epsilon, F_UINT),
    FIELD(votecl_ght_params, angle_threshold, F_U32),
    FIELD(votecl_ght_params, scale_threshold, F_U32),
    FIELD(votecl_ght_params, position_threshold, F_U32),
    FIELD(votecl_ght_params, max_rotations, F_UINT),
    FIELD(votecl_ght_params, max_scales, F_UINT),
    FIELD(votecl_ght_params, pairing, F_INT),
    FIELD(votecl_ght_params, replication, F_UINT),
    FIELD(votecl_ght_params, global_replication, F_UINT),
    FIELD(votecl_ght_params, votes_threshold, F_U32),
    FIELD(votecl_ght_params, votes_ratio, F_DOUBLE),
    FIELD(votecl_ght_params, memory_limit, F_U64),
};
const fields ght_fields = TABLE(ght);

static const field vote[] = {
    FIELD(votecl_vote_spec, dtype, F_INT),
    FIELD(votecl_vote_spec, channels, F_UINT),
    FIELD(votecl_vote_spec, bin_type, F_INT),
    FIELD(votecl_vote_spec, spaces, F_UINT),
    FIELD(votecl_vote_spec, nbins, F_U32),
    FIELD(votecl_vote_spec, table_size, F_SIZE),
    FIELD(votecl_vote_spec, variant, F_INT),
    FIELD(votecl_vote_spec, stretch, F_UINT),
    FIELD(votecl_vote_spec, work_group_size, F_UINT),
};
const fields vote_fields = TABLE(vote);

static const field circles[] = {
    FIELD(votecl_circles_params, method, F_INT),
    FIELD(votecl_circles_params, min_radius, F_UINT),
    FIELD(votecl_circles_params, max_radius, F_UINT),
    FIELD(votecl_circles_params, max_circles, F_SIZE),
    FIELD(votecl_circles_params, dp, F_DOUBLE),
    FIELD(votecl_circles_params, min_dist, F_DOUBLE),
    FIELD(votecl_circles_params, canny_high, F_UINT),
    FIELD(votecl_circles_params, votes, F_UINT),
    FIELD(votecl_circles_params, radius_step, F_UINT),
    FIELD(votecl_circles_params, normalize, F_INT),
    FIELD(votecl_circles_params, threshold, F_DOUBLE),
    FIELD(votecl_circles_params, min_xdistance, F_UINT),
    FIELD(votecl_circles_params, min_ydistance, F_UINT),
    FIELD(votecl_circles_params, num_peaks, F_SIZE),
};
const fields circles_fields = TABLE(circles);
