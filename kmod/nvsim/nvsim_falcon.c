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
 * nvsim's GPU lists what an NVIDIA H200 listed (GSP firmware 580.159.04, read with
 * scripts/ctxbuf_probe.py in session 34; tests/unit/c/fixtures/nvidia-580-h200-ctxbuf.digest):
 * 35 falcons, each with its context attributes, address spaces and register base as read. Seven
 * video decoders, NVDEC1-7 (no NVDEC0), seven JPEG decoders, NVJPEG0 and 2-7 (no NVJPEG1), one
 * optical flow engine and SEC2, beside 18 falcons of classes no engine type of a channel group
 * names. Every one of them has a 4 KiB context buffer but SEC2 (64 KiB), so each falcon
 * group takes one 64 KiB pool chunk, as the H200 took; a group of an engine the list lacks
 * (NVDEC0, NVJPEG1, any encoder) takes nothing, and RM makes it all the same.
 */
#include "nvsim_internal.h"

#include "nvrm/nvrm_ctxbuf.h"

/* engDesc, ctxAttr, ctxBufferSize, addrSpaceList, registerBase: the H200's list, in its order */
#define NVSIM_FALCON(desc, attr, bytes, base) \
	{ .eng_desc = (desc), .ctx_attr = (attr), .ctx_buffer_size = (bytes), \
	  .addr_space_list = 3, .register_base = (base) }

static const struct nvrm_constructed_falcon_info nvsim_falcons = {
	.count = 35,
	.falcons = {
		NVSIM_FALCON(0x8a20bf00, 2, 0x1000, 0x9a4000),
		NVSIM_FALCON(0x5ee8dc00, 2, 0x1000, 0x409000),
		NVSIM_FALCON(0x4781e800, 2, 0x1000, 0x422000),
		NVSIM_FALCON(0x5ee8dc01, 2, 0x1000, 0x1209000),
		NVSIM_FALCON(0x4781e801, 2, 0x1000, 0),
		NVSIM_FALCON(0x5ee8dc02, 2, 0x1000, 0x1409000),
		NVSIM_FALCON(0x4781e802, 2, 0x1000, 0),
		NVSIM_FALCON(0x5ee8dc03, 2, 0x1000, 0x1609000),
		NVSIM_FALCON(0x4781e803, 2, 0x1000, 0),
		NVSIM_FALCON(0x5ee8dc04, 2, 0x1000, 0x1809000),
		NVSIM_FALCON(0x4781e804, 2, 0x1000, 0),
		NVSIM_FALCON(0x5ee8dc05, 2, 0x1000, 0x1a09000),
		NVSIM_FALCON(0x4781e805, 2, 0x1000, 0),
		NVSIM_FALCON(0x5ee8dc06, 2, 0x1000, 0x1c09000),
		NVSIM_FALCON(0x4781e806, 2, 0x1000, 0),
		NVSIM_FALCON(0x5ee8dc07, 2, 0x1000, 0x1e09000),
		NVSIM_FALCON(0x4781e807, 2, 0x1000, 0),
		/* NVDEC1-7 */
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC, 1), 2, 0x1000, 0x84c000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC, 2), 2, 0x1000, 0x850000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC, 3), 2, 0x1000, 0x854000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC, 4), 2, 0x1000, 0x858000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC, 5), 2, 0x1000, 0x85c000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC, 6), 2, 0x1000, 0x860000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVDEC, 7), 2, 0x1000, 0x864000),
		NVSIM_FALCON(0xf3d72200, 1, 0x1000, 0x10a000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_SEC2, 0), 2, 0x10000, 0x840000),
		/* NVJPEG0, 2-7 */
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG, 0), 2, 0x1000, 0x9c0000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG, 2), 2, 0x1000, 0x9d0000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG, 3), 2, 0x1000, 0x9d8000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG, 4), 2, 0x1000, 0x9e0000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG, 5), 2, 0x1000, 0x9e8000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG, 6), 2, 0x1000, 0x9f0000),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_NVJPG, 7), 2, 0x1000, 0x9f8000),
		NVSIM_FALCON(0xd3915800, 2, 0x1000, 0xffffffff),
		NVSIM_FALCON(NVRM_ENGDESC(NVRM_FALCON_CLASS_OFA, 0), 2, 0x1000, 0x844000),
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
