/* The execution-time model's internal interface (lib/model.c): what the engine calls through
 * context->model, and what algorithms and tests call directly. */
#ifndef VOTECL_MODEL_PRIVATE_H
#define VOTECL_MODEL_PRIVATE_H

#include "votecl-private.h"

/* The strategy the model predicts fastest for G = spaces vote spaces of nbins bins over
 * elements_hint elements (0: a 1920x1080 frame) of which eta_hint pass stage 1 (<= 0: 1),
 * among the strategies the device is calibrated for; VOTECL_VARIANT_AUTO when the device
 * is not calibrated, so that the caller keeps its own rule. Only stage 2 is compared: stage 1
 * does the same work under every strategy. Never records an error in the context. */
votecl_variant votecl__model_choose(votecl_context *context, uint64_t nbins, unsigned spaces,
                                    size_t elements_hint, double eta_hint);

/* votecl__model_choose with a given model (borrowed) in place of the stored one. */
votecl_variant votecl__model_choose_with(votecl_context *context, const votecl_model *model,
                                         uint64_t nbins, unsigned spaces, size_t elements_hint,
                                         double eta_hint);

/* The model's seconds for a plan described by info (votecl_vote_plan_describe() for
 * elements), location_based when the plan has a stage 1. Returns VOTECL_UNSUPPORTED when the
 * device has no fit for info->variant; records no error. */
votecl_status votecl__model_predict_info(votecl_context *context,
                                         const votecl_vote_plan_info *info, int location_based,
                                         size_t elements, double eta, double *seconds);

/* The engine's view of the model (struct votecl__model_hooks, vote-private.h): what
 * context.c installs in every context. */
struct votecl__model_hooks;
extern const struct votecl__model_hooks votecl__model_hooks;

#endif
