// SPDX-License-Identifier: GPL-2.0
/*
 * The pure RM ABI decoder (kmod/nvrm/), compiled into nvsim.ko. It is included rather than listed
 * in Kbuild because an object may belong to one module only, and qgpu.ko links it too.
 */
#include "nvrm/nvrm_decode.c"
#include "nvrm/nvrm_fabric.c"
#include "nvrm/nvrm_ctxbuf.c"
