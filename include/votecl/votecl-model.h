/** @file
 * libvotecl: the execution-time model of the voting engine (van den Braak et al., "GPU-vote:
 * a framework for accelerating voting algorithms on GPU", section 5).
 *
 * A vote run takes, by Eq. 7-10 of the paper,
 *
 *   T1 = a E + b eta E + c                          stage 1 (location-based voting only)
 *   T2 = d (eta E / S') F + e eta E F + f           stage 2
 *   P  = max(floor(SM / (G ceil(N / Nmax))), 1)     Eq. 8
 *   F  = ceil(G ceil(N / Nmax) / SM) / P            Eq. 9
 *
 * with E elements of which the fraction eta passes stage 1, G vote spaces of N bins, SM
 * compute units, and S', P and ceil(N / Nmax) (the passes) taken from the plan
 * (votecl_vote_plan_describe()). The engine chooses P itself (several work-groups per compute
 * unit, fewer for small inputs), so F is computed from the plan's P as
 * ceil(G passes P / SM) / P, which is Eq. 9 whenever P is Eq. 8's. Two terms are added to
 * the paper's: g times the words zeroed before the votes and folded by the merge, G N copies
 * (copies: the plan's partial vote spaces, its P for the local strategy, which zeroes on chip
 * and runs no merge when P = 1), and h times the local words each work-group zeroes and
 * folds, per wave of work-groups (F P): S' min(N, Nmax) for the local strategy, WG ceil(N / 2)
 * 16-bit counter words for the private strategy on chip. The paper's GPU hides both behind
 * the votes; on CPUs, and for small inputs with many bins, they dominate.
 *
 * Two more terms follow the kernels the engine really runs. i: the private strategy with its
 * copies in global memory runs one work-item per part, which votes its eta E / P elements one
 * after the other (a read-modify-write of its own copy each), in waves of work-groups of WG
 * work-items: i times eta E ceil(ceil(G P / WG) / SM) / P, Eq. 9 for the work-groups that
 * kernel launches, in place of d and e (a vote costs a memory round trip, not a share of a
 * work-group's throughput). j: value-based runs vote every element from 16-byte vector loads,
 * neighbouring pixels into neighbouring bins: j times E F (E F_serial for serial private) is
 * what such a vote costs more or less than a stage-1 survivor's.
 *
 * Three more (model file version 3) describe the hardware beneath Eq. 9. k: seconds per
 * kernel launch or buffer fill of stage 2 (the plan's launches: the merge kernel is skipped
 * when the last work-group merges or P = 1, and the global and private strategies fill their
 * copies first), which a single constant f cannot follow. l: the wave granularity: the T =
 * G passes P work-groups run in ceil(T / (SM k)) waves when k of them fit on a compute unit
 * at once (the plan's resident: work-group size and local memory), and a wave of work-groups
 * each voting eta E / P elements takes as long as one of them when the groups' votes are
 * latency-bound rather than throughput-bound: l times eta E ceil(T / (SM k)) / P, beside
 * e's throughput-bound eta E F. m: the cache footprint of the copies in global memory (global
 * strategy, private in global memory): a vote's read-modify-write costs more as the G N copies
 * outgrow the caches, m times eta E F log2(1 + footprint / 64 KiB).
 *
 * The parameters a-m are fitted per device and per strategy (local, global, private) by
 * linear least squares on relative error from timed training runs (votecl_model_calibrate(),
 * `votecl calibrate`) and stored as one text file per device in the context's cache directory
 * (env.md in $(docdir)). Once a device is calibrated, votecl_vote_plan_predict() answers and plans
 * whose strategy is left to the library are chosen by the model.
 *
 * Timings are measured, so the model is a property of the machine at calibration time: a
 * driver update changes the device's identity and with it the file, which makes the device
 * uncalibrated again. */
#ifndef VOTECL_MODEL_H
#define VOTECL_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-context.h>
#include <votecl/votecl-export.h>
#include <votecl/votecl-status.h>
#include <votecl/votecl-vote.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The parameters, in this order in votecl_model_params.param. */
typedef enum votecl_model_term {
    VOTECL_MODEL_TERM_A = 0,  /**< seconds per element examined by stage 1 */
    VOTECL_MODEL_TERM_B = 1,  /**< seconds per element kept by stage 1 */
    VOTECL_MODEL_TERM_C = 2,  /**< stage 1's constant */
    VOTECL_MODEL_TERM_D = 3,  /**< seconds per kept element / S', times F */
    VOTECL_MODEL_TERM_E = 4,  /**< seconds per kept element, times F */
    VOTECL_MODEL_TERM_F = 5,  /**< stage 2's constant */
    VOTECL_MODEL_TERM_G = 6,  /**< seconds per bin folded by the merge */
    VOTECL_MODEL_TERM_H = 7,  /**< seconds per local bin a work-group zeroes and folds, per wave */
    VOTECL_MODEL_TERM_I = 8,  /**< seconds per element a serial private work-item votes, per wave */
    VOTECL_MODEL_TERM_J = 9,  /**< seconds per value-based vote beyond d and e (or i) */
    VOTECL_MODEL_TERM_K = 10, /**< seconds per kernel launch or fill of stage 2 */
    /** seconds per kept element / P, times the waves of resident groups */
    VOTECL_MODEL_TERM_L = 11,
    VOTECL_MODEL_TERM_M = 12, /**< seconds per kept element, times F and log2 of the footprint */
    VOTECL_MODEL_NTERMS = 13  /**< the number of terms */

} votecl_model_term;

/** "a" .. "m"; NULL for other values. Transfer none. */
VOTECL_API const char *votecl_model_term_name(votecl_model_term term);

/** The fit of one strategy. A term the samples cannot tell apart from another (S' never
 * varied, no value-based runs, ...) or that came out negative is left at 0 and the others
 * absorb it. */
typedef struct votecl_model_params {
    int fitted;                        /**< nonzero when the strategy has a fit */
    double param[VOTECL_MODEL_NTERMS]; /**< a-m, seconds per unit of their term */
    unsigned samples;                  /**< training runs the fit used */
    double mean_abs_error;             /**< mean |predicted - measured| / measured over them */
} votecl_model_params;

/** A device's model: one fit per strategy, indexed by votecl_variant (entry AUTO unused). */
typedef struct votecl_model {
    votecl_model_params strategy[4]; /**< the fits, indexed by votecl_variant */
} votecl_model;

/** One timed run (or one case to predict): what Eq. 7-10 need. */
typedef struct votecl_model_sample {
    votecl_variant variant;   /**< the strategy that ran */
    int location_based;       /**< nonzero: stage 1 ran (the spec has vote_test) */
    double elements;          /**< E */
    double eta;               /**< fraction kept by stage 1 (1 for value-based runs) */
    unsigned spaces;          /**< G */
    uint64_t nbins;           /**< N per space */
    unsigned stretch;         /**< S' (1 for global and private) */
    unsigned parts;           /**< P */
    unsigned passes;          /**< ceil(N / Nmax) (1 for global and private) */
    unsigned copies;          /**< partial vote spaces per space that the merge folds */
    unsigned compute_units;   /**< SM */
    unsigned work_group_size; /**< WG of the vote kernel (0: taken as 1) */
    int serial;               /**< nonzero: one work-item per part votes its elements serially
                                 (the private strategy with its copies in global memory) */
    double seconds;           /**< measured (for fitting and evaluation); ignored by predictions */
    unsigned launches;        /**< kernel launches and fills of stage 2 (0: taken as 1) */
    unsigned resident;        /**< vote work-groups resident per compute unit (0: taken as 1) */
    double footprint;         /**< bytes of global memory the votes go to (0: on chip) */
} votecl_model_sample;

/** Fills a sample from a plan's description (votecl_vote_plan_describe() for E elements)
 * and the device's compute units. info, sample: borrowed and caller-owned output. A private
 * plan counts as serial unless it looks like the engine's on-chip private kernel (value-based,
 * one copy per part, N <= 4096 and WG a multiple of 32): the description does not say which
 * of the two kernels runs. */
VOTECL_API void votecl_model_sample_from_info(const votecl_vote_plan_info *info,
                                              unsigned compute_units, int location_based,
                                              double elements, double eta,
                                              votecl_model_sample *sample);

/** Eq. 9 generalised to the plan's P: ceil(G passes P / SM) / P. (Serial private runs use
 * ceil(ceil(G P / WG) / SM) / P: their work-groups hold WG parts each.) */
VOTECL_API double votecl_model_factor(unsigned spaces, unsigned passes, unsigned parts,
                                      unsigned compute_units);

/** Fits the parameters of one strategy from the samples of that strategy in samples
 * (borrowed, count entries; samples of other strategies are ignored) into params
 * (caller-owned output). Returns VOTECL_OK, VOTECL_INVALID_ARGUMENT for NULL pointers, and
 * VOTECL_UNSUPPORTED when the samples cannot determine the model: fewer samples than
 * parameters, non-positive times, or a degenerate design (eta or E never varied, ...);
 * VOTECL_OUT_OF_HOST_MEMORY; params->fitted is then 0. */
VOTECL_API votecl_status votecl_model_fit(const votecl_model_sample *samples, size_t count,
                                          votecl_variant variant, votecl_model_params *params);

/** The predicted seconds of a sample with the model's fit for the sample's strategy.
 * Returns VOTECL_UNSUPPORTED when that strategy has no fit, VOTECL_INVALID_ARGUMENT for
 * NULL pointers. The prediction is never below zero. */
VOTECL_API votecl_status votecl_model_predict(const votecl_model *model,
                                              const votecl_model_sample *sample,
                                              double *seconds);

/** Loads the stored model of the context's device into model (caller-owned output).
 * Returns VOTECL_OK, or VOTECL_UNSUPPORTED when the device is not calibrated: no file, a
 * file of another version or device, or a malformed one (all the same to the caller: a
 * model file never makes a call fail). */
VOTECL_API votecl_status votecl_model_load(votecl_context *context, votecl_model *model);

/** Stores model (borrowed) as the device's model: a temporary file, then rename.
 * Returns VOTECL_OK, VOTECL_UNSUPPORTED when the context has no cache directory (disk cache
 * off), VOTECL_IO_ERROR when the file cannot be written (the context's message says why). */
VOTECL_API votecl_status votecl_model_store(votecl_context *context, const votecl_model *model);

/** The file holding the device's model, whether or not it exists, into path (caller-owned,
 * capacity size). Returns VOTECL_UNSUPPORTED without a cache directory, VOTECL_INVALID_ARGUMENT
 * when size is too small. */
VOTECL_API votecl_status votecl_model_path(const votecl_context *context, char *path,
                                           size_t size);

/** Options of votecl_model_calibrate() and votecl_model_evaluate(); fill with
 * votecl_calibrate_options_init() first. */
typedef struct votecl_calibrate_options {
    size_t struct_size; /**< set by the _init function: see votecl.h */
    int quick;          /**< nonzero: a small training set (smoke tests), about 10x faster */
    unsigned repeats;   /**< rounds over the cases (at most 32), the fastest round of a case
                           counts; 0: 5 (3 when quick) */
    int store;          /**< nonzero (default): store the fit with votecl_model_store() */
    unsigned variants;  /**< strategies to calibrate, bits 1 << votecl_variant; 0 (default):
                           every strategy the device supports */
    /** Called after each case (may be NULL): done of total cases. The library prints
     * nothing itself. */
    void (*progress)(void *user, unsigned done, unsigned total);
    void *progress_user; /**< passed to progress as user; borrowed */
    /** Caller-owned output for the cases' samples (may be NULL); the report counts them. */
    votecl_model_sample *samples;
    size_t samples_capacity; /**< entries samples holds */
} votecl_calibrate_options;

/** Defaults: the full training set, 5 repeats, store on, every strategy, no callbacks. */
VOTECL_API void votecl_calibrate_options_init(votecl_calibrate_options *options);

/** What votecl_model_calibrate() or votecl_model_evaluate() measured. */
typedef struct votecl_calibrate_report {
    votecl_model model; /**< the fit (calibrate) or the model evaluated (evaluate) */
    size_t cases;       /**< runs timed (also when more than samples_capacity) */
    double seconds;     /**< wall time of the whole call */
    int stored;         /**< calibrate: nonzero when the fit was written */
    /** evaluate only: over the held-out cases, |predicted - measured| / measured */
    double mean_abs_error;
    double within_10;                  /**< share of cases within +-10% (0..1) */
    double max_abs_error;              /**< the largest |predicted - measured| / measured */
    double strategy_mean_abs_error[4]; /**< per votecl_variant */
    double strategy_within_10[4];      /**< share within +-10% per votecl_variant */
    /** evaluate only: over the held-out cases run with the strategy that the model picks for
       their G, N, E and eta (what a plan left to the library runs) */
    size_t picked_cases;
    double picked_mean_abs_error; /**< evaluate only: mean error of the picked strategy's runs */
    double picked_within_10;      /**< evaluate only: their share within +-10% */
} votecl_calibrate_report;

/** Times the training cases on the context's device and fits the model: a Hough-like
 * location-based vote (a synthetic u8 image with the fraction eta of its pixels set, votes
 * over G theta-rho spaces of N bins) and its value-based twin, varying E, eta (0.01-0.5),
 * G (1 to twice the compute units, six values) and N (32 to beyond Nmax where the training
 * set allows, seven values), each strategy forced in turn; the local strategy's cases also
 * vary the work-groups per compute unit (hence P) and cap S', the choices that plans of a
 * calibrated device make by the model. The cases of a strategy run in rounds, each case once per
 * round (warmed up, then votecl_vote_run_buffers() and votecl_context_finish()), and the
 * fastest round counts: other processes only ever add time, and a spell of load then slows
 * one round rather than every run of a few cases. options: borrowed, NULL for the defaults. report:
 * caller-owned output. Returns VOTECL_OK; VOTECL_UNSUPPORTED when no strategy could be fitted or
 * the fit cannot be stored for want of a cache directory; VOTECL_IO_ERROR when storing failed (the
 * report still holds the fit); or the status of a failing plan or run. */
VOTECL_API votecl_status votecl_model_calibrate(votecl_context *context,
                                                const votecl_calibrate_options *options,
                                                votecl_calibrate_report *report);

/** Times held-out cases (other sizes, eta, G and N than the training set's, each plan with its
 * own choice of S' and P) and compares them with model's predictions (model: borrowed, or NULL
 * for the stored model), per strategy and for the strategy model picks for each case
 * (picked_*). options as for calibrate (store is ignored). Returns VOTECL_OK, VOTECL_UNSUPPORTED
 * when there is no model, or the status of a failing plan or run. */
VOTECL_API votecl_status votecl_model_evaluate(votecl_context *context,
                                               const votecl_model *model,
                                               const votecl_calibrate_options *options,
                                               votecl_calibrate_report *report);

#ifdef __cplusplus
}
#endif

#endif
