// SPDX-License-Identifier: GPL-2.0
/*
 * The pure RM ABI decoder (kmod/nvrm/), compiled into qgpu.ko. It is included rather than listed
 * in Kbuild because nvsim.ko links the same source and an object may belong to one module only.
 */
#include "nvrm/nvrm_decode.c"
#include "nvrm/nvrm_clients.c"
#include "nvrm/nvrm_fabric.c"
#include "nvrm/nvrm_ctxbuf.c"
