// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the GPU's falcon engines (video decode, JPEG, optical flow), and the context buffer a
 * channel group of one reserves.
 *
 * DOC: falcon engines
 *
 * A GSP-based GPU's firmware constructs a falcon for each video decoder, JPEG decoder and optical
 * flow engine, each with the size of its engine's context buffer; kernel RM reads that list at
 * boot, and from 535 reserves one such buffer, contiguous, in the pools of each channel group made
 * on the engine (kchangrpapiConstruct_IMPL(), kernel_channel_group_api.c; nvrm_ctxbuf.h). From
 * 550 any client can read the list too (GET_CONSTRUCTED_FALCON_INFO; before, RM answers
 * NV_ERR_NOT_SUPPORTED, as for any control it lacks).
 *
 * nvsim's GPU has an H100's set (seven decoders, seven JPEG decoders, one optical flow engine; no
 * encoder). No GPU's list was read, so the sizes are placeholders picked to take chunks of two
 * pool sizes: a decoder's and the optical flow engine's take a 256 KiB chunk, a JPEG decoder's
 * 64 KiB. nvsim leaves each falcon's attributes, address spaces and register base 0. A group on
 * SEC2 takes kernel RM's 64 KiB (nvrm_ctxbuf_falcon_group()); one on an engine the GPU lacks
 * reserves nothing.
 */
#include "nvsim_internal.h"

#include "nvrm/nvrm_ctxbuf.h"

#define NVSIM_NVDEC_CTX_BYTES	(160u << 10)
#define NVSIM_NVJPG_CTX_BYTES	(32u << 10)
#define NVSIM_OFA_CTX_BYTES	(192u << 10)

#define NVSIM_FALCON(class_id, inst, bytes) \
	{ .eng_desc = NVRM_ENGDESC(class_id, inst), .ctx_buffer_size = (bytes) }
#define NVSIM_NVDEC(inst)	NVSIM_FALCON(NVRM_FALCON_CLASS_NVDEC, inst, NVSIM_NVDEC_CTX_BYTES)
#define NVSIM_NVJPG(inst)	NVSIM_FALCON(NVRM_FALCON_CLASS_NVJPG, inst, NVSIM_NVJPG_CTX_BYTES)

static const struct nvrm_constructed_falcon_info nvsim_falcons = {
	.count = 15,
	.falcons = {
		NVSIM_NVDEC(0), NVSIM_NVDEC(1), NVSIM_NVDEC(2), NVSIM_NVDEC(3),
		NVSIM_NVDEC(4), NVSIM_NVDEC(5), NVSIM_NVDEC(6),
		NVSIM_NVJPG(0), NVSIM_NVJPG(1), NVSIM_NVJPG(2), NVSIM_NVJPG(3),
		NVSIM_NVJPG(4), NVSIM_NVJPG(5), NVSIM_NVJPG(6),
		NVSIM_FALCON(NVRM_FALCON_CLASS_OFA, 0, NVSIM_OFA_CTX_BYTES),
	},
};

/**
 * nvsim_falcon_group_bytes() - what RM's pools take for a channel group of a falcon engine
 * @engine_type: the group's NV2080_ENGINE_TYPE
 *
 * Return: bytes of video memory, 0 for an engine that is not a falcon's or that the GPU lacks.
 */
u64 nvsim_falcon_group_bytes(u32 engine_type)
{
	return nvrm_ctxbuf_falcon_group(&nvsim_falcons, engine_type);
}

/* GET_CONSTRUCTED_FALCON_INFO: the list, from 550 (DOC: falcon engines). */
static u32 nvsim_ctrl_constructed_falcon_info(const struct nvsim_caller *caller,
					      struct nvsim_object *obj, void *buf)
{
	if (nvsim_abi.major < NVRM_CONSTRUCTED_FALCON_INFO_SINCE)
		return NVRM_ERR_NOT_SUPPORTED;
	memcpy(buf, &nvsim_falcons, sizeof(nvsim_falcons));
	return NVRM_OK;
}

const struct nvsim_control nvsim_falcon_controls[] = {
	{ NVRM_CTRL_CMD_GPU_GET_CONSTRUCTED_FALCON_INFO, NVRM_CLASS_NV20_SUBDEVICE_0,
	  sizeof(struct nvrm_constructed_falcon_info), nvsim_ctrl_constructed_falcon_info },
};

const unsigned int nvsim_falcon_num_controls = ARRAY_SIZE(nvsim_falcon_controls);
