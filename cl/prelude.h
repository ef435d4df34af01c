/* prelude.h: the portable dialect of libvotecl's kernels.
 *
 * Every program is composed as: sorted defines, this file, common.h, the algorithm files.
 * Kernels are written in OpenCL C 1.2 using only what this file and common.h provide beyond
 * the core language, so that a CUDA mapping of this file can run the same sources.
 *
 * Floating point: no contraction of a*b+c into fma, so that bin boundaries computed here
 * agree bit for bit with the C reference built with -ffp-contract=off. */
#pragma OPENCL FP_CONTRACT OFF

#define VOTE_SKIP 0xffffffffu

#define KERNEL __kernel
#define GLOBAL __global
#define LOCAL __local
#define CONSTANT __constant
#define LOCAL_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
